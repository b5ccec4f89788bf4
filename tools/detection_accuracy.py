#!/usr/bin/env python3
"""How often `nmt detect` (what `nmt translate --from auto` decides) names the
right language among en, fr and de, per language, on short lines and on
whole documents.

Usage: tools/detection_accuracy.py [SPLIT] [--nmt build/nmt] [--data runs/data]
  SPLIT: test (report it) or dev (tune on it); default test.

Lines: each line of the Tatoeba and Debian l10n sides of SPLIT that
tools/prepare_general.py writes (runs/data/general.en-{fr,de}/; made first if
missing): the fr and de sides, and the en sides of both pairs. Documents: each
run of 20 consecutive lines of one of those files, joined into one text
(a short page of sentences or of a program's messages); a trailing run of
fewer lines is left out.
"""
import argparse
import os
import subprocess
import sys

DOCUMENT_LINES = 20
LANGUAGES = ["en", "fr", "de"]


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().rstrip("\n").split("\n")


def detect(nmt, texts):
    """One language code per text (texts hold no newline)."""
    out = subprocess.run([nmt, "detect", "--among", ",".join(LANGUAGES)], input="\n".join(texts) + "\n",
                         capture_output=True, text=True, check=True).stdout.split("\n")[:-1]
    if len(out) != len(texts):
        sys.exit(f"nmt detect gave {len(out)} lines for {len(texts)}")
    return out


def texts_of(data, corpus, split, language):
    """The lines of `language` in `corpus`, and its 20-line documents."""
    pairs = ["fr", "de"] if language == "en" else [language]
    lines, documents = [], []
    for foreign in pairs:
        part = read_lines(os.path.join(data, f"general.en-{foreign}", f"{corpus}.{split}.{language}"))
        lines += part
        documents += [" ".join(part[i:i + DOCUMENT_LINES])
                      for i in range(0, len(part) - DOCUMENT_LINES + 1, DOCUMENT_LINES)]
    return lines, documents


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("split", nargs="?", default="test", choices=["test", "dev"])
    parser.add_argument("--nmt", default="build/nmt")
    parser.add_argument("--data", default="runs/data", help="where tools/prepare_general.py wrote general.en-*/")
    args = parser.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    for foreign in ("fr", "de"):
        if not os.path.exists(os.path.join(args.data, f"general.en-{foreign}", f"l10n.{args.split}.{foreign}")):
            subprocess.run([sys.executable, "tools/prepare_general.py", foreign, "../shared/data",
                            os.path.join(args.data, f"general.en-{foreign}")], check=True)
    print(f"{'corpus':8} {'language':8} {'lines':>6} {'correct':>8} {'documents':>9} {'correct':>8}")
    totals = {"lines": [0, 0], "documents": [0, 0]}
    for corpus in ("tatoeba", "l10n"):
        for language in LANGUAGES:
            lines, documents = texts_of(args.data, corpus, args.split, language)
            line_hits = sum(code == language for code in detect(args.nmt, lines))
            document_hits = sum(code == language for code in detect(args.nmt, documents))
            for kind, hits, n in (("lines", line_hits, len(lines)), ("documents", document_hits, len(documents))):
                totals[kind][0] += hits
                totals[kind][1] += n
            print(f"{corpus:8} {language:8} {len(lines):6} {100 * line_hits / len(lines):7.2f}% "
                  f"{len(documents):9} {100 * document_hits / len(documents):7.2f}%")
    (lh, ln), (dh, dn) = totals["lines"], totals["documents"]
    print(f"{'all':8} {'':8} {ln:6} {100 * lh / ln:7.2f}% {dn:9} {100 * dh / dn:7.2f}%")


if __name__ == "__main__":
    main()
