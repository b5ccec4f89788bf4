#include "train/mpi/mpi_communicator.h"

#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <limits>
#include <thread>

#include "core/error.h"
#include "core/number_text.h"

namespace nmt {

namespace {

void check(int code, const std::string& what) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw Error("MPI failed during " + what + ": " + std::string(text, length));
}

// MPI counts are ints: larger buffers go in chunks.
constexpr int64_t kMaxCount = std::numeric_limits<int>::max() / 2;

}  // namespace

MpiCommunicator::MpiCommunicator(double timeout_seconds) : timeout_seconds_(timeout_seconds) {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
        int provided = 0;
        // Only the main thread calls MPI; OpenMP threads never do.
        check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "start-up");
    }
    // Errors come back as codes (and become nmt::Error) instead of ending the process unexplained.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiCommunicator::~MpiCommunicator() {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (!finalised) MPI_Finalize();
}

void MpiCommunicator::wait(void* request_pointer, const std::string& what, double timeout_seconds) {
    MPI_Request& request = *static_cast<MPI_Request*>(request_pointer);
    const auto start = std::chrono::steady_clock::now();
    auto pause = std::chrono::microseconds(0);
    for (;;) {
        int done = 0;
        check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
        if (done) return;
        const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (timeout_seconds > 0 && waited > timeout_seconds)
            throw Error("waited " + fixed_decimals(waited, 0) + " s for " + what +
                        " and the other ranks did not answer (the limit is " + fixed_decimals(timeout_seconds, 0) +
                        " s); is a rank stopped or its machine unreachable?");
        // Spin briefly (a step's sum usually completes within microseconds),
        // then sleep longer and longer, up to a millisecond, so that a rank
        // waiting for rank 0's validation does not hold a core.
        if (pause < std::chrono::microseconds(1000)) pause += std::chrono::microseconds(10);
        std::this_thread::sleep_for(pause);
    }
}

void MpiCommunicator::sum(float* data, int64_t count, const std::string& what) {
    sum_in_place(data, count, MPI_FLOAT, what);
}

void MpiCommunicator::sum(double* data, int64_t count, const std::string& what) {
    sum_in_place(data, count, MPI_DOUBLE, what);
}

template <typename Value>
void MpiCommunicator::sum_in_place(Value* data, int64_t count, MPI_Datatype type, const std::string& what) {
    for (int64_t at = 0; at < count; at += kMaxCount) {
        MPI_Request request;
        check(MPI_Iallreduce(MPI_IN_PLACE, data + at, static_cast<int>(std::min(kMaxCount, count - at)), type, MPI_SUM,
                             MPI_COMM_WORLD, &request),
              what);
        wait(&request, what, timeout_seconds_);
    }
}

void MpiCommunicator::broadcast(void* data, int64_t bytes, const std::string& what) {
    broadcast(data, bytes, what, timeout_seconds_);
}

void MpiCommunicator::broadcast_after_rank0_work(void* data, int64_t bytes, const std::string& what) {
    broadcast(data, bytes, what, 0);
}

void MpiCommunicator::broadcast(void* data, int64_t bytes, const std::string& what, double timeout_seconds) {
    char* at = static_cast<char*>(data);
    for (int64_t done = 0; done < bytes; done += kMaxCount) {
        MPI_Request request;
        check(MPI_Ibcast(at + done, static_cast<int>(std::min(kMaxCount, bytes - done)), MPI_BYTE, 0, MPI_COMM_WORLD,
                         &request),
              what);
        wait(&request, what, timeout_seconds);
    }
}

void MpiCommunicator::abort(int exit_code) {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code);  // MPI_Abort does not return; this satisfies [[noreturn]]
}

}  // namespace nmt
