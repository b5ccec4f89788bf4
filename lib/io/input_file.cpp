#include "io/input_file.h"

#include <limits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.h"
#include "core/sha256.h"
#include "io/text_input.h"

namespace nmt {

int open_input(const std::string& path) {
    if (path.empty()) throw Error("an input file name is empty");
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(path + ": cannot open: " + std::strerror(errno));
    struct stat st;
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        ::close(fd);
        throw Error(path + ": is a directory");
    }
    return fd;
}

int seekable_input(int fd, const std::string& name) {
    struct stat st;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::lseek(fd, 0, SEEK_CUR) >= 0) return fd;
    const char* tmpdir = std::getenv("TMPDIR");
    const std::string directory = tmpdir && *tmpdir ? tmpdir : "/tmp";
    const int copy = ::open(directory.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (copy < 0)
        throw Error(directory + ": cannot create a temporary file to keep " + name + " for reading again: " +
                    std::strerror(errno));
    char chunk[64 * 1024];
    for (;;) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            const int error = errno;
            ::close(copy);
            throw Error(name + ": cannot read: " + std::strerror(error));
        }
        for (ssize_t written = 0; written < n;) {
            const ssize_t w = ::write(copy, chunk + written, static_cast<size_t>(n - written));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) {
                const int error = errno;
                ::close(copy);
                throw Error(directory + ": cannot keep a copy of " + name + ": " + std::strerror(error));
            }
            written += w;
        }
    }
    ::lseek(copy, 0, SEEK_SET);
    return copy;
}

namespace {

struct FdCloser {
    int fd;
    ~FdCloser() {
        if (fd != STDIN_FILENO) ::close(fd);
    }
};

}  // namespace

std::string read_small_file(const std::string& path, size_t max_bytes, const std::string& what) {
    FdCloser in{open_input(path)};
    std::string bytes;
    char chunk[64 * 1024];
    for (;;) {
        const ssize_t n = ::read(in.fd, chunk, sizeof chunk);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            throw Error(path + ": cannot read: " + std::strerror(errno));
        }
        if (bytes.size() + static_cast<size_t>(n) > max_bytes)
            throw Error(path + ": larger than " + std::to_string(max_bytes) + " bytes; not " + what + "?");
        bytes.append(chunk, static_cast<size_t>(n));
    }
    return bytes;
}

namespace {

std::vector<std::string> read_lines_up_to(const std::string& path, LineLimit limit, Sha256* digest, size_t max_lines) {
    const bool standard_input = path == "-";
    FdCloser in{standard_input ? STDIN_FILENO : open_input(path)};
    limit.longer = LineLimit::Longer::Refuse;
    LineReader reader(in.fd, standard_input ? "stdin" : path, limit);
    std::vector<std::string> lines;
    std::string line;
    while (lines.size() < max_lines && reader.next_line(line)) {
        if (digest) {
            digest->update(line);
            if (!reader.last_line_unterminated()) digest->update("\n", 1);
        }
        lines.push_back(std::move(line));
    }
    return lines;
}

}  // namespace

std::vector<std::string> read_text_lines(const std::string& path, LineLimit limit, Sha256* digest) {
    return read_lines_up_to(path, limit, digest, std::numeric_limits<size_t>::max());
}

std::vector<std::string> read_first_lines(const std::string& path, size_t max_lines) {
    return read_lines_up_to(path, LineLimit{}, nullptr, max_lines);
}

std::vector<std::string> read_clean_lines(const std::string& path, size_t max_lines) {
    std::vector<std::string> lines = max_lines > 0 ? read_first_lines(path, max_lines) : read_text_lines(path);
    for (size_t i = 0; i < lines.size(); ++i) lines[i] = clean_line(std::move(lines[i]), i + 1, nullptr);
    return lines;
}

}  // namespace nmt
