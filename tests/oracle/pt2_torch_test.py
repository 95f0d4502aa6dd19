"""epsmith's .pt2 against torch's own: modules exported and saved by the installed torch
(pt2_fixtures.py) are
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

from pt2_fixtures import fixtures  # noqa: E402 -- after the skip where torch is missing

logging.disable(logging.WARNING)
warnings.filterwarnings("ignore")
EPSMITH, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


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


def call(ep, args, kwargs):
    """Outputs, inputs after the call and state after the call of ep.module()."""
    module = ep.module()
    args = clone_inputs(args)
    kwargs = {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}
    with torch.no_grad():
        out = module(*args, **kwargs)
    return out, args, kwargs, {k: v.detach().clone() for k, v in module.state_dict().items()}


def epsmith(*argv):
    return subprocess.run([EPSMITH, *argv], capture_output=True, text=True)


def test_fixtures():
    names = [f.name for f in fixtures()]
    check(len(names) >= 30 and len(set(names)) == len(names), f"fixtures: {len(names)}, names {names}")
    for name, module, args, kwargs, dynamic_shapes, preserve in fixtures():
        path = os.path.join(WORK, name + ".pt2")
        ep = torch.export.export(module, args, kwargs, dynamic_shapes=dynamic_shapes,
                                 preserve_module_call_signature=preserve)
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
        check(same(ours.example_inputs, theirs.example_inputs), f"{name}: example inputs differ")
        check(str(ours.graph_signature) == str(theirs.graph_signature), f"{name}: signatures differ")
        check(same(call(ours, args, kwargs), call(theirs, args, kwargs)), f"{name}: ep.module() results differ")
        json_path = os.path.join(WORK, name + ".json")
        r = epsmith("convert", back, json_path)
        check(r.returncode == 0, f"{name}: .pt2 -> .json: {r.stderr.strip()[:300]}")
        check_against_torch(name, path)


# The checks of fixtures that may find torch 2.13's own bug instead of passing: after
# run_decompositions, a parameter updated under no_grad is written back with grad on
# (corpus/regressions/d8-exception-in-one-bbbcb1a0). Either answer is accepted, so the test
# does not depend on the bug staying.
UPSTREAM = {(name, "D8"): "a leaf Variable that requires grad is being used in an in-place operation"
            for name in ("no_grad_update", "param_in_place_no_grad")}


def check_against_torch(name, path):
    """D1, D5, D7 and D8 on a program torch exported: epsmith's exported run, verifier and
    functionalizer agree with ep.module(), torch.export.load and run_decompositions({});
    D1 is never skipped: the functionalizer takes every program a module exports here."""
    r = epsmith("check", "--checks", "D1,D5,D7,D8", "--timeout", "120", path)
    lines = [l for l in r.stdout.splitlines() if l[:1] == "D"]
    check(len(lines) == 4, f"{name}: epsmith check printed {lines}: {r.stderr.strip()[:300]}")
    for line in lines:
        check_id, verdict = line.split(" ", 1)
        if verdict == "pass":
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
