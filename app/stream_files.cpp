#include "stream_files.h"

#include <cerrno>
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

NamedFile standard_or_file(const std::string& option, const std::string& path, int fd, const std::string& stream) {
    if (path.empty() || path == "-") return {path.empty() ? stream : option + " -", "", fd};
    return {option, path};
}

}  // namespace nmt::app
