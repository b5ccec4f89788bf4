#!/usr/bin/env python3
"""Builds the training, development and test files of a general-purpose model.

Usage: tools/prepare_general.py FOREIGN [DATA_DIR] [OUT_DIR]
  FOREIGN: fr or de (the pair is English-FOREIGN; one set of files serves
  both directions). Defaults: ../shared/data, runs/data/general.en-FOREIGN.

Writes into OUT_DIR, one sentence a line, English in *.en and the other
language in *.FOREIGN:
  train.{en,FOREIGN}     every corpus, news repeated (--news-repeats), Tatoeba
                         too when asked (--tatoeba-repeats), shuffled
  valid.{en,FOREIGN}     what `nmt train` validates on: the first lines of
                         each development set below, so that every domain counts
  DOMAIN.dev.*           development sets, for tuning: tatoeba (cut from
                         Tatoeba's training file), l10n (Debian's gettext
                         messages, cut by package), ddtp (Debian package
                         descriptions, cut in runs of consecutive packages),
                         news (newstest2012), captions (Multi30k val)
  DOMAIN.test.*          scored once: tatoeba (Tatoeba's test file), l10n and
                         ddtp (a second split cut like the dev one), news
                         (newstest2013), captions (Multi30k test_2016_flickr)
  SOURCES                where every training line came from, with counts

Held-out splits follow the shared data's own withheld splits: groups (a
connected set of Tatoeba pairs sharing a sentence, a package, a run of
package descriptions) are visited in sha256 order; a pair is held out only
when neither its English nor its translation occurs outside the held-out
groups, so boilerplate shared with other packages stays in training and no
held-out sentence, on either side, is ever trained on. Deterministic: the
same data gives byte-identical files.
"""
import argparse
import hashlib
import os
import random
import sys


def sha(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def clean(text, foreign_side=False):
    text = " ".join(text.replace("\t", " ").split())
    if foreign_side:
        # DDTP's French uses U+22C5 (dot operator) where a no-break space is meant.
        text = text.replace("\u22c5", " ")
        text = " ".join(text.split())
    return text


def read_tsv(path, columns):
    """Yields the last two columns of a TSV (English, translation), with the first `columns - 2` as a key."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != columns:
                continue
            yield fields[:-2], clean(fields[-2]), clean(fields[-1], True)


def read_parallel(en_path, foreign_path):
    with open(en_path, encoding="utf-8") as e, open(foreign_path, encoding="utf-8") as f:
        # Split on newlines only: str.splitlines would also cut at U+2028 and U+0085 inside a line.
        en_lines, foreign_lines = e.read().rstrip("\n").split("\n"), f.read().rstrip("\n").split("\n")
    if len(en_lines) != len(foreign_lines):
        sys.exit(f"{en_path} and {foreign_path} differ in length")
    return [(clean(a), clean(b, True)) for a, b in zip(en_lines, foreign_lines) if a.strip() and b.strip()]


def hold_out(pairs, groups, sizes, salt):
    """Cuts held-out splits of about `sizes` pairs from (English, translation)
    pairs with one group each. Returns (rest, [split, ...])."""
    members = {}
    for index, group in enumerate(groups):
        members.setdefault(group, []).append(index)
    order = sorted(members, key=lambda g: sha(f"{salt}\t{g}"))
    # Which groups each sentence occurs in, on either side.
    where = {}
    for index, (en, foreign) in enumerate(pairs):
        where.setdefault(("en", en), set()).add(groups[index])
        where.setdefault(("xx", foreign), set()).add(groups[index])
    held = set()
    splits, taken = [], set()
    order_position = 0
    for size in sizes:
        split = []
        while order_position < len(order) and len(split) < size:
            group = order[order_position]
            order_position += 1
            candidate = held | {group}
            eligible = [i for g in candidate for i in members[g]
                        if i not in taken
                        and where[("en", pairs[i][0])] <= candidate
                        and where[("xx", pairs[i][1])] <= candidate]
            if len(split) + len(eligible) > size * 1.1:
                continue  # a group too big for what is left: skip it, as the withheld splits do
            held = candidate
            split.extend(eligible)
            taken.update(eligible)
        splits.append([pairs[i] for i in sorted(split)])
    held_sentences = {("en", pairs[i][0]) for i in taken} | {("xx", pairs[i][1]) for i in taken}
    rest = [p for i, p in enumerate(pairs)
            if groups[i] not in held and ("en", p[0]) not in held_sentences and ("xx", p[1]) not in held_sentences]
    return rest, splits


def tatoeba_groups(pairs):
    """Connected components of pairs that share an English or a translated sentence."""
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for en, foreign in pairs:
        parent[find(("en", en))] = find(("xx", foreign))
    root_name = {}
    for en, _ in pairs:
        root = find(("en", en))
        root_name[root] = min(root_name.get(root, en), en)
    return [root_name[find(("en", en))] for en, _ in pairs]


def write_pairs(out_dir, name, foreign, pairs):
    for column, language in ((0, "en"), (1, foreign)):
        with open(os.path.join(out_dir, f"{name}.{language}.tmp"), "w", encoding="utf-8") as f:
            for pair in pairs:
                f.write(pair[column] + "\n")
        os.replace(os.path.join(out_dir, f"{name}.{language}.tmp"), os.path.join(out_dir, f"{name}.{language}"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("foreign", choices=["fr", "de"])
    parser.add_argument("data", nargs="?", default="../shared/data")
    parser.add_argument("out", nargs="?")
    parser.add_argument("--news-repeats", type=int, default=3,
                        help="copies of the news training text (it is small and the only long-sentence text)")
    parser.add_argument("--tatoeba-repeats", type=int, default=1,
                        help="copies of Tatoeba's training pairs (everyday sentences: short, so a small share of the tokens)")
    parser.add_argument("--valid-per-domain", type=int, default=400,
                        help="lines of each development set in valid.*")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    foreign, data = args.foreign, args.data
    out = args.out or f"runs/data/general.en-{foreign}"
    os.makedirs(out, exist_ok=True)
    tatoeba_name = {"fr": "fra", "de": "deu"}[foreign]

    train, sources, dev, test = [], [], {}, {}

    def add_train(name, pairs, repeats=1):
        for _ in range(repeats):
            train.extend(pairs)
        sources.append(f"{name}\t{len(pairs)} pairs x {repeats}")

    # Tatoeba: the dev set is cut from the training file, group by group.
    pairs = [(en, xx) for _, en, xx in read_tsv(f"{data}/tatoeba/{tatoeba_name}.train.tsv", 2) if en and xx]
    rest, (dev["tatoeba"],) = hold_out(pairs, tatoeba_groups(pairs), [1000], "tatoeba-dev")
    add_train("tatoeba", rest, args.tatoeba_repeats)
    test["tatoeba"] = [(en, xx) for _, en, xx in read_tsv(f"{data}/tatoeba/{tatoeba_name}.test.tsv", 2)]

    # Debian's gettext messages, cut by package; debconf templates train only.
    rows = [(key[0], en, xx) for key, en, xx in read_tsv(f"{data}/debian-l10n/po.en-{foreign}.prov.tsv", 4) if en and xx]
    pairs, groups = [(en, xx) for _, en, xx in rows], [package for package, _, _ in rows]
    rest, (dev["l10n"], test["l10n"]) = hold_out(pairs, groups, [1000, 1000], "l10n")
    add_train("debian-l10n po", rest)
    add_train("debian-l10n debconf",
              [(en, xx) for _, en, xx in read_tsv(f"{data}/debian-l10n/debconf.en-{foreign}.tsv", 2) if en and xx])

    # DDTP has no package column, but its lines come package by package in
    # name order: runs of 100 consecutive lines stand in for packages.
    pairs = [(en, xx) for _, en, xx in read_tsv(f"{data}/ddtp/en-{foreign}.tsv", 2) if en and xx]
    rest, (dev["ddtp"], test["ddtp"]) = hold_out(pairs, [i // 100 for i in range(len(pairs))], [1000, 1000], "ddtp")
    add_train("ddtp", rest)

    # News: 2012 develops, 2013 tests, every other year trains.
    years = ["2008", "2009", "2010", "2011"]
    news = []
    for year in years:
        news += read_parallel(f"{data}/news/newstest{year}.en", f"{data}/news/newstest{year}.{foreign}")
    if foreign == "de":
        for year in ["2015", "2016", "2017", "2018"]:
            news += read_parallel(f"{data}/news/newstest{year}.en-de.en", f"{data}/news/newstest{year}.en-de.de")
    add_train("news", news, args.news_repeats)
    dev["news"] = read_parallel(f"{data}/news/newstest2012.en", f"{data}/news/newstest2012.{foreign}")
    test["news"] = read_parallel(f"{data}/news/newstest2013.en", f"{data}/news/newstest2013.{foreign}")

    # Multi30k captions.
    add_train("multi30k", read_parallel(f"{data}/multi30k/train.en", f"{data}/multi30k/train.{foreign}"))
    dev["captions"] = read_parallel(f"{data}/multi30k/val.en", f"{data}/multi30k/val.{foreign}")
    test["captions"] = read_parallel(f"{data}/multi30k/test_2016_flickr.en", f"{data}/multi30k/test_2016_flickr.{foreign}")

    # Nothing held out, on either side, is trained on.
    held = {en for split in (dev, test) for pairs in split.values() for en, _ in pairs}
    held_foreign = {xx for split in (dev, test) for pairs in split.values() for _, xx in pairs}
    before = len(train)
    train = [p for p in train if p[0] not in held and p[1] not in held_foreign]
    sources.append(f"dropped\t{before - len(train)} training lines whose English or translation is held out")
    random.Random(args.seed).shuffle(train)

    write_pairs(out, "train", foreign, train)
    valid = []
    for domain in dev:
        write_pairs(out, f"{domain}.dev", foreign, dev[domain])
        write_pairs(out, f"{domain}.test", foreign, test[domain])
        valid += dev[domain][:args.valid_per_domain]
        sources.append(f"{domain}\tdev {len(dev[domain])}, test {len(test[domain])}")
    write_pairs(out, "valid", foreign, valid)
    with open(os.path.join(out, "SOURCES"), "w", encoding="utf-8") as f:
        f.write("\n".join(sources + [f"train\t{len(train)} lines", f"valid\t{len(valid)} lines"]) + "\n")
    print(open(os.path.join(out, "SOURCES"), encoding="utf-8").read(), end="")


if __name__ == "__main__":
    main()
