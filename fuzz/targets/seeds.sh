#!/usr/bin/env bash
# seeds.sh EPSMITH SOURCE_DIR OUT: the seed corpora of epsmith's libFuzzer targets, one
# directory per target under OUT (fuzz/targets/README.md): the examples, one case of every
# twentieth bucket of the checked-in corpus and ten generated programs, each as JSON
# (json_reader, verifier), in the text form (text_parser, verifier) and as a .pt2
# (pt2_reader, where the form holds the program); their first 4 KiB as the byte streams the
# generator-driven targets (functionalizer, case) start from; and every input kept in
# corpus/fuzz-inputs/<target>/ (`epsmith import-crash`: inputs that once crashed a reader).
set -euo pipefail
epsmith=$1 src=$2 out=$3
rm -rf "$out"
mkdir -p "$out"/{json_reader,text_parser,pt2_reader,verifier,functionalizer,case,gen}
programs=("$src"/examples/*.ept)
i=0
for bucket in "$src"/corpus/regressions/*/; do
  if [ $((i++ % 20)) -eq 0 ]; then
    programs+=("$(LC_ALL=C ls "$bucket"*.json | head -n 1)")
  fi
done
"$epsmith" generate --seed 1 --count 10 --out "$out/gen" >/dev/null
programs+=("$out"/gen/*.json)
n=0
for p in "${programs[@]}"; do
  name=$(printf '%03d' "$n")
  n=$((n + 1))
  # A case found on another LibTorch may call operators this one lacks: it is left out.
  "$epsmith" convert "$p" "$out/json_reader/$name.json" 2>/dev/null || continue
  "$epsmith" convert "$p" "$out/text_parser/$name.ept"
  "$epsmith" convert "$p" "$out/pt2_reader/$name.pt2" 2>/dev/null || true
  cp "$out/json_reader/$name.json" "$out/text_parser/$name.ept" "$out/verifier/"
  head -c 4096 "$out/json_reader/$name.json" >"$out/functionalizer/$name"
  cp "$out/functionalizer/$name" "$out/case/$name"
done
rm -rf "$out/gen"
for kept in "$src"/corpus/fuzz-inputs/*/; do
  if [ -d "$kept" ]; then cp "$kept"* "$out/$(basename "$kept")/"; fi
done
for target in json_reader text_parser pt2_reader verifier functionalizer case; do
  echo "$target: $(ls "$out/$target" | wc -l) seeds"
done
