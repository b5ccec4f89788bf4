#include "io/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "core/error.h"

namespace nmt {

namespace fs = std::filesystem;

std::string resolve_links(const std::string& path) {
    fs::path p = path;
    for (int hops = 0; hops < 40; ++hops) {
        std::error_code error;
        if (!fs::is_symlink(p, error)) return p.string();
        const fs::path target = fs::read_symlink(p, error);
        if (error) return p.string();
        p = target.is_absolute() ? target : p.parent_path() / target;
    }
    throw Error(path + ": too many levels of symbolic links");
}

void throw_write_error(const std::string& path, int error_number) {
    throw Error(path + ": cannot write: " + std::strerror(error_number));
}

StagedOutput::StagedOutput(std::FILE* stream, std::string name)
    : name_(std::move(name)), file_(stream), owned_(false) {}

StagedOutput::StagedOutput(const std::string& path) : name_(path) {
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    int fd = -1;
    if (exists && S_ISDIR(st.st_mode)) throw Error(path + ": cannot write: it is a directory");
    if (exists && !S_ISREG(st.st_mode)) {
        // A device or FIFO: a rename would put a regular file where it was.
        // Opening the name itself lets the kernel follow /dev/stdout's kind of link.
        fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) throw_write_error(path, errno);
    } else {
        target_ = resolve_links(path);
        temp_ = target_ + ".tmp";
        struct stat old {};
        const bool replacing = ::stat(target_.c_str(), &old) == 0;
        ::unlink(temp_.c_str());  // a stale one from a killed writer; O_EXCL never follows a link planted there
        fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0) throw_write_error(path, errno);
        if (replacing) (void)::fchmod(fd, old.st_mode & 07777);  // the replacement keeps the file's permissions
    }
    file_ = ::fdopen(fd, "wb");
    if (!file_) {
        const int error_number = errno;
        ::close(fd);
        if (!temp_.empty()) ::unlink(temp_.c_str());
        throw_write_error(path, error_number);
    }
}

StagedOutput::~StagedOutput() { discard(); }

void StagedOutput::discard() {
    if (file_ && owned_) std::fclose(file_);
    file_ = nullptr;
    if (!temp_.empty()) ::unlink(temp_.c_str());
    temp_.clear();
}

void StagedOutput::commit() {
    if (!file_) return;
    const bool sync = !temp_.empty();  // devices and pipes refuse fsync
    if (std::fflush(file_) != 0 || std::ferror(file_) || (sync && ::fsync(::fileno(file_)) != 0)) {
        const int error_number = errno;
        discard();
        throw_write_error(name_, error_number);
    }
    if (!owned_) {
        file_ = nullptr;
        return;
    }
    const int closed = std::fclose(file_);
    const int close_error = errno;
    file_ = nullptr;
    if (closed != 0) {
        discard();
        throw_write_error(name_, close_error);
    }
    if (!temp_.empty() && std::rename(temp_.c_str(), target_.c_str()) != 0) {
        const int error_number = errno;
        discard();
        throw_write_error(name_, error_number);
    }
    temp_.clear();
}

void write_output_file(const std::string& path, const std::function<void(std::FILE*)>& write) {
    StagedOutput output(path);
    write(output.file());
    output.commit();
}

namespace {

struct Identity {
    bool exists = false;
    bool regular = false;
    dev_t device = 0;
    ino_t inode = 0;
    std::string name;  // of a file not there yet: absolute, links and dots resolved
};

Identity identify(const NamedFile& file) {
    struct stat st {};
    const int status = file.path.empty() ? ::fstat(file.fd, &st) : ::stat(file.path.c_str(), &st);
    if (status == 0) return {true, S_ISREG(st.st_mode), st.st_dev, st.st_ino, ""};
    Identity missing;
    if (!file.path.empty()) {
        std::error_code error;
        const fs::path name = fs::weakly_canonical(fs::absolute(resolve_links(file.path)), error);
        if (!error) missing.name = name.string();
    }
    return missing;
}

bool same(const NamedFile& a, const Identity& x, const NamedFile& b, const Identity& y) {
    if (a.path.empty() && b.path.empty() && a.fd == b.fd) return false;  // one stream, written through one FILE*
    if (x.exists && y.exists) return x.regular && x.device == y.device && x.inode == y.inode;
    return !x.exists && !y.exists && !x.name.empty() && x.name == y.name;
}

std::string describe(const NamedFile& file) { return file.path.empty() ? file.option : file.option + " " + file.path; }

}  // namespace

void refuse_existing_outputs(const std::vector<NamedFile>& outputs) {
    for (const NamedFile& file : outputs) {
        struct stat st {};
        if (!file.path.empty() && ::stat(file.path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
            throw Error(describe(file) + " already exists: add `overwrite` to replace it");
    }
}

void refuse_shared_files(const std::vector<NamedFile>& outputs, const std::vector<NamedFile>& inputs) {
    std::vector<Identity> output_ids, input_ids;
    for (const NamedFile& f : outputs) output_ids.push_back(identify(f));
    for (const NamedFile& f : inputs) input_ids.push_back(identify(f));
    for (size_t i = 0; i < outputs.size(); ++i) {
        for (size_t j = 0; j < inputs.size(); ++j)
            if (same(outputs[i], output_ids[i], inputs[j], input_ids[j]))
                throw Error(describe(outputs[i]) + " is the same file as " + describe(inputs[j]) +
                            ": writing it would destroy the input; write to another file");
        for (size_t j = 0; j < i; ++j)
            if (same(outputs[i], output_ids[i], outputs[j], output_ids[j]))
                throw Error(describe(outputs[j]) + " and " + describe(outputs[i]) +
                            " are the same file: one would overwrite the other; give them different files");
    }
}

}  // namespace nmt
