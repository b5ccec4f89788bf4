#include "stream_files.h"

#include <cstdlib>

#include "core/error.h"

namespace nmt::app {

std::unique_ptr<StagedOutput> open_output(const std::string& path) {
    if (path.empty() || path == "-") return std::make_unique<StagedOutput>(stdout, "stdout");
    return std::make_unique<StagedOutput>(path);
}

void exit_without_teardown() {
    std::fflush(nullptr);  // stdio left unflushed by _Exit: nothing should be, but stderr's warnings come first
    std::_Exit(0);
}

NamedFile standard_or_file(const std::string& option, const std::string& path, int fd, const std::string& stream) {
    if (path.empty() || path == "-") return {path.empty() ? stream : option + " -", "", fd};
    return {option, path};
}

}  // namespace nmt::app
