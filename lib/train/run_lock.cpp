#include "train/run_lock.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

namespace nmt {

namespace {

// Whether the open file `fd` is still the one `path` names.
bool still_named(int fd, const std::string& path) {
    struct stat held {}, named {};
    return ::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
           held.st_ino == named.st_ino;
}

}  // namespace

RunLock::RunLock(const std::string& path, const std::string& what) : path_(path) {
    for (int attempt = 0;; ++attempt) {
        fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        created_ = fd_ >= 0;
        if (fd_ < 0 && errno == EEXIST) fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
        if (fd_ < 0 && errno == ENOENT && attempt < 10) continue;  // removed between the two opens
        if (fd_ < 0) throw Error(path + ": cannot create the lock file (" + std::strerror(errno) + ")");
        if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
            const int error_number = errno;
            ::close(fd_);
            fd_ = -1;
            if (error_number == EWOULDBLOCK)
                throw Error(what + " is in use by another running process (lock " + path +
                            "); wait for it or stop it first");
            throw Error(path + ": cannot lock (" + std::strerror(error_number) + ")");
        }
        if (still_named(fd_, path)) return;
        ::close(fd_);  // its holder removed it before letting go: lock the file there now
        fd_ = -1;
        if (attempt >= 10) throw Error(path + ": cannot lock (the lock file keeps being replaced)");
    }
}

RunLock::~RunLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

void RunLock::remove_if_created() {
    if (created_ && fd_ >= 0) ::unlink(path_.c_str());
    created_ = false;
}

}  // namespace nmt
