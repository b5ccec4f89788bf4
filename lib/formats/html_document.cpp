#include "formats/html_document.h"

#include <gumbo.h>

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

#include "core/error.h"
#include "formats/inline_markup.h"

namespace nmt {

namespace {

const GumboVector& children_of(const GumboNode* node) {
    return node->type == GUMBO_NODE_DOCUMENT ? node->v.document.children : node->v.element.children;
}
const GumboNode* child(const GumboNode* node, size_t i) {
    return static_cast<const GumboNode*>(children_of(node).data[i]);
}
bool is_element(const GumboNode* node) {
    return node->type == GUMBO_NODE_ELEMENT || node->type == GUMBO_NODE_TEMPLATE;
}
bool is_html(const GumboNode* node, GumboTag tag) {
    return is_element(node) && node->v.element.tag == tag && node->v.element.tag_namespace == GUMBO_NAMESPACE_HTML;
}

bool ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }
std::string ascii_lower(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}

// Inline elements whose text is translated with the words around them.
bool translatable_inline(GumboTag tag) {
    switch (tag) {
    case GUMBO_TAG_A: case GUMBO_TAG_ABBR: case GUMBO_TAG_ACRONYM: case GUMBO_TAG_B: case GUMBO_TAG_BDI:
    case GUMBO_TAG_BDO: case GUMBO_TAG_BIG: case GUMBO_TAG_CITE: case GUMBO_TAG_DATA: case GUMBO_TAG_DEL:
    case GUMBO_TAG_DFN: case GUMBO_TAG_EM: case GUMBO_TAG_FONT: case GUMBO_TAG_I: case GUMBO_TAG_INS:
    case GUMBO_TAG_LABEL: case GUMBO_TAG_MARK: case GUMBO_TAG_NOBR: case GUMBO_TAG_Q: case GUMBO_TAG_S:
    case GUMBO_TAG_SMALL: case GUMBO_TAG_SPAN: case GUMBO_TAG_STRIKE: case GUMBO_TAG_STRONG: case GUMBO_TAG_SUB:
    case GUMBO_TAG_SUP: case GUMBO_TAG_TIME: case GUMBO_TAG_TT: case GUMBO_TAG_U: case GUMBO_TAG_BLINK:
        return true;
    default:
        return false;
    }
}
// Inline elements kept as they are and moved as one piece; the first group's
// text is shown to the translator (names and commands the model copies).
bool verbatim_inline_with_text(GumboTag tag) {
    return tag == GUMBO_TAG_CODE || tag == GUMBO_TAG_KBD || tag == GUMBO_TAG_SAMP || tag == GUMBO_TAG_VAR;
}
bool verbatim_inline(GumboTag tag) {
    switch (tag) {
    case GUMBO_TAG_BR: case GUMBO_TAG_WBR: case GUMBO_TAG_IMG: case GUMBO_TAG_INPUT: case GUMBO_TAG_BUTTON:
    case GUMBO_TAG_SELECT: case GUMBO_TAG_TEXTAREA: case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE:
    case GUMBO_TAG_IFRAME: case GUMBO_TAG_EMBED: case GUMBO_TAG_OBJECT: case GUMBO_TAG_VIDEO: case GUMBO_TAG_AUDIO:
    case GUMBO_TAG_CANVAS: case GUMBO_TAG_MAP: case GUMBO_TAG_RUBY: case GUMBO_TAG_METER: case GUMBO_TAG_PROGRESS:
    case GUMBO_TAG_OUTPUT: case GUMBO_TAG_TEMPLATE: case GUMBO_TAG_NOSCRIPT: case GUMBO_TAG_KEYGEN:
    case GUMBO_TAG_SVG: case GUMBO_TAG_MATH:
        return true;
    default:
        return verbatim_inline_with_text(tag);
    }
}
// Blocks written out exactly as parsed.
bool verbatim_block(GumboTag tag) {
    switch (tag) {
    case GUMBO_TAG_PRE: case GUMBO_TAG_LISTING: case GUMBO_TAG_XMP: case GUMBO_TAG_PLAINTEXT:
    case GUMBO_TAG_TEXTAREA: case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE: case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_TEMPLATE: case GUMBO_TAG_IFRAME: case GUMBO_TAG_NOEMBED: case GUMBO_TAG_NOFRAMES:
    case GUMBO_TAG_SELECT: case GUMBO_TAG_OBJECT: case GUMBO_TAG_SVG: case GUMBO_TAG_MATH:
        return true;
    default:
        return verbatim_inline_with_text(tag);
    }
}

bool translate_no(const GumboNode* node) {
    const GumboAttribute* attr = gumbo_get_attribute(&node->v.element.attributes, "translate");
    return attr && ascii_lower(attr->value) == "no";
}

bool is_void(const GumboNode* node) {
    if (node->v.element.tag_namespace != GUMBO_NAMESPACE_HTML) return false;
    switch (node->v.element.tag) {
    case GUMBO_TAG_AREA: case GUMBO_TAG_BASE: case GUMBO_TAG_BASEFONT: case GUMBO_TAG_BGSOUND: case GUMBO_TAG_BR:
    case GUMBO_TAG_COL: case GUMBO_TAG_EMBED: case GUMBO_TAG_FRAME: case GUMBO_TAG_HR: case GUMBO_TAG_IMG:
    case GUMBO_TAG_INPUT: case GUMBO_TAG_KEYGEN: case GUMBO_TAG_LINK: case GUMBO_TAG_META: case GUMBO_TAG_PARAM:
    case GUMBO_TAG_SOURCE: case GUMBO_TAG_TRACK: case GUMBO_TAG_WBR:
        return true;
    default:
        return false;
    }
}

// How an element takes part in translation.
enum class Role {
    Inline,    // its text joins the segment around it; moved with its words
    Verbatim,  // kept as it is; inside running text, moved as one piece
    Block,     // a boundary between segments; its content translated inside it
    Kept,      // a block kept as it is
};

bool all_descendants_inline(const GumboNode* node);
bool holds_plaintext(const GumboNode* node);

// Roles are asked for again and again down a tree: kept while one document
// is being read (cleared by RoleCache, as nodes' addresses are reused).
thread_local std::unordered_map<const GumboNode*, Role> role_cache;
struct RoleCache {
    RoleCache() { role_cache.clear(); }
    ~RoleCache() { role_cache.clear(); }
};

Role find_role(const GumboNode* node) {
    const GumboElement& element = node->v.element;
    // Everything after "<plaintext>" is text: it and what holds it stay where
    // they are, last.
    if (holds_plaintext(node)) return Role::Kept;
    const bool html = element.tag_namespace == GUMBO_NAMESPACE_HTML;
    if (!html) return Role::Verbatim;  // svg and math roots are HTML-parented foreign elements
    if (translate_no(node)) return translatable_inline(element.tag) || verbatim_inline(element.tag) ? Role::Verbatim
                                                                                                   : Role::Kept;
    if (verbatim_inline(element.tag)) {
        // <code> holding a <div> is a block of code, not a word in a sentence.
        if (verbatim_inline_with_text(element.tag) && !all_descendants_inline(node)) return Role::Kept;
        return Role::Verbatim;
    }
    if (translatable_inline(element.tag) && all_descendants_inline(node)) return Role::Inline;
    return verbatim_block(element.tag) ? Role::Kept : Role::Block;
}

Role role_of(const GumboNode* node) {
    auto found = role_cache.find(node);
    if (found != role_cache.end()) return found->second;
    const Role role = find_role(node);
    role_cache[node] = role;
    return role;
}

bool holds_plaintext(const GumboNode* node) {
    if (is_html(node, GUMBO_TAG_PLAINTEXT)) return true;
    const GumboVector& kids = children_of(node);
    for (unsigned i = 0; i < kids.length; ++i) {
        const GumboNode* kid = static_cast<const GumboNode*>(kids.data[i]);
        if (is_element(kid) && role_of(kid) == Role::Kept && holds_plaintext(kid)) return true;
    }
    return false;
}

bool all_descendants_inline(const GumboNode* node) {
    const GumboVector& kids = children_of(node);
    for (unsigned i = 0; i < kids.length; ++i) {
        const GumboNode* kid = static_cast<const GumboNode*>(kids.data[i]);
        if (!is_element(kid)) continue;
        const Role role = role_of(kid);
        if (role != Role::Inline && role != Role::Verbatim) return false;
    }
    return true;
}

bool runs_with_text(const GumboNode* node) {
    if (!is_element(node)) return node->type != GUMBO_NODE_DOCUMENT;
    const Role role = role_of(node);
    return role == Role::Inline || role == Role::Verbatim;
}

// ---- Writing the tree back (the HTML standard's serialisation, plus what
// it leaves out so that the output parses to the same tree) ----

void escape_text(const char* text, size_t size, std::string& out) {
    for (size_t i = 0; i < size; ++i) {
        const char c = text[i];
        if (c == '&') out += "&amp;";
        else if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '\xC2' && i + 1 < size && text[i + 1] == '\xA0') { out += "&nbsp;"; ++i; }
        else out += c;
    }
}
void escape_attribute(const std::string& value, std::string& out) {
    for (size_t i = 0; i < value.size(); ++i) {
        const char c = value[i];
        if (c == '&') out += "&amp;";
        else if (c == '"') out += "&quot;";
        else if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '\xC2' && i + 1 < value.size() && value[i + 1] == '\xA0') { out += "&nbsp;"; ++i; }
        else out += c;
    }
}

std::string tag_name(const GumboNode* node) {
    const GumboElement& element = node->v.element;
    if (element.tag != GUMBO_TAG_UNKNOWN) {
        if (element.tag_namespace == GUMBO_NAMESPACE_SVG) {
            GumboStringPiece lower{gumbo_normalized_tagname(element.tag), 0};
            lower.length = std::char_traits<char>::length(lower.data);
            if (const char* svg = gumbo_normalize_svg_tagname(&lower)) return svg;
        }
        return gumbo_normalized_tagname(element.tag);
    }
    // An unknown element's name, read off its start tag as the tokenizer
    // reads it: after "<", up to a space, "/" or ">".
    const GumboStringPiece tag = element.original_tag;
    size_t i = 0;
    while (i < tag.length && tag.data[i] != '<') ++i;
    ++i;
    if (i < tag.length && tag.data[i] == '/') ++i;
    std::string name;
    for (; i < tag.length; ++i) {
        const char c = tag.data[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == '/' || c == '>') break;
        if (c >= 'A' && c <= 'Z') name += static_cast<char>(c - 'A' + 'a');
        else if (c == '\0') name += "\xEF\xBF\xBD";  // as the tokenizer does; no NUL in the output
        else name += c;
    }
    return name.empty() ? "span" : name;  // never seen: unknown elements come from start tags
}

bool raw_text_parent(const GumboNode* parent) {
    if (!parent || !is_element(parent) || parent->v.element.tag_namespace != GUMBO_NAMESPACE_HTML) return false;
    switch (parent->v.element.tag) {
    case GUMBO_TAG_STYLE: case GUMBO_TAG_SCRIPT: case GUMBO_TAG_XMP: case GUMBO_TAG_IFRAME: case GUMBO_TAG_NOEMBED:
    case GUMBO_TAG_NOFRAMES: case GUMBO_TAG_PLAINTEXT:
        return true;
    default:
        return false;
    }
}

std::string quirks_doctype(const GumboDocument& doc, int variant) {
    const std::string name = doc.name ? doc.name : "";
    const std::string pub = doc.public_identifier ? doc.public_identifier : "";
    const std::string sys = doc.system_identifier ? doc.system_identifier : "";
    auto quoted = [](const std::string& s) {
        const char q = s.find('"') == std::string::npos ? '"' : '\'';
        return std::string(1, q) + s + q;
    };
    std::string out = "<!DOCTYPE";
    if (!name.empty()) out += " " + name;
    switch (variant) {
    case 0:  // identifiers where they are not empty
    case 1:  // both identifiers, empty or not
        if (!pub.empty() || variant == 1) {
            out += " PUBLIC " + quoted(pub);
            if (!sys.empty() || variant == 1) out += " " + quoted(sys);
        } else if (!sys.empty()) {
            out += " SYSTEM " + quoted(sys);
        }
        break;
    case 2:  // the public identifier alone
        out += " PUBLIC " + quoted(pub);
        break;
    default:  // a bogus doctype: forced quirks mode
        out += " x";
        break;
    }
    return out + ">";
}

// The doctype gumbo read, written so that it parses to the same quirks mode
// (the standard's serialisation writes "<!DOCTYPE html>" alone, which turns
// a quirks page into a standards one and changes its tree).
std::string doctype(const GumboDocument& doc) {
    if (!doc.has_doctype) return "";
    for (int variant = 0; variant < 4; ++variant) {
        const std::string candidate = quirks_doctype(doc, variant);
        GumboOutput* output = gumbo_parse_with_options(&kGumboDefaultOptions, candidate.data(), candidate.size());
        const GumboDocument& again = output->document->v.document;
        const bool same = again.has_doctype && again.doc_type_quirks_mode == doc.doc_type_quirks_mode &&
                          std::string(again.name ? again.name : "") == std::string(doc.name ? doc.name : "");
        gumbo_destroy_output(&kGumboDefaultOptions, output);
        if (same) return candidate;
    }
    return quirks_doctype(doc, 0);
}

// ---- Segments: a block's running text across its inline elements ----

struct Run {
    const GumboNode* parent = nullptr;
    size_t first = 0, last = 0;  // children [first, last) of parent
    InlineSegment segment;
    std::vector<const GumboNode*> nodes;  // each part's element or comment
    std::string leading, trailing;        // whitespace kept outside the translation
    int segment_index = -1;
};

class RunBuilder {
public:
    explicit RunBuilder(Run& run) : run_(run) { run_.nodes.push_back(nullptr); }

    void add(const GumboNode* node, int parent) {
        if (node->type == GUMBO_NODE_TEXT || node->type == GUMBO_NODE_WHITESPACE) {
            run_.segment.add_text(node->v.text.text, std::char_traits<char>::length(node->v.text.text), parent);
            return;
        }
        const bool verbatim = !is_element(node) || role_of(node) == Role::Verbatim;
        const int index = run_.segment.add_part(parent, verbatim);
        run_.nodes.push_back(node);
        if (!is_element(node)) return;  // a comment: no words
        if (verbatim) {
            if (is_html(node, GUMBO_TAG_BR)) run_.segment.add_space();
            if (verbatim_inline_with_text(node->v.element.tag) || translate_no(node)) {
                run_.segment.add_space();  // its words apart from the text around it
                add_all_text(node, index);
                run_.segment.add_space();
            }
            return;
        }
        const GumboVector& kids = children_of(node);
        for (unsigned i = 0; i < kids.length; ++i) add(static_cast<const GumboNode*>(kids.data[i]), index);
    }

private:
    void add_all_text(const GumboNode* node, int owner) {
        const GumboVector& kids = children_of(node);
        for (unsigned i = 0; i < kids.length; ++i) {
            const GumboNode* kid = static_cast<const GumboNode*>(kids.data[i]);
            if (kid->type == GUMBO_NODE_TEXT || kid->type == GUMBO_NODE_WHITESPACE)
                run_.segment.add_text(kid->v.text.text, std::char_traits<char>::length(kid->v.text.text), owner, false);
            else if (is_element(kid))
                add_all_text(kid, owner);
        }
    }

    Run& run_;
};

std::string leading_space(const GumboNode* node) {
    if (node->type != GUMBO_NODE_TEXT && node->type != GUMBO_NODE_WHITESPACE) return "";
    std::string out;
    for (const char* p = node->v.text.text; *p && ascii_space(*p); ++p) out += *p;
    return out;
}
std::string trailing_space(const GumboNode* node) {
    if (node->type != GUMBO_NODE_TEXT && node->type != GUMBO_NODE_WHITESPACE) return "";
    const std::string text = node->v.text.text;
    size_t end = text.size();
    while (end > 0 && ascii_space(text[end - 1])) --end;
    if (end == 0) return "";  // all space: leading_space has it
    return text.substr(end);
}

}  // namespace

struct HtmlDocument::Parsed {
    GumboOptions options = kGumboDefaultOptions;
    GumboOutput* output = nullptr;
    bool page = false;
    ~Parsed() {
        if (output) gumbo_destroy_output(&options, output);
    }
    // The nodes written out: a page's document, a fragment's children of the
    // html element gumbo wraps it in.
    const GumboNode* top() const { return page ? output->document : output->root; }
};

namespace {

bool explicit_page(const GumboOutput* output) {
    if (output->document->v.document.has_doctype) return true;
    const GumboNode* html = output->root;
    if (html->v.element.original_tag.length > 0) return true;
    const GumboVector& kids = html->v.element.children;
    for (unsigned i = 0; i < kids.length; ++i) {
        const GumboNode* kid = static_cast<const GumboNode*>(kids.data[i]);
        if ((is_html(kid, GUMBO_TAG_HEAD) || is_html(kid, GUMBO_TAG_BODY)) && kid->v.element.original_tag.length > 0)
            return true;
    }
    return false;
}

// What a document's translation needs: the runs of text, the attributes to
// translate, and their translations once made.
struct Translation {
    std::vector<Run> runs;
    std::map<std::pair<const GumboNode*, size_t>, size_t> run_at;  // (parent, first child) -> run
    std::vector<std::pair<const GumboAttribute*, int>> attributes;  // attribute, segment
    std::unordered_map<const GumboAttribute*, std::string> attribute_text;
    std::vector<std::string> segments;
    std::vector<SegmentTranslation> results;
};

std::string normalized(const char* text) {
    std::string out;
    bool space = false;
    for (const char* p = text; *p; ++p) {
        if (ascii_space(*p)) {
            space = true;
            continue;
        }
        if (space && !out.empty()) out += ' ';
        space = false;
        out += *p;
    }
    return out;
}

class Collector {
public:
    explicit Collector(Translation& t) : t_(t) {}

    // `node` is a document, a block or the html element of a fragment.
    void block(const GumboNode* node) {
        if (is_element(node)) attributes(node);
        const GumboVector& kids = children_of(node);
        for (size_t i = 0; i < kids.length;) {
            const GumboNode* kid = child(node, i);
            if (node->type != GUMBO_NODE_DOCUMENT && runs_with_text(kid)) {
                size_t end = i;
                while (end < kids.length && runs_with_text(child(node, end))) ++end;
                run(node, i, end);
                i = end;
                continue;
            }
            if (is_element(kid)) {
                const Role role = role_of(kid);
                if (role == Role::Block) block(kid);
            }
            ++i;
        }
    }

private:
    void attributes(const GumboNode* node) {
        const GumboVector& attrs = node->v.element.attributes;
        for (unsigned i = 0; i < attrs.length; ++i) {
            const GumboAttribute* attr = static_cast<const GumboAttribute*>(attrs.data[i]);
            if (attr->attr_namespace != GUMBO_ATTR_NAMESPACE_NONE) continue;
            const std::string name = attr->name;
            if (name != "title" && name != "alt") continue;
            std::string text = normalized(attr->value);
            if (text.empty()) continue;
            t_.attributes.emplace_back(attr, static_cast<int>(t_.segments.size()));
            t_.segments.push_back(std::move(text));
        }
    }
    void inline_attributes(const Run& run) {
        for (size_t p = 1; p < run.nodes.size(); ++p) {
            const GumboNode* node = run.nodes[p];
            if (!is_element(node)) continue;
            if (!run.segment.parts()[p].verbatim || (is_html(node, GUMBO_TAG_IMG) && !translate_no(node)))
                attributes(node);
        }
    }

    void run(const GumboNode* parent, size_t first, size_t last) {
        Run run;
        run.parent = parent;
        run.first = first;
        run.last = last;
        RunBuilder builder(run);
        for (size_t i = first; i < last; ++i) builder.add(child(parent, i), 0);
        inline_attributes(run);
        if (!run.segment.has_words()) return;
        run.leading = leading_space(child(parent, first));
        run.trailing = trailing_space(child(parent, last - 1));
        run.segment_index = static_cast<int>(t_.segments.size());
        t_.segments.push_back(run.segment.text());
        t_.run_at[{parent, first}] = t_.runs.size();
        t_.runs.push_back(std::move(run));
    }

    Translation& t_;
};

class Serializer {
public:
    explicit Serializer(const Translation* t) : t_(t) {}

    void node(const GumboNode* node, std::string& out) {
        if (stopped_) return;
        switch (node->type) {
        case GUMBO_NODE_DOCUMENT:
            out += doctype(node->v.document);
            children(node, out);
            break;
        case GUMBO_NODE_ELEMENT:
        case GUMBO_NODE_TEMPLATE:
            element(node, out);
            break;
        case GUMBO_NODE_TEXT:
        case GUMBO_NODE_WHITESPACE:
            if (raw_text_parent(node->parent)) out += node->v.text.text;
            else escape_text(node->v.text.text, std::char_traits<char>::length(node->v.text.text), out);
            break;
        case GUMBO_NODE_CDATA:
            out += "<![CDATA[";
            out += node->v.text.text;
            out += "]]>";
            break;
        case GUMBO_NODE_COMMENT:
            out += "<!--";
            out += node->v.text.text;
            out += "-->";
            break;
        }
    }

    void children(const GumboNode* parent, std::string& out) {
        const GumboVector& kids = children_of(parent);
        for (size_t i = 0; i < kids.length && !stopped_; ++i) {
            if (t_) {
                auto found = t_->run_at.find({parent, i});
                if (found != t_->run_at.end()) {
                    const Run& run = t_->runs[found->second];
                    out += render(run, t_->results[run.segment_index]);
                    i = run.last - 1;
                    continue;
                }
            }
            node(child(parent, i), out);
        }
    }

    void start_tag(const GumboNode* node, std::string& out) {
        out += '<';
        out += tag_name(node);
        const GumboVector& attrs = node->v.element.attributes;
        for (unsigned i = 0; i < attrs.length; ++i) {
            const GumboAttribute* attr = static_cast<const GumboAttribute*>(attrs.data[i]);
            out += ' ';
            switch (attr->attr_namespace) {
            case GUMBO_ATTR_NAMESPACE_XLINK: out += "xlink:"; break;
            case GUMBO_ATTR_NAMESPACE_XML: out += "xml:"; break;
            case GUMBO_ATTR_NAMESPACE_XMLNS:
                if (std::string(attr->name) != "xmlns") out += "xmlns:";
                break;
            default: break;
            }
            out += attr->name;
            out += "=\"";
            const std::string* translated = nullptr;
            if (t_) {
                auto found = t_->attribute_text.find(attr);
                if (found != t_->attribute_text.end()) translated = &found->second;
            }
            escape_attribute(translated ? *translated : std::string(attr->value), out);
            out += '"';
        }
        out += '>';
    }
    void end_tag(const GumboNode* node, std::string& out) {
        out += "</";
        out += tag_name(node);
        out += '>';
    }

private:
    void element(const GumboNode* node, std::string& out) {
        // "</p>" and "</br>" with nothing open make an empty element; written
        // as a start tag it would not land where it was (inside <svg>, "<p>"
        // leaves the SVG; "</p>" does not).
        if ((node->parse_flags & GUMBO_INSERTION_CONVERTED_FROM_END_TAG) && node->v.element.children.length == 0 &&
            node->v.element.attributes.length == 0 &&
            (is_html(node, GUMBO_TAG_P) || is_html(node, GUMBO_TAG_BR))) {
            end_tag(node, out);
            return;
        }
        start_tag(node, out);
        if (is_void(node)) return;
        const GumboElement& element = node->v.element;
        if ((is_html(node, GUMBO_TAG_PRE) || is_html(node, GUMBO_TAG_TEXTAREA) || is_html(node, GUMBO_TAG_LISTING)) &&
            element.children.length > 0) {
            // The parser drops a newline just after these start tags.
            const GumboNode* first = child(node, 0);
            if ((first->type == GUMBO_NODE_TEXT || first->type == GUMBO_NODE_WHITESPACE) && first->v.text.text[0] == '\n')
                out += '\n';
        }
        children(node, out);
        if (is_html(node, GUMBO_TAG_PLAINTEXT)) {
            stopped_ = true;  // nothing after <plaintext> is markup any more
            return;
        }
        if (!stopped_) end_tag(node, out);
    }

    std::string render(const Run& run, const SegmentTranslation& tr) {
        std::string out = run.leading;
        InlineSegment::Writer writer;
        writer.text = [&](const std::string& text) { escape_text(text.data(), text.size(), out); };
        writer.open = [&](int part, bool) { start_tag(run.nodes[part], out); };
        writer.close = [&](int part, bool) { end_tag(run.nodes[part], out); };
        writer.verbatim = [&](int part) { node(run.nodes[part], out); };
        run.segment.write(tr, writer);
        return out + run.trailing;
    }

    const Translation* t_;
    bool stopped_ = false;
};

void serialize_top(const GumboNode* top, bool page, Serializer& serializer, std::string& out) {
    if (page) serializer.node(top, out);
    else serializer.children(top, out);
}

void collect_tags(const GumboNode* node, std::vector<std::string>& out) {
    if (!is_element(node)) return;
    std::string name;
    if (node->v.element.tag_namespace == GUMBO_NAMESPACE_SVG) name = "svg:";
    if (node->v.element.tag_namespace == GUMBO_NAMESPACE_MATHML) name = "math:";
    out.push_back(name + ascii_lower(tag_name(node)));
    const GumboVector& kids = children_of(node);
    for (unsigned i = 0; i < kids.length; ++i) collect_tags(static_cast<const GumboNode*>(kids.data[i]), out);
}

std::string signature(const GumboNode* node) {
    std::vector<std::string> tags;
    std::string name;
    if (node->v.element.tag_namespace == GUMBO_NAMESPACE_SVG) name = "svg:";
    if (node->v.element.tag_namespace == GUMBO_NAMESPACE_MATHML) name = "math:";
    name += ascii_lower(tag_name(node));
    std::string out = name + "(";
    const GumboVector& kids = children_of(node);
    std::vector<std::string> movable;
    auto flush = [&] {
        std::sort(movable.begin(), movable.end());
        for (const auto& s : movable) out += s;
        movable.clear();
    };
    for (unsigned i = 0; i < kids.length; ++i) {
        const GumboNode* kid = static_cast<const GumboNode*>(kids.data[i]);
        if (!is_element(kid)) continue;
        const Role role = role_of(kid);
        if (role == Role::Inline || role == Role::Verbatim) {
            movable.push_back(signature(kid));
        } else {
            flush();
            out += signature(kid);
        }
    }
    flush();
    return out + ")";
}

}  // namespace

HtmlDocument::HtmlDocument(std::string html, HtmlKind kind) : html_(std::move(html)), parsed_(new Parsed) {
    parsed_->output = gumbo_parse_with_options(&parsed_->options, html_.data(), html_.size());
    parsed_->page = kind == HtmlKind::Page || (kind == HtmlKind::Auto && explicit_page(parsed_->output));
    if (!parsed_->page) {
        gumbo_destroy_output(&parsed_->options, parsed_->output);
        parsed_->output = nullptr;
        parsed_->options.fragment_context = GUMBO_TAG_BODY;
        parsed_->options.fragment_namespace = GUMBO_NAMESPACE_HTML;
        parsed_->output = gumbo_parse_with_options(&parsed_->options, html_.data(), html_.size());
    }
}

HtmlDocument::~HtmlDocument() = default;

bool HtmlDocument::is_page() const { return parsed_->page; }

std::string HtmlDocument::serialize() const {
    Serializer serializer(nullptr);
    std::string out;
    serialize_top(parsed_->top(), parsed_->page, serializer, out);
    return out;
}

std::string HtmlDocument::translate(SegmentTranslator& translator, bool* kept) const {
    RoleCache roles;
    Translation t;
    Collector collector(t);
    collector.block(parsed_->top());
    if (!t.segments.empty()) t.results = translator.translate(t.segments);
    if (t.results.size() != t.segments.size())
        throw Error("HTML: the segment translator returned " + std::to_string(t.results.size()) + " results for " +
                    std::to_string(t.segments.size()) + " segments");
    for (const auto& [attr, segment] : t.attributes) t.attribute_text[attr] = t.results[segment].text;
    Serializer serializer(&t);
    std::string out;
    serialize_top(parsed_->top(), parsed_->page, serializer, out);

    // The same elements nested alike (inline ones in a segment may change
    // order with their words).
    const bool same = HtmlDocument(out, is_page() ? HtmlKind::Page : HtmlKind::Fragment).structure() == structure();
    if (kept) *kept = !same;
    return same ? out : html_;
}

std::vector<std::string> HtmlDocument::segments() const {
    RoleCache roles;
    Translation t;
    Collector collector(t);
    collector.block(parsed_->top());
    return t.segments;
}

std::vector<std::string> HtmlDocument::tag_sequence() const {
    std::vector<std::string> out;
    if (parsed_->page) collect_tags(parsed_->output->root, out);
    else
        for (unsigned i = 0; i < parsed_->output->root->v.element.children.length; ++i)
            collect_tags(child(parsed_->output->root, i), out);
    return out;
}

std::string HtmlDocument::structure() const {
    RoleCache roles;
    return signature(parsed_->output->root);
}

}  // namespace nmt
