#!/bin/bash -eu
# Builds epsmith's libFuzzer targets as ClusterFuzzLite and OSS-Fuzz do (fuzz/targets/README.md):
# with the engine's $CXX, $CXXFLAGS and $LIB_FUZZING_ENGINE, into $OUT with each target's
# seed corpus (<target>_seed_corpus.zip) and dictionary (<target>.dict). LibTorch comes from
# the torch wheel in $SRC/epsmith/.venv (made here when absent) and is copied to $OUT/lib,
# which the targets find through their rpath. ci/cflite-check.sh runs this script with the
# engine's environment.
src=${EPSMITH_SRC:-$SRC/epsmith}
build=$WORK/epsmith-build
if [ ! -x "$src/.venv/bin/python" ]; then
  python3 -m venv "$src/.venv"
  "$src/.venv/bin/pip" install --quiet torch==2.13.0
fi
torch_lib=$("$src/.venv/bin/python" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DCMAKE_BUILD_RPATH='$ORIGIN/lib' \
  -DEPSMITH_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" -DEPSMITH_BUILD_TESTS=OFF -DEPSMITH_BUILD_BENCH=OFF \
  -DEPSMITH_TCMALLOC=OFF -DEPSMITH_VENV="$src/.venv"
targets=(json_reader text_parser pt2_reader verifier functionalizer case)
cmake --build "$build" --target epsmith "${targets[@]/#/fuzz_}"
mkdir -p "$OUT/lib"
cp -L "$torch_lib"/*.so* "$OUT/lib/"
bash "$src/fuzz/targets/seeds.sh" "$build/tools/epsmith" "$src" "$WORK/seeds"
for t in "${targets[@]}"; do
  cp "$build/fuzz/targets/fuzz_$t" "$OUT/$t"
  (cd "$WORK/seeds/$t" && zip -q -r "$OUT/${t}_seed_corpus.zip" .)
done
for t in json_reader verifier; do cp "$src/fuzz/targets/json.dict" "$OUT/$t.dict"; done
cp "$src/fuzz/targets/text.dict" "$OUT/text_parser.dict"
