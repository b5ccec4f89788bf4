#include "model/model_config.h"

#include <limits>

#include "core/error.h"

namespace nmt {

namespace {

template <typename Enum>
Enum parse_choice(const std::string& what, const std::string& value,
                  std::initializer_list<std::pair<const char*, Enum>> choices) {
    std::string names;
    for (const auto& [name, e] : choices) {
        if (value == name) return e;
        names += names.empty() ? name : std::string("|") + name;
    }
    throw Error("unknown " + what + " '" + value + "' (expected " + names + ")");
}

void require_range(const char* field, int value, int low, int high) {
    if (value < low || value > high)
        throw Error("model configuration: " + std::string(field) + " = " + std::to_string(value) +
                    " is outside [" + std::to_string(low) + ", " + std::to_string(high) + "]");
}

}  // namespace

std::string to_string(CellType v) { return v == CellType::GRU ? "gru" : "lstm"; }
std::string to_string(DecoderStyle v) {
    switch (v) {
        case DecoderStyle::Bahdanau: return "bahdanau";
        case DecoderStyle::Luong: return "luong";
        case DecoderStyle::Conditional: return "conditional";
    }
    return "?";
}
std::string to_string(AttentionType v) {
    switch (v) {
        case AttentionType::Additive: return "additive";
        case AttentionType::Dot: return "dot";
        case AttentionType::General: return "general";
        case AttentionType::ScaledDot: return "scaled-dot";
    }
    return "?";
}

CellType parse_cell(const std::string& s) {
    return parse_choice<CellType>("cell", s, {{"gru", CellType::GRU}, {"lstm", CellType::LSTM}});
}
DecoderStyle parse_decoder_style(const std::string& s) {
    return parse_choice<DecoderStyle>("decoder style", s,
                                      {{"bahdanau", DecoderStyle::Bahdanau},
                                       {"luong", DecoderStyle::Luong},
                                       {"conditional", DecoderStyle::Conditional}});
}
AttentionType parse_attention(const std::string& s) {
    return parse_choice<AttentionType>("attention", s,
                                       {{"additive", AttentionType::Additive},
                                        {"dot", AttentionType::Dot},
                                        {"general", AttentionType::General},
                                        {"scaled-dot", AttentionType::ScaledDot}});
}

void ModelConfig::validate() const {
    require_range("encoder_depth", encoder_depth, 1, 16);
    require_range("dim_emb", dim_emb, 1, 8192);
    require_range("dim_rnn", dim_rnn, 1, 8192);
    require_range("dim_dec", dim_dec, 1, 8192);
    require_range("dim_attention", dim_attention, 1, 8192);
    require_range("source_vocab_size", source_vocab_size, 4, 1 << 20);
    require_range("target_vocab_size", target_vocab_size, 4, 1 << 20);
    require_range("max_source_pieces", max_source_pieces, 2, 1 << 16);  // one piece and EOS
    if (attention == AttentionType::Dot && dim_dec != dim_context())
        throw Error("model configuration: dot attention needs the decoder state size (" + std::to_string(dim_dec) +
                    ") to equal the encoder output size 2*dim_rnn (" + std::to_string(dim_context()) +
                    "); use `attention` general or change the dimensions");
    if (tied_source_embeddings && source_vocab_size != target_vocab_size)
        throw Error("model configuration: tied source embeddings need one joint vocabulary, but the source has " +
                    std::to_string(source_vocab_size) + " pieces and the target " +
                    std::to_string(target_vocab_size));
    if (lexical_model && decoder_style == DecoderStyle::Luong)
        throw Error("model configuration: the lexical model needs the bahdanau or conditional decoder style, not luong");
}

nlohmann::json to_json(const ModelConfig& c) {
    nlohmann::json j = {
        {"encoder_cell", to_string(c.encoder_cell)},
        {"encoder_depth", c.encoder_depth},
        {"decoder_cell", to_string(c.decoder_cell)},
        {"decoder_style", to_string(c.decoder_style)},
        {"attention", to_string(c.attention)},
        {"input_feeding", c.input_feeding},
        {"tied_embeddings", c.tied_embeddings},
        {"dim_emb", c.dim_emb},
        {"dim_rnn", c.dim_rnn},
        {"dim_dec", c.dim_dec},
        {"dim_attention", c.dim_attention},
        {"source_vocab_size", c.source_vocab_size},
        {"target_vocab_size", c.target_vocab_size},
        {"max_source_pieces", c.max_source_pieces},
        {"source_language", c.source_language},
        {"target_language", c.target_language},
    };
    // Written only when set, so that models without them keep their exact bytes.
    if (c.tied_source_embeddings) j["tied_source_embeddings"] = true;
    if (c.layer_norm) j["layer_norm"] = true;
    if (c.lexical_model) j["lexical_model"] = true;
    return j;
}

ModelConfig config_from_json(const nlohmann::json& j) {
    if (!j.is_object()) throw Error("model configuration is not a JSON object");
    auto get = [&](const char* key, auto& out) {
        if (!j.contains(key)) throw Error(std::string("model configuration lacks '") + key + "'");
        try {
            j.at(key).get_to(out);
        } catch (const nlohmann::json::exception&) {
            throw Error(std::string("model configuration: '") + key + "' has the wrong type");
        }
    };
    // A size must be a JSON integer that fits an int: nlohmann would turn
    // 2147483648 into -2147483648, 2^40 into 0 and 256.5 into 256, and the
    // message would then blame the wrong number. validate() checks the ranges.
    auto get_int = [&](const char* key, int& out) {
        if (!j.contains(key)) throw Error(std::string("model configuration lacks '") + key + "'");
        const nlohmann::json& value = j.at(key);
        std::string shown = value.dump();
        if (shown.size() > 40) shown = shown.substr(0, 40) + "...";
        if (!value.is_number_integer())
            throw Error(std::string("model configuration: '") + key + "' is " + shown + ", not an integer");
        const bool fits = value.is_number_unsigned()
                              ? value.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int>::max())
                              : value.get<int64_t>() >= std::numeric_limits<int>::min() &&
                                    value.get<int64_t>() <= std::numeric_limits<int>::max();
        if (!fits) throw Error(std::string("model configuration: '") + key + "' is " + shown + ", far out of range");
        out = static_cast<int>(value.get<int64_t>());
    };
    ModelConfig c;
    std::string enc_cell, dec_cell, style, attention;
    get("encoder_cell", enc_cell);
    get("decoder_cell", dec_cell);
    get("decoder_style", style);
    get("attention", attention);
    c.encoder_cell = parse_cell(enc_cell);
    c.decoder_cell = parse_cell(dec_cell);
    c.decoder_style = parse_decoder_style(style);
    c.attention = parse_attention(attention);
    get_int("encoder_depth", c.encoder_depth);
    get("input_feeding", c.input_feeding);
    get("tied_embeddings", c.tied_embeddings);
    if (j.contains("tied_source_embeddings")) get("tied_source_embeddings", c.tied_source_embeddings);
    if (j.contains("layer_norm")) get("layer_norm", c.layer_norm);
    if (j.contains("lexical_model")) get("lexical_model", c.lexical_model);
    get_int("dim_emb", c.dim_emb);
    get_int("dim_rnn", c.dim_rnn);
    get_int("dim_dec", c.dim_dec);
    get_int("dim_attention", c.dim_attention);
    get_int("source_vocab_size", c.source_vocab_size);
    get_int("target_vocab_size", c.target_vocab_size);
    get_int("max_source_pieces", c.max_source_pieces);
    get("source_language", c.source_language);
    get("target_language", c.target_language);
    c.validate();
    return c;
}

}  // namespace nmt
