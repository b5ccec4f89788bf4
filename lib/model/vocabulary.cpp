#include "model/vocabulary.h"

#include <sentencepiece_processor.h>

#include <cstdint>
#include <string>

#include "core/error.h"
#include "io/input_file.h"

namespace nmt {

namespace {

// A protobuf varint at `at`; false when the bytes end first or it runs past 10 bytes.
bool read_varint(const std::string& bytes, size_t& at, uint64_t& value) {
    value = 0;
    for (int shift = 0; shift < 64 && at < bytes.size(); shift += 7) {
        const unsigned char c = bytes[at++];
        value |= static_cast<uint64_t>(c & 0x7F) << shift;
        if (c < 0x80) return true;
    }
    return false;
}

// SentencePiece hands its pieces to a trie builder (Darts) that throws on an
// empty piece or one holding a NUL byte, from code that cannot pass the
// exception on: the process ends in std::terminate (found by fuzzing the
// model loader). So the pieces are read here first, straight from the
// protobuf wire format (ModelProto field 1: the pieces; SentencePiece field
// 1: its text), and such a model is refused. Returns what is wrong, or "";
// malformed bytes are left for SentencePiece's own parser to report.
std::string unsafe_piece(const std::string& model) {
    size_t at = 0;
    int64_t index = 0;
    while (at < model.size()) {
        uint64_t key = 0, length = 0;
        if (!read_varint(model, at, key)) return "";
        switch (key & 7) {
            case 0: if (!read_varint(model, at, length)) return ""; continue;
            case 1: at += 8; continue;
            case 5: at += 4; continue;
            case 2: break;
            default: return "";
        }
        if (!read_varint(model, at, length) || length > model.size() - at) return "";
        const std::string field = model.substr(at, length);
        at += length;
        if (key >> 3 != 1) continue;
        // One SentencePiece message: find its field 1, the piece's text.
        size_t inner = 0;
        while (inner < field.size()) {
            uint64_t inner_key = 0, inner_length = 0;
            if (!read_varint(field, inner, inner_key)) return "";
            const uint64_t wire = inner_key & 7;
            if (wire == 0) {
                if (!read_varint(field, inner, inner_length)) return "";
            } else if (wire == 1 || wire == 5) {
                inner += wire == 1 ? 8 : 4;
            } else if (wire == 2) {
                if (!read_varint(field, inner, inner_length) || inner_length > field.size() - inner) return "";
                if (inner_key >> 3 == 1) {
                    const std::string piece = field.substr(inner, inner_length);
                    if (piece.empty()) return "piece " + std::to_string(index) + " is empty";
                    if (piece.find('\0') != std::string::npos)
                        return "piece " + std::to_string(index) + " holds a NUL byte";
                }
                inner += inner_length;
            } else {
                return "";
            }
        }
        ++index;
    }
    return "";
}

}  // namespace

Vocabulary::Vocabulary(const std::string& serialized_model, const std::string& origin)
    : serialized_(serialized_model) {
    const std::string unsafe = unsafe_piece(serialized_);
    if (!unsafe.empty()) throw Error(origin + ": not a usable SentencePiece model (" + unsafe + ")");
    auto processor = std::make_shared<sentencepiece::SentencePieceProcessor>();
    const auto status = processor->LoadFromSerializedProto(serialized_);
    processor_ = std::move(processor);
    if (!status.ok()) throw Error(origin + ": not a SentencePiece model (" + status.ToString() + ")");
    bos_ = processor_->bos_id();
    eos_ = processor_->eos_id();
    if (bos_ < 0 || eos_ < 0)
        throw Error(origin + ": the SentencePiece model has no BOS or EOS piece; train it with `nmt vocab`");
}

Vocabulary::~Vocabulary() = default;
Vocabulary::Vocabulary(const Vocabulary&) = default;
Vocabulary::Vocabulary(Vocabulary&&) noexcept = default;

std::string Vocabulary::read_file(const std::string& path) {
    // SentencePiece models are a few megabytes at most.
    Vocabulary check(read_small_file(path, size_t(64) << 20, "a SentencePiece model"), path);
    return check.serialized();
}

int Vocabulary::size() const { return processor_->GetPieceSize(); }

std::vector<int> Vocabulary::encode(const std::string& text) const {
    std::vector<int> ids;
    processor_->Encode(text, &ids);
    return ids;
}

std::vector<Vocabulary::Segmentation> Vocabulary::nbest_encode(const std::string& text, int n) const {
    sentencepiece::ImmutableNBestSentencePieceText nbest;
    const auto status = processor_->NBestEncode(text, n, nbest.mutable_proto());
    if (!status.ok())
        throw Error("SentencePiece cannot list the " + std::to_string(n) + " best segmentations (" +
                    status.ToString() + "); subword sampling needs a unigram model");
    std::vector<Segmentation> segmentations;
    segmentations.reserve(nbest.nbests_size());
    for (const auto& candidate : nbest.nbests()) {
        Segmentation segmentation;
        segmentation.log_probability = candidate.score();
        for (const auto& piece : candidate.pieces()) segmentation.ids.push_back(static_cast<int>(piece.id()));
        segmentations.push_back(std::move(segmentation));
    }
    return segmentations;
}

std::string Vocabulary::decode(const std::vector<int>& ids) const {
    std::string text;
    processor_->Decode(ids, &text);
    return text;
}

std::string Vocabulary::piece(int id) const { return processor_->IdToPiece(id); }

}  // namespace nmt
