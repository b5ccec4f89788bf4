#include "source_encoding.h"

#include "error.h"

namespace nmt {

SourceIds encode_source(const Vocabulary& vocab, int max_source_pieces, const std::string& line) {
    if (max_source_pieces < 2) throw Error("max_source_pieces must be at least 2");
    const size_t limit = static_cast<size_t>(max_source_pieces) - 1;  // room for EOS
    const size_t byte_limit = 64 * limit;
    SourceIds source;
    size_t cut = line.size();
    if (cut > byte_limit) {
        cut = byte_limit;
        while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
        source.cropped = true;
    }
    source.ids = vocab.encode(cut == line.size() ? line : line.substr(0, cut));
    if (source.ids.size() > limit) {
        source.ids.resize(limit);
        source.cropped = true;
    }
    if (!source.ids.empty()) source.ids.push_back(vocab.eos_id());
    return source;
}

}  // namespace nmt
