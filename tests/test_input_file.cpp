#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/input_file.h"
#include "core/sha256.h"

namespace {

std::string file_holding(const std::string& content) {
    char path[] = "/tmp/nmt_test_input_file_XXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()));
    close(fd);
    return path;
}

}  // namespace

TEST_CASE("input files: a directory is refused as one") {
    CHECK_THROWS_WITH(nmt::open_input("/tmp"), "/tmp: is a directory");
    CHECK_THROWS_WITH(nmt::read_small_file("/tmp", 100, "a config file"), "/tmp: is a directory");
    CHECK_THROWS_WITH(nmt::read_text_lines("/tmp"), "/tmp: is a directory");
    CHECK_THROWS_WITH(nmt::open_input("/nonexistent/x"), doctest::Contains("/nonexistent/x: cannot open"));
    CHECK_THROWS_AS(nmt::open_input(""), nmt::Error);
}

TEST_CASE("input files: reading stops at the limit, even on a device that never ends") {
    CHECK_THROWS_WITH(nmt::read_small_file("/dev/zero", 1 << 20, "a config file"),
                      "/dev/zero: larger than 1048576 bytes; not a config file?");
    CHECK_THROWS_WITH(nmt::read_text_lines("/dev/zero", nmt::LineLimit{4096}),
                      doctest::Contains("/dev/zero: line 1 is longer than 4096 bytes"));
    const std::string path = file_holding("0123456789");
    CHECK(nmt::read_small_file(path, 10, "x") == "0123456789");
    CHECK_THROWS_WITH(nmt::read_small_file(path, 9, "x"), doctest::Contains("larger than 9 bytes"));
    std::remove(path.c_str());
}

TEST_CASE("input files: lines as read, and the digest of exactly the file's bytes") {
    for (const std::string content : {"a\nb\n", "a\nb", "a\n\nb\r\n", "", "\n"}) {
        CAPTURE(content);
        const std::string path = file_holding(content);
        nmt::Sha256 digest;
        const auto lines = nmt::read_text_lines(path, {}, &digest);
        CHECK(digest.hex_digest() == nmt::sha256_hex(content));
        std::string joined;
        for (const auto& line : lines) joined += line + "\n";
        if (!content.empty() && content.back() != '\n') joined.pop_back();
        CHECK(joined == content);
        std::remove(path.c_str());
    }
}

TEST_CASE("input files: the first lines alone are read, and nothing after them") {
    // The third line is past the line limit: reading it would be refused.
    const std::string path = file_holding("one\ntwo\n" + std::string((1 << 20) + 10, 'x') + "\n");
    CHECK(nmt::read_first_lines(path, 2) == std::vector<std::string>{"one", "two"});
    CHECK(nmt::read_first_lines(path, 1) == std::vector<std::string>{"one"});
    CHECK_THROWS_WITH(nmt::read_first_lines(path, 3), doctest::Contains("line 3 is longer than"));
    CHECK_THROWS_WITH(nmt::read_text_lines(path), doctest::Contains("line 3 is longer than"));
    std::remove(path.c_str());
}
