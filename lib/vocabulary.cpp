#include "vocabulary.h"


#include <sentencepiece_processor.h>

#include "error.h"
#include "input_file.h"

namespace nmt {

Vocabulary::Vocabulary(const std::string& serialized_model, const std::string& origin)
    : serialized_(serialized_model), processor_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {
    const auto status = processor_->LoadFromSerializedProto(serialized_);
    if (!status.ok()) throw Error(origin + ": not a SentencePiece model (" + status.ToString() + ")");
    bos_ = processor_->bos_id();
    eos_ = processor_->eos_id();
    if (bos_ < 0 || eos_ < 0)
        throw Error(origin + ": the SentencePiece model has no BOS or EOS piece; train it with `nmt vocab`");
}

Vocabulary::~Vocabulary() = default;
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
