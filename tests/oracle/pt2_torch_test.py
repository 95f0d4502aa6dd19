"""epsmith's .pt2 against torch's own: modules exported and saved by the installed torch are
read, verified and run by epsmith, and written back into an archive torch.export.load reads
into the same program (outputs, mutated inputs and state after a call agree), and D1, D5, D7
and D8 agree with torch on each; programs epsmith generates load in torch.

Usage: pt2_torch_test.py EPSMITH WORKDIR. Exits 77 (skipped) where torch cannot be imported.
"""

import glob
import json
import logging
import os
import subprocess
import sys
import warnings
import zipfile

try:
    import torch
except ImportError:
    print("skipped: no Python torch beside this build")
    sys.exit(77)

logging.disable(logging.WARNING)
warnings.filterwarnings("ignore")
EPSMITH, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


class LinearCounter(torch.nn.Module):  # parameters, a mutated persistent buffer
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 2)
        self.register_buffer("calls", torch.zeros(2))

    def forward(self, x):
        self.calls.add_(1)
        return self.lin(x)


class BatchNormTrain(torch.nn.Module):  # running stats mutated in training mode
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 3, 3)
        self.bn = torch.nn.BatchNorm2d(3)

    def forward(self, x):
        return self.bn(self.conv(x))


class InPlaceInput(torch.nn.Module):  # an in-place op on a user input
    def forward(self, x, y):
        x.mul_(2)
        return x + y


class WriteThroughView(torch.nn.Module):  # a write through a view of an input
    def forward(self, x):
        x[0].add_(1)
        x.t()[1].zero_()
        return x.sum(0)


class OutCall(torch.nn.Module):  # an out= call into a buffer
    def __init__(self):
        super().__init__()
        self.register_buffer("acc", torch.zeros(4))

    def forward(self, x):
        torch.add(x, 1, out=self.acc)
        return self.acc * 2


class NoGradUpdate(torch.nn.Module):  # a parameter written under no_grad
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        with torch.no_grad():
            self.w.mul_(0.5)
        return x * self.w


class Constants(torch.nn.Module):  # a lifted tensor constant, a non-persistent buffer
    def __init__(self):
        super().__init__()
        self.c = torch.tensor([1.0, -2.0, 3.0])
        self.register_buffer("scratch", torch.arange(3.0), persistent=False)

    def forward(self, x):
        return x + self.c * self.scratch


class Nested(torch.nn.Module):  # nested submodules, a LayerNorm, an attention block
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(4)
        self.attn = torch.nn.MultiheadAttention(4, 2, batch_first=True)
        self.head = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())

    def forward(self, x):
        h = self.norm(x)
        a, _ = self.attn(h, h, h)
        return self.head(a + x)


class SharedStorage(torch.nn.Module):  # two inputs viewing one storage, a strided input
    def forward(self, x, y):
        return x * 2 + y.sum()


class DynamicRows(torch.nn.Module):  # a symbolic size, read back with sym_size
    def forward(self, x):
        return x.sum(0) * x.shape[0]


class Cond(torch.nn.Module):  # torch.cond: the interpreter runs the branch the predicate picks
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: x + 1, lambda x: x - 1, (x,))


def fixtures():
    base = torch.arange(12.0).reshape(3, 4)
    rows = {"x": {0: torch.export.Dim("rows", min=2, max=64)}}
    return [
        ("dynamic_rows", DynamicRows(), (torch.randn(4, 3),), rows),
        ("cond", Cond(), (torch.randn(3),)),
        ("linear_counter", LinearCounter(), (torch.randn(4, 3),)),
        ("batchnorm_train", BatchNormTrain().train(), (torch.randn(2, 2, 5, 5),)),
        ("in_place_input", InPlaceInput(), (torch.randn(3), torch.randn(3))),
        ("write_through_view", WriteThroughView(), (torch.randn(3, 3),)),
        ("out_call", OutCall(), (torch.randn(4),)),
        ("no_grad_update", NoGradUpdate(), (torch.randn(3),)),
        ("constants", Constants(), (torch.randn(3),)),
        ("nested", Nested().eval(), (torch.randn(2, 3, 4),)),
        ("shared_storage", SharedStorage(), (base.t(), base[1])),
    ]


def clone_inputs(args):
    return tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)


def same(a, b):
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def call(ep, args):
    """Outputs, inputs after the call and state after the call of ep.module()."""
    module = ep.module()
    args = clone_inputs(args)
    with torch.no_grad():
        out = module(*args)
    return out, args, {k: v.detach().clone() for k, v in module.state_dict().items()}


def epsmith(*argv):
    return subprocess.run([EPSMITH, *argv], capture_output=True, text=True)


def test_fixtures():
    for name, module, args, *dynamic in fixtures():
        path = os.path.join(WORK, name + ".pt2")
        ep = torch.export.export(module, args, dynamic_shapes=dynamic[0] if dynamic else None)
        torch.export.save(ep, path)
        for command in (["verify", path], ["run", path], ["print", path]):
            r = epsmith(*command)
            check(r.returncode == 0, f"{name}: epsmith {command[0]} exit {r.returncode}: {r.stderr.strip()[:300]}")
        back = os.path.join(WORK, name + ".back.pt2")
        r = epsmith("convert", path, back)
        check(r.returncode == 0, f"{name}: epsmith convert: {r.stderr.strip()[:300]}")
        if r.returncode != 0:
            continue
        ours = torch.export.load(back)
        theirs = torch.export.load(path)
        check(same(ours.example_inputs[0], theirs.example_inputs[0]), f"{name}: example inputs differ")
        check(str(ours.graph_signature) == str(theirs.graph_signature), f"{name}: signatures differ")
        check(same(call(ours, args), call(theirs, args)), f"{name}: ep.module() results differ")
        json_path = os.path.join(WORK, name + ".json")
        r = epsmith("convert", back, json_path)
        check(r.returncode == 0, f"{name}: .pt2 -> .json: {r.stderr.strip()[:300]}")
        check_against_torch(name, path)


# A fixture's checks that may find torch 2.13's own bug instead of passing: after
# run_decompositions, a parameter updated under no_grad is written back with grad on
# (corpus/regressions/d8-exception-in-one-bbbcb1a0). Either answer is accepted, so the test
# does not depend on the bug staying.
UPSTREAM = {("no_grad_update", "D8"): "a leaf Variable that requires grad is being used in an in-place operation"}


def check_against_torch(name, path):
    """D1, D5, D7 and D8 on a program torch exported: epsmith's exported run, verifier and
    functionalizer agree with ep.module(), torch.export.load and run_decompositions({})
    (D1 may be skipped with the functionalizer's reason)."""
    r = epsmith("check", "--checks", "D1,D5,D7,D8", "--timeout", "120", path)
    lines = [l for l in r.stdout.splitlines() if l[:1] == "D"]
    check(len(lines) == 4, f"{name}: epsmith check printed {lines}: {r.stderr.strip()[:300]}")
    for line in lines:
        check_id, verdict = line.split(" ", 1)
        if verdict == "pass" or (check_id == "D1" and verdict.startswith("skipped: the functionalizer refuses")):
            continue
        known = UPSTREAM.get((name, check_id))
        check(known is not None and known in r.stdout, f"{name}: {line}\n{r.stdout[:600]}")


def test_range_constraints():
    """Inputs above a symbol's range: torch's ep.module() refuses them, and so does
    epsmith's run (Note [Symbolic sizes bound from the inputs]); inside, both run. (Below
    the range, torch 2.13 ran 1 row of a [2, 64] symbol; epsmith refuses it: not asserted
    here, docs/pt2-format.md.)"""
    ep = torch.export.load(os.path.join(WORK, "dynamic_rows.pt2"))
    for rows, fits in ((70, False), (64, True)):
        x = torch.randn(rows, 3)
        try:
            ep.module()(x)
            torch_runs = True
        except Exception:  # noqa: BLE001 -- torch's guard failure, whatever its type
            torch_runs = False
        check(torch_runs == fits, f"torch on {rows} rows: runs={torch_runs}")
        ep._example_inputs = ((x,), {})
        path = os.path.join(WORK, f"dynamic_rows_{rows}.pt2")
        torch.export.save(ep, path)
        r = epsmith("run", path)
        refused = "outside s" in r.stdout and "range [2, 64]" in r.stdout
        check(r.returncode == (0 if fits else 1) and refused != fits,
              f"epsmith run on {rows} rows: exit {r.returncode}: {r.stdout.strip()[:200]}")


def returns_empty_list(archive):
    """A program with an op that returned an empty tensor list (unbind of a 0-size dim):
    torch 2.13's own torch.export.save/load fails on those (docs/pt2-format.md), so they
    are counted apart, not failed."""
    with zipfile.ZipFile(archive) as z:
        model = json.loads(z.read(next(n for n in z.namelist() if n.endswith("models/model.json"))))
    return any(n["outputs"] in ([], [{"as_tensors": []}]) and "aten" in n["target"]
               for n in model["graph_module"]["graph"]["nodes"])


def test_generated(count=150):
    out = os.path.join(WORK, "generated")
    r = epsmith("generate", "--seed", "1", "--count", str(count), "--out", out, "--pt2")
    check(r.returncode == 0, f"epsmith generate --pt2: {r.stderr.strip()[:300]}")
    loaded = apart = 0
    for path in sorted(glob.glob(os.path.join(out, "*.pt2"))):
        if returns_empty_list(path):
            apart += 1
            continue
        try:
            torch.export.load(path)
            loaded += 1
        except Exception as e:  # noqa: BLE001 -- any refusal is a failure to report
            check(False, f"{path}: torch.export.load: {str(e).splitlines()[0][:300]}")
    print(f"generated: {loaded} loaded by torch.export.load, {apart} with an empty list return set apart")
    check(loaded + apart == count, f"generated: {loaded + apart} of {count} accounted for")


test_fixtures()
test_range_constraints()
test_generated()
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
