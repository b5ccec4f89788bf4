// The files a streaming command (translate, align) reads and writes: "-" or
// nothing means the standard stream, which is borrowed, never closed.
#pragma once
#include <cstdio>
#include <memory>
#include <string>

#include "io/output_file.h"

namespace nmt::app {

// stdout for "" or "-"; else the file, staged (lib/io/output_file.h: a
// temporary file beside it, put in place by commit(); a device or FIFO
// written in place). Open every output of a command before writing any, and
// commit them all at the end: a failure in between leaves every file as it was.
std::unique_ptr<StagedOutput> open_output(const std::string& path);

// Ends a command that has committed its outputs: exit status 0, without
// destructors. Freeing a loaded model, its vocabularies and oneDNN's caches
// took 3–4 ms, a tenth of `echo … | nmt translate`, for memory the kernel
// takes back at exit anyway. Only when nothing is left to write or rename.
[[noreturn]] void exit_without_teardown();

// "-" and no name at all both mean the standard stream `fd`, for
// refuse_shared_files.
NamedFile standard_or_file(const std::string& option, const std::string& path, int fd, const std::string& stream);

}  // namespace nmt::app
