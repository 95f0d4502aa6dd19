#!/usr/bin/env python3
"""Converts epsmith case files from format 1 to format 2, in place.

Format 1 kept part of a case's finding and left the rest to be read back out of its
signature (the raising op, D4's form, D6's and D7's corruption). Format 2 keeps every
field of the finding (fuzz/finding_record.h), so no signature is parsed back. A message
format 1 did not keep stays empty: its root cause reads the message template from the
report (fuzz/root_cause.cpp), and `epsmith known --check` compares a script's exception
with no message it never had. Usage: ci/migrate-cases.py PATH...
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


def migrate(case):
    e = case["expected"]
    op, variant = op_and_variant(e["check"], e["kind"], e["signature"])
    message, report = e.get("message", ""), e.get("report", "")
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
