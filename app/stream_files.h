// The files a streaming command (translate, align) reads and writes: "-" or
// nothing means the standard stream, which is borrowed, never closed.
#pragma once
#include <cstdio>
#include <memory>
#include <string>

#include "io/output_file.h"

namespace nmt::app {

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;
File borrowed(std::FILE* f);

// stdout for "" or "-"; else the file, truncated (written in place, as it is
// produced, so a device or FIFO works).
File open_output(const std::string& path);

// Closes `file` (flushes a borrowed standard stream), throwing Error naming
// `name` if what was buffered could not be written.
void close_output(File& file, const std::string& name);

// Ends a command that has closed its outputs: exit status 0, without
// destructors. Freeing a loaded model, its vocabularies and oneDNN's caches
// took 3–4 ms, a tenth of `echo … | nmt translate`, for memory the kernel
// takes back at exit anyway. Only when nothing is left to write or rename.
[[noreturn]] void exit_without_teardown();

// "-" and no name at all both mean the standard stream `fd`, for
// refuse_shared_files.
NamedFile standard_or_file(const std::string& option, const std::string& path, int fd, const std::string& stream);

}  // namespace nmt::app
