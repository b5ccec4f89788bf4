#include "test_support.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include <sentencepiece_trainer.h>
#include <unistd.h>

#include "core/error.h"
#include "core/random.h"
#include "model/vocabulary.h"

namespace nmt::testing {

namespace fs = std::filesystem;

fs::path temp_path(const std::string& group, const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("nmt_test_" + group + "_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir / name;
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

const std::string& tiny_spm(int vocab_size, const std::string& model_type) {
    static std::map<std::pair<int, std::string>, std::string> cache;
    auto& slot = cache[{vocab_size, model_type}];
    if (!slot.empty()) return slot;
    const fs::path corpus = temp_path("spm", "corpus.txt");
    const fs::path dir = corpus.parent_path();
    {
        std::ofstream out(corpus);
        Random random(7);
        const char* words[] = {"the", "cat", "sat", "on", "mat", "a", "dog", "runs", "in", "park", "bird", "sings"};
        for (int line = 0; line < 400; ++line) {
            const int n = 2 + random.below(8);
            for (int w = 0; w < n; ++w) {
                if (model_type == "char")
                    out << (w ? " " : "") << std::string(1 + random.below(3), "abc"[random.below(3)]);
                else
                    out << (w ? " " : "") << words[random.below(12)];
            }
            out << "\n";
        }
    }
    const std::string prefix = (dir / ("m" + std::to_string(vocab_size) + model_type)).string();
    const auto status = sentencepiece::SentencePieceTrainer::Train(
        "--input=" + corpus.string() + " --model_prefix=" + prefix + " --vocab_size=" + std::to_string(vocab_size) +
        " --model_type=" + model_type + " --character_coverage=1.0 --minloglevel=2 --hard_vocab_limit=false");
    if (!status.ok()) throw std::runtime_error("test vocabulary: " + status.ToString());
    slot = Vocabulary::read_file(prefix + ".model");
    fs::remove_all(dir);
    return slot;
}

ModelConfig small_config(CellType enc, CellType dec, DecoderStyle style, AttentionType attention) {
    ModelConfig c;
    c.encoder_cell = enc;
    c.decoder_cell = dec;
    c.decoder_style = style;
    c.attention = attention;
    c.encoder_depth = 2;
    c.dim_emb = 8;
    c.dim_rnn = 6;
    c.dim_dec = attention == AttentionType::Dot ? 12 : 10;
    c.dim_attention = 7;
    c.max_source_pieces = 64;
    return c;
}

Model random_model(ModelConfig config, uint64_t seed, int vocab_size, const std::string& type) {
    Vocabulary source(tiny_spm(vocab_size, type), "test vocabulary");
    Vocabulary target(tiny_spm(vocab_size, type), "test vocabulary");
    config.source_vocab_size = source.size();
    config.target_vocab_size = target.size();
    Model model = init_model(config, seed, std::move(source), std::move(target));
    Random random(seed + 1000);
    for (auto& [name, t] : model.parameters)
        for (auto& v : t.values) v = random.uniform(-0.8f, 0.8f);
    return model;
}

std::vector<ModelConfig> all_architectures() {
    std::vector<ModelConfig> out;
    for (auto enc : {CellType::GRU, CellType::LSTM})
        for (auto dec : {CellType::GRU, CellType::LSTM})
            for (auto style : {DecoderStyle::Bahdanau, DecoderStyle::Luong, DecoderStyle::Conditional})
                for (auto att : {AttentionType::Additive, AttentionType::Dot, AttentionType::General,
                                 AttentionType::ScaledDot})
                    out.push_back(small_config(enc, dec, style, att));
    ModelConfig no_feeding = small_config(CellType::GRU, CellType::GRU, DecoderStyle::Luong, AttentionType::General);
    no_feeding.input_feeding = false;
    out.push_back(no_feeding);
    ModelConfig tied = small_config(CellType::GRU, CellType::GRU, DecoderStyle::Bahdanau, AttentionType::Additive);
    tied.tied_embeddings = true;
    tied.encoder_depth = 3;  // also exercises the residual connection
    out.push_back(tied);
    ModelConfig tied_all = small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive);
    tied_all.tied_embeddings = tied_all.tied_source_embeddings = true;
    out.push_back(tied_all);
    // Layer-normalised cells: each cell type in the encoder and the decoder, each decoder style.
    using Architecture = std::tuple<CellType, CellType, DecoderStyle, AttentionType>;
    for (auto [enc, dec, style, att] :
         {Architecture{CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive},
          Architecture{CellType::LSTM, CellType::LSTM, DecoderStyle::Bahdanau, AttentionType::General},
          Architecture{CellType::GRU, CellType::LSTM, DecoderStyle::Luong, AttentionType::Dot}}) {
        ModelConfig ln = small_config(enc, dec, style, att);
        ln.layer_norm = true;
        ln.encoder_depth = 3;
        out.push_back(ln);
    }
    // The lexical model: both decoder styles it serves, tied and untied tables.
    ModelConfig lexical = small_config(CellType::GRU, CellType::LSTM, DecoderStyle::Bahdanau, AttentionType::General);
    lexical.lexical_model = true;
    out.push_back(lexical);
    ModelConfig lexical_tied = small_config(CellType::GRU, CellType::GRU, DecoderStyle::Conditional, AttentionType::Additive);
    lexical_tied.lexical_model = lexical_tied.tied_embeddings = lexical_tied.tied_source_embeddings = true;
    out.push_back(lexical_tied);
    return out;
}

std::string describe(const ModelConfig& c) {
    return "enc=" + to_string(c.encoder_cell) + " dec=" + to_string(c.decoder_cell) + " style=" +
           to_string(c.decoder_style) + " att=" + to_string(c.attention) + (c.input_feeding ? "" : " no-feeding") +
           (c.tied_embeddings ? " tied" : "") + (c.tied_source_embeddings ? " tied-src" : "") +
           (c.layer_norm ? " layer-norm" : "") + (c.lexical_model ? " lexical" : "") + " depth=" + std::to_string(c.encoder_depth);
}

std::vector<float> random_vector(size_t n, uint64_t seed, float scale) {
    Random random(seed);
    std::vector<float> v(n);
    for (auto& x : v) x = random.uniform(-scale, scale);
    return v;
}

bool close(float a, float b, float tolerance) {
    return std::fabs(a - b) <= tolerance * std::max(1.0f, std::fabs(b));
}

}  // namespace nmt::testing
