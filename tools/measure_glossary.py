#!/usr/bin/env python3
"""Measures how a glossary is best forced, on real sentences (lib/decode/term_forcing.h).

Usage: tools/measure_glossary.py NMT [MODEL] [--show N]

Takes the Tatoeba English-French test pairs (../shared/data/tatoeba/fra.test.tsv,
one per English sentence, 5 words or more) whose English holds one of 17
common nouns and whose French reference holds its usual translation, at most
4 per noun (a fixed shuffle), and translates them three ways with NMT:
  - plain: no glossary;
  - post-edit: `nmt translate --glossary` (what nmt does: the model's own
    translation, the words aligned to the term replaced by the target term);
  - placeholder: the term replaced by "{0}" in the source before decoding
    (placeholder repair keeps it), and "{0}" replaced by the target term after.
Each twice: with the reference's own word as the target term ("car" ->
"voiture"), scored against the references, and with a word the model does not
choose ("car" -> "bagnole"), scored against the references with that word put
in place of theirs. Prints corpus BLEU and chrF2 (`nmt score`) and how many
outputs hold their target term.
"""
import argparse
import os
import random
import re
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
USUAL = {"car": "voiture", "dog": "chien", "house": "maison", "book": "livre", "teacher": "professeur",
         "doctor": "médecin", "city": "ville", "money": "argent", "water": "eau", "school": "école",
         "room": "chambre", "friend": "ami", "train": "train", "door": "porte", "letter": "lettre",
         "job": "travail", "meeting": "réunion"}
OTHER = {"car": "bagnole", "dog": "toutou", "house": "demeure", "book": "bouquin", "teacher": "enseignant",
         "doctor": "docteur", "city": "cité", "money": "fric", "water": "flotte", "school": "collège",
         "room": "pièce", "friend": "copain", "train": "TGV", "door": "portail", "letter": "missive",
         "job": "boulot", "meeting": "rendez-vous"}


def pairs(path):
    seen, found = set(), []
    for line in open(path, encoding="utf-8"):
        en, fr = line.rstrip("\n").split("\t")[:2]
        if en in seen or len(en.split()) < 5:
            continue
        for term, usual in USUAL.items():
            if re.search(r"\b%s\b" % term, en) and re.search(r"\b%s\b" % usual, fr):
                seen.add(en)
                found.append((en, fr, term))
                break
    random.Random(1).shuffle(found)
    kept, per_term = [], {}
    for pair in found:
        if per_term.get(pair[2], 0) < 4:
            kept.append(pair)
            per_term[pair[2]] = per_term.get(pair[2], 0) + 1
    return kept


def translate(nmt, model, lines, *options):
    result = subprocess.run([nmt, "translate", "-q", "-m", model, *options], input="\n".join(lines) + "\n",
                            capture_output=True, text=True, check=True)
    return result.stdout.rstrip("\n").split("\n")


def score(nmt, hypotheses, references, scratch):
    hyp, ref = os.path.join(scratch, "hyp"), os.path.join(scratch, "ref")
    open(hyp, "w", encoding="utf-8").write("\n".join(hypotheses) + "\n")
    open(ref, "w", encoding="utf-8").write("\n".join(references) + "\n")
    out = subprocess.run([nmt, "score", "-r", ref, "-i", hyp, "-b"], capture_output=True, text=True, check=True)
    return " / ".join(out.stdout.split())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("nmt")
    parser.add_argument("model", nargs="?", default=os.path.join(ROOT, "models", "en-fr.nmt"))
    parser.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "tatoeba", "fra.test.tsv"))
    parser.add_argument("--show", type=int, default=0, help="print the first N sentences of each way")
    args = parser.parse_args()
    chosen = pairs(args.data)
    sources = [en for en, _, _ in chosen]
    print("%d sentences" % len(chosen))
    with tempfile.TemporaryDirectory() as scratch:
        plain = translate(args.nmt, args.model, sources)
        hidden = [re.sub(r"\b%s\b" % term, "{0}", en, count=1) for en, _, term in chosen]
        placeheld = translate(args.nmt, args.model, hidden)
        for name, targets in (("usual", USUAL), ("other", OTHER)):
            references = [re.sub(r"\b%s\b" % USUAL[term], targets[term], fr, count=1) for _, fr, term in chosen]
            glossary = os.path.join(scratch, name + ".tsv")
            open(glossary, "w", encoding="utf-8").write("".join("%s\t%s\n" % kv for kv in targets.items()))
            edited = translate(args.nmt, args.model, sources, "--glossary", glossary)
            put_back = [h.replace("{0}", targets[term], 1) for h, (_, _, term) in zip(placeheld, chosen)]
            for way, output in (("plain", plain), ("post-edit", edited), ("placeholder", put_back)):
                held = sum(re.search(r"\b%s\b" % re.escape(targets[t]), h, re.I) is not None
                           for h, (_, _, t) in zip(output, chosen))
                print("%s terms, %-11s BLEU / chrF2 %s, term in %d of %d" %
                      (name, way, score(args.nmt, output, references, scratch), held, len(chosen)))
                for k in range(args.show):
                    print("   ", output[k])


if __name__ == "__main__":
    main()
