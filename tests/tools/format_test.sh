#!/usr/bin/env bash
# format_test.sh SOURCE_DIR: the C++ git tracks is laid out as .clang-format says, by
# clang-format 14 (the release it was applied with: another release lays some lines out
# otherwise). Exits 1 naming the first places that differ; 77 (skipped, with the reason)
# without clang-format-14 or outside a git checkout.
set -uo pipefail
cd "${1:?usage: format_test.sh SOURCE_DIR}" || exit 2
if ! command -v clang-format-14 >/dev/null; then
  echo "skipped format: no clang-format-14 here (ci/install-deps.sh installs it)"
  exit 77
fi
if ! files=$(git ls-files '*.cpp' '*.h' 2>/dev/null) || [ -z "$files" ]; then
  echo "skipped format: $PWD is not a git checkout, so which files are the project's is unknown"
  exit 77
fi
# shellcheck disable=SC2086  # one path a word: the tracked paths have no spaces
out=$(clang-format-14 --dry-run -Werror $files 2>&1)
if [ -n "$out" ]; then
  echo "$out" | grep -E '^[^ ].*: (error|warning):' | head -20
  echo "format: $(echo "$out" | grep -cE ': (error|warning):') places differ from .clang-format" \
       "(clang-format-14 -i \$(git ls-files '*.cpp' '*.h') lays them out)"
  exit 1
fi
echo "format: $(echo "$files" | wc -l) files laid out as .clang-format says"
