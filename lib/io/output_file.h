// Writing a file a user named without destroying what the name stands for:
//  - a regular file, or a name not taken yet, is written to NAME.tmp beside
//    it, flushed to disk and renamed over it, so that no reader, and no run
//    killed halfway, ever sees half a file;
//  - a symbolic link is followed to its final target, which is replaced in
//    the same way; the link stays;
//  - a device or FIFO (/dev/null, /dev/stdout, a named pipe) is written in
//    place: a rename would put a regular file where it was;
//  - a directory is refused.
// And, before anything is opened for writing, whether an output is an input
// (or another output) under another name.
#pragma once
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace nmt {

// Where writing to `path` lands: symbolic links followed to their final
// target, which may not exist yet. Throws nmt::Error on a loop of links.
std::string resolve_links(const std::string& path);

// Writes `path` whole through `write`, which puts the contents on the FILE*
// (and throws on an error of its own), as above. Throws nmt::Error "PATH:
// cannot write: reason"; after a failure, a regular file at PATH is as it was
// and no temporary file is left.
void write_output_file(const std::string& path, const std::function<void(std::FILE*)>& write);

// An output opened before anything it would replace is touched, for a command
// with several outputs or one written as it goes: a regular file, or a name
// not taken yet, is written into a temporary file beside it (beside its final
// target, through links) that commit() renames over it; a device or FIFO is
// opened in place; a directory is refused. So every output of a command can
// be opened before any is truncated, and one that fails, at start-up or
// halfway, leaves every named file as it was: an output destroyed without
// commit() removes its temporary file.
class StagedOutput {
public:
    // Opens now; throws nmt::Error "PATH: cannot write: reason".
    explicit StagedOutput(const std::string& path);
    // An already open stream (stdout), written in place and never closed.
    StagedOutput(std::FILE* stream, std::string name);
    ~StagedOutput();
    StagedOutput(const StagedOutput&) = delete;
    StagedOutput& operator=(const StagedOutput&) = delete;

    std::FILE* file() const { return file_; }
    const std::string& name() const { return name_; }
    // Flushes what was written (a regular file also to disk), closes it and
    // renames it over the name. Throws nmt::Error "PATH: cannot write: reason",
    // the temporary file removed and the named file as it was.
    void commit();

private:
    std::string name_;    // as the user gave it, for messages
    std::string target_;  // links followed: what the rename replaces; empty when written in place
    std::string temp_;    // beside target_
    std::FILE* file_ = nullptr;
    bool owned_ = true;   // false for a borrowed stream
    void discard();
};

// Throws nmt::Error "PATH: cannot write: strerror(error_number)", the one
// wording of every failed write.
[[noreturn]] void throw_write_error(const std::string& path, int error_number);

// A file as a command's user named it, to say which options collide.
struct NamedFile {
    std::string option;  // "-i", "--alignments", "stdin", "the input"
    std::string path;    // empty for a standard stream
    int fd = -1;         // that stream's descriptor when path is empty
};

// Throws nmt::Error, naming both, when an output is the same file as an input
// or as another output: one regular file (device and inode, after following
// links; a stream's by fstat), or one name that does not exist yet. Devices,
// FIFOs and terminals are shared harmlessly and never refused.
void refuse_shared_files(const std::vector<NamedFile>& outputs, const std::vector<NamedFile>& inputs);

// Throws nmt::Error "OPTION PATH already exists: add `overwrite` to replace
// it" for the first output that names an existing regular file (through
// links). Standard streams, devices and FIFOs are written, never replaced,
// and pass. Commands call it unless the user asked to overwrite.
void refuse_existing_outputs(const std::vector<NamedFile>& outputs);


}  // namespace nmt
