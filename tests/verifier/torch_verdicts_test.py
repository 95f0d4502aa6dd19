"""epsmith's verifier against torch's on the programs of tests/data/verifier_cases (the cases
of PyTorch's test/export/test_verifier.py and a few of our own): each is written as a .pt2
by `epsmith convert` and loaded with torch.export.load, whose verifier runs on load. Both
must give the same verdict, and where both reject, torch's SpecViolationError must say what
epsmith's first diagnostic says. Files named accepted_* must be accepted by both.

Usage: torch_verdicts_test.py EPSMITH CASES_DIR WORKDIR. Exits 77 (skipped) where torch
cannot be imported.
"""

import glob
import logging
import os
import re
import subprocess
import sys
import warnings

try:
    import torch
    from torch._export.verifier import SpecViolationError
except ImportError:
    print("skipped: no Python torch beside this build")
    sys.exit(77)

logging.disable(logging.WARNING)
warnings.filterwarnings("ignore")
EPSMITH, CASES, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)

# No .pt2 holds these (epsmith's writer refuses them and says why); their verdicts are
# tested in tests/verifier/pytorch_cases_test.cpp alone.
NOT_WRITABLE = {
    "violations_everywhere": "a user input spec naming no placeholder",
    "second_output_node": "more than one output node",
}
# torch's deserializer refuses these before its verifier runs: only the verdicts compare.
REFUSED_WHEN_READ = {"use_before_definition"}


def one_line(text):
    return " ".join(text.split())


def ours(path):
    r = subprocess.run([EPSMITH, "verify", path], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        return None, f"epsmith verify exit {r.returncode}: {r.stderr.strip()[:300]}"
    first = re.search(r"error\[[a-z0-9-]+\]: (.*)", r.stdout.splitlines()[0] if r.stdout else "")
    return r.returncode == 0, one_line(first.group(1)) if first else ""


def theirs(archive):
    try:
        torch.export.load(archive)
        return True, None
    except Exception as e:  # noqa: BLE001 -- the verdict is whatever torch raised
        return False, e


failures = []
cases = sorted(glob.glob(os.path.join(CASES, "*.ept")))
for path in cases:
    name = os.path.basename(path)[: -len(".ept")]
    accepts, message = ours(path)
    if accepts is None:
        failures.append(f"{name}: {message}")
        continue
    archive = os.path.join(WORK, name + ".pt2")
    r = subprocess.run([EPSMITH, "convert", path, archive], capture_output=True, text=True)
    if r.returncode != 0:
        if name not in NOT_WRITABLE:
            failures.append(f"{name}: epsmith convert: {r.stderr.strip()[:300]}")
        continue
    torch_accepts, error = theirs(archive)
    if accepts != torch_accepts or accepts != name.startswith("accepted_"):
        failures.append(f"{name}: epsmith {'accepts' if accepts else 'rejects: ' + message}; "
                        f"torch {'accepts' if torch_accepts else 'rejects: ' + str(error)[:300]}")
    elif not accepts and isinstance(error, SpecViolationError):
        if one_line(str(error)) != message:
            failures.append(f"{name}: the first violations differ\n  epsmith: {message}\n  torch:   {one_line(str(error))}")
    elif not accepts and name not in REFUSED_WHEN_READ:
        failures.append(f"{name}: torch refused it before verifying: {type(error).__name__}: {str(error)[:300]}")
    print(f"{name}: {'accepted' if accepts else 'rejected'} by both")

if len(cases) < 10:
    failures.append(f"only {len(cases)} cases in {CASES}")
for f in failures:
    print("FAIL:", f)
print(f"{len(cases)} cases, {len(failures)} failures")
sys.exit(1 if failures else 0)
