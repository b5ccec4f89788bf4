#include "run_lock.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "error.h"

namespace nmt {

RunLock::RunLock(const std::string& path, const std::string& what) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
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
}

RunLock::~RunLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace nmt
