#include "decode/source_encoding.h"

#include <algorithm>

#include "core/error.h"

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

SourceIds encode_tokens(const Vocabulary& vocab, int max_pieces, const std::vector<std::string>& tokens,
                        std::vector<int>& pieces_per_token) {
    if (max_pieces < 2) throw Error("max_source_pieces must be at least 2");
    const size_t limit = static_cast<size_t>(max_pieces) - 1;  // room for EOS
    SourceIds source;
    pieces_per_token.assign(tokens.size(), 0);
    for (size_t k = 0; k < tokens.size(); ++k) {
        if (source.ids.size() >= limit) {
            source.cropped = true;
            break;
        }
        // A token is at most a line (LineReader's limit); its pieces beyond
        // what can fit are cut as encode_source cuts a line.
        const SourceIds piece_ids = encode_source(vocab, static_cast<int>(limit - source.ids.size()) + 1, tokens[k]);
        const size_t count = piece_ids.ids.empty() ? 0 : piece_ids.ids.size() - 1;  // without its EOS
        source.ids.insert(source.ids.end(), piece_ids.ids.begin(), piece_ids.ids.begin() + count);
        pieces_per_token[k] = static_cast<int>(count);
        source.cropped = source.cropped || piece_ids.cropped;
    }
    if (!source.ids.empty()) source.ids.push_back(vocab.eos_id());
    return source;
}

std::vector<std::string> split_tokens(const std::string& text) {
    std::vector<std::string> tokens;
    size_t begin = 0;
    while ((begin = text.find_first_not_of(" \t", begin)) != std::string::npos) {
        const size_t end = std::min(text.size(), text.find_first_of(" \t", begin));
        tokens.push_back(text.substr(begin, end - begin));
        begin = end;
    }
    return tokens;
}

}  // namespace nmt
