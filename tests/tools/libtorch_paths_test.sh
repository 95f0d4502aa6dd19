#!/usr/bin/env bash
# Every LibTorch header the build compiled, and every LibTorch library it links, came from
# the LibTorch CMake found: with a system LibTorch (Debian's libtorch-dev) installed beside
# the torch wheel, a header the wheel lacks would otherwise be taken from its copy in
# /usr/include, and a library TorchConfig.cmake looks up by name from /usr/lib, without a word.
# Usage: libtorch_paths_test.sh BUILD_DIR TORCH_LIBRARY_DIR TORCH_INCLUDE_DIR...
set -uo pipefail
build=$1
libdir=$2
shift 2
failures=0
deps=$(ninja -C "$build" -t deps 2>/dev/null | grep -E '^ +\S*(^|/)(ATen|c10|torch|caffe2)/' | sed 's/^ *//' | sort -u)
if [ -z "$deps" ]; then
  echo "FAIL: ninja -t deps lists no LibTorch header in $build (not a Ninja build, or not built)"
  failures=$((failures + 1))
fi
strays=""
while IFS= read -r header; do
  [ -n "$header" ] || continue
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
  failures=$((failures + 1))
else
  echo "$(wc -l <<<"$deps") LibTorch headers, all from $*"
fi
# The libraries named by path on the link lines of the executables.
libs=$(ninja -C "$build" -t commands 2>/dev/null | grep -oE '/[^ "]*/lib(torch|c10|shm|caffe2)[a-z_]*\.so' | sort -u)
lib_strays=$(grep -v "^$(realpath -m "$libdir")/" <<<"$libs" | grep . )
if [ -z "$libs" ]; then
  echo "FAIL: no link line in $build names a LibTorch library"
  failures=$((failures + 1))
elif [ -n "$lib_strays" ]; then
  echo "FAIL: LibTorch libraries from outside $libdir:"
  echo "$lib_strays" | head -20
  failures=$((failures + 1))
else
  echo "$(wc -l <<<"$libs") LibTorch libraries, all from $libdir"
fi
echo "$((2 - failures)) passed, $failures failed"
[ "$failures" = 0 ]
