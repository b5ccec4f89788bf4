// Reading the text a user asks us to translate: one line at a time, as soon
// as it arrives, and repaired so that the tokenizer never sees bytes it
// cannot handle.
#pragma once
#include <cstdint>
#include <cstdio>
#include <istream>
#include <string>
#include <vector>

namespace nmt {

// Makes one input line safe to tokenize without changing what it says:
//  - drops one trailing '\r' (CRLF files);
//  - replaces each ill-formed UTF-8 sequence with U+FFFD, one per "maximal
//    subpart" as the Unicode standard and WHATWG decoders do, so the count of
//    replacement characters is the same as in a browser or Python;
//  - replaces NUL and the other C0 controls except tab with a space.
// When warnings is not null, appends "line N: invalid UTF-8 replaced by U+FFFD"
// and/or "line N: control characters replaced by spaces" (N = line_number).
std::string clean_line(std::string line, int64_t line_number, std::vector<std::string>* warnings);

// Splits a stream into lines without ever waiting for more than it needs.
// Interactive use (a person or a coprocess at the other end of a pipe) needs
// the line back as soon as its '\n' arrives, and the translator needs to know
// whether more text is already waiting, so it can batch a file or a full pipe
// but answer a lone line at once. std::getline on std::cin can do neither,
// so the file-descriptor form reads with read(2) and asks poll(2).
class LineReader {
public:
    // Reads fd (not owned, not closed). name is used in error messages ("stdin").
    explicit LineReader(int fd, std::string name = "stdin");
    // Reads fileno(file). The FILE must not have been read through stdio yet:
    // bytes already in its buffer would be skipped.
    explicit LineReader(std::FILE* file, std::string name = "stdin");
    // Reads an std::istream (a file or a string in tests). Lines come back as
    // soon as the stream delivers them, but whether more is waiting is only
    // known from the stream's own buffer (rdbuf()->in_avail()).
    explicit LineReader(std::istream& in, std::string name = "input");

    LineReader(const LineReader&) = delete;
    LineReader& operator=(const LineReader&) = delete;

    // Stores the next line without its '\n' (a '\r' is left for clean_line)
    // and returns true; returns false at end of input. A last line without
    // '\n' is still a line. Blocks only until one complete line is available.
    // Throws nmt::Error when reading fails.
    bool next_line(std::string& line);

    // True when the next call to next_line() will return without waiting:
    // a whole line is buffered, the descriptor has data, or input has ended.
    bool more_available_without_blocking();

    // 1-based number of the line last returned by next_line() (0 before).
    int64_t line_number() const { return line_number_; }

private:
    bool has_buffered_line();
    void fill();  // one read(2); sets eof_
    void compact();

    int fd_ = -1;
    std::istream* stream_ = nullptr;
    std::string name_;
    std::string buffer_;
    size_t start_ = 0;    // first byte of buffer_ not yet returned
    size_t scanned_ = 0;  // bytes from start_ already searched for '\n'
    bool eof_ = false;
    int64_t line_number_ = 0;
};

}  // namespace nmt
