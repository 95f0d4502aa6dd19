"""Runs reproducer scripts' eager path for tests/repro/repro_test.cpp: for each NAME.py in
SCRIPTS, NAME.pt (torch.save of (outputs, [[name, tensor], ...]) as the torch peer sends
results) or NAME.error (what eager raised) in OUT. Run with `python -I` in an empty
directory, as a maintainer would run a script; it imports each script without running its
main()."""
import importlib.util
import inspect
import os
import sys

import torch

# Values are sent as the torch peer sends them (its module imported without leaving a
# __pycache__ in the checkout).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from epsmith_peer import _plain as plain  # noqa: E402


def results(script):
    name = "repro_" + os.path.splitext(os.path.basename(script))[0]
    spec = importlib.util.spec_from_file_location(name, script)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # torch.cond compiles its branches, and dynamo looks modules up
    spec.loader.exec_module(module)
    m, args = module.make()
    out = m(*args)  # what every script runs as eager
    finals = [["parameter:" + k, plain(v)] for k, v in m.named_parameters()]
    finals += [["buffer:" + k, plain(v)] for k, v in m.named_buffers()]
    finals += [["user_input:#%d" % i, plain(a)] for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
    return [plain(v) for v in out], finals


def main(scripts, out):
    for name in sorted(os.listdir(scripts)):
        if not name.endswith(".py"):
            continue
        stem = os.path.join(out, name[:-3])
        try:
            outputs, finals = results(os.path.join(scripts, name))
        except Exception as e:  # noqa: BLE001 - what eager raised is the result
            with open(stem + ".error", "w") as f:
                f.write("%s: %s" % (type(e).__name__, str(e).strip().split("\n")[0]))
            continue
        torch.save((outputs, finals), stem + ".pt")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
