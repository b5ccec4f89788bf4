#!/usr/bin/env python3
"""Prints the validation curve of one or more `nmt train` runs as a Markdown table.

Usage: tools/learning_curve.py NAME=RUN.log.jsonl [NAME=RUN.log.jsonl ...] [--every N]

One column per validation step that is a multiple of N (default: every
validation), one row of validation BLEU per run, plus the wall time of the
first run. A run's best step is marked in bold.
"""
import json
import sys


def read_run(path):
    validations, best, elapsed = {}, None, 0.0
    for line in open(path, encoding="utf-8"):
        record = json.loads(line)
        if record.get("type") == "progress":
            elapsed = record["elapsed_seconds"]
        if record.get("type") == "validation":
            record["elapsed_seconds"] = elapsed  # of the last progress line, at or just before this step
            validations[record["step"]] = record
            if record.get("improved"):
                best = record["step"]
    return validations, best


def main(argv):
    every = 0
    if "--every" in argv:
        i = argv.index("--every")
        every = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    if not argv:
        sys.exit(__doc__)
    runs = []
    for arg in argv:
        name, _, path = arg.partition("=")
        runs.append((name, *read_run(path)))
    steps = sorted(set().union(*(v.keys() for _, v, _ in runs)))
    if every:
        steps = [s for s in steps if s % every == 0 or any(s == best for _, _, best in runs)]
    print("| step | " + " | ".join(str(s) for s in steps) + " |")
    print("|---" * (len(steps) + 1) + "|")
    first = runs[0][1]
    print("| " + runs[0][0] + " wall time | " +
          " | ".join(f"{first[s]['elapsed_seconds'] / 60:.0f} min" if s in first else "" for s in steps) + " |")
    for name, validations, best in runs:
        cells = []
        for s in steps:
            if s not in validations or "bleu" not in validations[s]:
                cells.append("")
                continue
            text = f"{validations[s]['bleu']:.1f}"
            cells.append(f"**{text}**" if s == best else text)
        print(f"| {name} val BLEU | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
