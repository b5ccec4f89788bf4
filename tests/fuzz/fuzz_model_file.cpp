// A model file, as `nmt translate -m FILE`, `nmt info` and --list-models read
// it: the safetensors header and tensor table, the config JSON, the embedded
// SentencePiece models and the weights. Anything but a loaded model or an
// nmt::Error is a finding; so is a model loaded from a file whose data does
// not match the checksum its header stores (load_model verifies it on a
// thread of its own, while converting). The fuzzer recomputes no checksum:
// mutated data under a stored one must simply be refused, and the seeds
// without one (as every file written before nmt stored it) let mutations of
// the weights and vocabularies reach the code that reads them.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "model/model.h"
#include "model/safetensors.h"

namespace {

// One in-memory regular file, rewritten for each input: the loader maps
// files by path, and /proc/self/fd/N names this one without touching disk.
const std::string& model_path() {
    static const std::string path = [] {
        const int fd = ::memfd_create("fuzz.nmt", 0);
        if (fd < 0) std::abort();
        return "/proc/self/fd/" + std::to_string(fd);
    }();
    return path;
}

void write_model(const uint8_t* data, size_t size) {
    const int fd = std::stoi(model_path().substr(model_path().rfind('/') + 1));
    if (::ftruncate(fd, 0) != 0) std::abort();
    for (size_t written = 0; written < size;) {
        const ssize_t n = ::pwrite(fd, data + written, size - written, static_cast<off_t>(written));
        if (n <= 0) std::abort();
        written += static_cast<size_t>(n);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    write_model(data, size);
    try {
        nmt::read_safetensors_metadata(model_path());
    } catch (const nmt::Error&) {
    }
    try {
        const nmt::Model model = nmt::load_model(model_path());
        // What a loaded model promises the translator.
        if (model.source_vocab.size() != model.config.source_vocab_size) std::abort();
        for (const auto& [name, shape] : nmt::parameter_shapes(model.config))
            if (model.param(name).shape != shape) std::abort();
        // The checksum, checked again before returning: a loaded file passes.
        nmt::read_safetensors(model_path());
    } catch (const nmt::Error&) {
    }
    try {
        // Loaded for int8 decoding (what nmt translate does from AVX2 up):
        // int8-stored matrices taken from the map, the others quantised.
        const nmt::Model model = nmt::load_model(model_path(), true);
        for (const auto& [name, q] : model.int8)
            if (q.scales.size() != static_cast<size_t>(q.N) || (!q.empty() && q.data() == nullptr)) std::abort();
    } catch (const nmt::Error&) {
    }
    return 0;
}
