#!/usr/bin/env bash
# Cross-file reasoning lives in `Note [Topic]` blocks cited by name, so every citation must
# be greppable and must lead somewhere: a Note's name never wraps across lines, and every
# name cited in the sources and docs begins a comment line somewhere (where it is written).
# Usage: notes_test.sh SOURCE_DIR
set -uo pipefail
cd "$1" || exit 1
failures=0
mapfile -t files < <(git ls-files -- '*.cpp' '*.h' '*.md' '*.sh' '*.txt' '*.cmake' 2>/dev/null)
if [ "${#files[@]}" -eq 0 ]; then echo "FAIL: no tracked sources under $1"; echo "0 passed, 1 failed"; exit 1; fi
wrapped=$(grep -nE 'Note \[[^]]*$' "${files[@]}")
if [ -n "$wrapped" ]; then
  echo "FAIL: Note names wrapped across lines:"; echo "$wrapped" | head -20; failures=$((failures + 1))
fi
cited=$(grep -ohE 'Note \[[^]]+\]' "${files[@]}" | sort -u)
written=$(grep -ohE '^[[:space:]]*(//|#) Note \[[^]]+\]' "${files[@]}" | sed -E 's/^[[:space:]]*(\/\/|#) //' | sort -u)
missing=$(comm -23 <(echo "$cited") <(echo "$written"))
if [ -n "$missing" ]; then
  echo "FAIL: Notes cited but written nowhere:"; echo "$missing"; failures=$((failures + 1))
fi
echo "$(echo "$cited" | wc -l) Notes cited, all on one line and written somewhere" >&2
echo "$((2 - failures)) passed, $failures failed"
[ "$failures" = 0 ]
