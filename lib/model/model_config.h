// The architecture of a model: every choice the equations in MODEL.md leave
// open. Stored as JSON in the model file's metadata so a file describes itself.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace nmt {

enum class CellType { GRU, LSTM };
// Bahdanau: attend from s_{t−1}, context into the RNN. Luong: RNN first, then
// attend from s_t. Conditional (Nematus' cGRU, Sennrich et al. 2017): a first
// RNN on the previous word, attention from its state, a second RNN on the
// context, so attention knows which word was just emitted.
enum class DecoderStyle { Bahdanau, Luong, Conditional };
enum class AttentionType { Additive, Dot, General, ScaledDot };

struct ModelConfig {
    CellType encoder_cell = CellType::GRU;
    int encoder_depth = 2;  // layer 1 bidirectional, the rest left-to-right
    CellType decoder_cell = CellType::GRU;
    DecoderStyle decoder_style = DecoderStyle::Bahdanau;
    AttentionType attention = AttentionType::Additive;
    bool input_feeding = true;  // Luong style only: feed the previous attentional state to the RNN
    bool tied_embeddings = false;  // the output projection reuses the target embedding table
    // The encoder reads the target embedding table too (Marian's
    // --tied-embeddings-src; with tied_embeddings, --tied-embeddings-all):
    // one table for a joint vocabulary, learnt from both sides of the data.
    bool tied_source_embeddings = false;
    // Every RNN cell normalises its input and recurrent products per gate
    // (Marian's --layer-normalization; the equations are in rnn_cell.h).
    bool layer_norm = false;
    // A lexical model (after Nguyen & Chiang 2018): the attention-weighted
    // average of the source *embeddings*, ℓ_t = Σ_j α_tj x_j, is added to the
    // deep output through W_ℓ, o_t = tanh(W_o [s_t; c_t; E y_{t−1}] + b_o) + W_ℓ ℓ_t,
    // so that each source word's identity reaches the softmax in one linear
    // step (a learnt lexical translation table, weighted by attention) instead
    // of only through the encoder's states. Bahdanau and conditional decoders.
    bool lexical_model = false;
    int dim_emb = 256;
    int dim_rnn = 256;   // encoder state per direction
    int dim_dec = 512;   // decoder state
    int dim_attention = 256;  // additive attention's hidden size
    int source_vocab_size = 0;
    int target_vocab_size = 0;
    int max_source_pieces = 256;  // longer inputs are cropped with a warning
    std::string source_language;  // ISO code, informative ("en")
    std::string target_language;

    int dim_context() const { return 2 * dim_rnn; }  // encoder output: [→h; ←h] (deeper layers keep 2·d)
    int dim_output() const { return dim_emb; }       // deep output size, = d_emb so it can be tied
    int gates(CellType cell) const { return cell == CellType::GRU ? 3 : 4; }
    // The parameter the encoder embeds source pieces with.
    const char* source_embeddings() const { return tied_source_embeddings ? "target.embeddings" : "source.embeddings"; }

    // Throws nmt::Error naming the field when a value is out of range or the
    // combination cannot work (dot attention with mismatched sizes).
    void validate() const;
};

std::string to_string(CellType v);
std::string to_string(DecoderStyle v);
std::string to_string(AttentionType v);
CellType parse_cell(const std::string& s);
DecoderStyle parse_decoder_style(const std::string& s);
AttentionType parse_attention(const std::string& s);

nlohmann::json to_json(const ModelConfig& config);
ModelConfig config_from_json(const nlohmann::json& json);  // throws nmt::Error on a missing or bad field

}  // namespace nmt
