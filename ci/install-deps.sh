#!/usr/bin/env bash
# Installs epsmith's build and test dependencies from Debian 12's packages. Idempotent and
# quiet; returns at once when everything is already installed.
set -euo pipefail

packages=(
  cmake ninja-build ccache g++
  libtorch-dev
  libgtest-dev libbenchmark-dev librapidcheck-dev
  nlohmann-json3-dev libcli11-dev
  clang-14 libclang-rt-14-dev
  libtcmalloc-minimal4
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
echo "ci/install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
