#!/usr/bin/env python3
"""English everyday sentences for back-translation into FOREIGN->English.

Usage: tools/backtranslation_pool.py FOREIGN [DATA_DIR] [GENERAL_DIR] > pool.en
  FOREIGN: fr or de. Defaults: ../shared/data, runs/data/general.en-FOREIGN
  (the files tools/prepare_general.py made for the pair).

Tatoeba's English sentences come with French in one file and with German in
the other, and the two sets differ: the English of the *other* pair's
training file holds 85,000 (for fr) and 67,000 (for de) everyday sentences
that this pair's data lacks. Translated from English by the shipped
English->FOREIGN model, they become training pairs for FOREIGN->English
whose target side is real English (back-translation: Sennrich et al., 2016).

Prints each such sentence once, in the other file's order, cleaned as
prepare_general.py cleans, leaving out every English sentence of this
pair's Tatoeba files (training and test) and of GENERAL_DIR's held-out
files (valid, and every DOMAIN.dev and DOMAIN.test): no sentence scored on,
in either pair's data that this pair is tuned or tested on, is trained on.
"""
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from prepare_general import clean, read_tsv  # noqa: E402

TATOEBA = {"fr": "fra", "de": "deu"}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in TATOEBA or len(sys.argv) > 4:
        sys.exit(__doc__.strip().splitlines()[2])
    foreign = sys.argv[1]
    other = "de" if foreign == "fr" else "fr"
    data = sys.argv[2] if len(sys.argv) > 2 else "../shared/data"
    general = sys.argv[3] if len(sys.argv) > 3 else f"runs/data/general.en-{foreign}"
    held_out_files = [f"{general}/valid.en"] + glob.glob(f"{general}/*.dev.en") + glob.glob(f"{general}/*.test.en")
    if not glob.glob(f"{general}/*.test.en"):
        sys.exit(f"{general}: no DOMAIN.test.en files (run tools/prepare_general.py {foreign} first)")

    known = set()
    for split in ("train", "test"):
        known.update(en for _, en, _ in read_tsv(f"{data}/tatoeba/{TATOEBA[foreign]}.{split}.tsv", 2))
    for path in held_out_files:
        with open(path, encoding="utf-8", newline="\n") as f:
            known.update(clean(line) for line in f)

    printed = 0
    out = sys.stdout
    for _, en, _ in read_tsv(f"{data}/tatoeba/{TATOEBA[other]}.train.tsv", 2):
        if en and en not in known:
            known.add(en)
            out.write(en + "\n")
            printed += 1
    print(f"{printed} English sentences from {TATOEBA[other]}.train.tsv not in the en-{foreign} data",
          file=sys.stderr)


if __name__ == "__main__":
    main()
