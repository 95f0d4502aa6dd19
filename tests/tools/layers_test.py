#!/usr/bin/env python3
"""Holds the code to docs/design.md's table of layers.

usage: layers_test.py SOURCE_DIR

Each folder of the table may include its own headers and those of the folders its "depends
on" column names ("all above": every folder of an earlier row; "all above but tools"); a
header whose banner says it is internal to its folder ("Internal to fuzz/", "internal to
the functionalizer") may be included from that folder and its tests alone; and fuzz/ takes
only the public header of the functionalizer and of the minimizer it tests. Exits 1 naming
each include that breaks the table, 0 when none does.
"""
import pathlib
import re
import sys

# Includes the table does not allow yet, each with what keeps it; the test fails when one
# of them is gone, so that the list only shrinks.
KNOWN = {}

# The harness tests the functionalizer and the minimizer: it may call them (their one public
# header each), never judge with their parts.
ONLY = {
    ("fuzz", "functionalizer"): {"functionalizer/functionalize.h"},
    ("fuzz", "minimizer"): {"minimizer/minimize.h"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([^"]+)"', re.M)


def layers(design):
    """[(folder, [folders it may include])] in the table's order."""
    text = design.read_text()
    section = text[text.index("## Layers"):]
    section = section[:section.index("\n## ", 1)]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[1].startswith("`"):
            continue
        rows.append((cells[1].strip("`").rstrip("/"), cells[3]))
    out = []
    for i, (folder, deps) in enumerate(rows):
        above = [f for f, _ in rows[:i]]
        if deps.startswith("all above but "):
            drop = {d.strip() for d in deps[len("all above but "):].split(",")}
            allowed = [f for f in above if f not in drop]
        elif deps == "all above":
            allowed = above
        else:
            allowed = [d.strip() for d in deps.split(",") if d.strip() not in ("—", "LibTorch")]
        out.append((folder, allowed))
    return out


def internal_to(root, header):
    """The folder (from `root`) a header is internal to, or None."""
    banner = "".join(header.read_text().splitlines(keepends=True)[:6])
    if re.search(r"[Ii]nternal to\b", banner):
        return header.parent.relative_to(root).as_posix()
    return None


def main():
    root = pathlib.Path(sys.argv[1])
    table = layers(root / "docs/design.md")
    folders = {f for f, _ in table}
    errors, seen = [], set()
    for folder, allowed in sorted(table, key=lambda r: -len(r[0])):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".h", ".cpp", ".def"):
                continue
            rel = path.relative_to(root).as_posix()
            owner = max((f for f in folders if rel.startswith(f + "/")), key=len)
            if owner != folder:
                continue  # a nested folder of its own row (fuzz/targets/)
            for top, rest in INCLUDE.findall(path.read_text()):
                target = f"{top}/{rest}"
                if top not in folders and not (root / target).exists():
                    continue
                if (rel, target) in KNOWN:
                    seen.add((rel, target))
                    continue
                header = root / target
                home = internal_to(root, header) if header.exists() else None
                if home and not (rel.startswith(home + "/") or rel.startswith(f"tests/{home}/")):
                    errors.append(f"{rel}: includes {target}, which is internal to {home}/")
                elif (folder, top) in ONLY and target not in ONLY[(folder, top)]:
                    errors.append(f"{rel}: includes {target}; {folder}/ takes only "
                                  f"{', '.join(sorted(ONLY[(folder, top)]))} of {top}/")
                elif top != folder and top not in allowed and not folder.startswith(top + "/"):
                    errors.append(f"{rel}: includes {target}, but {folder}/ depends on {', '.join(allowed) or 'nothing'}"
                                  " (docs/design.md, Layers)")
    for gone in sorted(set(KNOWN) - seen):
        errors.append(f"{gone[0]} no longer includes {gone[1]}: take it off layers_test.py's KNOWN")
    for e in errors:
        print(e)
    print(f"layers: {len(errors)} include(s) break docs/design.md's table; {len(seen)} known, each with its reason")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
