#!/usr/bin/env bash
# skipped-tests.sh CTEST_VERBOSE_LOG: each test a `ctest -V` run skipped, one line with its
# reason: GoogleTest's GTEST_SKIP ("file:line: Skipped", the reason, then
# "[  SKIPPED ] Suite.Name (N ms)") and the shell tests' "skipped NAME: reason" lines.
# ctest -j prefixes each line with its test's number ("27: "), which is taken off per test.
set -euo pipefail
sed -E 's/^([0-9]+): /\1\t/' "$1" | awk -F'\t' '
  NF < 2 { next }
  { id = $1; line = $2 }
  line ~ /: Skipped$/ { reason[id] = ""; want[id] = 1; next }
  want[id] && line ~ /^\[  SKIPPED \] [A-Za-z0-9_\/.]+ \(/ {
    split(line, f, " "); print "skipped " f[4] ": " reason[id]; want[id] = 0; next
  }
  want[id] && line !~ /^\[/ { reason[id] = reason[id] (reason[id] == "" ? "" : " ") line; next }
  line ~ /^skipped [^ ]+/ { print line }
' | sort -u
