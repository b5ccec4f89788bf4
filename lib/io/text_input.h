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
//
// Memory stays bounded whatever is fed in (/dev/zero has no newline at all):
// a line longer than the limit is either cut, with the rest of it skipped
// (translation: the user still gets one output line per input line), or
// refused with an error naming the input and the line (data files).
struct LineLimit {
    size_t max_bytes = size_t(1) << 20;
    enum class Longer { Truncate, Refuse } longer = Longer::Refuse;
};

class LineReader {
public:
    // Reads fd (not owned, not closed). name is used in error messages ("stdin").
    explicit LineReader(int fd, std::string name = "stdin", LineLimit limit = {});
    // Reads fileno(file). The FILE must not have been read through stdio yet:
    // bytes already in its buffer would be skipped.
    explicit LineReader(std::FILE* file, std::string name = "stdin", LineLimit limit = {});
    // Reads an std::istream (a file or a string in tests). Lines come back as
    // soon as the stream delivers them, but whether more is waiting is only
    // known from the stream's own buffer (rdbuf()->in_avail()).
    explicit LineReader(std::istream& in, std::string name = "input", LineLimit limit = {});

    LineReader(const LineReader&) = delete;
    LineReader& operator=(const LineReader&) = delete;

    // Stores the next line without its '\n' (a '\r' is left for clean_line)
    // and returns true; returns false at end of input. A last line without
    // '\n' is still a line. Blocks only until one complete line is available,
    // or until the limit's worth of a longer line is. Throws nmt::Error when
    // reading fails, or on a line over the limit when the limit says Refuse.
    bool next_line(std::string& line);

    // True when the line last returned was cut at the limit (at a UTF-8
    // character boundary); the rest of it is skipped, never stored.
    bool last_line_truncated() const { return truncated_; }
    // True when the line last returned ended the input without a '\n'.
    bool last_line_unterminated() const { return unterminated_; }

    // True when the next call to next_line() will return without waiting:
    // a whole line is buffered, the descriptor has data, or input has ended.
    bool more_available_without_blocking();

    // 1-based number of the line last returned by next_line() (0 before).
    int64_t line_number() const { return line_number_; }

    const LineLimit& limit() const { return limit_; }

private:
    bool has_buffered_line();
    void fill();  // one read(2); sets eof_
    void compact();
    // Drops the rest of a truncated line; returns false when it needs more
    // input and may_block is false.
    bool skip_rest_of_long_line(bool may_block);
    bool next_stream_line(std::string& line);
    [[noreturn]] void refuse_long_line() const;

    int fd_ = -1;
    std::istream* stream_ = nullptr;
    std::string name_;
    std::string buffer_;
    size_t start_ = 0;    // first byte of buffer_ not yet returned
    size_t scanned_ = 0;  // bytes from start_ already searched for '\n'
    bool eof_ = false;
    int64_t line_number_ = 0;
    LineLimit limit_;
    bool truncated_ = false;  // the last line returned was cut
    bool unterminated_ = false;
    bool skipping_ = false;   // the rest of that line is still to be skipped
};

}  // namespace nmt
