#include "stream_files.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.h"

namespace nmt::app {

File borrowed(std::FILE* f) { return File(f, [](std::FILE*) { return 0; }); }

File open_output(const std::string& path) {
    if (path.empty() || path == "-") return borrowed(stdout);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw Error(path + ": cannot write: " + std::strerror(errno));
    return File(f, std::fclose);
}

void close_output(File& file, const std::string& name) {
    std::FILE* f = file.get();
    if (!f) return;
    const bool written = std::fflush(f) == 0 && !std::ferror(f);
    const int error = errno;
    if (file.get_deleter()(file.release()) != 0 || !written)
        throw Error(name + ": cannot write: " + std::strerror(written ? errno : error));
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
