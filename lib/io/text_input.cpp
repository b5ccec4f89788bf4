#include "io/text_input.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace nmt {

namespace {

const char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

// A well-formed UTF-8 sequence, by its lead byte (Unicode Table 3-7): how
// many bytes it has and which values its second byte may take. The narrowed
// second-byte ranges are what rule out overlongs (E0, F0), surrogates (ED)
// and code points above U+10FFFF (F4). length 0: the byte cannot start one.
struct LeadByte {
    int length;
    unsigned char second_min, second_max;
};

LeadByte classify_lead(unsigned char b) {
    if (b < 0x80) return {1, 0, 0};
    if (b < 0xC2) return {0, 0, 0};  // continuation byte, or C0/C1 (always overlong)
    if (b < 0xE0) return {2, 0x80, 0xBF};
    if (b == 0xE0) return {3, 0xA0, 0xBF};
    if (b == 0xED) return {3, 0x80, 0x9F};
    if (b < 0xF0) return {3, 0x80, 0xBF};
    if (b == 0xF0) return {4, 0x90, 0xBF};
    if (b < 0xF4) return {4, 0x80, 0xBF};
    if (b == 0xF4) return {4, 0x80, 0x8F};
    return {0, 0, 0};
}

// Bytes from i that still form the start of a well-formed sequence: the whole
// sequence when it is valid, or the "maximal subpart" that one U+FFFD replaces.
size_t valid_prefix(const std::string& s, size_t i, const LeadByte& lead) {
    size_t k = 1;
    while (k < static_cast<size_t>(lead.length) && i + k < s.size()) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        const unsigned char lo = k == 1 ? lead.second_min : 0x80;
        const unsigned char hi = k == 1 ? lead.second_max : 0xBF;
        if (b < lo || b > hi) break;
        ++k;
    }
    return k;
}

}  // namespace

std::string clean_line(std::string line, int64_t line_number, std::vector<std::string>* warnings) {
    if (!line.empty() && line.back() == '\r') line.pop_back();

    std::string out;
    out.reserve(line.size());
    bool replaced_utf8 = false;
    bool replaced_control = false;
    size_t i = 0;
    while (i < line.size()) {
        const auto b = static_cast<unsigned char>(line[i]);
        const LeadByte lead = classify_lead(b);
        if (lead.length == 1) {
            const bool control = b < 0x20 && b != '\t';
            replaced_control |= control;
            out.push_back(control ? ' ' : static_cast<char>(b));
            ++i;
            continue;
        }
        const size_t n = lead.length == 0 ? 1 : valid_prefix(line, i, lead);
        if (lead.length != 0 && n == static_cast<size_t>(lead.length)) {
            out.append(line, i, n);
        } else {
            out.append(kReplacement);
            replaced_utf8 = true;
        }
        i += n;
    }

    if (warnings) {
        const std::string where = "line " + std::to_string(line_number) + ": ";
        if (replaced_utf8) warnings->push_back(where + "invalid UTF-8 replaced by U+FFFD");
        if (replaced_control) warnings->push_back(where + "control characters replaced by spaces");
    }
    return out;
}

LineReader::LineReader(int fd, std::string name, LineLimit limit)
    : fd_(fd), name_(std::move(name)), limit_(limit) {}

LineReader::LineReader(std::FILE* file, std::string name, LineLimit limit)
    : LineReader(fileno(file), std::move(name), limit) {}

LineReader::LineReader(std::istream& in, std::string name, LineLimit limit)
    : stream_(&in), name_(std::move(name)), limit_(limit) {}

namespace {

// Where to cut s[begin, end) so that no UTF-8 character is split: back over
// continuation bytes. Bytes that are all continuations (not UTF-8 anyway) are
// cut where they are; clean_line replaces what is left of them.
size_t character_boundary(const std::string& s, size_t begin, size_t end) {
    size_t cut = end;
    while (cut > begin && cut < s.size() && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    return cut > begin ? cut : end;
}

}  // namespace

void LineReader::refuse_long_line() const {
    throw Error(name_ + ": line " + std::to_string(line_number_ + 1) + " is longer than " +
                std::to_string(limit_.max_bytes) + " bytes (no newline; not a text file?)");
}

bool LineReader::has_buffered_line() {
    // Remember how far we searched so a 10 MB line arriving in 64 KiB reads
    // is scanned once, not once per read.
    if (buffer_.find('\n', start_ + scanned_) != std::string::npos) return true;
    scanned_ = buffer_.size() - start_;
    return false;
}

void LineReader::compact() {
    // Drop returned lines once they are at least half the buffer: each byte is
    // moved at most once on average, so memory stays bounded without a copy
    // per line.
    if (start_ > 0 && start_ * 2 >= buffer_.size()) {
        buffer_.erase(0, start_);
        start_ = 0;
    }
}

void LineReader::fill() {
    constexpr size_t kChunk = 64 * 1024;
    const size_t old_size = buffer_.size();
    buffer_.resize(old_size + kChunk);
    for (;;) {
        const ssize_t n = ::read(fd_, &buffer_[old_size], kChunk);
        if (n >= 0) {
            buffer_.resize(old_size + static_cast<size_t>(n));
            if (n == 0) eof_ = true;
            return;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            // Someone made the descriptor non-blocking; wait as a blocking read would.
            pollfd p{fd_, POLLIN, 0};
            ::poll(&p, 1, -1);
            continue;
        }
        const int err = errno;
        buffer_.resize(old_size);
        throw Error(name_ + ": cannot read: " + std::strerror(err));
    }
}

bool LineReader::skip_rest_of_long_line(bool may_block) {
    while (skipping_) {
        const size_t newline = buffer_.find('\n', start_);
        if (newline != std::string::npos) {
            start_ = newline + 1;
            scanned_ = 0;
            skipping_ = false;
            compact();
            break;
        }
        buffer_.clear();  // all of it belongs to the line being skipped
        start_ = scanned_ = 0;
        if (eof_) {
            skipping_ = false;
            break;
        }
        if (!may_block) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) return false;
        }
        fill();
    }
    return true;
}

// The istream form reads a byte at a time from the stream's buffer, so that
// a line never grows past the limit; a long line's rest is skipped at once
// (streams are files and strings, never a person waiting for an answer).
bool LineReader::next_stream_line(std::string& line) {
    line.clear();
    std::streambuf* in = stream_->rdbuf();
    try {
        bool any = false;  // bytes read by this call: a last line without '\n'
        for (int c = in->sbumpc();; c = in->sbumpc(), any = true) {
            if (c == std::char_traits<char>::eof()) {
                stream_->setstate(std::ios::eofbit);
                if (!any) return false;
                unterminated_ = true;
                break;
            }
            if (c == '\n') break;
            if (truncated_) continue;  // skipping the rest of a long line
            if (line.size() == limit_.max_bytes) {
                if (limit_.longer == LineLimit::Longer::Refuse) refuse_long_line();
                line.push_back(static_cast<char>(c));  // to see whether it starts a character
                line.resize(character_boundary(line, 0, limit_.max_bytes));
                truncated_ = true;
                continue;
            }
            line.push_back(static_cast<char>(c));
        }
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {  // filebuf throws on a directory
        throw Error(name_ + ": cannot read: " + e.what());
    }
    ++line_number_;
    return true;
}

bool LineReader::next_line(std::string& line) {
    if (skipping_) skip_rest_of_long_line(true);
    truncated_ = unterminated_ = false;
    if (stream_) return next_stream_line(line);
    for (;;) {
        const size_t newline = buffer_.find('\n', start_ + scanned_);
        const size_t length = (newline == std::string::npos ? buffer_.size() : newline) - start_;
        if (length > limit_.max_bytes) {
            if (limit_.longer == LineLimit::Longer::Refuse) refuse_long_line();
            const size_t cut = character_boundary(buffer_, start_, start_ + limit_.max_bytes);
            line.assign(buffer_, start_, cut - start_);
            start_ = cut;
            scanned_ = 0;
            truncated_ = skipping_ = true;
            ++line_number_;
            return true;
        }
        if (newline != std::string::npos) {
            line.assign(buffer_, start_, newline - start_);
            start_ = newline + 1;
            scanned_ = 0;
            compact();
            ++line_number_;
            return true;
        }
        scanned_ = buffer_.size() - start_;
        if (eof_) {
            if (start_ == buffer_.size()) return false;
            line.assign(buffer_, start_, std::string::npos);  // last line, no '\n'
            unterminated_ = true;
            buffer_.clear();
            start_ = scanned_ = 0;
            ++line_number_;
            return true;
        }
        fill();
    }
}

bool LineReader::more_available_without_blocking() {
    if (stream_) {
        if (!stream_->good()) return true;  // next_line() will report the end at once
        return stream_->rdbuf()->in_avail() != 0;
    }
    if (skipping_ && !skip_rest_of_long_line(false)) return false;
    if (eof_ || has_buffered_line()) return true;
    if (buffer_.size() - start_ > limit_.max_bytes) return true;  // a long line to cut
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) return false;
    return (p.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

}  // namespace nmt
