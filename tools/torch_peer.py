#!/usr/bin/python3
"""A second implementation of nmt's shipped general architecture, in plain PyTorch.

The peer of issue 65's side-by-side benchmark (tools/peer_bench.sh): the
model of `nmt info models/en-fr.nmt` written the way a competent PyTorch user
writes it -- nn.Embedding, nn.GRU, nn.GRUCell, nn.Linear, autograd, Adam,
a batched beam search under torch.inference_mode() -- with no custom kernels,
so that "nmt is N times faster" compares nmt with the usual way of doing the
same computation, not with a strawman.

Architecture (see README "## The model", lib/model/model.cpp parameter_shapes):
  joint SentencePiece vocabulary (16,000 pieces), one 384-d embedding table
  shared by the source, the target and the output projection;
  encoder: bidirectional GRU 2x384, then a left-to-right GRU 768 (no residual
  into layer 1, as encoder.h's residual_into);
  decoder state s_0 = tanh(W_init mean_j h_j + b);
  conditional GRU decoder 768 (Nematus' cGRU): s'_t = GRU1(E y_{t-1}, s_{t-1}),
  additive attention from s'_t (256 hidden units), s_t = GRU2(c_t, s'_t);
  deep output o_t = tanh(W_o [s_t; c_t; E y_{t-1}] + b_o) + W_lex sum_j a_tj x_j
  (the lexical model), logits = o_t E^T + b_vocab.

Differences from nmt (none changes the amount of computation):
  * nn.GRU/nn.GRUCell are the "reset after" GRU (r * (U_n h + b_hn), as cuDNN)
    with two bias vectors; nmt's cell is the original "reset before" one
    ((r * h) U_n) with one bias. So the peer has 3x(hidden) more biases per
    cell: 19,549,440 parameters against nmt's 19,540,224 (+9,216).
  * Weights are the peer's own (trained briefly by `train`), not nmt's: with
    a different GRU variant nmt's weights would not carry over.

Subcommands (each prints JSON lines on stdout, progress on stderr):
  train      Adam, label smoothing 0.1, batches of about --batch-tokens padded
             target tokens, until --max-minutes or --max-steps; saves a
             checkpoint; reports the steady-state target tokens/s of
             forward + backward + Adam after two warm-up steps.
  bench      decoding speed: beam sizes x batch sizes, sentences/s and
             target tokens/s, on --lines lines of --input.
  translate  translations of stdin (a check that the model is sane).

Run with Debian's interpreter (/usr/bin/python3): python3-torch and
python3-sentencepiece are installed there (tools/setup-debian.sh peer).
"""

import argparse
import json
import math
import os
import random
import sys
import time

import sentencepiece as spm
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

# The shipped general model's widths (nmt info models/en-fr.nmt).
DIM_EMB, DIM_RNN, DIM_DEC, DIM_ATT = 384, 384, 768, 256
DIM_CTX = 2 * DIM_RNN


class Peer(nn.Module):
    def __init__(self, vocab_size, dropout_emb=0.1, dropout_hidden=0.2):
        super().__init__()
        E, H, C, D, A = DIM_EMB, DIM_RNN, DIM_CTX, DIM_DEC, DIM_ATT
        self.embed = nn.Embedding(vocab_size, E)  # source, target and output: tied
        self.enc0 = nn.GRU(E, H, bidirectional=True)
        self.enc1 = nn.GRU(C, C)
        self.init = nn.Linear(C, D)
        self.att_q = nn.Linear(D, A, bias=False)
        self.att_k = nn.Linear(C, A)
        self.att_v = nn.Linear(A, 1, bias=False)
        self.gru1 = nn.GRUCell(E, D)
        self.gru2 = nn.GRUCell(C, D)
        self.deep = nn.Linear(D + C + E, E)
        self.lexical = nn.Linear(E, E, bias=False)
        self.vocab_bias = nn.Parameter(torch.zeros(vocab_size))
        self.drop_emb = nn.Dropout(dropout_emb)
        self.drop_hidden = nn.Dropout(dropout_hidden)
        nn.init.uniform_(self.embed.weight, -0.1, 0.1)  # as nmt's init_model

    def encode(self, src, lengths):
        """src [T, N] (time-major, padded), lengths [N] on the CPU."""
        x = self.drop_emb(self.embed(src))
        packed = pack_padded_sequence(x, lengths, enforce_sorted=False)
        h, _ = self.enc0(packed)
        h, _ = self.enc1(h)
        h, _ = pad_packed_sequence(h, total_length=src.size(0))  # [T, N, C], padding 0
        h = self.drop_hidden(h).transpose(0, 1)  # batch-major [N, T, C] for attention
        mask = torch.arange(src.size(0))[None, :] < lengths[:, None]  # [N, T]
        mean = h.sum(1) / lengths[:, None].to(h.dtype)
        s0 = torch.tanh(self.init(mean))
        keys = self.att_k(h)  # computed once per sentence, not per step
        return {"states": h, "keys": keys, "mask": mask, "emb": x.transpose(0, 1), "s0": s0}

    def step(self, y_emb, s, enc):
        """One decoder step: the deep output o_t [M, E] and the new state."""
        s1 = self.gru1(y_emb, s)
        energy = self.att_v(torch.tanh(enc["keys"] + self.att_q(s1)[:, None, :])).squeeze(-1)
        alpha = torch.softmax(energy.masked_fill(~enc["mask"], float("-inf")), dim=-1)[:, None, :]  # [M, 1, T]
        ctx = torch.bmm(alpha, enc["states"]).squeeze(1)
        s2 = self.gru2(ctx, s1)
        o = torch.tanh(self.deep(torch.cat([s2, ctx, y_emb], dim=-1)))
        o = o + self.lexical(torch.bmm(alpha, enc["emb"]).squeeze(1))
        return self.drop_hidden(o), s2

    def logits(self, o):
        return F.linear(o, self.embed.weight, self.vocab_bias)

    def forward(self, src, lengths, tgt_in):
        """Teacher-forced training: logits [T_tgt, N, V]."""
        enc = self.encode(src, lengths)
        y = self.drop_emb(self.embed(tgt_in))
        s, outputs = enc["s0"], []
        for t in range(tgt_in.size(0)):  # the cGRU is sequential: a Python loop, as usual
            o, s = self.step(y[t], s, enc)
            outputs.append(o)
        # The vocabulary projection once for all steps: one large product.
        return self.logits(torch.stack(outputs))


# ---------------------------------------------------------------- data

def load_sp(path):
    sp = spm.SentencePieceProcessor(model_file=path)
    return sp


def pad(seqs, value):
    T = max(len(s) for s in seqs)
    out = torch.full((T, len(seqs)), value, dtype=torch.long)
    for n, s in enumerate(seqs):
        out[: len(s), n] = torch.tensor(s, dtype=torch.long)
    return out


def training_batches(sp, src_path, tgt_path, batch_tokens, max_length, seed):
    """Endless batches of about batch_tokens padded target tokens (EOS included),
    pairs sorted by length within chunks of ~100 batches (nmt's maxi-batch)."""
    with open(src_path, encoding="utf-8") as f:
        src_lines = f.read().splitlines()
    with open(tgt_path, encoding="utf-8") as f:
        tgt_lines = f.read().splitlines()
    assert len(src_lines) == len(tgt_lines), "source and target differ in length"
    rng = random.Random(seed)
    order = list(range(len(src_lines)))
    eos = sp.eos_id()
    while True:
        rng.shuffle(order)
        chunk_pairs = max(1000, 100 * batch_tokens // 15)  # ~100 batches of ~15-piece targets
        for start in range(0, len(order), chunk_pairs):
            idx = order[start: start + chunk_pairs]
            src = sp.encode([src_lines[i] for i in idx])
            tgt = sp.encode([tgt_lines[i] for i in idx])
            pairs = [(s + [eos], t + [eos]) for s, t in zip(src, tgt)
                     if 0 < len(s) <= max_length and 0 < len(t) <= max_length]
            pairs.sort(key=lambda p: (len(p[1]), len(p[0])))
            batches, current, longest = [], [], 0
            for p in pairs:
                longest_if = max(longest, len(p[1]))
                if current and longest_if * (len(current) + 1) > batch_tokens:
                    batches.append(current)
                    current, longest_if = [], len(p[1])
                current.append(p)
                longest = longest_if
            if current:
                batches.append(current)
            rng.shuffle(batches)
            yield from batches


def make_tensors(batch, bos):
    src = [p[0] for p in batch]
    tgt = [p[1] for p in batch]
    lengths = torch.tensor([len(s) for s in src])
    src_t = pad(src, 0)
    tgt_in = pad([[bos] + t[:-1] for t in tgt], 0)
    tgt_out = pad(tgt, -100)  # -100: cross_entropy's ignore_index
    return src_t, lengths, tgt_in, tgt_out, sum(len(t) for t in tgt)


# ---------------------------------------------------------------- settings

def apply_threads(threads):
    # Intra-op threads do the work; one inter-op thread, since nothing here
    # runs independent ops concurrently (and the machine has few cores).
    torch.set_num_threads(threads)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass  # already set in this process


def loaded_blas():
    """The BLAS library this process really loaded (Debian's libblas.so.3 is an
    alternative: reference BLAS, OpenBLAS pthread or OpenMP, BLIS...)."""
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            if "blas" in os.path.basename(path) or "blis" in os.path.basename(path):
                return os.path.realpath(path)
    return "(none)"


def settings_record(args):
    return {
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "interop_threads": torch.get_num_interop_threads(),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "(default)"),
        "mkldnn": torch.backends.mkldnn.enabled,
        "blas": loaded_blas(),
    }


# ---------------------------------------------------------------- train

def cmd_train(args):
    apply_threads(args.threads)
    torch.manual_seed(args.seed)
    sp = load_sp(args.vocab)
    model = Peer(sp.get_piece_size())
    if args.resume and args.checkpoint and os.path.exists(args.checkpoint):
        model.load_state_dict(torch.load(args.checkpoint)["model"])
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: min(1.0, (step + 1) / args.warmup))
    batches = training_batches(sp, args.train_source, args.train_target, args.batch_tokens, 100, args.seed)
    deadline = time.monotonic() + 60 * args.max_minutes if args.max_minutes > 0 else math.inf
    warmup_steps, step, timed_tokens, timed_start = 2, 0, 0, None
    loss_sum, tok_sum = 0.0, 0
    while time.monotonic() < deadline and (args.max_steps <= 0 or step < args.max_steps):
        src, lengths, tgt_in, tgt_out, ntok = make_tensors(next(batches), sp.bos_id())
        if step == warmup_steps:
            timed_start, timed_tokens = time.perf_counter(), 0
        logits = model(src, lengths, tgt_in)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), tgt_out.view(-1), ignore_index=-100,
                               label_smoothing=0.1, reduction="sum")
        opt.zero_grad(set_to_none=True)
        (loss / ntok).backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        sched.step()
        step += 1
        if timed_start is not None:
            timed_tokens += ntok
        loss_sum, tok_sum = loss_sum + loss.item(), tok_sum + ntok
        if step % args.disp_freq == 0:
            rate = timed_tokens / (time.perf_counter() - timed_start) if timed_start else 0.0
            print(f"step {step}: loss/token {loss_sum / tok_sum:.3f}, {rate:.0f} target tokens/s", file=sys.stderr,
                  flush=True)
            loss_sum, tok_sum = 0.0, 0
    seconds = time.perf_counter() - timed_start if timed_start else 0.0
    if args.checkpoint and not args.no_save:
        os.makedirs(os.path.dirname(os.path.abspath(args.checkpoint)), exist_ok=True)
        torch.save({"model": model.state_dict(), "steps": step, "vocab": args.vocab}, args.checkpoint)
    print(json.dumps({"mode": "train", "steps": max(0, step - warmup_steps), "target_tokens": timed_tokens,
                      "seconds": seconds, "target_tokens_per_s": timed_tokens / seconds if seconds else 0.0,
                      "batch_tokens": args.batch_tokens, **settings_record(args)}), flush=True)


# ---------------------------------------------------------------- decode

@torch.inference_mode()
def beam_search(model, src_seqs, beam, bos, eos, max_factor=2.0, max_extra=5, length_penalty=1.0,
                target_lengths=None):
    """Batched beam search over sentences of similar length; returns token ids per sentence.

    Each live sentence keeps `beam` rows; at each step the best 2*beam
    continuations of a sentence are taken, those ending in EOS become finished
    hypotheses and the best `beam` others continue. A sentence is done when it
    has `beam` finished hypotheses or reaches 2 x source length + 5 (nmt's
    default limit); done sentences leave the batch. Scores are normalised as
    nmt's, by GNMT's ((5 + length) / 6) ** alpha (1.0: the shipped model's tuned value).

    target_lengths (per sentence, or None): pin each output to that many
    pieces -- EOS forbidden before, forced after -- so that the search takes
    exactly the steps nmt took on the sentence, whatever the peer's weights."""
    N, K = len(src_seqs), beam
    lengths = torch.tensor([len(s) for s in src_seqs])
    enc = model.encode(pad(src_seqs, 0), lengths)
    # Every sentence's encoder outputs, once per beam row.
    enc = {k: v.repeat_interleave(K, dim=0) for k, v in enc.items()}
    s = enc["s0"]
    V = model.embed.num_embeddings
    alive = list(range(N))  # original sentence index of each live sentence
    if target_lengths is None:
        max_len = [math.ceil(max_factor * len(x)) + max_extra for x in src_seqs]
    else:  # pieces, then EOS: as many steps as nmt's search took
        max_len = [n + 1 for n in target_lengths]
    finished = [[] for _ in range(N)]
    # Only the first row of each sentence is live at step 0 (all rows are the same).
    scores = torch.full((N, K), float("-inf"))
    scores[:, 0] = 0.0
    tokens = torch.full((N * K,), bos, dtype=torch.long)
    history = torch.empty((N * K, 0), dtype=torch.long)
    t = 0
    while alive:
        t += 1
        o, s = model.step(model.embed(tokens), s, enc)
        logp = torch.log_softmax(model.logits(o), dim=-1)  # [M, V]
        M = len(alive)
        if target_lengths is not None:
            early = torch.tensor([t <= target_lengths[n] for n in alive]).repeat_interleave(K)
            logp[:, eos].masked_fill_(early, float("-inf"))
        cand = (scores.view(-1, 1) + logp).view(M, K * V)
        top_scores, top_idx = cand.topk(2 * K, dim=1)
        origin, token = top_idx // V, top_idx % V
        is_eos = token == eos
        keep_rows, keep_scores, keep_tokens, keep_alive, done_any = [], [], [], [], False
        top_scores_l, origin_l, token_l, eos_l = top_scores.tolist(), origin.tolist(), token.tolist(), is_eos.tolist()
        for i, n in enumerate(alive):
            rows, sc, tk = [], [], []
            for j in range(2 * K):
                score, row = top_scores_l[i][j], i * K + origin_l[i][j]
                if score == float("-inf") or len(rows) == K:
                    break
                if eos_l[i][j]:
                    if len(finished[n]) < K:
                        finished[n].append((score / ((5 + t) / 6) ** length_penalty, history[row].tolist()))
                else:
                    rows.append(row)
                    sc.append(score)
                    tk.append(token_l[i][j])
            if len(finished[n]) >= K or t >= max_len[n] or not rows:
                if t >= max_len[n]:  # unfinished at the limit: they count too
                    for r, score, tok in zip(rows, sc, tk):
                        # Pinned, step t is the EOS step: the hypothesis is its first t - 1 pieces.
                        pieces = history[r].tolist() + ([] if target_lengths is not None else [tok])
                        finished[n].append((score / ((5 + t) / 6) ** length_penalty, pieces))
                done_any = True
                continue
            keep_alive.append(i)
            keep_rows.extend(rows)
            keep_scores.append(sc)
            keep_tokens.extend(tk)
        if not keep_alive:
            break
        rows_t = torch.tensor(keep_rows)
        # Reorder (and shrink, when sentences finished) the per-row state.
        s = s.index_select(0, rows_t)
        history = torch.cat([history.index_select(0, rows_t), torch.tensor(keep_tokens)[:, None]], dim=1)
        if done_any:
            sent_rows = torch.tensor(keep_alive).repeat_interleave(K) * K + torch.arange(K).repeat(len(keep_alive))
            enc = {k: v.index_select(0, sent_rows) for k, v in enc.items()}
            alive = [alive[i] for i in keep_alive]
        tokens = torch.tensor(keep_tokens)
        scores = torch.tensor(keep_scores)
    return [max(f, key=lambda h: h[0])[1] if f else [] for f in finished]


def translate_lines(model, sp, lines, beam, batch_size, target_lengths=None):
    """Length-sorted batches, as every batched translator does; output in input order."""
    ids = sp.encode(lines)
    eos = sp.eos_id()
    src = [x + [eos] if x else [] for x in ids]
    order = sorted((i for i in range(len(src)) if src[i]), key=lambda i: len(src[i]))
    out = [[] for _ in lines]
    for start in range(0, len(order), batch_size):
        chunk = order[start: start + batch_size]
        pinned = None if target_lengths is None else [target_lengths[i] for i in chunk]
        for i, hyp in zip(chunk, beam_search(model, [src[i] for i in chunk], beam, sp.bos_id(), eos,
                                             target_lengths=pinned)):
            out[i] = hyp
    return out


def load_model(args, sp):
    model = Peer(sp.get_piece_size())
    if args.checkpoint:
        model.load_state_dict(torch.load(args.checkpoint)["model"])
    model.eval()
    return model


def read_lines(path, limit):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    return lines[:limit] if limit > 0 else lines


def pinned_lengths(specs, sp, count):
    """{beam size: output length in pieces per line} from BEAM=FILE specs (FILE:
    one integer per line, the pieces of nmt's translation without EOS)."""
    pinned = {}
    for spec in specs:
        beam, path = spec.split("=", 1)
        with open(path, encoding="utf-8") as f:
            lengths = [int(x) for x in f.read().split()][:count]
        if len(lengths) < count:
            raise SystemExit(f"{path}: {len(lengths)} lengths, the input has {count} lines")
        pinned[int(beam)] = lengths
    return pinned


def cmd_bench(args):
    apply_threads(args.threads)
    sp = load_sp(args.vocab)
    model = load_model(args, sp)
    lines = read_lines(args.input, args.lines)
    translate_lines(model, sp, lines[:8], 1, 8)  # warm-up: first-call allocations, thread pool start
    pinned = pinned_lengths(args.target_lengths, sp, len(lines))
    for beam in args.beam_sizes:
        for batch in args.batch_sizes:
            best = None
            for _ in range(args.repeat):
                start = time.perf_counter()
                hyps = translate_lines(model, sp, lines, beam, batch, pinned.get(beam))
                texts = sp.decode(hyps)
                seconds = time.perf_counter() - start
                best = seconds if best is None else min(best, seconds)
            tokens = sum(len(h) + 1 for h in hyps if h)  # EOS counted, as nmt bench counts it
            print(json.dumps({"mode": "decode", "beam": beam, "batch": batch, "sentences": len(lines),
                              "target_tokens": tokens, "seconds": best, "sentences_per_s": len(lines) / best,
                              "target_tokens_per_s": tokens / best,
                              "empty_outputs": sum(1 for x in texts if not x),
                              "pinned_lengths": beam in pinned, **settings_record(args)}), flush=True)


def cmd_translate(args):
    apply_threads(args.threads)
    sp = load_sp(args.vocab)
    model = load_model(args, sp)
    lines = sys.stdin.read().splitlines()
    for text in sp.decode(translate_lines(model, sp, lines, args.beam, args.batch)):
        print(text)


def cmd_probe(args):
    """A small fixed workload, to choose the fastest settings (tools/peer_bench.sh):
    seconds for beam 5 at batch 1 and 32 on the first lines of --input, and
    the target tokens/s of a few training steps."""
    apply_threads(args.threads)
    sp = load_sp(args.vocab)
    model = load_model(args, sp)
    lines = read_lines(args.input, 32)
    pinned = pinned_lengths(args.target_lengths, sp, len(lines)).get(5)
    translate_lines(model, sp, lines[:4], 5, 4)  # warm-up
    start = time.perf_counter()
    translate_lines(model, sp, lines[:12], 5, 1, pinned)
    translate_lines(model, sp, lines, 5, 32, pinned)
    decode_seconds = time.perf_counter() - start
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-9)  # speed only: the weights barely move and are not saved
    batches = training_batches(sp, args.train_source, args.train_target, 2000, 100, 1)
    tokens, start = 0, None
    for step in range(args.train_steps + 2):
        if step == 2:
            start, tokens = time.perf_counter(), 0
        src, lengths, tgt_in, tgt_out, ntok = make_tensors(next(batches), sp.bos_id())
        logits = model(src, lengths, tgt_in)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), tgt_out.view(-1), label_smoothing=0.1,
                               reduction="sum") / ntok
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        tokens += ntok
    train_rate = tokens / (time.perf_counter() - start)
    print(json.dumps({"mode": "probe", "decode_seconds": decode_seconds, "train_target_tokens_per_s": train_rate,
                      **settings_record(args)}), flush=True)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    def common(c):
        c.add_argument("--vocab", default=os.path.join(root, "vocab/general.en-fr.model"))
        c.add_argument("--checkpoint", default=os.path.join(root, "runs/peer/peer.en-fr.pt"))
        c.add_argument("--threads", type=int, default=2)

    t = sub.add_parser("train", help="train (or measure training speed)")
    common(t)
    t.add_argument("--train-source", default=os.path.join(root, "runs/data/general.en-fr/train.en"))
    t.add_argument("--train-target", default=os.path.join(root, "runs/data/general.en-fr/train.fr"))
    t.add_argument("--batch-tokens", type=int, default=2000)
    t.add_argument("--lr", type=float, default=0.001)
    t.add_argument("--warmup", type=int, default=100)
    t.add_argument("--max-minutes", type=float, default=0)
    t.add_argument("--max-steps", type=int, default=0)
    t.add_argument("--disp-freq", type=int, default=20)
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--resume", action="store_true", help="start from --checkpoint when it exists")
    t.add_argument("--no-save", action="store_true", help="measure only: save no checkpoint")

    b = sub.add_parser("bench", help="decoding speed, one JSON line per setting")
    common(b)
    b.add_argument("-i", "--input", required=True)
    b.add_argument("--lines", type=int, default=0)
    b.add_argument("--beam-sizes", type=lambda s: [int(x) for x in s.split(",")], default=[1, 5])
    b.add_argument("--batch-sizes", type=lambda s: [int(x) for x in s.split(",")], default=[1, 32])
    b.add_argument("--repeat", type=int, default=1)
    b.add_argument("--target-lengths", action="append", default=[], metavar="BEAM=FILE",
                   help="pin outputs at this beam size to FILE's lengths, one integer (pieces, EOS not counted) "
                        "per input line, e.g. those of nmt's translations: the same decoder steps per sentence")

    tr = sub.add_parser("translate", help="translate stdin")
    common(tr)
    tr.add_argument("--beam", type=int, default=5)
    tr.add_argument("--batch", type=int, default=32)

    pr = sub.add_parser("probe", help="a small decoding and training workload, to compare settings")
    common(pr)
    pr.add_argument("-i", "--input", required=True)
    pr.add_argument("--train-source", default=os.path.join(root, "runs/data/general.en-fr/train.en"))
    pr.add_argument("--train-target", default=os.path.join(root, "runs/data/general.en-fr/train.fr"))
    pr.add_argument("--train-steps", type=int, default=2, help="timed, after two warm-up steps")
    pr.add_argument("--target-lengths", action="append", default=[], metavar="BEAM=FILE")

    args = p.parse_args()
    {"train": cmd_train, "bench": cmd_bench, "translate": cmd_translate, "probe": cmd_probe}[args.command](args)


if __name__ == "__main__":
    main()
