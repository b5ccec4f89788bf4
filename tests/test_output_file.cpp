#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "io/output_file.h"
#include "train/run_lock.h"
#include "test_support.h"

using namespace nmt;
using nmt::testing::error_of;
namespace fs = std::filesystem;

namespace {

fs::path output_path(const std::string& name) { return testing::temp_path("output_file", name); }

std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void write_text(const fs::path& path, const std::string& text) {
    write_output_file(path.string(), [&](std::FILE* out) { std::fputs(text.c_str(), out); });
}

}  // namespace

TEST_CASE("output file: a regular file is replaced whole, keeping its permissions, and no temporary file stays") {
    const fs::path path = output_path("plain.txt");
    write_text(path, "first");
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    write_text(path, "second");
    CHECK(read_text(path) == "second");
    CHECK(fs::status(path).permissions() == (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
    CHECK_FALSE(fs::exists(path.string() + ".tmp"));

    // A writer that fails leaves the file as it was.
    const std::string message = error_of([&] {
        write_output_file(path.string(), [](std::FILE* out) {
            std::fputs("half", out);
            throw Error("the writer failed");
        });
    });
    CHECK(message == "the writer failed");
    CHECK(read_text(path) == "second");
    CHECK_FALSE(fs::exists(path.string() + ".tmp"));
}

TEST_CASE("output file: a symbolic link's target is replaced and the link kept") {
    const fs::path target = output_path("target.txt"), link = output_path("link.txt"), chain = output_path("chain.txt");
    write_text(target, "old");
    fs::remove(link);
    fs::remove(chain);
    fs::create_symlink("target.txt", link);  // relative: resolved from the link's directory
    fs::create_symlink(link, chain);
    write_text(chain, "new");
    CHECK(fs::is_symlink(link));
    CHECK(fs::is_symlink(chain));
    CHECK(read_text(target) == "new");
    CHECK(resolve_links(chain.string()) == target.string());

    const fs::path dangling = output_path("dangling.txt"), made = output_path("made.txt");
    fs::remove(dangling);
    fs::remove(made);
    fs::create_symlink(made, dangling);
    write_text(dangling, "made");
    CHECK(fs::is_symlink(dangling));
    CHECK(read_text(made) == "made");

    const fs::path loop = output_path("loop.txt");
    fs::remove(loop);
    fs::create_symlink(loop, loop);
    CHECK(error_of([&] { write_text(loop, "x"); }).find("too many levels of symbolic links") != std::string::npos);
}

TEST_CASE("output file: a device is written in place, a full one fails, a directory is refused") {
    // Device nodes of our own (where we may make them), so that a broken
    // writer cannot replace the system's /dev/null.
    const fs::path null = output_path("null"), full = output_path("full");
    fs::remove(null);
    fs::remove(full);
    const bool made = ::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0 &&
                      ::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0;
    if (made && ::access(null.c_str(), W_OK) == 0) {
        write_text(null, "nothing");
        CHECK(fs::is_character_file(null));
        CHECK(error_of([&] { write_text(full, "x"); }) == full.string() + ": cannot write: No space left on device");
        CHECK(fs::is_character_file(full));
    } else {
        MESSAGE("cannot make device nodes here: the device cases are skipped");
    }
    const fs::path directory = output_path("a-directory");
    fs::create_directories(directory);
    CHECK(error_of([&] { write_text(directory, "x"); }) == directory.string() + ": cannot write: it is a directory");
    CHECK(fs::is_directory(directory));
}

TEST_CASE("output file: an output that is an input, or another output, is refused naming both") {
    const fs::path input = output_path("input.txt"), hard = output_path("hard.txt"), soft = output_path("soft.txt");
    write_text(input, "text");
    fs::remove(hard);
    fs::remove(soft);
    fs::create_hard_link(input, hard);
    fs::create_symlink(input, soft);
    const NamedFile in{"-i", input.string()};
    CHECK(error_of([&] { refuse_shared_files({{"-o", hard.string()}}, {in}); }) ==
          "-o " + hard.string() + " is the same file as -i " + input.string() +
              ": writing it would destroy the input; write to another file");
    CHECK_FALSE(error_of([&] { refuse_shared_files({{"-o", soft.string()}}, {in}); }).empty());
    CHECK(error_of([&] { refuse_shared_files({{"-o", output_path("other.txt").string()}}, {in}); }).empty());

    // Names not taken yet are the same file when they lead to one place.
    const std::string fresh = output_path("fresh.txt").string();
    const std::string message = error_of([&] {
        refuse_shared_files({{"-o", fresh}, {"--alignments", output_path(".").string() + "/fresh.txt"}}, {});
    });
    CHECK(message.find(" are the same file: one would overwrite the other") != std::string::npos);

    // A standard stream is compared by what it is open on.
    const int fd = ::open(input.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    CHECK(error_of([&] { refuse_shared_files({{"-o", input.string()}}, {{"stdin", "", fd}}); })
              .find("is the same file as stdin") != std::string::npos);
    ::close(fd);
    // Devices are shared harmlessly; so is one stream written twice.
    CHECK(error_of([&] { refuse_shared_files({{"-o", "/dev/null"}, {"--alignments", "/dev/null"}}, {}); }).empty());
    CHECK(error_of([&] { refuse_shared_files({{"stdout", "", 1}, {"--alignments -", "", 1}}, {}); }).empty());
}

TEST_CASE("run lock: only the lock file a lock created is removed") {
    const std::string path = output_path("removed.lock").string();
    fs::remove(path);
    {
        RunLock lock(path, "x");
        lock.remove_if_created();
        CHECK_FALSE(fs::exists(path));
    }
    write_text(path, "");
    {
        RunLock lock(path, "x");
        lock.remove_if_created();
        CHECK(fs::exists(path));  // it was there before
    }
    fs::remove(path);
    {
        RunLock lock(path, "x");  // created afresh, and exclusive
        CHECK(fs::exists(path));
        CHECK_FALSE(error_of([&] { RunLock second(path, "x"); }).empty());
    }
}

TEST_CASE("staged output: nothing is replaced before commit, and an output never committed leaves no trace") {
    const fs::path first = output_path("staged-first.txt"), second = output_path("staged-second.txt");
    write_text(first, "old first");
    write_text(second, "old second");
    {
        StagedOutput a(first.string()), b(second.string());
        std::fputs("new first", a.file());
        std::fputs("new second", b.file());
        CHECK(read_text(first) == "old first");  // opened and written, not yet in place
        a.commit();
        CHECK(read_text(first) == "new first");
        // b is dropped without commit, as when a command fails halfway.
    }
    CHECK(read_text(second) == "old second");
    CHECK_FALSE(fs::exists(second.string() + ".tmp"));
    CHECK_FALSE(fs::exists(first.string() + ".tmp"));

    // An output that cannot be opened throws before anything else is touched.
    CHECK(error_of([&] { StagedOutput missing(output_path("no-dir/x.txt").string()); })
              .find("no-dir/x.txt: cannot write: No such file or directory") != std::string::npos);
    CHECK(error_of([&] { StagedOutput directory(output_path("").string()); }).find("it is a directory") !=
          std::string::npos);

    // A device is written in place; a full one fails at commit, naming it.
    if (::access("/dev/full", W_OK) == 0) {
        StagedOutput full("/dev/full");
        std::fputs("text", full.file());
        CHECK(error_of([&] { full.commit(); }) == "/dev/full: cannot write: No space left on device");
    }
}

TEST_CASE("staged output: an existing regular file is refused by name, a device or a new name is not") {
    const fs::path existing = output_path("existing.txt");
    write_text(existing, "keep");
    CHECK(error_of([&] { refuse_existing_outputs({{"-o", existing.string()}}); }) ==
          "-o " + existing.string() + " already exists: add `overwrite` to replace it");
    CHECK(error_of([&] { refuse_existing_outputs({{"-o", output_path("new.txt").string()}, {"--x", "/dev/null"}}); })
              .empty());
    CHECK(error_of([&] { refuse_existing_outputs({{"stdout", "", 1}}); }).empty());
}
