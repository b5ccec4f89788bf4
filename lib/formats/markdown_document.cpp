#include "formats/markdown_document.h"

#include "formats/html_document.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "core/error.h"
#include "formats/html_document.h"
#include "formats/inline_markup.h"

namespace nmt {

namespace {

// cmark-gfm's parser with GitHub's extensions, and the tree it read.
class Parse {
public:
    explicit Parse(const std::string& text) {
        cmark_gfm_core_extensions_ensure_registered();
        parser_ = cmark_parser_new(CMARK_OPT_DEFAULT);
        for (const char* name : {"table", "strikethrough", "autolink", "tasklist"})
            if (cmark_syntax_extension* extension = cmark_find_syntax_extension(name))
                cmark_parser_attach_syntax_extension(parser_, extension);
        cmark_parser_feed(parser_, text.data(), text.size());
        document_ = cmark_parser_finish(parser_);
    }
    ~Parse() {
        cmark_node_free(document_);
        cmark_parser_free(parser_);
    }
    Parse(const Parse&) = delete;
    Parse& operator=(const Parse&) = delete;

    cmark_node* document() const { return document_; }
    std::string html() const {
        char* html = cmark_render_html(document_, CMARK_OPT_UNSAFE, cmark_parser_get_syntax_extensions(parser_));
        std::string out = html;
        std::free(html);
        return out;
    }

private:
    cmark_parser* parser_ = nullptr;
    cmark_node* document_ = nullptr;
};

std::string type_of(cmark_node* node) { return cmark_node_get_type_string(node); }
std::string literal_of(cmark_node* node) {
    const char* literal = cmark_node_get_literal(node);
    return literal ? literal : "";
}
bool is_space(char c) { return c == ' ' || c == '\t'; }

// What a translated block's inline parts are.
enum class PartKind { Emphasis, Strong, Strikethrough, Link, HtmlPair, Code, Image, Autolink, Html, LineBreak };

struct Part {
    PartKind kind = PartKind::Html;
    cmark_node* node = nullptr;
    std::string open, close;  // an HTML pair's two tags, as written
};

// "<b ...>" and its "</b>" among one node's children, so that they move
// together with what they enclose.
std::string html_tag_name(const std::string& literal, bool& closing) {
    closing = literal.size() > 1 && literal[1] == '/';
    size_t i = closing ? 2 : 1;
    std::string name;
    while (i < literal.size() && (std::isalnum(static_cast<unsigned char>(literal[i])) || literal[i] == '-'))
        name += static_cast<char>(std::tolower(static_cast<unsigned char>(literal[i++])));
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) return "";
    if (!closing && literal.size() >= 2 && literal[literal.size() - 2] == '/') return "";  // <br/>
    static const char* const kVoid[] = {"area", "base", "br", "col", "embed", "hr", "img", "input",
                                        "link", "meta", "param", "source", "track", "wbr"};
    for (const char* v : kVoid)
        if (name == v) return "";
    return name;
}

bool is_autolink(cmark_node* link) {
    cmark_node* text = cmark_node_first_child(link);
    if (!text || cmark_node_next(text) || cmark_node_get_type(text) != CMARK_NODE_TEXT) return false;
    const std::string url = cmark_node_get_url(link) ? cmark_node_get_url(link) : "";
    const std::string shown = literal_of(text);
    return url == shown || url == "mailto:" + shown || url == "http://" + shown;
}

class BlockBuilder {
public:
    InlineSegment segment;
    std::vector<Part> parts{Part{}};
    bool supported = true;
    bool raw_html = false;  // inline HTML tags among its content

    void add_children(cmark_node* parent, int part) {
        std::vector<cmark_node*> kids;
        for (cmark_node* kid = cmark_node_first_child(parent); kid; kid = cmark_node_next(kid)) kids.push_back(kid);
        // Pair inline HTML tags at this level.
        std::vector<int> partner(kids.size(), -1);
        std::vector<std::pair<std::string, size_t>> open;
        for (size_t i = 0; i < kids.size(); ++i) {
            if (cmark_node_get_type(kids[i]) != CMARK_NODE_HTML_INLINE) continue;
            bool closing = false;
            const std::string name = html_tag_name(literal_of(kids[i]), closing);
            if (name.empty()) continue;
            if (!closing) {
                open.emplace_back(name, i);
            } else if (!open.empty() && open.back().first == name) {
                partner[open.back().second] = static_cast<int>(i);
                partner[i] = static_cast<int>(open.back().second);
                open.pop_back();
            } else {
                segment.keep_order();  // a stray end tag may close what encloses it
            }
        }
        if (!open.empty()) segment.keep_order();  // an element that takes in what follows it
        add_range(kids, partner, 0, kids.size(), part);
    }

private:
    // Pairs nest (they were matched on a stack): those inside a pair are
    // its parts.
    void add_range(const std::vector<cmark_node*>& kids, const std::vector<int>& partner, size_t from, size_t to,
                   int part) {
        for (size_t i = from; i < to; ++i) {
            if (partner[i] > static_cast<int>(i)) {
                const int pair = add_part(part, PartKind::HtmlPair, kids[i], false);
                parts[pair].open = literal_of(kids[i]);
                parts[pair].close = literal_of(kids[partner[i]]);
                add_range(kids, partner, i + 1, partner[i], pair);
                i = partner[i];
                continue;
            }
            add(kids[i], part);
        }
    }

    int add_part(int parent, PartKind kind, cmark_node* node, bool verbatim) {
        const int index = segment.add_part(parent, verbatim);
        Part p;
        p.kind = kind;
        p.node = node;
        parts.push_back(p);
        return index;
    }

    void add(cmark_node* node, int part) {
        switch (cmark_node_get_type(node)) {
        case CMARK_NODE_TEXT: {
            const std::string text = literal_of(node);
            segment.add_text(text.data(), text.size(), part);
            return;
        }
        case CMARK_NODE_SOFTBREAK:
            segment.add_space();
            return;
        case CMARK_NODE_LINEBREAK:
            add_part(part, PartKind::LineBreak, node, true);
            segment.add_space();
            return;
        case CMARK_NODE_CODE: {
            const int code = add_part(part, PartKind::Code, node, true);
            const std::string text = literal_of(node);
            segment.add_space();  // its words apart from the text around it
            segment.add_text(text.data(), text.size(), code, false);
            segment.add_space();
            return;
        }
        case CMARK_NODE_HTML_INLINE: {
            raw_html = true;
            add_part(part, PartKind::Html, node, true);
            const std::string literal = literal_of(node);
            if (literal.size() > 3 && (literal.compare(0, 3, "<br") == 0 || literal.compare(0, 3, "<BR") == 0) &&
                !std::isalnum(static_cast<unsigned char>(literal[3])))
                segment.add_space();  // a line break parts words
            return;
        }
        case CMARK_NODE_IMAGE:
            add_part(part, PartKind::Image, node, true);
            return;
        case CMARK_NODE_EMPH:
            add_children(node, add_part(part, PartKind::Emphasis, node, false));
            return;
        case CMARK_NODE_STRONG:
            add_children(node, add_part(part, PartKind::Strong, node, false));
            return;
        case CMARK_NODE_LINK:
            if (is_autolink(node)) {
                const int link = add_part(part, PartKind::Autolink, node, true);
                const std::string text = literal_of(cmark_node_first_child(node));
                segment.add_space();
                segment.add_text(text.data(), text.size(), link, false);
                segment.add_space();
            } else {
                add_children(node, add_part(part, PartKind::Link, node, false));
            }
            return;
        default:
            if (type_of(node) == "strikethrough") {
                add_children(node, add_part(part, PartKind::Strikethrough, node, false));
                return;
            }
            supported = false;  // an inline this writer does not know: left as it is
            return;
        }
    }
};

std::string plain_text(cmark_node* node) {
    std::string out;
    for (cmark_node* kid = cmark_node_first_child(node); kid; kid = cmark_node_next(kid)) {
        const cmark_node_type type = cmark_node_get_type(kid);
        if (type == CMARK_NODE_TEXT || type == CMARK_NODE_CODE) out += literal_of(kid);
        else if (type == CMARK_NODE_SOFTBREAK || type == CMARK_NODE_LINEBREAK) out += ' ';
        else out += plain_text(kid);
    }
    return out;
}

bool entity_like(const std::string& s, size_t amp) {
    size_t i = amp + 1;
    if (i < s.size() && s[i] == '#') ++i;
    const size_t start = i;
    while (i < s.size() && std::isalnum(static_cast<unsigned char>(s[i]))) ++i;
    return i > start && i < s.size() && s[i] == ';';
}

// Text as Markdown that reads back as that text, on one line.
std::string escape_text(const std::string& text, bool line_start) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '\n' || c == '\r') c = ' ';
        if (c == '\0') {
            out += "\xEF\xBF\xBD";
            continue;
        }
        bool escape = std::strchr("\\`*_[]<>&|~#!", c) != nullptr;
        if (c == '.' && i >= 3 && (text.compare(i - 3, 3, "www") == 0 || text.compare(i - 3, 3, "WWW") == 0))
            escape = true;  // no autolink made of "www."
        if (c == ':' && text.compare(i, 3, "://") == 0) escape = true;
        if (c == '@') escape = true;  // nor of an e-mail address
        if (line_start && out.empty() && (c == '-' || c == '+' || c == '=')) escape = true;
        if (line_start && (c == '.' || c == ')') && i > 0) {
            size_t digits = 0;
            while (digits < i && std::isdigit(static_cast<unsigned char>(text[i - 1 - digits]))) ++digits;
            if (digits == i) escape = true;  // "1986." would start a list
        }
        if (escape) out += '\\';
        out += c;
    }
    return out;
}

std::string destination(const std::string& url, bool in_table) {
    bool angle = url.empty();
    for (char c : url)
        if (static_cast<unsigned char>(c) <= ' ') angle = true;
    std::string out;
    for (size_t i = 0; i < url.size(); ++i) {
        const char c = url[i];
        if (c == '\\' || c == '<' || c == '>' || (!angle && (c == '(' || c == ')')) || (c == '&' && entity_like(url, i)) ||
            (c == '|' && in_table))
            out += '\\';
        out += c;
    }
    return angle ? "<" + out + ">" : out;
}

std::string link_tail(cmark_node* node, bool in_table) {
    std::string out = "](" + destination(cmark_node_get_url(node) ? cmark_node_get_url(node) : "", in_table);
    const std::string title = cmark_node_get_title(node) ? cmark_node_get_title(node) : "";
    if (!title.empty()) {
        out += " \"";
        for (size_t i = 0; i < title.size(); ++i) {
            const char c = title[i] == '\n' ? ' ' : title[i];
            if (c == '"' || c == '\\' || (c == '&' && entity_like(title, i)) || (c == '|' && in_table)) out += '\\';
            out += c;
        }
        out += '"';
    }
    return out + ")";
}

std::string code_span(const std::string& literal, bool in_table) {
    size_t longest = 0, run = 0;
    for (char c : literal) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    const std::string fence(longest + 1, '`');
    const bool all_space = literal.find_first_not_of(' ') == std::string::npos;
    const bool pad = !literal.empty() && (literal.front() == '`' || literal.back() == '`' ||
                                          (!all_space && literal.front() == ' ' && literal.back() == ' '));
    std::string body;
    for (char c : literal) {
        if (c == '|' && in_table) body += '\\';
        body += c;
    }
    return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

// The inline elements of a paragraph, as the check compares them.
void inline_signature(cmark_node* parent, std::string& out) {
    for (cmark_node* kid = cmark_node_first_child(parent); kid; kid = cmark_node_next(kid)) {
        switch (cmark_node_get_type(kid)) {
        case CMARK_NODE_EMPH: out += "E("; inline_signature(kid, out); out += ")"; break;
        case CMARK_NODE_STRONG: out += "S("; inline_signature(kid, out); out += ")"; break;
        case CMARK_NODE_LINK: out += "L("; inline_signature(kid, out); out += ")"; break;
        case CMARK_NODE_IMAGE: out += "I"; break;
        case CMARK_NODE_CODE: out += "C"; break;
        case CMARK_NODE_HTML_INLINE: out += "H"; break;
        case CMARK_NODE_LINEBREAK: out += "B"; break;
        case CMARK_NODE_TEXT: case CMARK_NODE_SOFTBREAK: break;
        default:
            if (type_of(kid) == "strikethrough") {
                out += "D(";
                inline_signature(kid, out);
                out += ")";
            } else {
                out += "?" + type_of(kid);
            }
        }
    }
}

// Whether `content` alone parses to one paragraph with these inline elements.
bool reads_as(const std::string& content, const std::string& signature) {
    Parse parse(content);
    cmark_node* paragraph = cmark_node_first_child(parse.document());
    if (!paragraph || cmark_node_next(paragraph) || cmark_node_get_type(paragraph) != CMARK_NODE_PARAGRAPH) return false;
    std::string found;
    inline_signature(paragraph, found);
    return found == signature;
}

struct Block {
    size_t begin = 0, end = 0;  // the source bytes its content replaces
    bool in_table = false;
    BlockBuilder built;
    int segment = -1;
};

// Writes a block's translation; `html_tags`: emphasis as HTML elements.
std::string write_block(const Block& block, const SegmentTranslation& tr, bool html_tags, std::string& signature) {
    const BlockBuilder& b = block.built;
    std::string out;
    const bool line_start = !block.in_table;
    InlineSegment::Writer writer;
    writer.text = [&](const std::string& text) { out += escape_text(text, line_start && out.empty()); };
    auto html_name = [](PartKind kind) {
        return kind == PartKind::Emphasis ? "em" : kind == PartKind::Strong ? "strong" : "del";
    };
    auto delimiter = [](PartKind kind) {
        return kind == PartKind::Emphasis ? "*" : kind == PartKind::Strong ? "**" : "~~";
    };
    writer.open = [&](int p, bool empty) {
        const Part& part = b.parts[p];
        switch (part.kind) {
        case PartKind::Link: out += "["; signature += "L("; break;
        case PartKind::HtmlPair: out += part.open; signature += "H"; break;
        default:
            if (html_tags || empty) {
                out += std::string("<") + html_name(part.kind) + ">";
                signature += "H";
            } else {
                out += delimiter(part.kind);
                signature += part.kind == PartKind::Emphasis ? "E(" : part.kind == PartKind::Strong ? "S(" : "D(";
            }
        }
    };
    writer.close = [&](int p, bool empty) {
        const Part& part = b.parts[p];
        switch (part.kind) {
        case PartKind::Link: out += link_tail(part.node, block.in_table); signature += ")"; break;
        case PartKind::HtmlPair: out += part.close; signature += "H"; break;
        default:
            if (html_tags || empty) {
                out += std::string("</") + html_name(part.kind) + ">";
                signature += "H";
            } else {
                out += delimiter(part.kind);
                signature += ")";
            }
        }
    };
    writer.verbatim = [&](int p) {
        const Part& part = b.parts[p];
        switch (part.kind) {
        case PartKind::Code: out += code_span(literal_of(part.node), block.in_table); signature += "C"; break;
        case PartKind::Html: {
            std::string literal = literal_of(part.node);
            std::replace(literal.begin(), literal.end(), '\n', ' ');
            std::replace(literal.begin(), literal.end(), '\r', ' ');
            out += literal;
            signature += "H";
            break;
        }
        case PartKind::LineBreak: out += "<br>"; signature += "H"; break;
        case PartKind::Image:
            out += "![" + escape_text(plain_text(part.node), false) + link_tail(part.node, block.in_table);
            signature += "I";
            break;
        case PartKind::Autolink: {
            const std::string url = cmark_node_get_url(part.node) ? cmark_node_get_url(part.node) : "";
            const std::string shown = literal_of(cmark_node_first_child(part.node));
            const bool plain = url.find_first_of(" <>\\&|") == std::string::npos &&
                               std::none_of(url.begin(), url.end(), [](char c) { return static_cast<unsigned char>(c) < ' '; });
            if (plain && (url == shown || url == "mailto:" + shown)) out += "<" + shown + ">";
            else out += "[" + escape_text(shown, false) + link_tail(part.node, block.in_table);
            signature += "L()";
            break;
        }
        default: break;
        }
    };
    b.segment.write(tr, writer);
    return out;
}

class Source {
public:
    explicit Source(const std::string& text) : text_(text) {
        line_starts_.push_back(0);
        for (size_t i = 0; i < text.size(); ++i) {
            if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
            if (text[i] == '\n' || text[i] == '\r') line_starts_.push_back(i + 1);
        }
    }
    int lines() const { return static_cast<int>(line_starts_.size()); }
    // Byte of 1-based (line, column); npos if outside.
    size_t at(int line, int column) const {
        if (line < 1 || line > lines() || column < 1) return std::string::npos;
        const size_t byte = line_starts_[line - 1] + column - 1;
        return byte < line_end(line) ? byte : std::string::npos;
    }
    size_t line_begin(int line) const { return line_starts_[line - 1]; }
    size_t line_end(int line) const {  // before its line ending
        size_t end = line < lines() ? line_starts_[line] : text_.size();
        while (end > line_starts_[line - 1] && (text_[end - 1] == '\n' || text_[end - 1] == '\r')) --end;
        return end;
    }
    size_t trim_end(size_t begin, size_t end) const {
        while (end > begin && is_space(text_[end - 1])) --end;
        return end;
    }
    const std::string& text() const { return text_; }

private:
    const std::string& text_;
    std::vector<size_t> line_starts_;
};

int breaks_in(cmark_node* node) {
    int count = 0;
    for (cmark_node* kid = cmark_node_first_child(node); kid; kid = cmark_node_next(kid)) {
        const cmark_node_type type = cmark_node_get_type(kid);
        if (type == CMARK_NODE_SOFTBREAK || type == CMARK_NODE_LINEBREAK) ++count;
        else count += breaks_in(kid);
    }
    return count;
}

// A line that is a link reference definition ("[label]: destination").
bool reference_line(const std::string& line) {
    size_t i = 0;
    while (i < line.size() && i < 3 && line[i] == ' ') ++i;
    if (i >= line.size() || line[i] != '[') return false;
    const size_t close = line.find("]:", i);
    return close != std::string::npos && close > i + 1;
}

bool has_leaf(cmark_node* node) {
    for (cmark_node* kid = cmark_node_first_child(node); kid; kid = cmark_node_next(kid)) {
        const cmark_node_type type = cmark_node_get_type(kid);
        if (type != CMARK_NODE_BLOCK_QUOTE && type != CMARK_NODE_LIST && type != CMARK_NODE_ITEM) return true;
        if (has_leaf(kid)) return true;
    }
    return false;
}

// Whether `text` parses to nothing but link reference definitions.
bool only_definitions(const std::string& text) {
    Parse parse(text);
    return !has_leaf(parse.document());
}

// A setext heading's underline: "===" or "---" after its container prefix.
bool underline_line(const std::string& line) {
    size_t i = 0;
    while (i < line.size() && (is_space(line[i]) || line[i] == '>')) ++i;
    if (i == line.size() || (line[i] != '=' && line[i] != '-')) return false;
    const char c = line[i];
    while (i < line.size() && line[i] == c) ++i;
    while (i < line.size() && is_space(line[i])) ++i;
    return i == line.size();
}

// The bytes of a block's inline content, or nothing if they cannot be told.
std::optional<std::pair<size_t, size_t>> content_range(cmark_node* node, const Source& src) {
    const int first = cmark_node_get_start_line(node), last = cmark_node_get_end_line(node);
    const int column = cmark_node_get_start_column(node);
    if (first < 1 || last < first || last > src.lines()) return std::nullopt;
    size_t begin = src.at(first, column);
    if (begin == std::string::npos) return std::nullopt;
    const std::string type = type_of(node);
    if (type == "table_cell") {
        const size_t end_byte = src.at(last, cmark_node_get_end_column(node));
        if (last != first || end_byte == std::string::npos) return std::nullopt;
        size_t end = src.trim_end(begin, end_byte + 1);
        while (begin < end && is_space(src.text()[begin])) ++begin;
        return std::make_pair(begin, end);
    }
    // Reference definitions read off a paragraph's (or setext heading's)
    // first lines are not in it, but its start says they are. Its content
    // starts at the latest line L (leaving the lines its content needs)
    // such that the lines before L, parsed alone, hold no paragraph: only
    // definitions. False if its first line looks like a definition and no
    // such line is found (then it is left alone: a definition could be
    // overwritten).
    auto skip_references = [&](int content_end_line) {
        const std::string first_line = src.text().substr(begin, src.line_end(first) - begin);
        if (!reference_line(first_line)) return true;
        for (int line = content_end_line - breaks_in(node); line > first; --line) {
            if (!only_definitions(src.text().substr(begin, src.line_begin(line) - begin))) continue;
            begin = src.line_begin(line);  // the content's first line, past its container prefix
            while (begin < src.line_end(line) && (is_space(src.text()[begin]) || src.text()[begin] == '>')) ++begin;
            return true;
        }
        return false;
    };
    if (cmark_node_get_type(node) == CMARK_NODE_PARAGRAPH) {
        if (!skip_references(last)) return std::nullopt;
        return std::make_pair(begin, src.trim_end(begin, src.line_end(last)));
    }
    // A heading: ATX on one line ("## Title ##"), setext over its content
    // lines and the underline.
    const int content_lines = breaks_in(node) + 1;
    const bool atx = src.text()[begin] == '#';
    if (atx) {
        if (content_lines != 1) return std::nullopt;
        size_t i = begin;
        const size_t line_end = src.line_end(first);
        while (i < line_end && src.text()[i] == '#') ++i;
        while (i < line_end && is_space(src.text()[i])) ++i;
        size_t end = src.trim_end(i, line_end);
        size_t hashes = end;
        while (hashes > i && src.text()[hashes - 1] == '#') --hashes;
        if (hashes < end && (hashes == i || is_space(src.text()[hashes - 1]))) end = src.trim_end(i, hashes);
        return std::make_pair(i, end);
    }
    // cmark's end line for a setext heading is not always its underline:
    // the first line after the content that is one.
    for (int underline = first + content_lines; underline <= src.lines(); ++underline) {
        if (!underline_line(src.text().substr(src.line_begin(underline), src.line_end(underline) - src.line_begin(underline))))
            continue;
        if (!skip_references(underline - 1)) return std::nullopt;
        return std::make_pair(begin, src.trim_end(begin, src.line_end(underline - 1)));
    }
    return std::nullopt;
}

}  // namespace

MarkdownDocument::MarkdownDocument(std::string markdown) {
    // cmark reads NUL as U+FFFD, which would shift its byte columns.
    source_.reserve(markdown.size());
    for (char c : markdown) {
        if (c == '\0') source_ += "\xEF\xBF\xBD";
        else source_ += c;
    }
}

std::string MarkdownDocument::to_html(const std::string& markdown) { return Parse(markdown).html(); }

std::string MarkdownDocument::translate(SegmentTranslator& translator) const {
    Parse parse(source_);
    const Source src(source_);
    std::vector<Block> blocks;
    std::vector<std::string> segments;
    cmark_iter* iter = cmark_iter_new(parse.document());
    for (cmark_event_type event; (event = cmark_iter_next(iter)) != CMARK_EVENT_DONE;) {
        cmark_node* node = cmark_iter_get_node(iter);
        if (event != CMARK_EVENT_ENTER) continue;
        const std::string type = type_of(node);
        if (type != "paragraph" && type != "heading" && type != "table_cell") continue;
        const auto range = content_range(node, src);
        if (!range || range->second <= range->first) continue;
        Block block;
        block.begin = range->first;
        block.end = range->second;
        block.in_table = type == "table_cell";
        block.built.add_children(node, 0);
        if (!block.built.supported || !block.built.segment.has_words()) continue;
        block.segment = static_cast<int>(segments.size());
        segments.push_back(block.built.segment.text());
        blocks.push_back(std::move(block));
    }
    cmark_iter_free(iter);

    std::vector<SegmentTranslation> results;
    if (!segments.empty()) results = translator.translate(segments);
    if (results.size() != segments.size())
        throw Error("Markdown: the segment translator returned " + std::to_string(results.size()) + " results for " +
                    std::to_string(segments.size()) + " segments");

    std::sort(blocks.begin(), blocks.end(), [](const Block& a, const Block& b) { return a.begin < b.begin; });
    // The document with each block's content translated but for the kept
    // ones, from `first` to `last` (block indices) only, the rest as it was.
    const auto assemble = [&](const std::vector<bool>& kept, size_t first, size_t last) {
        std::string out;
        size_t pos = first < blocks.size() && first > 0 ? blocks[first - 1].begin : 0;
        const size_t stop = last + 1 < blocks.size() ? blocks[last + 1].end : source_.size();
        const size_t start = pos;
        for (size_t i = first; i <= last && i < blocks.size(); ++i) {
            const Block& block = blocks[i];
            if (block.begin < pos || kept[i]) continue;  // overlapping ranges: never seen, never written twice
            out.append(source_, pos, block.begin - pos);
            pos = block.begin;
            for (bool html_tags : {false, true}) {
                std::string signature;
                const std::string content = write_block(block, results[block.segment], html_tags, signature);
                if (reads_as(content, signature)) {
                    out += content;
                    pos = block.end;
                    break;
                }
            }
        }
        out.append(source_, pos, stop - pos);
        return std::make_pair(out, source_.substr(start, stop - start));
    };
    const auto page = [](const std::string& markdown) {
        return HtmlDocument(to_html(markdown), HtmlKind::Fragment).structure();
    };
    const auto same_page = [&](const std::string& a, const std::string& b) { return page(a) == page(b); };
    // Each block's content was checked to read as intended on its own; in
    // its place it can still change the page (a line after a table that now
    // reads as a row; an inline HTML tag left open, which HTML nests around
    // whatever follows it, even across blocks). The whole page is checked as
    // a browser would build it; if it changed, the blocks with inline HTML and
    // those that change the page between their neighbours stay as they were,
    // and if even that does not keep the page, the document does.
    std::vector<bool> kept(blocks.size(), false);
    std::string out = assemble(kept, 0, blocks.size()).first;
    const auto source_page = page(source_);
    if (page(out) == source_page) return out;
    std::vector<bool> only(blocks.size(), true);  // all kept but block i
    for (size_t i = 0; i < blocks.size(); ++i) {
        if (blocks[i].built.raw_html) {
            kept[i] = true;
            continue;
        }
        only[i] = false;
        const auto [translated, original] = assemble(only, i, i);
        kept[i] = !same_page(translated, original);
        only[i] = true;
    }
    out = assemble(kept, 0, blocks.size()).first;
    return page(out) == source_page ? out : source_;
}

}  // namespace nmt
