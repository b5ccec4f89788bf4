// How `nmt train` starts or continues a run once its settings are parsed: the
// files it will write checked against those it reads, its locks taken, then
// a new model (random weights for an architecture and vocabularies, or a
// pretrained model's weights) or an earlier run's checkpoint, trained until
// a stop condition (train/trainer.h). Errors name settings in backticks
// (core/error.h); warnings and progress go to the run's logs and console.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/output_file.h"
#include "model/model_config.h"
#include "train/trainer.h"

namespace nmt {

struct TrainingRunSettings {
    TrainerOptions trainer;
    // A new run's architecture (vocabulary sizes come from the vocabularies).
    // A checkpoint or a pretrained model fixes its own: when some
    // architecture setting was given (architecture_given) and asks for
    // another, the run says that it is ignored.
    ModelConfig architecture;
    bool architecture_given = false;
    std::string source_vocab, target_vocab;  // SentencePiece models; empty: none given
    std::string pretrained_model;            // a new run starts from its weights, architecture and vocabularies
    bool resume = false;                     // continue the checkpoint's run when there is one
    bool overwrite = false;                  // start afresh even though the checkpoint or the model exists
    bool quiet = false;                      // progress to the logs only, not the console
    std::string log;                         // the text log (default: the model's path + ".log")
    std::vector<NamedFile> other_inputs;     // further files the run reads (a settings file): never written
    nlohmann::json provenance;               // how the run was asked for (command, settings file, options)
    std::string command;                     // the command as typed, recorded when a run resumes
    std::ostream* console = nullptr;         // progress besides the logs (stderr), unless quiet
};

// Refuses, before anything is opened, an output that is not a regular file
// or that is the same file as an input or another output.
void check_training_files(const TrainingRunSettings& settings);

// Trains as the process that writes the files (alone, or rank 0 of several):
// takes the model's and the checkpoint's locks, opens the logs, starts or
// resumes. A run that fails before its first step leaves no log and removes
// the lock files it created. Returns whether the run was interrupted.
bool train_writing_files(TrainingRunSettings& settings);

// Trains as a rank other than 0 of several: the same start or resume, no
// files written, nothing logged.
void train_without_files(TrainingRunSettings& settings);

}  // namespace nmt
