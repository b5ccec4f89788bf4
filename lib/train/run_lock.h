// An exclusive lock that keeps two training runs off the same files: both
// would write the same checkpoint, model and logs (the logs interleave, and
// the two writers' temporary files collide). The kernel drops the lock when
// its process ends in any way, kill -9 included, so it never goes stale.
#pragma once
#include <string>

namespace nmt {

class RunLock {
public:
    // Locks `path` (created if missing, left in place afterwards); throws
    // nmt::Error naming `what` when another process holds it.
    RunLock(const std::string& path, const std::string& what);
    ~RunLock();
    RunLock(const RunLock&) = delete;
    RunLock& operator=(const RunLock&) = delete;

    // Removes the lock file if this lock created it (a run that failed before
    // it began leaves nothing behind). Done while the lock is still held: a
    // process that opened the file meanwhile finds it gone once it gets the
    // lock, and locks the file the name leads to instead.
    void remove_if_created();

private:
    std::string path_;
    int fd_ = -1;
    bool created_ = false;
};

}  // namespace nmt
