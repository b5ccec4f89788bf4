#include "formats/po_catalogue.h"

#include <gettext-po.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "core/error.h"
#include "decode/placeholders.h"
#include "formats/text_words.h"
#include "formats/translatable.h"

namespace nmt {

namespace po_detail {

// ---------------------------------------------------------------------------
// libgettextpo reads and writes files by name and reports problems through a
// handler that must not return from a fatal error. The text goes through a
// private temporary file, and a fatal error jumps back to the call (the few
// C frames in between own nothing of ours; what the library allocated for
// the failed read is lost, once per refused file).

class TemporaryFile {
public:
    explicit TemporaryFile(const std::string& contents) {
        std::string pattern = (std::filesystem::temp_directory_path() / "nmt-po-XXXXXX").string();
        const int fd = ::mkstemp(pattern.data());
        if (fd < 0) throw Error("cannot create a temporary file in " + std::filesystem::temp_directory_path().string());
        path_ = pattern;
        size_t written = 0;
        while (written < contents.size()) {
            const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
            if (n <= 0) {
                ::close(fd);
                throw Error("cannot write the temporary file " + path_);
            }
            written += static_cast<size_t>(n);
        }
        ::close(fd);
    }
    ~TemporaryFile() { ::unlink(path_.c_str()); }
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;
    const std::string& path() const { return path_; }
    std::string contents() const {
        std::ifstream in(path_, std::ios::binary);
        std::ostringstream out;
        out << in.rdbuf();
        return out.str();
    }

private:
    std::string path_;
};

struct Problems {
    std::string first;  // "line 12: ..." of the first error
    bool error = false;
};

thread_local Problems* current_problems = nullptr;
thread_local std::jmp_buf* current_jump = nullptr;

void note(int severity, size_t line, const char* text) {
    if (severity == PO_SEVERITY_WARNING || !current_problems) return;
    if (!current_problems->error) {
        std::string where = line != size_t(-1) && line > 0 ? "line " + std::to_string(line) + ": " : "";
        std::string message = text ? text : "unknown error";
        while (!message.empty() && message.back() == '\n') message.pop_back();
        current_problems->first = where + message;
    }
    current_problems->error = true;
}

void on_error(int severity, po_message_t, const char*, size_t line, size_t, int, const char* text) {
    note(severity, line, text);
    if (severity == PO_SEVERITY_FATAL_ERROR) std::longjmp(*current_jump, 1);
}

void on_error2(int severity, po_message_t, const char*, size_t line, size_t, int, const char* text, po_message_t,
               const char*, size_t, size_t, int, const char*) {
    note(severity, line, text);
    if (severity == PO_SEVERITY_FATAL_ERROR) std::longjmp(*current_jump, 1);
}

const po_xerror_handler handler = {on_error, on_error2};

// Runs f (a call into libgettextpo) with the handler armed; false when it
// reported an error. No object with a destructor may live in this frame
// across the setjmp.
template <typename F>
bool guarded(Problems& problems, F f) {
    std::jmp_buf jump;
    current_problems = &problems;
    current_jump = &jump;
    if (setjmp(jump) == 0) f();
    current_problems = nullptr;
    current_jump = nullptr;
    return !problems.error;
}

struct FileCloser {
    void operator()(po_file_t file) const { po_file_free(file); }
};
using PoFile = std::unique_ptr<std::remove_pointer_t<po_file_t>, FileCloser>;

std::string take(char* text) {
    std::string out = text ? text : "";
    std::free(text);
    return out;
}

// ---------------------------------------------------------------------------
// The header.

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

std::string header_charset(const std::string& header) {
    const std::string type = take(po_header_field(header.c_str(), "Content-Type"));
    const size_t at = lower(type).find("charset=");
    if (at == std::string::npos) return "";
    size_t end = at + 8;
    while (end < type.size() && !std::isspace(static_cast<unsigned char>(type[end])) && type[end] != ';') ++end;
    return type.substr(at + 8, end - at - 8);
}

void check_charset(const std::string& header, const std::string& name) {
    const std::string charset = lower(header_charset(header));
    for (const char* fine : {"", "charset", "utf-8", "utf8", "ascii", "us-ascii"})
        if (charset == fine) return;
    throw Error(name + ": the catalogue's charset is " + header_charset(header) +
                "; convert it to UTF-8 first (msgconv --to-code=UTF-8)");
}

std::string set_field(const std::string& header, const char* field, const std::string& value) {
    return take(po_header_set_field(header.c_str(), field, value.c_str()));
}

// ---------------------------------------------------------------------------
// A message's text as what is translated: pieces without their layout and
// accelerators.

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

struct Accelerator {
    char mark = 0;     // '_' or '&'; 0: none
    int word = 0;      // the source word it was in
    char letter = 0;   // the letter it marked
};

// A message's text cut where its layout is: at line breaks, at runs of two
// or more spaces and at tabs (the columns of --help output), with the
// whitespace at its start and end set apart. Each piece between is
// translated alone (or copied); the whitespace comes back as it was.
struct Piece {
    std::string before;  // the whitespace before it
    std::string core;    // what is translated, without its accelerator
    Accelerator accelerator;
    bool translate = false;  // has letters outside placeholders, and is not an option name
};

struct Layout {
    std::vector<Piece> pieces;
    std::string after;  // the whitespace after the last piece
};

// One '_' or '&' before a letter or digit, in a line of at most four words;
// '&&' and entities (&amp;) are not marks.
Accelerator take_accelerator(std::string& core) {
    int candidates = 0;
    size_t at = 0;
    for (size_t i = 0; i + 1 < core.size(); ++i) {
        const char c = core[i];
        if (c != '_' && c != '&') continue;
        if (!is_alnum(core[i + 1])) continue;
        if (i > 0 && core[i - 1] == c) continue;
        if (c == '&') {
            size_t j = i + 1;
            while (j < core.size() && (is_alnum(core[j]) || core[j] == '#')) ++j;
            if (j < core.size() && core[j] == ';') continue;
        }
        ++candidates;
        at = i;
    }
    if (candidates != 1 || text_words(core).size() > 4) return {};
    Accelerator accelerator{core[at], 0, core[at + 1]};
    for (const auto& word : text_words(core))
        if (word.end <= at) ++accelerator.word;
    core.erase(at, 1);
    return accelerator;
}


bool layout_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

Layout message_layout(const std::string& text) {
    Layout layout;
    std::string before;
    size_t i = 0;
    while (i < text.size()) {
        size_t end = i;
        while (end < text.size() && layout_space(text[end])) ++end;
        const std::string run = text.substr(i, end - i);
        // A single space inside a line joins words; any other run separates pieces.
        const bool separates = i == 0 || end == text.size() || run.size() > 1 || run != " ";
        if (!run.empty() && separates) {
            before += run;
            i = end;
            continue;
        }
        if (!run.empty()) {  // one space within a piece
            layout.pieces.back().core += run;
            i = end;
            continue;
        }
        size_t stop = i;
        while (stop < text.size() && !layout_space(text[stop])) ++stop;
        const std::string word = text.substr(i, stop - i);
        if (!before.empty() || layout.pieces.empty()) {
            layout.pieces.push_back(Piece{before, word, {}, false});
            before.clear();
        } else {
            layout.pieces.back().core += word;
        }
        i = stop;
    }
    layout.after = before;
    for (Piece& piece : layout.pieces) {
        // "-h, --help", "--version": option names, never translated.
        const bool option = piece.core.size() > 1 && piece.core[0] == '-' && piece.core[1] != ' ';
        piece.translate = !option && has_letters_outside_placeholders(piece.core);
        if (piece.translate) piece.accelerator = take_accelerator(piece.core);
    }
    return layout;
}

// The byte where an accelerator goes in a target word: before the letter it
// marked when the word has it (either case), else before the word's first
// letter or digit, else at its start.
size_t accelerator_position(const std::string& text, const ByteSpan& word, char letter) {
    const char wanted = static_cast<char>(std::tolower(static_cast<unsigned char>(letter)));
    for (size_t b = word.begin; b < word.end; ++b)
        if (std::tolower(static_cast<unsigned char>(text[b])) == wanted) return b;
    for (size_t b = word.begin; b < word.end; ++b)
        if (is_alnum(text[b])) return b;
    return word.begin;
}

std::string with_accelerator(const SegmentTranslation& t, const Accelerator& accelerator) {
    std::string text = t.text;
    if (!accelerator.mark || t.target_words.empty()) return text;
    int target = -1;
    for (const auto& [s, w] : t.links)
        if (s == accelerator.word && (target < 0 || w < target)) target = w;
    if (target < 0 || size_t(target) >= t.target_words.size()) target = 0;
    text.insert(accelerator_position(text, t.target_words[target], accelerator.letter), 1, accelerator.mark);
    return text;
}

// Placeholders whose meaning is their position (%s, %d, {}), as against
// numbered or named ones (%1$s, %(name)s, {0}, {name}) and "%%".
bool bound_to_order(const std::string& placeholder) {
    if (placeholder == "{}") return true;
    if (placeholder.size() < 2 || placeholder[0] != '%' || placeholder == "%%") return false;
    return placeholder[1] != '(' && placeholder.find('$') == std::string::npos &&
           !std::isdigit(static_cast<unsigned char>(placeholder.back()));
}

// The translation's order-bound placeholders put back in the source's order,
// each where the translation has one (the same multiset: the translator
// guarantees it).
std::string source_order(const std::string& source, const std::string& translation) {
    std::vector<std::string> wanted;
    for (const auto& p : find_placeholders(source))
        if (bound_to_order(p)) wanted.push_back(p);
    struct Found {
        size_t at;
        std::string text;
    };
    std::vector<Found> found;
    size_t from = 0;
    for (const auto& p : find_placeholders(translation)) {
        const size_t at = translation.find(p, from);
        if (at == std::string::npos) return translation;
        from = at + p.size();
        if (bound_to_order(p)) found.push_back({at, p});
    }
    if (found.size() != wanted.size()) return translation;
    bool same = true;
    for (size_t k = 0; k < found.size(); ++k) same = same && found[k].text == wanted[k];
    if (same) return translation;
    std::string out;
    size_t copied = 0;
    for (size_t k = 0; k < found.size(); ++k) {
        out += translation.substr(copied, found[k].at - copied) + wanted[k];
        copied = found[k].at + found[k].text.size();
    }
    return out + translation.substr(copied);
}

// ---------------------------------------------------------------------------
// Plural forms.

struct PluralRule {
    const char* languages;  // space-separated
    const char* forms;
};

const PluralRule kPluralRules[] = {
    {"ja ko vi th id ms zh tr fa ka", "nplurals=1; plural=0;"},
    {"fr pt_BR oc br ak am ln mg ti wa fil", "nplurals=2; plural=(n > 1);"},
    {"en de nl sv da nb nn no fo is es it pt ca gl eu el fi et hu bg sq eo af fy frr "
     "ast he hi bn ur ta te kn ml mr gu pa ne sw so az kk ky uz mn",
     "nplurals=2; plural=(n != 1);"},
    {"ru uk be sr hr bs",
     "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);"},
    {"pl", "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);"},
    {"cs sk", "nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;"},
    {"ro", "nplurals=3; plural=(n==1 ? 0 : (n==0 || (n%100 > 0 && n%100 < 20)) ? 1 : 2);"},
    {"lt", "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && (n%100<10 || n%100>=20) ? 1 : 2);"},
    {"lv", "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n != 0 ? 1 : 2);"},
    {"sl", "nplurals=4; plural=(n%100==1 ? 0 : n%100==2 ? 1 : n%100==3 || n%100==4 ? 2 : 3);"},
    {"ga", "nplurals=5; plural=n==1 ? 0 : n==2 ? 1 : n<7 ? 2 : n<11 ? 3 : 4;"},
    {"ar", "nplurals=6; plural=n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5;"},
};

bool listed(const char* languages, const std::string& language) {
    std::istringstream words(languages);
    std::string word;
    while (words >> word)
        if (word == language) return true;
    return false;
}

}  // namespace po_detail

std::string usual_plural_forms(const std::string& language) {
    using namespace po_detail;
    if (language.empty()) return "";
    std::string base = language.substr(0, language.find_first_of(".@"));
    for (const auto& rule : kPluralRules)
        if (listed(rule.languages, base)) return rule.forms;
    base = base.substr(0, base.find('_'));
    for (const auto& rule : kPluralRules)
        if (listed(rule.languages, base)) return rule.forms;
    return "";
}

int plural_count(const std::string& plural_forms) {
    const size_t at = plural_forms.find("nplurals=");
    if (at == std::string::npos) return 0;
    size_t i = at + 9;
    while (i < plural_forms.size() && plural_forms[i] == ' ') ++i;
    int n = 0;
    bool digits = false;
    while (i < plural_forms.size() && std::isdigit(static_cast<unsigned char>(plural_forms[i])) && n < 100) {
        n = n * 10 + (plural_forms[i++] - '0');
        digits = true;
    }
    return digits && n >= 1 && n <= 6 ? n : 0;
}

namespace po_detail {

// ---------------------------------------------------------------------------
// The catalogue.

bool is_header(po_message_t message) {
    return po_message_msgid(message)[0] == '\0' && po_message_msgctxt(message) == nullptr;
}

bool translated(po_message_t message) {
    if (po_message_msgid_plural(message) == nullptr) return po_message_msgstr(message)[0] != '\0';
    for (int n = 0;; ++n) {
        const char* text = po_message_msgstr_plural(message, n);
        if (!text) return false;
        if (text[0] != '\0') return true;
    }
}

// What one msgstr (or msgstr[n]) receives: a source text's pieces.
struct Target {
    po_message_t message;
    int plural = -1;  // -1: msgstr
    std::string source;
    Layout layout;
    std::vector<int> segments;  // per piece: its segment, or -1
};

// The source text's translation, its layout put back; "" when nothing came
// out for a piece that had letters.
std::string assemble(const Target& target, const std::vector<SegmentTranslation>& translations) {
    std::string out;
    for (size_t k = 0; k < target.layout.pieces.size(); ++k) {
        const Piece& piece = target.layout.pieces[k];
        std::string core = piece.core;
        if (target.segments[k] >= 0) {
            const SegmentTranslation& t = translations[target.segments[k]];
            if (t.text.empty()) return "";
            // The translator may be any (a test's fake too): the placeholders
            // are made the source's here, whatever it kept.
            core = restore_placeholders(piece.core, with_accelerator(t, piece.accelerator));
        }
        out += piece.before + core;
    }
    return source_order(target.source, out + target.layout.after);
}

void set_target(const Target& target, const std::string& text) {
    if (target.plural < 0)
        po_message_set_msgstr(target.message, text.c_str());
    else
        po_message_set_msgstr_plural(target.message, target.plural, text.c_str());
}

// A plural message keeps exactly the forms the language has: a POT's two
// msgstr[n] become one for a language of one form.
void drop_extra_forms(po_message_t message, int forms) {
    if (forms <= 0) return;
    int last = forms;
    while (po_message_msgstr_plural(message, last)) ++last;
    for (int n = last - 1; n >= forms; --n) po_message_set_msgstr_plural(message, n, nullptr);
}

std::string message_name(po_message_t message) {
    std::string id = po_message_msgid(message);
    if (id.size() > 40) id = id.substr(0, 37) + "...";
    for (char& c : id)
        if (c == '\n') c = ' ';
    return "\"" + id + "\"";
}

}  // namespace po_detail

std::string translate_po(const std::string& text, const std::string& name, SegmentTranslator& translator,
                         const DocumentOptions& options) {
    using namespace po_detail;
    TemporaryFile input(text);
    Problems problems;
    po_file_t raw = nullptr;
    guarded(problems, [&] { raw = po_file_read(input.path().c_str(), &handler); });
    PoFile file(raw);
    if (problems.error || !file)
        throw Error(name + ": " + (problems.first.empty() ? "not a gettext catalogue" : problems.first) +
                    "; nothing written");

    std::vector<Target> targets;
    std::vector<std::string> segments;
    std::map<std::string, int> segment_index;
    for (const char* const* domain = po_file_domains(file.get()); *domain; ++domain) {
        // A copy of the header entry, the caller's to free (gettext-po.c
        // returns xstrdup's result despite the const in its declaration).
        std::string header = take(const_cast<char*>(po_file_domain_header(file.get(), *domain)));
        check_charset(header, name);
        std::string plural_forms = take(po_header_field(header.c_str(), "Plural-Forms"));
        const bool header_has_forms = plural_count(plural_forms) > 0;
        const std::string language =
            options.target_language.empty() ? take(po_header_field(header.c_str(), "Language")) : options.target_language;
        if (plural_count(plural_forms) == 0) plural_forms = usual_plural_forms(language);
        if (plural_count(plural_forms) == 0) {
            plural_forms = "nplurals=2; plural=(n != 1);";
            if (options.warn)
                options.warn(name + ": no plural rule known for language '" + language + "'; using " + plural_forms);
        }
        const int nplurals = plural_count(plural_forms);

        std::unique_ptr<std::remove_pointer_t<po_message_iterator_t>, void (*)(po_message_iterator_t)> iterator(
            po_message_iterator(file.get(), *domain), po_message_iterator_free);
        while (po_message_t message = po_next_message(iterator.get())) {
            if (po_message_is_obsolete(message)) continue;
            if (is_header(message)) {
                if (!header.empty()) {
                    header = set_field(header, "Content-Type", "text/plain; charset=UTF-8");
                    if (!language.empty()) header = set_field(header, "Language", language);
                    // The header says how many forms plural messages have (msgfmt
                    // checks it even in a catalogue that has none).
                    if (!header_has_forms) header = set_field(header, "Plural-Forms", plural_forms);
                    po_message_set_msgstr(message, header.c_str());
                }
                continue;
            }
            const bool plural = po_message_msgid_plural(message) != nullptr;
            if (translated(message) && !options.overwrite_translated) continue;
            std::vector<std::pair<int, std::string>> wanted;
            if (!plural) {
                wanted.emplace_back(-1, po_message_msgid(message));
            } else {
                for (int n = 0; n < nplurals; ++n)
                    wanted.emplace_back(n, n == 0 && nplurals > 1 ? po_message_msgid(message)
                                                                  : po_message_msgid_plural(message));
            }
            for (auto& [index, source] : wanted) {
                Target target{message, index, source, message_layout(source), {}};
                for (const Piece& piece : target.layout.pieces) {
                    int segment = -1;
                    if (piece.translate) {
                        auto [it, added] = segment_index.emplace(piece.core, static_cast<int>(segments.size()));
                        if (added) segments.push_back(piece.core);
                        segment = it->second;
                    }
                    target.segments.push_back(segment);
                }
                targets.push_back(std::move(target));
            }
        }
    }

    const std::vector<SegmentTranslation> translations = translator.translate(segments);
    if (translations.size() != segments.size())
        throw Error("the translator gave " + std::to_string(translations.size()) + " translations for " +
                    std::to_string(segments.size()) + " segments");

    // Messages gathered in order: each message's targets are consecutive.
    for (size_t i = 0; i < targets.size();) {
        po_message_t message = targets[i].message;
        size_t end = i;
        while (end < targets.size() && targets[end].message == message) ++end;
        std::vector<std::string> texts;
        bool complete = true;
        for (size_t k = i; k < end; ++k) {
            texts.push_back(assemble(targets[k], translations));
            complete = complete && !texts.back().empty();
        }
        if (complete) {
            for (size_t k = i; k < end; ++k) set_target(targets[k], texts[k - i]);
            drop_extra_forms(message, targets[end - 1].plural + 1);
            Problems check;
            guarded(check, [&] { po_message_check_format(message, &handler); });
            if (check.error) {
                for (size_t k = i; k < end; ++k) set_target(targets[k], "");
                if (options.warn)
                    options.warn(name + ": message " + message_name(message) +
                                 " left untranslated: its translation fails gettext's format check (" + check.first +
                                 ")");
            } else {
                po_message_set_fuzzy(message, 1);
            }
        }
        i = end;
    }

    TemporaryFile output("");
    Problems writing;
    guarded(writing, [&] { po_file_write(file.get(), output.path().c_str(), &handler); });
    if (writing.error) throw Error(name + ": cannot write the translated catalogue: " + writing.first);
    return output.contents();
}

}  // namespace nmt
