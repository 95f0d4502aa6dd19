#!/usr/bin/env bash
# Cross-file reasoning lives in Notes (a comment block headed `Note` and its topic in square
# brackets) cited by that heading, so every citation must be greppable and lead somewhere: a
# Note's name never wraps across lines, every name cited in the sources and docs begins a
# comment line somewhere (where it is written), and docs/design.md's index lists each one.
# Usage: notes_test.sh SOURCE_DIR
set -uo pipefail
cd "$1" || exit 1
failures=0
mapfile -t files < <(git ls-files -co --exclude-standard -- '*.cpp' '*.h' '*.md' '*.sh' '*.txt' '*.cmake' '*.py' 2>/dev/null)
if [ "${#files[@]}" -eq 0 ]; then echo "FAIL: no tracked sources under $1"; echo "0 passed, 1 failed"; exit 1; fi
# A name cut after its bracket opens, or after the word Note itself.
wrapped=$(grep -nE 'Notes? \[[^]]*$|(^|[^A-Za-z])\(?Notes?$' "${files[@]}")
if [ -n "$wrapped" ]; then
  echo "FAIL: Note names wrapped across lines:"; echo "$wrapped" | head -20; failures=$((failures + 1))
fi
cited=$(grep -ohE 'Note \[[^]]+\]' "${files[@]}" | sort -u)
written=$(grep -ohE '^[[:space:]]*(//|#) Note \[[^]]+\]' "${files[@]}" | sed -E 's/^[[:space:]]*(\/\/|#) //' | sort -u)
missing=$(comm -23 <(echo "$cited") <(echo "$written"))
if [ -n "$missing" ]; then
  echo "FAIL: Notes cited but written nowhere:"; echo "$missing"; failures=$((failures + 1))
fi
# docs/design.md's index lists every Note written in the code, and nothing else.
code_files=()
for f in "${files[@]}"; do case $f in *.md) ;; *) code_files+=("$f") ;; esac; done
in_code=$(grep -ohE '^[[:space:]]*(//|#) Note \[[^]]+\]' "${code_files[@]}" | sed -E 's/^[[:space:]]*(\/\/|#) Note //' | sort -u)
indexed=$(sed -n '/<!-- notes-index/,$p' docs/design.md | grep -oE '\[[^]]+\]' | sort -u)
unindexed=$(comm -23 <(echo "$in_code") <(echo "$indexed"))
stale=$(comm -13 <(echo "$in_code") <(echo "$indexed"))
if [ -n "$unindexed$stale" ]; then
  echo "FAIL: docs/design.md's Notes index is out of date:"
  [ -n "$unindexed" ] && echo "  not listed: $unindexed"
  [ -n "$stale" ] && echo "  listed, written nowhere: $stale"
  failures=$((failures + 1))
fi
echo "$(echo "$cited" | wc -l) Notes cited, all on one line, written somewhere and indexed" >&2
echo "$((3 - failures)) passed, $failures failed"
[ "$failures" = 0 ]
