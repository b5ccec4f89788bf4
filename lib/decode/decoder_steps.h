// Beam search's view of the decoder: an encoded batch plus its rows' state.
#pragma once
#include "decode/beam_search.h"
#include "layers/decoder.h"

namespace nmt {

class DecoderSteps : public StepModel {
public:
    DecoderSteps(Decoder& decoder, const EncodedBatch& batch)
        : decoder_(decoder), batch_(batch), state_(decoder.start(batch)) {}

    int64_t vocab_size() const override { return decoder_.vocab_size(); }
    const std::vector<int>& output_ids() const override { return decoder_.output_ids(); }

    void step(const std::vector<int>& parents, const std::vector<int>& tokens, Tensor& log_probs,
              Tensor& attention) override {
        decoder_.select_rows(state_, parents);
        decoder_.step(batch_, state_, tokens.data(), log_probs, attention);
    }

private:
    Decoder& decoder_;
    const EncodedBatch& batch_;
    DecoderState state_;
};

}  // namespace nmt
