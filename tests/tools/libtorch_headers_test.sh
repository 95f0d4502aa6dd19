#!/usr/bin/env bash
# Every LibTorch header the build compiled came from the LibTorch CMake found: with Debian's
# libtorch-dev installed beside the torch wheel, a header the wheel lacks would otherwise be
# taken from 1.13's copy in /usr/include without a word.
# Usage: libtorch_headers_test.sh BUILD_DIR TORCH_INCLUDE_DIR...
set -uo pipefail
build=$1
shift
deps=$(ninja -C "$build" -t deps 2>/dev/null | grep -E '^ +\S*(^|/)(ATen|c10|torch|caffe2)/' | sed 's/^ *//' | sort -u)
if [ -z "$deps" ]; then
  echo "FAIL: ninja -t deps lists no LibTorch header in $build (not a Ninja build, or not built)"
  echo "0 passed, 1 failed"
  exit 1
fi
strays=""
while IFS= read -r header; do
  case $header in /*) ;; *) header=$(realpath -m "$build/$header") ;; esac
  ok=0
  for dir in "$@"; do
    case $header in "$(realpath -m "$dir")"/*) ok=1; break ;; esac
  done
  [ "$ok" = 1 ] || strays="$strays$header"$'\n'
done <<<"$deps"
if [ -n "$strays" ]; then
  echo "FAIL: LibTorch headers from outside $*:"
  printf '%s' "$strays" | head -20
  echo "0 passed, 1 failed"
  exit 1
fi
echo "$(wc -l <<<"$deps") LibTorch headers, all from $*"
echo "1 passed, 0 failed"
