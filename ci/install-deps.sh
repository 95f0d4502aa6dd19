#!/usr/bin/env bash
# Installs what epsmith builds and tests with: Debian packages (Debian 12 or 13, asking apt
# for what the release has), and a project-local virtual environment, .venv, holding the
# torch 2.13 wheel whose LibTorch the default build uses. With --torch-2.14 it also makes
# .venv-2.14, holding torch 2.14.1 (a CUDA build that runs on the CPU), for the `2.14`
# presets and as the second release's Python torch; with --nativert-libtorch, the LibTorch
# of PyPI's torch 2.11 wheel unpacked in .libtorch-nativert, for the `nativert` presets
# (Note [Where NativeRT is]). The venv also holds scipy and
# matplotlib, for the performance comparison and its plots. Idempotent and quiet; returns at
# once when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

torch_214=0
nativert_libtorch=0
for arg in "$@"; do
  case $arg in
    --torch-2.14) torch_214=1 ;;
    --nativert-libtorch) nativert_libtorch=1 ;;
    *) echo "usage: ci/install-deps.sh [--torch-2.14] [--nativert-libtorch]" >&2; exit 2 ;;
  esac
done

torch_version=2.13.0

# Each entry: alternatives, best first, of which apt installs the first the release has
# (Debian 13 renamed tcmalloc's library in its 64-bit time_t transition and ships clang 19).
wanted=(
  cmake ninja-build ccache g++ python3-venv
  libgtest-dev libbenchmark-dev libbenchmark-tools librapidcheck-dev
  nlohmann-json3-dev rapidjson-dev libcli11-dev valgrind
  "clang-14|clang-19|clang"
  "clang-format-14|clang-format-19|clang-format"
  "libclang-rt-14-dev|libclang-rt-19-dev|libclang-rt-dev"
  "libtcmalloc-minimal4|libtcmalloc-minimal4t64"
)
if [ "$nativert_libtorch" = 1 ]; then wanted+=(unzip); fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive

# Each reads the whole answer before matching: `grep -q` would stop reading at the first
# match, and under pipefail the writer's SIGPIPE would fail the test.
installed() { [[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) == *"install ok installed"* ]]; }
available() { apt-cache policy "$1" 2>/dev/null | grep "Candidate: [^(]" >/dev/null; }

missing=()
for entry in "${wanted[@]}"; do
  IFS='|' read -r -a alternatives <<<"$entry"
  done_already=0
  for p in "${alternatives[@]}"; do
    if installed "$p"; then done_already=1; break; fi
  done
  [ "$done_already" = 1 ] || missing+=("$entry")
done

if [ ${#missing[@]} -gt 0 ]; then
  "${sudo_cmd[@]}" apt-get update -qq
  chosen=()
  for entry in "${missing[@]}"; do
    IFS='|' read -r -a alternatives <<<"$entry"
    pick=""
    for p in "${alternatives[@]}"; do
      if available "$p"; then pick=$p; break; fi
    done
    if [ -z "$pick" ]; then
      echo "ci/install-deps.sh: apt has none of: ${alternatives[*]} (Debian $(cat /etc/debian_version))" >&2
      exit 1
    fi
    chosen+=("$pick")
  done
  echo "ci/install-deps.sh: installing ${chosen[*]}"
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${chosen[@]}" >/dev/null
fi

# The torch wheel, in .venv: the default build's LibTorch (cmake/LibTorch.cmake finds it).
have=$(.venv/bin/python -c "import importlib.metadata as m; print(m.version('torch').split('+')[0])" 2>/dev/null || true)
if [ "$have" != "$torch_version" ]; then
  echo "ci/install-deps.sh: installing torch==$torch_version into .venv"
  python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check "torch==$torch_version" numpy
fi
# torch 2.14.1 in its own environment: pip on Python 3.11 takes it, with the CUDA libraries
# it asks for (about 5.5 GB), from this machine's disk.
torch_214_version=2.14.1
if [ "$torch_214" = 1 ]; then
  have=$(.venv-2.14/bin/python -c "import importlib.metadata as m; print(m.version('torch').split('+')[0])" 2>/dev/null || true)
  if [ "$have" != "$torch_214_version" ]; then
    # pip's own "No space left on device" comes after minutes and names no size: say what
    # it takes first. --no-cache-dir keeps pip from holding a second copy of the wheels.
    free_kib=$(df -Pk . | awk 'NR == 2 { print $4 }')
    if [ "$free_kib" -lt $((9 * 1024 * 1024)) ]; then
      echo "ci/install-deps.sh: torch==$torch_214_version takes about 9 GB in .venv-2.14 while it installs;" \
        "$((free_kib / 1024 / 1024)) GB are free on $(df -P . | awk 'NR == 2 { print $6 }')" >&2
      exit 1
    fi
    echo "ci/install-deps.sh: installing torch==$torch_214_version into .venv-2.14"
    python3 -m venv .venv-2.14
    .venv-2.14/bin/pip install -q --no-cache-dir --disable-pip-version-check "torch==$torch_214_version" numpy
  fi
fi
# scipy for Google Benchmark's compare.py (its U test) and as the oracle of `epsmith perf`'s
# statistics; matplotlib for the nightly's plots (docs/perf.md).
if ! .venv/bin/python -c "import scipy.stats, matplotlib" 2>/dev/null; then
  echo "ci/install-deps.sh: installing scipy and matplotlib into .venv"
  .venv/bin/pip install -q --disable-pip-version-check scipy matplotlib
fi

# NativeRT's LibTorch: the last torch wheel on PyPI whose libtorch_cpu defines NativeRT
# (2.12 to 2.14 leave it out), a CUDA build that runs on the CPU where CUDA 13's runtime
# libraries are installed, as they are with the CUDA toolkit. Only the wheel itself is
# fetched, not the CUDA packages it asks for.
nativert_version=2.11.0
nativert_dir=.libtorch-nativert
if [ "$nativert_libtorch" = 1 ] && [ "$(cat "$nativert_dir/VERSION" 2>/dev/null)" != "$nativert_version" ]; then
  echo "ci/install-deps.sh: unpacking torch==$nativert_version's LibTorch into $nativert_dir"
  rm -rf "$nativert_dir"
  mkdir -p "$nativert_dir/wheel"
  python3 -m pip download -q --isolated --disable-pip-version-check --index-url https://pypi.org/simple \
    --no-deps --only-binary=:all: --python-version 3.11 --implementation cp \
    --platform manylinux_2_28_x86_64 "torch==$nativert_version" -d "$nativert_dir/wheel"
  (cd "$nativert_dir" && unzip -q wheel/torch-*.whl 'torch/include/*' 'torch/lib/*' 'torch/share/*' \
    'torch/_export/serde/*')
  rm -rf "$nativert_dir/wheel"
  echo "$nativert_version" >"$nativert_dir/VERSION"
fi
if [ "$nativert_libtorch" = 1 ]; then
  unloadable=$(ldd "$nativert_dir/torch/lib/libtorch_cpu.so" | grep "not found" || true)
  if [ -n "$unloadable" ]; then
    echo "ci/install-deps.sh: $nativert_dir/torch/lib/libtorch_cpu.so cannot load here; CUDA 13's" \
         "runtime libraries are missing:" >&2
    echo "$unloadable" >&2
    exit 3  # the machine lacks them: ci/test.sh says so; any other failure is exit 1
  fi
fi
