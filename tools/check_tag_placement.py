#!/usr/bin/env python3
"""Scores where inline tags landed in translated HTML against a hand-checked list.

Usage: tools/check_tag_placement.py EXPECTED.tsv TRANSLATED_DIR

EXPECTED.tsv has one inline element a line, written by a person who read
the translation and decided which target words the element should enclose:

    page<TAB>element<TAB>expected text

  page           a file name in TRANSLATED_DIR (the translated page)
  element        TAG or TAG[ATTR=VALUE] (e.g. a[href=upload.html], code), then
                 "#N" for its N-th occurrence (1-based, document order) among
                 the elements the selector matches in the translated page
  expected text  the words the element should enclose, whitespace-normalised;
                 several acceptable answers separated by " || "

Lines starting with '#' are comments. An element counts as right when the
text it encloses in the translation is one of the expected answers
(case-sensitive). Prints each miss and the share right; exits 1 below
--threshold (default 0.90, the issue's bar).

--reference DIR names the translated pages the list was written against. An
element whose block (its nearest p, li, td, heading, ...) reads differently
in TRANSLATED_DIR than there was translated differently (another CPU's
rounding can change a beam search's choice): its expected words may not
apply, so it is left out of the share and counted apart. Fewer than half
the elements comparable is an error: the list is then out of date.
"""
import argparse
import html.parser
import re
import sys
from pathlib import Path

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}


BLOCKS = {"p", "li", "dt", "dd", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "div", "title", "caption",
          "blockquote", "pre", "figcaption", "body"}


class Elements(html.parser.HTMLParser):
    """Each element's tag, attributes, text and nearest block, in document order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements = []  # [tag, attrs, text parts, index of its nearest block or None]
        self.open = []  # indices into elements

    def handle_starttag(self, tag, attrs):
        block = next((i for i in reversed(self.open) if self.elements[i][0] in BLOCKS), None)
        self.elements.append([tag, dict(attrs), [], block])
        if tag not in VOID:
            self.open.append(len(self.elements) - 1)

    def handle_endtag(self, tag):
        for i in range(len(self.open) - 1, -1, -1):
            if self.elements[self.open[i]][0] == tag:
                del self.open[i:]
                return

    def handle_data(self, data):
        for i in self.open:
            self.elements[i][2].append(data)


def normalised(text):
    return re.sub(r"\s+", " ", text).strip()


def find(elements, selector):
    match = re.fullmatch(r"([a-z0-9]+)(?:\[([^=\]]+)=([^\]]*)\])?#(\d+)", selector)
    if not match:
        raise ValueError(f"bad element selector '{selector}'")
    tag, attr, value, n = match.group(1), match.group(2), match.group(3), int(match.group(4))
    hits = [e for e in elements if e[0] == tag and (attr is None or e[1].get(attr) == value)]
    if n > len(hits):
        return None, None
    block = hits[n - 1][3]
    return normalised("".join(hits[n - 1][2])), normalised("".join(elements[block][2])) if block is not None else ""


def read_page(directory, page):
    reader = Elements()
    reader.feed((Path(directory) / page).read_text(encoding="utf-8", errors="replace"))
    return reader.elements


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("expected")
    parser.add_argument("translated_dir")
    parser.add_argument("--threshold", type=float, default=0.90)
    parser.add_argument("--reference", help="the translated pages the list was written against")
    args = parser.parse_args()

    pages, references = {}, {}
    right = total = listed = 0
    for number, line in enumerate(Path(args.expected).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 3:
            sys.exit(f"{args.expected}:{number}: expected 3 tab-separated fields, got {len(fields)}")
        page, selector, expected = fields
        if page not in pages:
            pages[page] = read_page(args.translated_dir, page)
            if args.reference:
                references[page] = read_page(args.reference, page)
        try:
            found, block = find(pages[page], selector)
            reference_block = find(references[page], selector)[1] if args.reference else block
        except ValueError as error:
            sys.exit(f"{args.expected}:{number}: {error}")
        listed += 1
        if block != reference_block:
            print(f"{page} {selector}: translated differently from the reference, left out")
            continue
        answers = [normalised(a) for a in expected.split(" || ")]
        total += 1
        if found in answers:
            right += 1
        else:
            print(f"{page} {selector}: got {found!r}, expected {' or '.join(map(repr, answers))}")
    if listed == 0:
        sys.exit(f"{args.expected}: no elements listed")
    if total < listed / 2:
        sys.exit(f"{args.expected}: only {total} of {listed} elements were translated as in the reference: "
                 "the list is out of date")
    share = right / total
    apart = f" ({listed - total} of {listed} translated differently, left out)" if total < listed else ""
    print(f"{right}/{total} inline elements around the right words ({100 * share:.1f}%){apart}")
    sys.exit(0 if share >= args.threshold else 1)


if __name__ == "__main__":
    main()
