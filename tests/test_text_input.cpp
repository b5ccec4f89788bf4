#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "io/text_input.h"

using nmt::clean_line;
using nmt::LineReader;

namespace {

const std::string kFFFD = "\xEF\xBF\xBD";

std::string repeat(const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
}

std::string clean(const std::string& s) { return clean_line(s, 1, nullptr); }

struct Pipe {
    int read_end = -1, write_end = -1;
    Pipe() { REQUIRE(pipe(&read_end) == 0); }
    ~Pipe() {
        if (read_end >= 0) close(read_end);
        close_writer();
    }
    void write(const std::string& s) const {
        size_t done = 0;
        while (done < s.size()) {
            const ssize_t n = ::write(write_end, s.data() + done, s.size() - done);
            REQUIRE(n > 0);
            done += static_cast<size_t>(n);
        }
    }
    void close_writer() {
        if (write_end >= 0) close(write_end);
        write_end = -1;
    }
};

}  // namespace

TEST_CASE("clean_line: CRLF loses exactly one trailing carriage return") {
    CHECK(clean("hello\r") == "hello");
    CHECK(clean("hello") == "hello");
    CHECK(clean("") == "");
    CHECK(clean("\r") == "");
}

TEST_CASE("clean_line: valid UTF-8 passes through untouched, warning-free") {
    const std::string text = "caf\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x98\x80 \tend";  // café 中文 😀
    std::vector<std::string> warnings;
    CHECK(clean_line(text, 3, &warnings) == text);
    CHECK(warnings.empty());
    // Boundaries of each range are valid.
    CHECK(clean("\xC2\x80\xDF\xBF") == "\xC2\x80\xDF\xBF");
    CHECK(clean("\xE0\xA0\x80\xED\x9F\xBF\xEE\x80\x80") == "\xE0\xA0\x80\xED\x9F\xBF\xEE\x80\x80");
    CHECK(clean("\xF0\x90\x80\x80\xF4\x8F\xBF\xBF") == "\xF0\x90\x80\x80\xF4\x8F\xBF\xBF");
}

TEST_CASE("clean_line: each kind of invalid UTF-8 becomes U+FFFD by maximal subpart") {
    // Lone continuation bytes: one replacement each.
    CHECK(clean("a\x80" "b") == "a" + kFFFD + "b");
    CHECK(clean("\x80\xBF") == kFFFD + kFFFD);
    // Bytes that can never appear.
    CHECK(clean("\xC0\xAF") == kFFFD + kFFFD);  // overlong '/' with a C0 lead
    CHECK(clean("\xC1\xBF") == kFFFD + kFFFD);
    CHECK(clean("\xF5\x80\x80\x80") == repeat(kFFFD, 4));
    CHECK(clean("\xFF") == kFFFD);
    // Overlongs with E0/F0 leads: the second byte is out of range.
    CHECK(clean("\xE0\x80\xAF") == repeat(kFFFD, 3));
    CHECK(clean("\xF0\x80\x80\xAF") == repeat(kFFFD, 4));
    // Surrogates (U+D800, U+DFFF).
    CHECK(clean("\xED\xA0\x80") == repeat(kFFFD, 3));
    CHECK(clean("\xED\xBF\xBF") == repeat(kFFFD, 3));
    // Above U+10FFFF.
    CHECK(clean("\xF4\x90\x80\x80") == repeat(kFFFD, 4));
    // Truncated sequences: the valid prefix is one replacement.
    CHECK(clean("\xE4\xB8") == kFFFD);
    CHECK(clean("\xE4\xB8z") == kFFFD + "z");
    CHECK(clean("\xF0\x9F\x98") == kFFFD);
    CHECK(clean("\xF0\x9F\x98 ok") == kFFFD + " ok");
    CHECK(clean("\xC3") == kFFFD);
    // A truncated sequence followed by a valid one keeps the valid one.
    CHECK(clean("\xE4\xC3\xA9") == kFFFD + "\xC3\xA9");
    // The example from the Unicode standard (section 3.9, U+FFFD substitution).
    CHECK(clean("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64") ==
          "a" + kFFFD + kFFFD + kFFFD + "b" + kFFFD + "c" + kFFFD + kFFFD + "d");
}

TEST_CASE("clean_line: warns once per line, naming it") {
    std::vector<std::string> warnings;
    clean_line("bad \xFF\xFF bytes", 42, &warnings);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == "line 42: invalid UTF-8 replaced by U+FFFD");
}

TEST_CASE("clean_line: NUL and C0 controls become spaces, tab stays") {
    std::vector<std::string> warnings;
    const std::string with_nul("a\0b", 3);
    CHECK(clean_line(with_nul, 7, &warnings) == "a b");
    CHECK(clean("a\tb") == "a\tb");
    CHECK(clean("a\x01\x1B[0mb\x7F") == "a  [0mb\x7F");
    CHECK(clean("mid\rdle\r") == "mid dle");  // only the trailing CR is a line ending
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == "line 7: control characters replaced by spaces");
}

TEST_CASE("clean_line: a long line is cleaned in linear time") {
    std::string line = repeat("abc \xE4\xB8\xAD ", 1000000);  // 8 MB
    line += "\xFF";
    const auto t0 = std::chrono::steady_clock::now();
    const std::string out = clean(line);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(out.size() == line.size() - 1 + 3);
    CHECK(seconds < 5.0);
}

TEST_CASE("LineReader over an istream: lines, empty lines, last line without newline") {
    std::istringstream in("one\n\nthree\r\nfour");
    LineReader reader(in);
    std::string line;
    std::vector<std::string> lines;
    while (reader.next_line(line)) lines.push_back(line);
    CHECK(lines == std::vector<std::string>{"one", "", "three\r", "four"});
    CHECK(reader.line_number() == 4);
    CHECK(reader.more_available_without_blocking());  // at the end: next_line returns at once
}

TEST_CASE("LineReader over a pipe returns a line as soon as its newline arrives") {
    Pipe p;
    LineReader reader(p.read_end);
    std::string line;

    CHECK_FALSE(reader.more_available_without_blocking());  // nothing written yet

    p.write("hello\n");  // the writer stays open, as a person at a terminal would
    CHECK(reader.more_available_without_blocking());
    REQUIRE(reader.next_line(line));
    CHECK(line == "hello");
    CHECK_FALSE(reader.more_available_without_blocking());

    p.write("two\nthree\npart");  // several at once: the translator may batch them
    REQUIRE(reader.next_line(line));
    CHECK(line == "two");
    CHECK(reader.more_available_without_blocking());
    REQUIRE(reader.next_line(line));
    CHECK(line == "three");
    // Only a partial line is left and nothing more is coming yet.
    CHECK_FALSE(reader.more_available_without_blocking());

    p.write("ial\n");
    REQUIRE(reader.next_line(line));
    CHECK(line == "partial");
    CHECK(reader.line_number() == 4);

    p.write("last without newline");
    p.close_writer();
    CHECK(reader.more_available_without_blocking());
    REQUIRE(reader.next_line(line));
    CHECK(line == "last without newline");
    CHECK_FALSE(reader.next_line(line));
    CHECK(reader.more_available_without_blocking());
}

TEST_CASE("LineReader over a pipe handles CRLF, empty lines and a NUL byte") {
    Pipe p;
    p.write(std::string("a\r\n\nb\0c\n", 8));
    p.close_writer();
    LineReader reader(p.read_end);
    std::string line;
    REQUIRE(reader.next_line(line));
    CHECK(line == "a\r");
    CHECK(clean(line) == "a");
    REQUIRE(reader.next_line(line));
    CHECK(line == "");
    REQUIRE(reader.next_line(line));
    CHECK(line == std::string("b\0c", 3));
    CHECK(clean(line) == "b c");
    CHECK_FALSE(reader.next_line(line));
}

TEST_CASE("LineReader reads a 10 MB line without a newline, and lines after one") {
    char path[] = "/tmp/nmt_test_text_input_XXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    const std::string big(10 * 1024 * 1024, 'x');
    const std::string content = "short\n" + big + "\nafter\n" + big;
    REQUIRE(write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()));
    REQUIRE(lseek(fd, 0, SEEK_SET) == 0);

    const auto t0 = std::chrono::steady_clock::now();
    LineReader reader(fd, path, nmt::LineLimit{big.size()});
    std::string line;
    REQUIRE(reader.next_line(line));
    CHECK(line == "short");
    REQUIRE(reader.next_line(line));
    CHECK(line.size() == big.size());
    REQUIRE(reader.next_line(line));
    CHECK(line == "after");
    REQUIRE(reader.next_line(line));
    CHECK(line.size() == big.size());
    CHECK_FALSE(reader.next_line(line));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(seconds < 5.0);  // quadratic scanning would take minutes
    close(fd);
    unlink(path);
}

TEST_CASE("LineReader reads a long line through a pipe in pieces") {
    Pipe p;
    LineReader reader(p.read_end);
    const std::string big(300 * 1000, 'y');  // larger than a pipe's buffer
    // Write from a child process so the pipe can drain while we read.
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        close(p.read_end);
        p.write(big + "\nend\n");
        _exit(0);
    }
    p.close_writer();
    std::string line;
    REQUIRE(reader.next_line(line));
    CHECK(line == big);
    REQUIRE(reader.next_line(line));
    CHECK(line == "end");
    CHECK_FALSE(reader.next_line(line));
    int status = 0;
    waitpid(child, &status, 0);
}

TEST_CASE("LineReader reports a read error naming the input") {
    LineReader reader(-1, "corpus.txt");
    std::string line;
    CHECK_THROWS_WITH(reader.next_line(line), doctest::Contains("corpus.txt: cannot read"));
}

namespace {

// Writes content to a new temporary file and returns its descriptor, at offset 0.
struct TempFile {
    char path[40] = "/tmp/nmt_test_text_input_XXXXXX";
    int fd = -1;
    explicit TempFile(const std::string& content) {
        fd = mkstemp(path);
        REQUIRE(fd >= 0);
        REQUIRE(::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()));
        REQUIRE(lseek(fd, 0, SEEK_SET) == 0);
    }
    ~TempFile() {
        close(fd);
        unlink(path);
    }
};

const nmt::LineLimit kCutAt10{10, nmt::LineLimit::Longer::Truncate};

}  // namespace

TEST_CASE("LineReader cuts a line over the limit at a character boundary and skips the rest") {
    // "é" is two bytes: a cut at 10 bytes would split the one at bytes 10-11.
    const std::string content = "short\n123456789\xC3\xA9XYZ and much more\nexactly10b\nlast";
    std::istringstream stream(content);
    TempFile file(content);
    LineReader from_stream(stream, "stream", kCutAt10), from_fd(file.fd, "file", kCutAt10);
    for (LineReader* reader : {&from_stream, &from_fd}) {
        CAPTURE(reader == &from_fd);
        std::string line;
        REQUIRE(reader->next_line(line));
        CHECK(line == "short");
        CHECK_FALSE(reader->last_line_truncated());
        REQUIRE(reader->next_line(line));
        CHECK(line == "123456789");
        CHECK(reader->last_line_truncated());
        CHECK(reader->line_number() == 2);
        REQUIRE(reader->next_line(line));
        CHECK(line == "exactly10b");  // at the limit is not over it
        CHECK_FALSE(reader->last_line_truncated());
        REQUIRE(reader->next_line(line));
        CHECK(line == "last");
        CHECK(reader->last_line_unterminated());
        CHECK_FALSE(reader->next_line(line));
        CHECK(reader->line_number() == 4);
    }
}

TEST_CASE("LineReader refuses a line over the limit, naming the input and the line") {
    const std::string content = "fine\n" + std::string(11, 'x') + "\n";
    std::istringstream stream(content);
    TempFile file(content);
    const nmt::LineLimit refuse{10, nmt::LineLimit::Longer::Refuse};
    LineReader from_stream(stream, "corpus.en", refuse), from_fd(file.fd, "corpus.en", refuse);
    for (LineReader* reader : {&from_stream, &from_fd}) {
        std::string line;
        REQUIRE(reader->next_line(line));
        CHECK_THROWS_WITH(reader->next_line(line),
                          doctest::Contains("corpus.en: line 2 is longer than 10 bytes"));
    }
}

TEST_CASE("LineReader keeps memory bounded on input without newlines, and answers a cut line at once") {
    Pipe p;
    LineReader reader(p.read_end, "stdin", nmt::LineLimit{1000, nmt::LineLimit::Longer::Truncate});
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // 50 MB of one line, then a short one
        close(p.read_end);
        const std::string block(64 * 1024, 'z');
        for (int i = 0; i < 800; ++i) p.write(block);
        p.write("\nnext\n");
        _exit(0);
    }
    p.close_writer();
    std::string line;
    REQUIRE(reader.next_line(line));  // returned before the writer is done
    CHECK(line == std::string(1000, 'z'));
    CHECK(reader.last_line_truncated());
    REQUIRE(reader.next_line(line));
    CHECK(line == "next");
    CHECK_FALSE(reader.last_line_truncated());
    CHECK_FALSE(reader.next_line(line));
    int status = 0;
    waitpid(child, &status, 0);
}
