// Every setting of a training run (TrainerOptions) in one table: its name,
// from which come the JSON key in the run's log and the model's provenance,
// the name errors use (`batch_tokens`), and nmt train's flag and config key
// (--batch-tokens, batch-tokens); its help line and group; the values it
// takes; and the field it fills. A new training option is a field and a row.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "train/trainer.h"

namespace nmt {

// The field a plain setting fills, bound as it is typed.
using SettingField = std::variant<int*, int64_t*, uint64_t*, float*, double*, std::string*>;

struct TrainerSetting {
    std::string name;         // "batch_tokens"
    std::string short_flag;   // "-o" beside --output; empty: none
    std::string group;        // "Data", "Output", "Optimisation", ...
    std::string help;
    // A plain setting: its field (a number's range below). Null for a setting
    // parsed from text (a choice, a duration, one or two numbers): `parse`.
    std::function<SettingField(TrainerOptions&)> field;
    std::function<void(TrainerOptions&, const std::vector<std::string>&)> parse;
    std::string parsed_default;       // what `parse` leaves when the setting is not given, for help
    int min_values = 1, max_values = 1;
    double min = -1e300, max = 1e300;  // numbers (each of them, for several)
    bool positive = false;             // numbers: above 0 (min is then 0)
    std::vector<std::string> choices;  // text: the values allowed (empty: any)
    bool existing_file = false;        // text: a file that must exist
    // Recorded in the log and the provenance only when this holds (null:
    // always), as `record` gives it (null: the field's value).
    std::function<bool(const TrainerOptions&)> recorded_when;
    std::function<nlohmann::json(const TrainerOptions&)> record;
};

// The table, in the order nmt train's help lists the settings.
const std::vector<TrainerSetting>& trainer_settings();

// A setting's value as the log and the provenance record it.
nlohmann::json record_setting(const TrainerSetting& setting, const TrainerOptions& options);

// A float as it was typed (0.1, not 0.10000000149011612), for the records.
double recorded_float(float value);

// "batch_tokens" -> "--batch-tokens".
std::string setting_flag(const std::string& name);

}  // namespace nmt
