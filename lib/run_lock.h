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

private:
    int fd_ = -1;
};

}  // namespace nmt
