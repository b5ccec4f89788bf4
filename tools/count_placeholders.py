#!/usr/bin/env python3
"""Counts how many placeholders and markup a translation carried over unchanged.

Usage: tools/count_placeholders.py SOURCE TRANSLATION [--show N] [--json]

A line "has placeholders" when its source holds any of: printf conversions
(%s, %d, %1$d, %-10s, %lu, %%), Qt/KDE numbered arguments (%1), Python named
ones (%(name)s), braces ({}, {0}, {name}, ${var}), markup tags (<b>, </b>,
<a href="...">, <br/>), character entities (&amp;), URLs, e-mail addresses and
host names (www.example.com, example.org). It is preserved when
the translation holds exactly the same placeholders, each as often (order
may change: languages order words differently). Numbers are counted apart
(their digits, since French and German write 1,5 and 1.000 where English
writes 1.5 and 1,000). Prints one summary line per kind; exits 0.
"""
import argparse
import collections
import json
import re
import sys

PLACEHOLDER = re.compile(
    r"(?:https?|ftp)://[^\s<>\"']*[^\s<>\"'.,;:!?)\]]"  # URLs, less trailing punctuation
    # Addresses: e-mail, www hosts, hosts ending in a common top-level domain
    r"|[A-Za-z0-9._+-]*[A-Za-z0-9_+-]@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]*[A-Za-z0-9])+"
    r"|www\d?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+"
    r"|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*"
    r"\.(?:com|org|net|edu|gov|int|info|io|dev|eu|fr|de|ch|at|be|uk|ca|us|nl|it|es)(?![A-Za-z0-9_@-])"
    r"|%(?:\d+\$)?[-+0#']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|q|j|z|Z|t)?[diouxXeEfFgGaAcspn]"  # printf
    r"|%%"
    r"|%\(\w+\)[-+0#]*\d*(?:\.\d+)?[diouxXeEfFgGcrs]"  # Python named
    r"|%\d+"  # Qt, KDE: %1
    r"|\$\{\w+\}"  # shell-style ${var}
    r"|\{[\w.:!<>^=+]*\}"  # {}, {0}, {name}, {0:>3}; not {script-only-if-no-other-script}, which is prose
    # Markup: HTML/Pango/Qt rich-text tags only; <file-name> in a usage line is a word to translate.
    r"|</?(?:a|b|i|u|s|p|br|hr|tt|em|strong|span|big|small|sub|sup|code|kbd|var|pre|div|li|ul|ol|qt|nobr"
    r"|h[1-6]|img|font|table|tr|td|th|html|body|center|cite|blockquote)(?:\s[^<>]*)?/?>"
    r"|&(?:[A-Za-z]+|#\d+|#x[0-9A-Fa-f]+);"  # entities
)
DIGITS = re.compile(r"\d+")


def placeholders(text):
    return collections.Counter(PLACEHOLDER.findall(text))


def digits(text):
    # "1,000.5" and "1.000,5" both give 10005: the digits, not the separators.
    return collections.Counter("".join(DIGITS.findall(number)) for number in re.findall(r"\d[\d.,\u00a0\u202f ]*\d|\d", text))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source")
    parser.add_argument("translation")
    parser.add_argument("--show", type=int, default=0, help="print the first N lines that lost a placeholder")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of text")
    args = parser.parse_args()
    with open(args.source, encoding="utf-8", errors="replace") as f:
        sources = f.read().split("\n")
    with open(args.translation, encoding="utf-8", errors="replace") as f:
        translations = f.read().split("\n")
    if sources and sources[-1] == "":
        sources.pop()
    if translations and translations[-1] == "":
        translations.pop()
    if len(sources) != len(translations):
        sys.exit(f"{args.source} has {len(sources)} lines, {args.translation} has {len(translations)}")
    with_placeholders = kept = with_numbers = numbers_kept = 0
    shown = 0
    for number, (source, translation) in enumerate(zip(sources, translations), 1):
        wanted = placeholders(source)
        if wanted:
            with_placeholders += 1
            if placeholders(translation) == wanted:
                kept += 1
            elif shown < args.show:
                shown += 1
                print(f"line {number}: {source}\n    -> {translation}", file=sys.stderr)
        wanted_digits = digits(source)
        if wanted_digits:
            with_numbers += 1
            numbers_kept += digits(translation) == wanted_digits
    summary = {
        "lines": len(sources),
        "with_placeholders": with_placeholders,
        "placeholders_preserved": kept,
        "placeholders_preserved_percent": round(100 * kept / with_placeholders, 2) if with_placeholders else None,
        "with_numbers": with_numbers,
        "numbers_preserved": numbers_kept,
        "numbers_preserved_percent": round(100 * numbers_kept / with_numbers, 2) if with_numbers else None,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"placeholders: {kept} of {with_placeholders} lines preserved "
              f"({summary['placeholders_preserved_percent']}%)")
        print(f"numbers: {numbers_kept} of {with_numbers} lines preserved ({summary['numbers_preserved_percent']}%)")


if __name__ == "__main__":
    main()
