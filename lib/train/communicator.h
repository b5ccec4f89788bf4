// What data-parallel training needs from the processes it runs on: their
// number, this one's rank, sums over all of them and rank 0's bytes sent to
// all. The engine sees only this interface; the Open MPI implementation
// (mpi/mpi_communicator.h) is built with -DNMT_MPI=ON. Every operation is
// collective: all ranks call it, in the same order, with the same sizes.
// `what` names the operation for the error a rank that stops answering causes.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace nmt {

class Communicator {
public:
    virtual ~Communicator() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // Element-wise sums over the ranks, written into every rank's `data`.
    // Every rank receives the same bits (the reduction order does not depend
    // on timing), so ranks applying the same update stay identical.
    virtual void sum(float* data, int64_t count, const std::string& what) = 0;
    virtual void sum(double* data, int64_t count, const std::string& what) = 0;
    // Rank 0's `bytes` bytes at `data`, copied into every other rank's.
    virtual void broadcast(void* data, int64_t bytes, const std::string& what) = 0;
    // The same without a deadline: for the wait while rank 0 alone validates,
    // however long that takes (mpirun ends the job if rank 0 dies meanwhile).
    virtual void broadcast_after_rank0_work(void* data, int64_t bytes, const std::string& what) = 0;
};

// The number of ranks mpirun (Open MPI's, or MPICH's Hydra) started this
// process among, read from the environment without initialising MPI; 1 when
// it was started some other way.
inline int ranks_started_by_mpirun() {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
        if (const char* value = std::getenv(name)) return std::max(1, std::atoi(value));
    return 1;
}

}  // namespace nmt
