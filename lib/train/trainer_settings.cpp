#include "train/trainer_settings.h"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "model/safetensors.h"

namespace nmt {

namespace {

// A plain setting's field, for the table below.
#define FIELD(member) [](TrainerOptions& o) -> SettingField { return &o.member; }

constexpr double kUnbounded = std::numeric_limits<double>::max();

// The values a number may take.
struct Bounds {
    double min = -kUnbounded, max = kUnbounded;
    bool positive = false;  // above min (0), not at it
};
constexpr Bounds kAnyNumber{}, kNonNegative{0}, kPositive{0, kUnbounded, true}, kFraction{0, 1}, kDropout{0, 0.99};

// An option group's settings, and the table's rows added to it one by one.
class Rows {
public:
    explicit Rows(std::vector<TrainerSetting>& table) : table_(table) {}
    Rows& group(const std::string& name) {
        group_ = name;
        return *this;
    }
    // A plain setting: `field` within [min, max].
    TrainerSetting& add(const std::string& name, std::function<SettingField(TrainerOptions&)> field,
                        const std::string& help, Bounds bounds = kAnyNumber) {
        TrainerSetting& s = table_.emplace_back();
        s.name = name;
        s.group = group_;
        s.help = help;
        s.field = std::move(field);
        s.min = bounds.min;
        s.max = bounds.max;
        s.positive = bounds.positive;
        return s;
    }
    // A setting parsed from text, recorded as `record` gives it.
    TrainerSetting& add_parsed(const std::string& name, const std::string& help, const std::string& shown_default,
                               std::function<void(TrainerOptions&, const std::vector<std::string>&)> parse,
                               std::function<nlohmann::json(const TrainerOptions&)> record) {
        TrainerSetting& s = table_.emplace_back();
        s.name = name;
        s.group = group_;
        s.help = help;
        s.parsed_default = shown_default;
        s.parse = std::move(parse);
        s.record = std::move(record);
        return s;
    }

private:
    std::vector<TrainerSetting>& table_;
    std::string group_;
};

bool subword_sampling_on(const TrainerOptions& o) { return o.subword_sampling.enabled(); }
bool guided_on(const TrainerOptions& o) { return !o.guided_alignment.empty(); }
bool risk_on(const TrainerOptions& o) { return o.risk.candidates > 0; }

void data_settings(Rows& rows) {
    rows.group("Data");
    rows.add("train_source", FIELD(train_source), "Training source text, one sentence per line (required)");
    rows.add("train_target", FIELD(train_target), "Training target text, aligned with --train-source (required)");
    rows.add("valid_source", FIELD(valid_source), "Validation source text");
    rows.add("valid_target", FIELD(valid_target), "Validation target text (the BLEU reference)");
    TrainerSetting& alphas = rows.add_parsed(
        "sentencepiece_alphas",
        "Subword regularisation (Kudo 2018): every epoch draws each sentence's segmentation from its "
        "--sentencepiece-nbest best with probability ∝ P^alpha; one alpha for both sides, or source then target (0: "
        "that side keeps its best segmentation; 0.1 is Kudo's setting)",
        "",
        [](TrainerOptions& o, const std::vector<std::string>& values) {
            o.subword_sampling.source_alpha = std::stof(values.front());
            o.subword_sampling.target_alpha = std::stof(values.back());
        },
        [](const TrainerOptions& o) {
            return nlohmann::json{recorded_float(o.subword_sampling.source_alpha), recorded_float(o.subword_sampling.target_alpha)};
        });
    alphas.max_values = 2;
    alphas.min = 0;
    alphas.max = 100;
    alphas.recorded_when = subword_sampling_on;
    rows.add("sentencepiece_nbest", FIELD(subword_sampling.nbest),
             "Segmentations per sentence that --sentencepiece-alphas draws from", {2, 1000})
        .recorded_when = subword_sampling_on;
    rows.add("max_length", FIELD(max_length), "Skip training pairs with more pieces on either side (0: keep all)", kNonNegative);
}

void output_settings(Rows& rows) {
    rows.group("Output");
    rows.add("output", FIELD(output), "Model file to write, the best by validation (required)").short_flag = "-o";
    TrainerSetting& checkpoint = rows.add("checkpoint", FIELD(checkpoint), "Training checkpoint file (default: MODEL.checkpoint)");
    checkpoint.record = [](const TrainerOptions& o) { return nlohmann::json(o.checkpoint_path()); };
    rows.add_parsed(
            "storage", "Weight storage type of the model file", "f32",
            [](TrainerOptions& o, const std::vector<std::string>& values) {
                o.storage = values[0] == "f16" ? DType::F16 : values[0] == "bf16" ? DType::BF16 : DType::F32;
            },
            [](const TrainerOptions& o) { return nlohmann::json(dtype_name(o.storage)); })
        .choices = {"f32", "f16", "bf16"};
}

void optimisation_settings(Rows& rows) {
    rows.group("Optimisation");
    rows.add("seed", FIELD(seed), "Random seed: initial weights, data order, dropout");
    rows.add("batch_tokens", FIELD(batch_tokens), "Target tokens per batch, padding included", kPositive);
    rows.add("maxi_batch", FIELD(maxi_batch), "Batches' worth of pairs sorted by length together", kPositive);
    rows.add("lr", FIELD(lr.base), "Peak learning rate (Adam)", kPositive);
    rows.add("warmup", FIELD(lr.warmup), "Steps of linear learning-rate warm-up", kNonNegative);
    rows.add_parsed(
            "lr_decay",
            "invsqrt: lr·sqrt(warmup/step) after warm-up; plateau: lr × --lr-decay-factor after each validation "
            "without improvement; invsqrt+plateau: both; linear: from lr after warm-up down to 0 at --max-steps",
            "invsqrt", [](TrainerOptions& o, const std::vector<std::string>& values) { o.lr.decay = parse_lr_decay(values[0]); },
            [](const TrainerOptions& o) { return nlohmann::json(to_string(o.lr.decay)); })
        .choices = {"invsqrt", "plateau", "invsqrt+plateau", "linear"};
    rows.add("lr_decay_factor", FIELD(lr_decay_factor), "Plateau decay factor", kFraction);
    rows.add("clip_norm", FIELD(clip_norm), "Clip the gradients' global L2 norm (per-token gradients; 0: off)", kNonNegative);
    rows.add("exponential_smoothing", FIELD(exponential_smoothing),
             "Validate and save an exponential moving average of the weights with this rate (0: off; 5e-4 averages "
             "over about the last 2000 updates)",
             kFraction);
    rows.add("adam_beta1", FIELD(adam.beta1), "Adam β1", kFraction);
    rows.add("adam_beta2", FIELD(adam.beta2), "Adam β2", kFraction);
    rows.add("adam_eps", FIELD(adam.epsilon), "Adam ε", kPositive);
    rows.add("label_smoothing", FIELD(graph.label_smoothing), "Label smoothing ε", kFraction);
    rows.add("dropout_emb", FIELD(graph.dropout_embeddings), "Dropout on source and target embeddings", kDropout);
    rows.add("dropout_hidden", FIELD(graph.dropout_hidden), "Dropout on encoder outputs and the deep output", kDropout);
    rows.add("dropout_src", FIELD(graph.dropout_source_words),
             "Word dropout: zero a source word's whole embedding with this probability", kDropout);
    rows.add("dropout_trg", FIELD(graph.dropout_target_words),
             "Word dropout on the previous target words fed to the decoder", kDropout);
    // Recorded only when set, so that runs without it record what they did before it existed.
    rows.add("dropout_rnn", FIELD(graph.dropout_rnn),
             "Variational dropout on every cell's previous state as its recurrent products see it (the same units "
             "at every step of a sentence)",
             kDropout)
        .recorded_when = [](const TrainerOptions& o) { return o.graph.dropout_rnn > 0; };
}

void guided_alignment_settings(Rows& rows) {
    rows.group("Guided alignment");
    TrainerSetting& file = rows.add("guided_alignment", FIELD(guided_alignment),
                                    "Word alignments of the training pairs, Pharaoh 'i-j' over whitespace-separated "
                                    "words, one line per pair (nmt align --statistical writes them)");
    file.existing_file = true;
    file.recorded_when = guided_on;
    rows.add("guided_alignment_weight", FIELD(graph.guided_alignment_weight),
             "Weight of the attention's cross-entropy against the alignments, per target piece", kNonNegative)
        .recorded_when = guided_on;
}

void minimum_risk_settings(Rows& rows) {
    rows.group("Minimum risk training");
    rows.add("mrt_candidates", FIELD(risk.candidates), "Candidates per sentence, from a beam of that width (0: off)", {0, 64})
        .recorded_when = risk_on;
    rows.add("mrt_weight", FIELD(risk.risk_weight),
             "Weight of a sentence's risk against its token-level loss (summed over its words)", kPositive)
        .recorded_when = risk_on;
    rows.add("mrt_sharpness", FIELD(risk.sharpness), "alpha in Q(candidate) ~ p(candidate)^alpha", kPositive)
        .recorded_when = risk_on;
    rows.add("mrt_length_penalty", FIELD(risk.length_penalty), "Length penalty of the candidates' beam search", kNonNegative)
        .recorded_when = risk_on;
}

void schedule_settings(Rows& rows) {
    rows.group("Schedule");
    rows.add("disp_freq", FIELD(disp_freq), "Steps between progress lines", kNonNegative);
    rows.add("valid_every", FIELD(valid_every), "Steps between validations (0: only at the end)", kNonNegative);
    rows.add("save_every", FIELD(save_every), "Steps between checkpoints (0: only at the end)", kNonNegative);
    rows.add_parsed(
            "valid_metric", "What decides the best model and early stopping", "bleu",
            [](TrainerOptions& o, const std::vector<std::string>& values) { o.metric = parse_valid_metric(values[0]); },
            [](const TrainerOptions& o) { return nlohmann::json(to_string(o.metric)); })
        .choices = {"bleu", "ce"};
    rows.add("valid_beam", FIELD(valid_beam), "Beam size of validation translations (0: no BLEU)", kNonNegative);
    rows.add("valid_lines", FIELD(valid_lines), "Validate on the first N pairs only (0: all)", kNonNegative);
    rows.add("patience", FIELD(patience), "Stop after this many validations without improvement (0: never)", kNonNegative);
    rows.add_parsed(
        "max_time", "Stop after this much training time: 3600, 90s, 30m, 2h", "",
        [](TrainerOptions& o, const std::vector<std::string>& values) { o.max_time = parse_duration(values[0]); },
        [](const TrainerOptions& o) { return nlohmann::json(o.max_time); });
    rows.add("max_steps", FIELD(max_steps), "Stop after this many updates (0: no limit)", kNonNegative);
    rows.add("max_epochs", FIELD(max_epochs), "Stop after this many epochs (0: no limit)", kNonNegative);
}

#undef FIELD

}  // namespace

const std::vector<TrainerSetting>& trainer_settings() {
    static const std::vector<TrainerSetting> table = [] {
        std::vector<TrainerSetting> settings;
        Rows rows(settings);
        data_settings(rows);
        output_settings(rows);
        optimisation_settings(rows);
        guided_alignment_settings(rows);
        minimum_risk_settings(rows);
        schedule_settings(rows);
        return settings;
    }();
    return table;
}

double recorded_float(float value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.7g", static_cast<double>(value));
    return std::strtod(buffer, nullptr);
}

nlohmann::json record_setting(const TrainerSetting& setting, const TrainerOptions& options) {
    if (setting.record) return setting.record(options);
    TrainerOptions copy = options;  // the field is reached through a non-const accessor; only read here
    return std::visit(
        [](auto* value) {
            if constexpr (std::is_same_v<decltype(value), float*>) return nlohmann::json(recorded_float(*value));
            else return nlohmann::json(*value);
        },
        setting.field(copy));
}

std::string setting_flag(const std::string& name) {
    std::string flag = "--" + name;
    for (char& c : flag)
        if (c == '_') c = '-';
    return flag;
}

}  // namespace nmt
