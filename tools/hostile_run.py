#!/usr/bin/env python3
"""A hostile user's session against a built nmt, counted (README, Reliability).

Usage: tools/hostile_run.py [BUILD_DIR/nmt] [--keep DIR] [--json]

Runs each case below in a scratch folder holding a tiny model, the shipped
English->French captions model (copied), inputs and existing outputs, and
counts:
  - crashes: killed by a signal, or an internal error (exit status 2);
  - hangs: still running after 60 s (cases that are meant to run forever,
    like reading /dev/zero, are stopped after a few seconds and only their
    memory counts);
  - files destroyed: any file that was in the folder before the case and is
    changed or gone after it, except the one output a case names with
    --overwrite;
  - errors that are not one line: a failing case whose stderr is not exactly
    one line starting 'nmt: error: ';
  - memory: each case's peak resident size (GNU time's %M).
Prints one line per case and a summary; exits 1 when anything above went
wrong (a case that ought to fail but succeeded counts too).
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# name, arguments (after nmt), stdin file or None, expect: "fail" | "ok" |
# "bounded" (killed after a few seconds; memory only), and the file an
# --overwrite case is allowed to replace.
SMALL = ["-m", "model.nmt"]
CASES = [
    # translate: input
    ("translate an empty file", ["translate", *SMALL, "-i", "empty.txt"], None, "ok"),
    ("translate invalid UTF-8 and NUL bytes", ["translate", *SMALL, "-i", "binary.txt"], None, "ok"),
    ("translate a 2 MB line", ["translate", *SMALL, "-i", "long-line.txt"], None, "ok"),
    ("translate /dev/zero", ["translate", *SMALL, "-i", "/dev/zero"], None, "bounded"),
    ("translate a missing file", ["translate", *SMALL, "-i", "missing.txt"], None, "fail"),
    ("translate a directory", ["translate", *SMALL, "-i", "."], None, "fail"),
    ("translate -o its own input", ["translate", *SMALL, "-i", "in.txt", "-o", "in.txt"], None, "fail"),
    # translate: options
    ("translate -b 0", ["translate", *SMALL, "-b", "0"], "in.txt", "fail"),
    ("translate -b 1e3", ["translate", *SMALL, "-b", "1e3"], "in.txt", "fail"),
    ("translate -b abc", ["translate", *SMALL, "-b", "abc"], "in.txt", "fail"),
    ("translate --threads 1.5", ["translate", *SMALL, "--threads", "1.5"], "in.txt", "fail"),
    ("translate --threads 100000", ["translate", *SMALL, "--threads", "100000"], "in.txt", "fail"),
    ("translate --length-penalty 1e300", ["translate", *SMALL, "--length-penalty", "1e300"], "in.txt", "fail"),
    ("translate --length-penalty nan", ["translate", *SMALL, "--length-penalty", "nan"], "in.txt", "fail"),
    ("translate --n-best 1000", ["translate", *SMALL, "--n-best", "1000", "--batch-size", "4096"], "in.txt", "fail"),
    ("translate --beam-size 1000 --batch-size 4096",
     ["translate", *SMALL, "--beam-size", "1000", "--batch-size", "4096"], "in.txt", "fail"),
    ("translate --max-length-factor 1e9", ["translate", *SMALL, "--max-length-factor", "1e9"], "in.txt", "fail"),
    ("translate an unknown option", ["translate", "--frobnicate"], None, "fail"),
    ("translate an empty -i", ["translate", *SMALL, "-i", ""], None, "fail"),
    # translate: outputs
    ("translate -o an existing file", ["translate", *SMALL, "-i", "in.txt", "-o", "existing.txt"], None, "fail"),
    ("translate -o existing, --alignments in a missing folder",
     ["translate", *SMALL, "-i", "in.txt", "-o", "existing.txt", "--overwrite", "--alignments", "nodir/x.json"],
     None, "fail"),
    ("translate -o existing, --alignment-svg under a file",
     ["translate", *SMALL, "-i", "in.txt", "-o", "existing.txt", "--overwrite", "--alignment-svg", "in.txt/svg"],
     None, "fail"),
    ("translate -o a directory", ["translate", *SMALL, "-i", "in.txt", "-o", "."], None, "fail"),
    ("translate -o /dev/full", ["translate", *SMALL, "-i", "in.txt", "-o", "/dev/full"], None, "fail"),
    ("translate -o existing --overwrite", ["translate", *SMALL, "-i", "in.txt", "-o", "existing.txt", "--overwrite"],
     None, "ok", "existing.txt"),
    # translate: models
    ("translate -m /dev/zero", ["translate", "-m", "/dev/zero"], "in.txt", "fail"),
    ("translate -m a directory", ["translate", "-m", "."], "in.txt", "fail"),
    ("translate -m a text file", ["translate", "-m", "in.txt"], "in.txt", "fail"),
    ("translate -m a truncated model", ["translate", "-m", "truncated.nmt"], "in.txt", "fail"),
    ("translate -m a model with a damaged header", ["translate", "-m", "bad-header.nmt"], "in.txt", "fail"),
    ("translate -m a missing model", ["translate", "-m", "missing.nmt"], "in.txt", "fail"),
    ("translate -m a model with one weight bit flipped", ["translate", "-m", "flipped.nmt"], "in.txt", "fail"),
    ("info --verify a model with one weight bit flipped", ["info", "--verify", "flipped.nmt"], None, "fail"),
    ("translate --from xx --to yy", ["translate", "--from", "xx", "--to", "yy"], "in.txt", "fail"),
    ("translate -m en-fr captions --from de --to en",
     ["translate", "-m", "captions.nmt", "--from", "de", "--to", "en"], "in.txt", "fail"),
    ("translate addresses", ["translate", "-m", "captions.nmt", "-i", "addresses.txt"], None, "ok"),
    # documents, glossaries, language detection
    ("translate a malformed PO file over an existing -o",
     ["translate", *SMALL, "-i", "broken.po", "-o", "existing.txt", "--overwrite"], None, "fail"),
    ("translate a PO file in another charset", ["translate", *SMALL, "-i", "latin1.po"], None, "fail"),
    ("translate broken HTML", ["translate", *SMALL, "-i", "broken.html"], None, "ok"),
    ("translate Markdown with open inline HTML", ["translate", *SMALL, "-i", "open-tags.md"], None, "ok"),
    ("translate an SRT with a broken cue", ["translate", *SMALL, "-i", "broken.srt"], None, "ok"),
    ("translate --format html /dev/zero", ["translate", *SMALL, "--format", "html", "-i", "/dev/zero"], None, "fail"),
    ("translate --format po binary bytes", ["translate", *SMALL, "--format", "po", "-i", "binary.txt"], None, "fail"),
    ("translate --glossary missing", ["translate", *SMALL, "--glossary", "missing.tsv"], "in.txt", "fail"),
    ("translate --glossary without a tab", ["translate", *SMALL, "--glossary", "notab.tsv"], "in.txt", "fail"),
    ("translate --glossary /dev/zero", ["translate", *SMALL, "--glossary", "/dev/zero"], "in.txt", "fail"),
    ("translate --glossary binary bytes", ["translate", *SMALL, "--glossary", "binary.txt"], "in.txt", "fail"),
    ("translate -o its own glossary",
     ["translate", *SMALL, "--glossary", "glossary.tsv", "-i", "in.txt", "-o", "glossary.tsv", "--overwrite"],
     None, "fail"),
    ("translate --do-not-translate '('", ["translate", *SMALL, "--do-not-translate", "("], "in.txt", "fail"),
    ("translate --do-not-translate ''", ["translate", *SMALL, "--do-not-translate", ""], "in.txt", "fail"),
    ("translate --from auto -m a model", ["translate", "--from", "auto", *SMALL], "in.txt", "fail"),
    ("translate --keep-target-language alone", ["translate", *SMALL, "--keep-target-language"], "in.txt", "fail"),
    ("translate --from auto --to xx", ["translate", "--from", "auto", "--to", "xx"], "in.txt", "fail"),
    ("detect invalid UTF-8 and NUL bytes", ["detect", "-i", "binary.txt"], None, "ok"),
    ("detect --among xx", ["detect", "--among", "xx", "-i", "in.txt"], None, "fail"),
    # other commands' outputs
    ("init -o an existing model", ["init", "--vocab", "spm.model", "-o", "model.nmt"], None, "fail"),
    ("convert -o an existing model", ["convert", "model.nmt", "-o", "captions.nmt"], None, "fail"),
    ("average -o an existing model", ["average", "model.nmt", "-o", "captions.nmt"], None, "fail"),
    ("shortlist -o an existing model",
     ["shortlist", *SMALL, "-s", "in.txt", "-t", "in.txt", "-o", "captions.nmt"], None, "fail"),
    ("vocab -o an existing vocabulary", ["vocab", "-i", "corpus.en", "--size", "200", "-o", "spm"], None, "fail"),
    ("vocab --size 0", ["vocab", "-i", "corpus.en", "--size", "0", "-o", "v0"], None, "fail"),
    ("init --dim-emb -5", ["init", "--vocab", "spm.model", "--dim-emb", "-5", "-o", "new.nmt"], None, "fail"),
    # align
    ("align mismatched line counts over an existing -o",
     ["align", *SMALL, "-i", "in.txt", "-r", "two.txt", "-o", "existing.txt", "--overwrite"], None, "fail"),
    ("align --symmetrize alone", ["align", *SMALL, "-i", "in.txt", "-r", "in.txt", "--symmetrize", "union"],
     None, "fail"),
    ("align --statistical with a model", ["align", "--statistical", *SMALL, "-i", "in.txt", "-r", "in.txt"],
     None, "fail"),
    ("align -r a missing file", ["align", *SMALL, "-i", "in.txt", "-r", "missing.txt"], None, "fail"),
    ("align invalid UTF-8", ["align", *SMALL, "-i", "binary.txt", "-r", "binary.txt"], None, "ok"),
    # train
    ("train --batch-tokens 0", ["train", "--batch-tokens", "0"], None, "fail"),
    ("train --warmup abc", ["train", "--warmup", "abc"], None, "fail"),
    ("train --lr -1", ["train", "--lr", "-1"], None, "fail"),
    ("train --config a broken TOML list", ["train", "--config", "broken.toml", "-o", "new.nmt"], None, "fail"),
    ("train --config a bare option name", ["train", "--config", "bare.toml", "-o", "new.nmt"], None, "fail"),
    ("train --config broken JSON", ["train", "--config", "broken.json", "-o", "new.nmt"], None, "fail"),
    ("train --config /dev/zero", ["train", "--config", "/dev/zero", "-o", "new.nmt"], None, "fail"),
    ("train -o an existing model", ["train", "--vocab", "spm.model", "--train-source", "corpus.en",
                                    "--train-target", "corpus.en", "-o", "model.nmt", "--max-steps", "1"],
     None, "fail"),
    # bench, score, info, the command line
    ("bench on blank lines", ["bench", *SMALL, "-i", "blank.txt"], None, "fail"),
    ("bench on a missing file", ["bench", *SMALL, "-i", "missing.txt"], None, "fail"),
    ("score mismatched line counts", ["score", "-i", "in.txt", "-r", "two.txt"], None, "fail"),
    ("score a missing reference", ["score", "-i", "in.txt", "-r", "missing.txt"], None, "fail"),
    ("score invalid UTF-8", ["score", "-i", "binary.txt", "-r", "binary.txt"], None, "fail"),
    ("info a damaged header", ["info", "bad-header.nmt"], None, "fail"),
    ("info a truncated model", ["info", "truncated.nmt"], None, "fail"),
    ("an unknown command", ["frobnicate"], None, "fail"),
    ("no command", [], None, "fail"),
]


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def snapshot(folder):
    files = {}
    for dirpath, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(dirpath, name)
            if os.path.isfile(path) and not os.path.islink(path):
                files[os.path.relpath(path, folder)] = sha(path)
    return files


def run(nmt, cmd):
    subprocess.run([nmt, *cmd], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def prepare(nmt, folder):
    def write(name, data):
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)

    words = ("the a an this that cat dog man woman child people runs walks sees looks big small red blue green "
             "house street park ball with on in at and plays eats water quickly slowly over under girl boy two "
             "three group young old sitting wearing shirt hat bike car road beach grass tree table food music "
             "guitar dances jumps rides holds building city crowd snow field river mountain").split()
    rng = random.Random(1)
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(3, 14))).capitalize() + "." for _ in range(2000)]
    write("corpus.en", ("\n".join(lines) + "\n").encode())
    os.chdir(folder)
    run(nmt, ["vocab", "-i", "corpus.en", "--size", "200", "-o", "spm"])
    run(nmt, ["init", "--vocab", "spm.model", "--dim-emb", "16", "--dim-rnn", "16", "--dim-dec", "32",
              "--dim-attention", "16", "-o", "model.nmt"])
    shutil.copy(os.path.join(ROOT, "models", "en-fr.captions.nmt"), "captions.nmt")
    model = open("model.nmt", "rb").read()
    write("truncated.nmt", model[: len(model) // 2])
    write("bad-header.nmt", model[:20] + b"}" + model[21:])
    flipped = bytearray(model)
    flipped[-100] ^= 0x10  # one bit inside the last tensor's bytes
    write("flipped.nmt", bytes(flipped))
    write("empty.txt", b"")
    write("in.txt", b"A small dog runs.\nThe girl plays in the park.\n")
    write("two.txt", b"one\ntwo\nthree\n")
    write("binary.txt", b"a \xff\xfe dog\x00 runs\n\x01\x02\n\xc3\x28 cat\n")
    write("long-line.txt", (b"the cat runs. " * 150000) + b"\n")
    write("blank.txt", b"\n   \n\t\n")
    write("existing.txt", b"keep me\n")
    write("addresses.txt", b"Write to john.doe@example.org or visit www.example.com.\n")
    write("broken.toml", b"warmup = [1,2\n")
    write("bare.toml", b"valid-source\n")
    write("broken.json", b'{"warmup": \n')
    write("broken.po", b'msgid "one"\nmsgstr "un"\n\nmsgid "two"\nmsgstr "deux\n')
    write("latin1.po", b'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=ISO-8859-1\\n"\n\n'
                       b'msgid "caf\xe9"\nmsgstr ""\n')
    write("broken.html", b"<p>The <b>dog <i>runs</b> in</i> the <a href=x>park<p>Stop")
    write("open-tags.md", b"*n<b>*#\n\nThe `code` and <i>dog\n\n| a |\n|-|\n| b |\n\\|\n")
    write("broken.srt", b"1\n00:00:01,000 --> 00:00:02,000\nA dog runs.\n\nnot a cue\n\n"
                        b"2\n00:00:03,000 --> 00:00:04,000\nThe cat sleeps.\n")
    write("notab.tsv", b"dog chien\n")
    write("glossary.tsv", b"dog\tchien\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("nmt", nargs="?", default=os.path.join(ROOT, "build", "nmt"))
    parser.add_argument("--keep", help="run in this folder (made afresh) and keep it")
    parser.add_argument("--json", action="store_true", help="the summary as one JSON object")
    args = parser.parse_args()
    nmt = os.path.abspath(args.nmt)
    time_bin = shutil.which("time") or "/usr/bin/time"
    if not os.path.exists(time_bin):
        sys.exit("hostile_run: GNU time (/usr/bin/time, Debian's 'time') is needed for peak memory")
    folder = args.keep or tempfile.mkdtemp(prefix="nmt-hostile.")
    if args.keep:
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
    folder = os.path.abspath(folder)
    prepare(nmt, folder)
    env = dict(os.environ, OMP_NUM_THREADS="2", OMP_WAIT_POLICY="passive")

    crashes, hangs, destroyed, not_one_line, unexpected, memory = [], [], [], [], [], []
    for case in CASES:
        name, cmd, stdin_name, expect = case[:4]
        allowed = case[4] if len(case) > 4 else None
        before = snapshot(folder)
        stdin = open(stdin_name, "rb") if stdin_name else subprocess.DEVNULL
        limit = 5 if expect == "bounded" else 60
        # GNU time writes to a file of our own, so that nmt's stderr stays whole.
        peak_file = os.path.join(folder, "..", os.path.basename(folder) + ".peak")
        proc = subprocess.run([time_bin, "-f", "%M", "-o", peak_file, "timeout", "--kill-after=2", str(limit), nmt,
                               *cmd], stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                              cwd=folder)
        if stdin_name:
            stdin.close()
        peak_kb = int(open(peak_file).read().split()[-1])
        os.remove(peak_file)
        memory.append(peak_kb / 1024)
        status = proc.returncode
        stderr = proc.stderr.decode("utf-8", "replace")
        # GNU time reports a child's signal as "Command terminated by signal N" and exits 128+N.
        problems = []
        if expect == "bounded":
            if status not in (0, 124, 137) and status != 1:
                problems.append(f"exit {status}")
        else:
            if status == 124 or status == 137:
                hangs.append(name)
                problems.append("hang")
            elif status >= 128 or status == 2:
                crashes.append(name)
                problems.append(f"crash (exit {status})")
            if expect == "fail" and status == 0:
                unexpected.append(name)
                problems.append("succeeded, should have failed")
            if expect == "ok" and status != 0:
                unexpected.append(name)
                problems.append(f"failed: {stderr.strip()}")
            if status not in (0, 124, 137):
                lines = stderr.rstrip("\n").split("\n")
                if len(lines) != 1 or not lines[0].startswith("nmt: error: "):
                    not_one_line.append(name)
                    problems.append("error not one line: " + repr(stderr[:300]))
        after = snapshot(folder)
        changed = [f for f, digest in before.items() if after.get(f) != digest and f != allowed]
        if changed:
            destroyed.append(f"{name}: {', '.join(changed)}")
            problems.append("destroyed " + ", ".join(changed))
        first_line = stderr.strip().split("\n")[0] if stderr.strip() else ""
        print(f"{'FAIL' if problems else 'ok  '} {name:60} exit {status:3}  {peak_kb / 1024:7.1f} MB  "
              f"{'; '.join(problems) if problems else first_line[:110]}")
    summary = {
        "cases": len(CASES), "crashes": len(crashes), "hangs": len(hangs), "files_destroyed": len(destroyed),
        "errors_not_one_line": len(not_one_line), "unexpected_outcomes": len(unexpected),
        "peak_memory_mb_max": round(max(memory), 1), "peak_memory_mb_median": round(statistics.median(memory), 1),
    }
    print(json.dumps(summary) if args.json else
          f"{summary['cases']} cases: {summary['crashes']} crashes, {summary['hangs']} hangs, "
          f"{summary['files_destroyed']} files destroyed, {summary['errors_not_one_line']} errors not one line, "
          f"{summary['unexpected_outcomes']} unexpected outcomes; peak memory median "
          f"{summary['peak_memory_mb_median']} MB, largest {summary['peak_memory_mb_max']} MB")
    if not args.keep:
        os.chdir("/")
        shutil.rmtree(folder, ignore_errors=True)
    bad = crashes or hangs or destroyed or not_one_line or unexpected
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
