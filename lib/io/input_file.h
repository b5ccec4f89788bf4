// Reading the files a user names as inputs (data, references, configs,
// vocabularies) with the checks every reader needs: a directory is refused as
// one, and nothing is read without a limit, so that /dev/zero, a FIFO that
// never ends or a multi-gigabyte file given by mistake gets a clear error
// instead of eating memory.
#pragma once
#include <string>
#include <vector>

#include "io/text_input.h"

namespace nmt {

class Sha256;

// open(2)s path for reading ("-": a duplicate of stdin is not made; the
// caller passes STDIN_FILENO itself). Throws nmt::Error "PATH: is a
// directory" or "PATH: cannot open: reason". The caller closes the result.
int open_input(const std::string& path);

// An input that can be read more than once: fd itself when it is a regular
// file (rewound with lseek), else a copy of all it delivers (stdin, a pipe,
// a FIFO) in a temporary file that is already unlinked, so nothing is left
// behind. The copy goes to $TMPDIR (default /tmp). Throws nmt::Error naming
// `name` or the temporary directory. Closing the result is the caller's (it
// is fd itself for a regular file).
int seekable_input(int fd, const std::string& name);

// The whole of a small file (a config, a SentencePiece model). Throws
// nmt::Error "PATH: larger than N bytes; not WHAT?" past max_bytes.
std::string read_small_file(const std::string& path, size_t max_bytes, const std::string& what);

// The lines of a text file ("-": stdin), without their '\n', as read (no
// cleaning). A line over limit.max_bytes is refused with an error naming the
// file and line (limit.longer must be Refuse). When digest is not null, the
// file's exact bytes are added to it.
std::vector<std::string> read_text_lines(const std::string& path, LineLimit limit = {}, Sha256* digest = nullptr);

// The first max_lines lines alone, as read_text_lines reads them: the rest of
// the file is never read.
std::vector<std::string> read_first_lines(const std::string& path, size_t max_lines);

// The first max_lines lines (0: all) of a text file, each made safe to
// tokenize as translation input is (clean_line, io/text_input.h), silently:
// for the commands that read a whole file of sentences (nmt bench, nmt shortlist).
std::vector<std::string> read_clean_lines(const std::string& path, size_t max_lines = 0);

}  // namespace nmt
