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

// "-" and no name at all both mean the standard stream `fd`, for
// refuse_shared_files.
NamedFile standard_or_file(const std::string& option, const std::string& path, int fd, const std::string& stream);

}  // namespace nmt::app
