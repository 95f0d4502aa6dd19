#!/usr/bin/env python3
"""Converts epsmith case files from format 1 to format 2, in place.

Format 1 kept part of a case's finding and left the rest to be read back out of its
signature (the raising op, D4's form, D6's and D7's corruption) and its report (an
exception's or a dtype mismatch's message). Format 2 keeps every field of the finding
(fuzz/finding_record.h), so nothing is parsed back. Usage: ci/migrate-cases.py PATH...
(files, or directories searched for *.json case files). Files already in format 2, and
JSON files that are not case files, are left as they are.
"""
import json
import pathlib
import sys

FORMS = ("text", "json", "pt2")


def op_and_variant(check, kind, signature):
    """What format 1's reader took from a signature "<check> <kind>[ aten::op]"."""
    rest = signature.split(" ", 1)[1] if " " in signature else ""
    op = rest[rest.index(" aten::") + 1:] if " aten::" in rest else ""
    variant = ""
    if check == "D4":
        variant = next((f for f in FORMS if kind.startswith(f + "-")), "")
    if check in ("D6", "D7") and ":" in kind:
        variant = kind[kind.index(":") + 1:]
    return op, variant


def exception_in_report(report):
    """The raising side's message in an exception finding's report (format 1's fallback)."""
    line = report.split("\n", 1)[0]
    side = ""
    if line.startswith("different exceptions:"):
        at = report.find("\n  actual:")
        line = "" if at < 0 else report[at + 10:].split("\n", 1)[0]
    elif line.startswith("exception in ") and " only: " in line:
        if line.startswith("exception in expected"):
            side = "in expected only: "
        line = line[line.index(" only: ") + 7:]
    elif line.startswith("an exception escaped") and ": " in line:
        line = line[line.index(": ") + 2:]
    line = line.lstrip(" ")
    for prefix in ("node %", "aten::"):
        if not line.startswith(prefix):
            continue
        if ": " not in line:
            break
        line = line[line.index(": ") + 2:]
    return side + line


def dtype_in(text):
    """The first dtype in `text` ("f32[2, 3], ..." gives "f32")."""
    bracket = text.find("[")
    stops = [i for i in (text.find(c) for c in " ,)") if i >= 0]
    if bracket < 0 or (stops and min(stops) < bracket):
        return "not a tensor"
    return text[:bracket]


def dtypes_in_report(report):
    expected, actual = report.find(": expected "), report.find(", actual ")
    if expected < 0 or actual < 0:
        return "dtype mismatch"
    return ("dtype mismatch (" + dtype_in(report[expected + 11:]) + " expected, " +
            dtype_in(report[actual + 9:]) + " actual)")


def migrate(case):
    e = case["expected"]
    op, variant = op_and_variant(e["check"], e["kind"], e["signature"])
    message, report = e.get("message", ""), e.get("report", "")
    if not message and report:
        if e["kind"] == "dtype-mismatch":
            message = dtypes_in_report(report)
        elif "exception" in e["kind"]:
            message = exception_in_report(report)
    new = {"check": e["check"], "signature": e["signature"], "kind": e["kind"],
           "where": e.get("where", ""), "op": e.get("op", op), "variant": e.get("variant", variant),
           "message": message}
    if "slice" in e:
        new["slice"] = e["slice"]
    new["report"] = report
    case["expected"] = new
    case["epsmith_case"] = 2


def main(paths):
    files = []
    for p in map(pathlib.Path, paths):
        files += sorted(p.rglob("*.json")) if p.is_dir() else [p]
    converted = 0
    for f in files:
        try:
            case = json.loads(f.read_text())
        except (OSError, ValueError) as error:
            print(f"{f}: not read: {error}", file=sys.stderr)
            return 1
        if not isinstance(case, dict) or case.get("epsmith_case") != 1:
            continue
        migrate(case)
        f.write_text(json.dumps(case, indent=1, ensure_ascii=False) + "\n")
        converted += 1
    print(f"converted {converted} case file(s) to format 2")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) if len(sys.argv) > 1 else (print(__doc__), 2)[1])
