// A SentencePiece model, loaded from the bytes embedded in the model file.
// Ids are SentencePiece's own; the engine needs BOS (decoder start) and EOS.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace nmt {

class Vocabulary {
public:
    // `origin` names where the bytes came from, for error messages.
    Vocabulary(const std::string& serialized_model, const std::string& origin);
    ~Vocabulary();
    // Copies share the loaded SentencePiece model, which nothing changes after loading.
    Vocabulary(const Vocabulary&);
    Vocabulary(Vocabulary&&) noexcept;

    static std::string read_file(const std::string& path);  // bytes of a .model file, checked loadable

    int size() const;
    int bos_id() const { return bos_; }
    int eos_id() const { return eos_; }
    std::vector<int> encode(const std::string& text) const;
    // The `n` most probable segmentations of `text`, best first, each with its
    // log-probability under the unigram model (the sum of its pieces' scores).
    // Subword regularisation samples from them (subword_sampling.h).
    struct Segmentation {
        std::vector<int> ids;
        float log_probability = 0;
    };
    std::vector<Segmentation> nbest_encode(const std::string& text, int n) const;
    std::string decode(const std::vector<int>& ids) const;
    std::string piece(int id) const;
    const std::string& serialized() const { return serialized_; }

private:
    std::string serialized_;
    std::shared_ptr<const sentencepiece::SentencePieceProcessor> processor_;
    int bos_ = -1, eos_ = -1;
};

}  // namespace nmt
