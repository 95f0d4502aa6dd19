"""The torch peer's shortcuts change no answer (Note [Peer shortcuts that change no answer]):
programs epsmith generates, and archives torch refuses, are asked of the peer without the
shortcuts and then with them, in one process, and every verdict, error, signature and
result must be the same.

Usage: peer_shortcuts_test.py EPSMITH WORKDIR. Exits 77 (skipped) where torch cannot be
imported.
"""

import glob
import io
import logging
import os
import subprocess
import sys
import warnings

try:
    import torch
except ImportError:
    print("skipped: no Python torch beside this build")
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import epsmith_peer  # noqa: E402 -- after the skip where torch is missing

logging.disable(logging.WARNING)
warnings.filterwarnings("ignore")
EPSMITH, WORK = sys.argv[1], sys.argv[2]
CHECKS = ["D5", "D7", "D8"]


def questions():
    out = os.path.join(WORK, "programs")
    subprocess.run([EPSMITH, "generate", "--seed", "7100", "--count", "40", "--out", out, "--pt2"], check=True,
                   stdout=subprocess.DEVNULL)
    archives = [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(out, "*.pt2")))]
    # Each program with a broken copy of another as D7's corruption: a refusal to compare.
    return [[a, archives[i - 1][: len(archives[i - 1]) // 2]] for i, a in enumerate(archives)]


def same_value(a, b):
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        def bits(t):  # NaNs compare by their bits
            return torch.empty(t.numel(), dtype=t.dtype).copy_(t.reshape(-1)).view(torch.uint8)

        return a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride() and \
            bool(torch.equal(bits(a), bits(b)))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def answers(peer, asked):
    replies = []
    for archives in asked:
        reply, payloads = peer.answer(CHECKS, archives)
        results = [torch.load(io.BytesIO(p), weights_only=False) for p in payloads]
        replies.append((reply, results))
    return replies


def main():
    os.makedirs(WORK, exist_ok=True)
    asked = questions()
    peer = epsmith_peer.Peer(torch)
    plain = answers(peer, asked)
    taken = epsmith_peer.take_shortcuts(torch)
    print("shortcuts taken on torch %s: %s" % (torch.__version__, ", ".join(taken) or "none"))
    short = answers(peer, asked)
    failures = 0
    for i, ((reply_a, results_a), (reply_b, results_b)) in enumerate(zip(plain, short)):
        if reply_a != reply_b:
            failures += 1
            print("FAIL: program %d answers differently:\n  plain:     %s\n  shortcuts: %s" % (i, reply_a, reply_b))
        elif not same_value(results_a, results_b):
            failures += 1
            print("FAIL: program %d gives other results with the shortcuts" % i)
    decomposed = sum(1 for reply, _ in plain if reply.get("D8", {}).get("error") is None and "D8" in reply)
    if decomposed < 10:
        failures += 1
        print("FAIL: only %d of %d programs were decomposed: too few to compare" % (decomposed, len(plain)))
    print("%d questions, %d decomposed, %d differ" % (len(plain), decomposed, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
