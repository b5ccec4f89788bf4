// The Communicator on Open MPI (built with -DNMT_MPI=ON). Every operation is
// non-blocking underneath and waited for with a deadline: a rank that stops
// answering (stopped, stuck, its machine unreachable) makes the others fail
// with a message saying which operation timed out, instead of hanging. A
// rank that dies is seen by mpirun, which ends the job.
#pragma once
#include <mpi.h>

#include <string>

#include "train/communicator.h"

namespace nmt {

class MpiCommunicator : public Communicator {
public:
    // Initialises MPI (once per process) on MPI_COMM_WORLD. `timeout_seconds`:
    // how long an operation may wait for the other ranks.
    explicit MpiCommunicator(double timeout_seconds);
    ~MpiCommunicator() override;  // finalises MPI
    MpiCommunicator(const MpiCommunicator&) = delete;
    MpiCommunicator& operator=(const MpiCommunicator&) = delete;

    int rank() const override { return rank_; }
    int size() const override { return size_; }
    void sum(float* data, int64_t count, const std::string& what) override;
    void sum(double* data, int64_t count, const std::string& what) override;
    void broadcast(void* data, int64_t bytes, const std::string& what) override;
    void broadcast_after_rank0_work(void* data, int64_t bytes, const std::string& what) override;

    // Ends every rank of the job (after an error on this one, which the
    // others would otherwise wait for until their deadline).
    [[noreturn]] void abort(int exit_code);

private:
    template <typename Value>
    void sum_in_place(Value* data, int64_t count, MPI_Datatype type, const std::string& what);
    void broadcast(void* data, int64_t bytes, const std::string& what, double timeout_seconds);
    void wait(void* request, const std::string& what, double timeout_seconds);

    int rank_ = 0, size_ = 1;
    double timeout_seconds_;
};

}  // namespace nmt
