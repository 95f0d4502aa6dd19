#!/usr/bin/env bash
# End-to-end tests of the epsmith command line: exit codes, outputs, located errors.
# Usage: cli_test.sh EPSMITH_BINARY SOURCE_DIR
set -uo pipefail
export LC_ALL=C  # sort orders keys the same on every machine
epsmith=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/cwd" && cd "$work/cwd"  # a campaign in a checkout reads its corpus as known
failures=0
passes=0

check() {  # check NAME EXPECTED_EXIT PATTERN_IN_OUTPUT -- command... (EXPECTED_EXIT any: not checked)
  local name=$1 want=$2 pattern=$3
  shift 4
  local out code
  out=$("$@" 2>&1)
  code=$?
  if [ "$want" != any ] && [ "$code" -ne "$want" ]; then
    echo "FAIL $name: exit $code, wanted $want"; echo "$out" | head -20; failures=$((failures + 1)); return
  fi
  if [ -n "$pattern" ] && ! grep -qF -- "$pattern" <<<"$out"; then
    echo "FAIL $name: output lacks '$pattern'"; echo "$out" | head -20; failures=$((failures + 1)); return
  fi
  passes=$((passes + 1))
}

example=$src/examples/linear_counter.ept
check help 0 "print" -- "$epsmith" --help
version=$(sed -n 's/^project(epsmith.*VERSION \([0-9.]*\)).*/\1/p' "$src/CMakeLists.txt")
check version 0 "epsmith $version (LibTorch " -- "$epsmith" --version
check help_lists_convert 0 "convert" -- "$epsmith" --help
check no_subcommand 2 "" -- "$epsmith"
check bad_flag 2 "" -- "$epsmith" print --frobnicate "$example"
check print_example 0 "%mm: f32[2, 3] = aten::mm(%x, %p_weight)" -- "$epsmith" print "$example"
check print_missing_file 2 "$work/nope.ept: cannot open" -- "$epsmith" print "$work/nope.ept"
check print_directory 2 "is a directory" -- "$epsmith" print "$work"

# text -> JSON -> text loses nothing; JSON -> JSON is byte-exact.
check to_json 0 "" -- "$epsmith" convert "$example" "$work/a.json"
check json_is_torch_export 0 '"target": "torch.ops.aten.mm.default"' -- cat "$work/a.json"
check back_to_text 0 "" -- "$epsmith" convert "$work/a.json" "$work/b.ept"
check json_again 0 "" -- "$epsmith" convert "$work/b.ept" "$work/c.json"
"$epsmith" print "$example" >"$work/a.txt" 2>&1
if cmp -s "$work/a.txt" "$work/b.ept"; then passes=$((passes + 1)); else
  echo "FAIL text->json->text differs"; diff "$work/a.txt" "$work/b.ept" | head; failures=$((failures + 1)); fi
if cmp -s "$work/a.json" "$work/c.json"; then passes=$((passes + 1)); else
  echo "FAIL json->text->json differs"; diff "$work/a.json" "$work/c.json" | head; failures=$((failures + 1)); fi

# Bad input: located errors and exit 2, and nothing written.
printf 'graph {\n  %%x: f32[2] = placeholder\n  %%y: f32[2] = aten::nope(%%x)\n  return (%%y)\n}\n' >"$work/bad.ept"
check bad_op_text 2 "$work/bad.ept:3:16: unknown operator aten::nope" -- "$epsmith" print "$work/bad.ept"
check bad_op_convert 2 "unknown operator aten::nope" -- "$epsmith" convert "$work/bad.ept" "$work/out.json"
if [ -e "$work/out.json" ]; then echo "FAIL convert wrote a file for bad input"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
printf '{"exported_program": ' >"$work/trunc.json"
check truncated_json 2 "$work/trunc.json:" -- "$epsmith" print "$work/trunc.json"
check unknown_out_ext 2 "unknown extension" -- "$epsmith" convert "$example" "$work/out.xyz"

# torch.export.save's archive: the example through .pt2 and back is the same JSON.
check to_pt2 0 "" -- "$epsmith" convert "$example" "$work/a.pt2"
check pt2_to_json 0 "" -- "$epsmith" convert "$work/a.pt2" "$work/d.json"
if cmp -s "$work/a.json" "$work/d.json"; then passes=$((passes + 1)); else
  echo "FAIL json->pt2->json differs"; diff "$work/a.json" "$work/d.json" | head; failures=$((failures + 1)); fi
check verify_pt2 0 "a.pt2: ok (TRAINING)" -- "$epsmith" verify "$work/a.pt2"
head -c 200 "$work/a.pt2" >"$work/trunc.pt2"
check truncated_pt2 2 "$work/trunc.pt2: not a readable .pt2 archive" -- "$epsmith" run "$work/trunc.pt2"
printf 'PK\003\004 but not really' >"$work/zipish"
check zip_by_contents 2 "$work/zipish: not a readable .pt2 archive" -- "$epsmith" print "$work/zipish"

# verify: exit 0 valid, 1 violations (one line each), 2 unreadable or unknown dialect.
check verify_ok 0 "linear_counter.ept: ok (TRAINING)" -- "$epsmith" verify "$example"
check verify_aten 1 "%add_: error[non-functional-op]: operator 'aten.add_.Scalar' is not functional" -- "$epsmith" verify --dialect ATEN "$example"
out=$("$epsmith" verify --dialect ATEN --first "$example")
if [ "$(wc -l <<<"$out")" -eq 1 ]; then passes=$((passes + 1)); else echo "FAIL --first printed: $out"; failures=$((failures + 1)); fi
check verify_bad_dialect 2 "unknown dialect 'NOPE'" -- "$epsmith" verify --dialect NOPE "$example"
check verify_unreadable 2 "unknown operator aten::nope" -- "$epsmith" verify "$work/bad.ept"

# run: outputs and mutated inputs; the three modes agree on the example; CUDA is refused
# cleanly on a CPU build.
check run_exported 0 "mutated buffer:calls: i64[] = [1]" -- "$epsmith" run "$example"
check run_eager 0 "mutated user_input:x: f32[2, 3] = [0.25, -0.625, 1.5, 0.0, 1.0, -0.0]" -- "$epsmith" run --mode eager "$example"
check run_functionalize 0 "output 0: f32[2, 3] = [1.125, 5.0, 2.6875, 0.0, 2.0, 0.5]" -- "$epsmith" run --mode libtorch-functionalize "$example"
check run_bad_mode 2 "" -- "$epsmith" run --mode fast "$example"
check run_unreadable 2 "unknown operator aten::nope" -- "$epsmith" run "$work/bad.ept"
# Where CUDA is (a CUDA LibTorch on a GPU machine), the CUDA run gives the CPU's outputs and
# D3 runs; elsewhere both say why not.
if "$epsmith" run --device cuda "$example" >/dev/null 2>&1; then has_cuda=1; else has_cuda=0; fi
if [ "$has_cuda" = 1 ]; then
  check run_cuda 0 "output 0: f32[2, 3] = [1.125, 5.0, 2.6875, 0.0, 2.0, 0.5]" -- "$epsmith" run --device cuda "$example"
else
  check run_cuda_refused 2 "CUDA not available in this LibTorch build" -- "$epsmith" run --device cuda "$example"
fi
printf 'graph {\n  %%x: f32[2, 3] = placeholder\n  %%mm: f32[2, 2] = aten::mm(%%x, %%x)\n  return (%%mm)\n}\nsignature {\n  input user_input %%x\n  output user_output %%mm\n}\nstorages {\n  $0: f32[6] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]\n}\nexample_inputs {\n  $0 f32[2, 3]\n}\n' >"$work/throws.ept"
check run_raises 1 "raised: node %mm: aten::mm:" -- "$epsmith" run "$work/throws.ept"

# functionalize: exit 0 with the ATEN program (which verifies and runs like the original),
# 1 with the reason for a program export refuses, 2 for unreadable input; -o writes a file.
check functionalize_example 0 "output buffer_mutation %add -> \"calls\"" -- "$epsmith" functionalize "$example"
check functionalize_to_json 0 "" -- "$epsmith" functionalize "$example" -o "$work/f.json"
check functionalized_verifies 0 "f.json: ok (ATEN)" -- "$epsmith" verify "$work/f.json"
check functionalized_runs 0 "mutated buffer:calls: i64[] = [1]" -- "$epsmith" run "$work/f.json"
printf 'program {\n  verifiers ["TRAINING"]\n}\ngraph {\n  %%x: f32[2] = placeholder\n  %%t_: f32[2] = aten::unsqueeze_(%%x, 0)\n  return (%%t_)\n}\nsignature {\n  input user_input %%x\n  output user_output %%t_\n}\n' >"$work/meta.ept"
sed -i 's/%t_: f32\[2\]/%t_: f32[1, 2]/' "$work/meta.ept"
check functionalize_refused 1 "%t_: Found an input that received a metadata mutation" -- "$epsmith" functionalize "$work/meta.ept"
check functionalize_refused_writes_nothing 1 "" -- "$epsmith" functionalize "$work/meta.ept" -o "$work/refused.ept"
if [ -e "$work/refused.ept" ]; then echo "FAIL functionalize wrote a refused program"; failures=$((failures + 1)); else passes=$((passes + 1)); fi
printf 'program {\n  verifiers ["TRAINING"]\n}\ngraph {\n  %%p_w: f32[2]<requires_grad=True> = placeholder\n  %%mul_: f32[2]<requires_grad=True> = aten::mul_.Scalar(%%p_w, 2)\n  return (%%mul_)\n}\nsignature {\n  input parameter %%p_w -> "w"\n  output user_output %%mul_\n}\nstorages {\n  $0: f32[2] = [1.0, 2.0]\n}\nstate {\n  parameter "w" = $0 f32[2]<requires_grad=True>\n}\n' >"$work/param.ept"
check functionalize_grad_refused 1 "Found a graph input that requires gradients, and received a mutation" -- "$epsmith" functionalize "$work/param.ept"
check functionalize_no_grad 0 'output parameter_mutation %mul -> "w"' -- "$epsmith" functionalize --no-grad "$work/param.ept"
check functionalize_unreadable 2 "unknown operator aten::nope" -- "$epsmith" functionalize "$work/bad.ept"
check functionalize_bad_ext 2 "unknown extension" -- "$epsmith" functionalize "$example" -o "$work/f.xyz"

# ops: the catalog's summary, a filtered listing, JSON, config files and their errors.
check ops_summary 0 "generatable, " -- "$epsmith" ops
check ops_categories 0 "metadata-mutation" -- "$epsmith" ops
check ops_filter 0 "aten::add_.Tensor  in-place  enabled" -- "$epsmith" ops --filter '^aten::add_?\.Tensor$'
check ops_filter_reason 0 "not generatable: a required str argument: 'ord'" -- "$epsmith" ops --filter 'linalg_norm\.ord_str$'
check ops_json 0 '"name": "aten::add.Tensor"' -- "$epsmith" ops --json --filter '^aten::add\.Tensor$'
printf 'allow ^aten::mul\ndisable out\n' >"$work/ops.cfg"
check ops_config 0 "aten::mul.out  out  disabled" -- "$epsmith" ops --config "$work/ops.cfg" --filter '^aten::mul'
printf 'enable everything\n' >"$work/bad_ops.cfg"
check ops_bad_config 2 "bad_ops.cfg:1: unknown category 'everything'" -- "$epsmith" ops --config "$work/bad_ops.cfg"
check ops_missing_config 2 "cannot open" -- "$epsmith" ops --config "$work/none.cfg"
check ops_bad_filter 2 "--filter: bad regex" -- "$epsmith" ops --filter '('

# generate: reproducible files (the i-th from seed+i), both dialects, configs and their errors.
check generate 0 "wrote 3 TRAINING programs to $work/gen" -- "$epsmith" generate --seed 5 --count 3 --out "$work/gen"
check generate_again 0 "wrote 1 TRAINING program" -- "$epsmith" generate --seed 6 --count 1 --out "$work/gen_again"
check generate_same_seed_same_bytes 0 "" -- cmp "$work/gen/gen-6.json" "$work/gen_again/gen-6.json"
check generate_verifies 0 "" -- "$epsmith" verify "$work/gen/gen-7.json"
check generate_aten 0 "wrote 2 ATEN programs" -- "$epsmith" generate --seed 1 --count 2 --dialect ATEN --text --out "$work/gen_aten"
check generate_aten_verifies 0 "" -- "$epsmith" verify "$work/gen_aten/gen-2.ept"
check generate_aten_runs 0 "exported on cpu" -- "$epsmith" run "$work/gen_aten/gen-1.ept"
printf '# small float programs\nnodes 4\ndtypes float32\nstate 0\nweight in-place 0\n' >"$work/gen.cfg"
check generate_config 0 "wrote 1 TRAINING program" -- "$epsmith" generate --config "$work/gen.cfg" --count 1 --text --out "$work/gen_cfg"
check generate_config_applied 0 "input user_input %x0" -- cat "$work/gen_cfg/gen-1.ept"
printf 'nodes 4\ndtypes float32 complex128\n' >"$work/bad_gen.cfg"
check generate_bad_config 2 "bad_gen.cfg:2: 'dtypes': unknown dtype 'complex128'" -- "$epsmith" generate --config "$work/bad_gen.cfg" --out "$work/gen_bad"
check generate_bad_dialect 2 "dialect" -- "$epsmith" generate --dialect CORE --out "$work/gen_bad"
# --stats: the candidate calls and the screens that refused them; node sources by config.
check generate_stats 0 "refused by screen:" -- "$epsmith" generate --seed 1 --count 3 --stats --out "$work/gen_stats"
# ... and the programs with each feature.
printf 'source aten-call 0\nsource cond 1\nsource grad-region 0\nsource while-loop 0\nnodes 8\n' >"$work/conds.cfg"
check generate_stats_features 0 "programs with each feature:" -- "$epsmith" generate --config "$work/conds.cfg" --seed 1 --count 4 --stats --out "$work/gen_conds"
printf 'source view-chain 1\nsource aten-call 0\nsource grad-region 0\nsource cond 0\nsource while-loop 0\n' >"$work/chains.cfg"
check generate_view_chains 0 "wrote 4 TRAINING programs" -- "$epsmith" generate --config "$work/chains.cfg" --count 4 --out "$work/gen_chains"
printf 'source view-chains 1\n' >"$work/bad_source.cfg"
check generate_bad_source 2 "bad_source.cfg:1: 'source': unknown node source 'view-chains' (aten-call, view-chain, grad-region, cond, while-loop, autocast-region, map, scan)" -- "$epsmith" generate --config "$work/bad_source.cfg" --out "$work/gen_bad"
printf 'source aten-call 0\nsource grad-region 0\nsource cond 0\nsource while-loop 0\nsource autocast-region 0\nsource map 0\nsource scan 0\n' >"$work/no_source.cfg"
check generate_no_source 2 "'source' leaves no node source" -- "$epsmith" generate --config "$work/no_source.cfg" --out "$work/gen_bad"
# Effects as export makes them: a bare token is no longer a directive.
printf 'effects 100\nnodes 4\n' >"$work/effects.cfg"
check generate_effects 0 "wrote 2 ATEN programs" -- "$epsmith" generate --config "$work/effects.cfg" --count 2 --dialect ATEN --text --out "$work/gen_effects"
check generate_effects_threaded 0 "higher_order.with_effects(%token, operator(\"aten::_print\")" -- cat "$work/gen_effects/gen-1.ept"
printf 'tokens 10\n' >"$work/tokens.cfg"
check generate_bare_tokens 2 "tokens.cfg:1: 'tokens': torch.export makes effect tokens only around an op with effects" -- "$epsmith" generate --config "$work/tokens.cfg" --out "$work/gen_bad"
check generate_bad_count 2 "count" -- "$epsmith" generate --count 0 --out "$work/gen_bad"

# Planted faults (Note [Planted faults]): findings that do not depend on an upstream bug.
planted=(env EPSMITH_PLANTED_FAULT=aten::logical_not_)
crashing=(env EPSMITH_PLANTED_FAULT=crash:aten::polygamma_)
crash_case=$src/tests/data/findings/d2_planted_crash_polygamma.ept

# check: the differential checks on one program; a planted functionalization fault is a D2 finding.
check check_example 0 "D1 pass" -- "$epsmith" check "$src/examples/linear_counter.ept"
if [ "$has_cuda" = 1 ]; then
  check check_cuda 0 "D3 pass" -- "$epsmith" check --checks D3 "$src/examples/linear_counter.ept"
  check check_cuda_fault 1 "D3 FINDING value-mismatch" -- env EPSMITH_PLANTED_FAULT=cuda:aten::special_zeta "$epsmith" check --checks D3 "$src/tests/data/findings/d3_planted_special_zeta.ept"
else
  check check_no_cuda 0 "D3 skipped: CUDA is not available" -- "$epsmith" check --checks D3 "$src/examples/linear_counter.ept"
fi
# D9 where this LibTorch links NativeRT; else a skip with the reason, and a campaign of D9
# alone has nothing to run (Note [Where NativeRT is]).
if "$epsmith" check --checks D9 "$src/examples/linear_counter.ept" | grep -q "no NativeRT"; then
  check check_no_nativert 0 "D9 skipped: this LibTorch" -- "$epsmith" check --checks D9 "$src/examples/linear_counter.ept"
  check fuzz_no_nativert 2 "D9 is not run" -- "$epsmith" fuzz --checks D9 --cases 4 --corpus "$work/fc" --report "$work/fr"
else
  check check_nativert 0 "D9 pass" -- "$epsmith" check --checks D9 "$src/examples/linear_counter.ept"
fi
check check_finding 1 "D2 FINDING exception-in-one" -- "${planted[@]}" "$epsmith" check "$src/tests/data/findings/d2_planted_logical_not.ept"
# A crash in LibTorch: that check's finding, and the other checks still run
# (Note [Checks out of harm's way]); `run` reports it from its child.
check check_memory_error 1 "D2 FINDING crash-SIGSEGV" -- "${crashing[@]}" "$epsmith" check "$crash_case"
check check_memory_error_goes_on 1 "D6 pass" -- "${crashing[@]}" "$epsmith" check "$crash_case"
check run_memory_error 1 "aten::polygamma_" -- "${crashing[@]}" "$epsmith" run --mode libtorch-functionalize "$crash_case"
check check_bad_list 2 "--checks: unknown check 'D10'" -- "$epsmith" check --checks D1,D10 "$src/examples/linear_counter.ept"
check check_missing_file 2 "cannot open" -- "$epsmith" check "$work/none.ept"

# minimize: the first finding of the checks asked, kept while the program shrinks (D9 meets
# NativeRT 2.11's own crash on this program where the build links it).
check minimize_finding 0 "minimizing: D2 exception-in-one aten::logical_not_" -- "${planted[@]}" "$epsmith" minimize --checks D2 "$src/tests/data/findings/d2_planted_logical_not.ept" -o "$work/min.ept"
check minimize_result 1 "D2 FINDING exception-in-one" -- "${planted[@]}" "$epsmith" check --checks D2 "$work/min.ept"
# A crash in LibTorch: the minimization goes on in children
# (Note [Minimizing out of harm's way]) and keeps the crashing call.
check minimize_memory_error 0 "minimizing: D2 crash-SIGSEGV aten::polygamma_" -- "${crashing[@]}" "$epsmith" minimize "$crash_case" -o "$work/min_crash.ept"
check minimize_memory_error_result 0 "aten::polygamma_" -- "$epsmith" print "$work/min_crash.ept"
# A program written elsewhere joins the corpus: --corpus files its minimized finding (a
# planted fault of epsmith's functionalizer, D1) as a case that replay reproduces with the
# fault and calls fixed without it.
add_subtracts=(env EPSMITH_FUNCTIONALIZER_FAULT=add-subtracts)
check minimize_files_a_case 0 "filed d1-value-mismatch-" -- "${add_subtracts[@]}" "$epsmith" minimize --checks D1 "$src/examples/linear_counter.ept" --corpus "$work/minimized_corpus"
check minimize_case_named_after_its_file 0 "linear_counter.json" -- find "$work/minimized_corpus/regressions" -name '*.json'
check minimize_case_reproduces 0 "1 reproduce" -- "${add_subtracts[@]}" "$epsmith" replay "$work/minimized_corpus/regressions"
check minimize_case_fixed_without_the_fault 1 "1 fixed" -- "$epsmith" replay "$work/minimized_corpus/regressions"
check minimize_corpus_or_output 2 "excludes" -- "$epsmith" minimize -o "$work/min2.ept" --corpus "$work/c2" "$src/examples/linear_counter.ept"
check minimize_nothing 1 "nothing to minimize" -- "$epsmith" minimize --checks D1,D4 "$src/examples/linear_counter.ept"
check minimize_bad_out 2 "unknown extension" -- "$epsmith" minimize -o "$work/min.txtx" "$src/examples/linear_counter.ept"

# fuzz: bad flags and configs exit 2 before any case runs.
check fuzz_bad_checks 2 "--checks: unknown check 'D10'" -- "$epsmith" fuzz --checks D1,D10 --corpus "$work/fc" --report "$work/fr"
check fuzz_time_and_cases 2 "excludes" -- "$epsmith" fuzz --time 1 --cases 1 --corpus "$work/fc" --report "$work/fr"
check fuzz_missing_config 2 "none.cfg: cannot open" -- "$epsmith" fuzz --config "$work/none.cfg" --corpus "$work/fc" --report "$work/fr"
check fuzz_bad_config 2 "bad_gen.cfg:2: 'dtypes': unknown dtype 'complex128'" -- "$epsmith" fuzz --config "$work/bad_gen.cfg" --corpus "$work/fc" --report "$work/fr"
printf 'allow ^aten::frobnicate$\n' >"$work/no_ops.cfg"
check fuzz_config_without_ops 2 "no_ops.cfg: no op is left to generate" -- "$epsmith" fuzz --config "$work/no_ops.cfg" --corpus "$work/fc" --report "$work/fr"
check generate_config_without_ops 2 "no_ops.cfg: no op is left to generate" -- "$epsmith" generate --config "$work/no_ops.cfg" --out "$work/gen_no_ops"
check generate_config_without_ops_writes_nothing 2 "" -- ls "$work/gen_no_ops"
if [ "$has_cuda" = 0 ]; then
  check fuzz_no_cuda 2 "--device cuda: CUDA is not available" -- "$epsmith" fuzz --device cuda --corpus "$work/fc" --report "$work/fr"
fi
check fuzz_bad_jobs 2 "jobs" -- "$epsmith" fuzz --jobs 0 --corpus "$work/fc" --report "$work/fr"
if [ -e "$work/fc" ] || [ -e "$work/fr" ]; then echo "FAIL fuzz wrote something for bad flags"; failures=$((failures + 1)); else passes=$((passes + 1)); fi

# repro: a torch-only script per finding (docs/repro.md); bad input is a located error.
check repro_example 0 "mm = torch.ops.aten.mm.default(x, self.weight)" -- "$epsmith" repro "$example"
check repro_own_check 2 "epsmith's own code" -- "$epsmith" repro --check D4 "$example"
check repro_functional_form 0 "class F(M):" -- "$epsmith" repro --check D1 "$example"
check repro_unknown_check 2 "'D10' is not a check that asks PyTorch" -- "$epsmith" repro --check D10 "$example"
check repro_bad_program 2 "$work/bad.ept:3:16: unknown operator aten::nope" -- "$epsmith" repro "$work/bad.ept"
sed 's/%relu/%lambda/g' "$example" >"$work/lambda.ept"
check repro_not_python 2 "%lambda: the node name 'lambda' is not a Python identifier" -- "$epsmith" repro "$work/lambda.ept"
check repro_unwritable 2 "cannot write $work/nodir/r.py" -- "$epsmith" repro "$example" -o "$work/nodir/r.py"
check report_not_a_case 2 "" -- "$epsmith" report "$work/nope.json"
check report_no_torch 2 "no Python torch to run the scripts with" -- env EPSMITH_PYTHON="$src/tests/data/python_without_torch.sh" "$epsmith" report "$src/tests/data/repro/d2_planted_mm.json"
# report: a bundle per case and the class its script establishes with torch alone, shown with
# a fault planted in torch (the script exits 1) and without it (a D2 finding torch.func does
# not show is cpp-only); skipped without the venv's torch.
real_python=$src/.venv/bin/python
case_d2=$src/tests/data/repro/d2_planted_mm.json
if "$real_python" -c "import torch" 2>/dev/null; then
  with_fault=(env EPSMITH_PYTHON="$src/tests/repro/python_with_planted_fault.sh" EPSMITH_TEST_REAL_PYTHON="$real_python"
              EPSMITH_RELEASE_PYTHONS=)
  check report_confirmed 0 "torch-confirmed" -- "${with_fault[@]}" EPSMITH_TEST_TORCH_FAULT=functionalize:mm "$epsmith" report "$case_d2" --out "$work/bundles"
  check report_issue 0 'Suggested labels: `module: functionalization`, `topic: fuzzer`' -- cat "$work/bundles/d2-exception-in-one-test/issue.md"
  check report_issue_script 0 "exits 1 when the bug shows" -- cat "$work/bundles/d2-exception-in-one-test/issue.md"
  check report_script_alone 1 "the path raised RuntimeError: planted fault" -- "${with_fault[@]}" EPSMITH_TEST_TORCH_FAULT=functionalize:mm "$src/tests/repro/python_with_planted_fault.sh" "$work/bundles/d2-exception-in-one-test/repro.py"
  check report_cpp_only 0 "cpp-only" -- env EPSMITH_PYTHON="$real_python" EPSMITH_RELEASE_PYTHONS= "$epsmith" report "$case_d2" --out "$work/bundles2"
  # The releases a finding affects (Note [The releases a finding affects]): the venv's torch
  # stands for two releases, one of them with the fault planted and another version.
  release() {  # release VERSION FAULT: a Python whose torch says VERSION, with FAULT planted
    printf '#!/usr/bin/env bash\nEPSMITH_TEST_TORCH_VERSION=%s EPSMITH_TEST_TORCH_FAULT=%s EPSMITH_TEST_REAL_PYTHON=%s exec %s "$@"\n' \
      "$1" "$2" "$real_python" "$src/tests/repro/python_with_planted_fault.sh" >"$work/python-$1"
    chmod +x "$work/python-$1"
  }
  release 2.12.0 functionalize:mm
  release 2.99.0 functionalize:mm
  release 2.98.0 none
  check report_regression 0 "releases: **regression in 2.99.0** (passes on 2.98.0); affects 2.99.0" -- \
    env EPSMITH_PYTHON="$work/python-2.98.0" EPSMITH_RELEASE_PYTHONS="$work/python-2.99.0" "$epsmith" report "$case_d2" --out "$work/bundles3"
  check report_regression_issue 0 "Releases: **regression in 2.99.0**" -- cat "$work/bundles3/d2-exception-in-one-test/issue.md"
  check report_fixed_in 0 "releases: affects 2.12.0; fixed in 2.98.0 (2.12.0 (shows), 2.98.0 (passes))" -- \
    env EPSMITH_PYTHON="$work/python-2.12.0" EPSMITH_RELEASE_PYTHONS="$work/python-2.98.0:$work/python-2.12.0" "$epsmith" report "$case_d2" --out "$work/bundles4"
  check replay_releases any "releases: affects 2.12.0, 2.99.0" -- \
    env EPSMITH_PYTHON="$work/python-2.99.0" EPSMITH_RELEASE_PYTHONS="$work/python-2.12.0" "$epsmith" replay --releases "$case_d2"
  cp "$case_d2" "$work/case.json"
  check report_records 0 "torch-confirmed" -- "${with_fault[@]}" EPSMITH_TEST_TORCH_FAULT=functionalize:mm "$epsmith" report "$work/case.json"
  check report_recorded 0 '"class": "torch-confirmed"' -- cat "$work/case.json"
else
  echo "skipped report_*: $real_python has no torch"
fi

# A campaign: status and stat:: lines, a report, exit 1 for new buckets (each with one
# whole case file) and 0 when the same campaign finds nothing the corpus lacks.
# Flat programs: the campaign's own mechanics, the same programs whatever the sources' defaults.
printf 'nodes 8\nsource grad-region 0\nsource cond 0\nsource while-loop 0\n' >"$work/fuzz.cfg"
campaign_faults=(env EPSMITH_RELEASE_PYTHONS= EPSMITH_PLANTED_FAULT=aten::add_.Tensor,aten::mul_.Tensor,aten::add_.Scalar,aten::mul_.Scalar,aten::abs_,aten::neg_)
# Only the first campaign confirms its new root causes with torch (scripts take seconds).
fuzz() { "${campaign_faults[@]}" "$epsmith" fuzz --cases 150 --seed 11 --config "$work/fuzz.cfg" --minimize-calls 200 --status-every 0.2 \
  --confirm-timeout "${confirm:-0}" "$@"; }
out=$(confirm=120 fuzz --corpus "$work/corpus" --report "$work/report" 2>&1); code=$?
if [ "$code" -eq 1 ] && grep -q "^stat::number_of_executed_cases: 150$" <<<"$out" && grep -q "cases/s:" <<<"$out" &&
   grep -q "report: $work/report/report.md" <<<"$out"; then passes=$((passes + 1)); else
  echo "FAIL fuzz campaign: exit $code"; echo "$out" | tail -20; failures=$((failures + 1)); fi
check fuzz_summary 0 '"phase_share"' -- cat "$work/report/summary.json"
# Why D1 skipped cases, counted by reason (the planted faults leave the functionalizer as it is).
check fuzz_skip_reasons 0 '"the functionalizer refuses it: %NODE: ' -- cat "$work/report/summary.json"
check fuzz_report 0 "## New root causes" -- cat "$work/report/report.md"
check fuzz_report_families 0 "## Families" -- cat "$work/report/report.md"
check fuzz_summary_families 0 '"families"' -- cat "$work/report/summary.json"
# Note [Program features]: root causes by the features their minimized programs kept.
check fuzz_report_features 0 "| grad-region | " -- cat "$work/report/report.md"
check fuzz_summary_features 0 '"while-loop": {' -- cat "$work/report/summary.json"
# Note [A finding confirmed by torch alone]: faults planted in this process's LibTorch are
# findings torch alone does not show, so none is torch-confirmed; each has its bundle.
if [ -n "$(ls "$work"/corpus/regressions/*/issue.md 2>/dev/null)" ]; then
  check fuzz_confirms 0 "| new, confirmed with torch alone | " -- cat "$work/report/report.md"
  check fuzz_cpp_only 0 "**cpp-only**" -- cat "$work/report/report.md"
  planted_confirmed=$(grep -l "planted fault" "$work"/corpus/regressions/*/seed-*.json | xargs grep -l '"class": "torch-confirmed"')
  if [ -z "$planted_confirmed" ]; then passes=$((passes + 1)); else
    echo "FAIL planted faults called torch's: $planted_confirmed"; failures=$((failures + 1)); fi
else
  echo "skipped fuzz_confirms: no bundles (no Python torch for the peer)"
fi
buckets=$(find "$work/corpus/regressions" -mindepth 1 -maxdepth 1 -type d ! -name '.*' | wc -l)
files=$(find "$work/corpus/regressions" -name '*.json' ! -path '*/.incoming/*' | wc -l)
if [ "$buckets" -gt 0 ] && [ "$buckets" -eq "$files" ]; then passes=$((passes + 1)); else
  echo "FAIL fuzz corpus: $buckets buckets, $files case files"; failures=$((failures + 1)); fi
check fuzz_known_buckets 0 "stat::new_buckets: 0" -- fuzz --corpus "$work/corpus" --report "$work/report2"
# Note [A minimization budget per family]: the planted faults are one family; past its one
# minimization a new signature of it is listed with its seed, not minimized, counted in bold in
# the report's overview, and the campaign exits 1 even where it files nothing new.
out=$(fuzz --corpus "$work/corpus_budget" --report "$work/report_budget" --minimize-per-family 1 2>&1); code=$?
unminimized=$(grep -o "^stat::unminimized_findings: [0-9]*" <<<"$out" | grep -o "[0-9]*$")
if [ "${unminimized:-0}" -gt 0 ] && [ "$code" -eq 1 ] && grep -q "^## Not minimized" "$work/report_budget/report.md" &&
   grep -q "^| \*\*not minimized\*\* | " "$work/report_budget/report.md" &&
   grep -q '"not_minimized"' "$work/report_budget/summary.json"; then passes=$((passes + 1)); else
  echo "FAIL fuzz_budget: ${unminimized:-no} unminimized findings"; echo "$out" | tail -5; failures=$((failures + 1)); fi
out=$(fuzz --corpus "$work/corpus_budget" --report "$work/report_budget2" --minimize-per-family 1 2>&1); code=$?
if [ "$code" -eq 1 ] && grep -q "^stat::new_buckets: 0$" <<<"$out" && ! grep -q "^stat::unminimized_findings: 0$" <<<"$out"; then
  passes=$((passes + 1)); else echo "FAIL fuzz_budget_exit: exit $code"; grep "^stat::" <<<"$out" | head -8; failures=$((failures + 1)); fi
# Note [Planted functionalizer faults]: three bugs of the functionalizer planted at once come
# out as D1 root causes apart, each naming its op, and nothing else does; without them the
# same campaign finds nothing (Note [Root causes], Note [The slice of a mismatch]).
cat >"$work/faults.cfg" <<'CFG'
nodes 6
allow ^aten::add_\.Tensor$
allow ^aten::add\.Tensor$
allow ^aten::mul\.out$
allow ^aten::mul\.Tensor$
allow ^aten::diagonal$
allow ^aten::sin$
allow ^aten::neg_$
allow ^aten::cos\.out$
allow ^aten::sub_\.Tensor$
allow ^aten::transpose\.int$
CFG
faulted() { "$epsmith" fuzz --cases 400 --seed 1 --config "$work/faults.cfg" --checks D1 --minimize-calls 200 --known none "$@"; }
EPSMITH_FUNCTIONALIZER_FAULT=add-subtracts,mul-out-divides,diagonal-write-lost faulted --corpus "$work/corpus_f" --report "$work/report_f" >/dev/null 2>&1
keys=$(grep -o '"key": "D1|value-mismatch|[^"]*"' "$work/report_f/summary.json" | sed 's/.*|//; s/"$//' | sort | tr '\n' ' ')
others=$(grep -o '"key": "[^"]*"' "$work/report_f/summary.json" | grep -v '"key": "D1|value-mismatch|' | grep -v '|add"$' | wc -l)
if [ "$keys" = "*op,diagonal add mul " ] && [ "$others" -eq 0 ]; then passes=$((passes + 1)); else
  echo "FAIL planted functionalizer faults: D1 value mismatches [$keys], $others other root causes"; failures=$((failures + 1)); fi
check fuzz_no_faults 0 "stat::findings: 0" -- faulted --corpus "$work/corpus_nf" --report "$work/report_nf"
# In a checkout, a campaign on its defaults reads the checked-in corpus and known-bugs list
# and writes under ./fuzz-out only.
mkdir -p "$work/checkout/corpus/regressions"
cp -r "$work/corpus/regressions/." "$work/checkout/corpus/regressions/"
cp "$src/corpus/known.json" "$work/checkout/corpus/"
before=$(cd "$work/checkout" && find corpus -type f | sort | xargs sha1sum)
out=$(cd "$work/checkout" && "${campaign_faults[@]}" "$epsmith" fuzz --cases 150 --seed 11 --config "$work/fuzz.cfg" --minimize-calls 200 --confirm-timeout 0 2>&1); code=$?
after=$(cd "$work/checkout" && find corpus -type f | sort | xargs sha1sum)
if [ "$code" -eq 0 ] && [ "$before" = "$after" ] && [ -f "$work/checkout/fuzz-out/report/report.md" ] &&
   grep -q "^stat::new_buckets: 0$" <<<"$out"; then passes=$((passes + 1)); else
  echo "FAIL fuzz in a checkout: exit $code, corpus $([ "$before" = "$after" ] && echo kept || echo changed)"; echo "$out" | tail -5
  failures=$((failures + 1)); fi
printf '{"epsmith_known_bugs": 2, "bugs": [{"id": "x", "check": "D2", "message": "^Dimension out of range"}]}' >"$work/bad_known.json"
check fuzz_bad_known 2 "bad_known.json: \$.bugs[0]: an entry names its bug, not only its symptom" -- "$epsmith" fuzz --known "$work/bad_known.json" --corpus "$work/fc" --report "$work/fr"
# The same seed makes the same cases, whatever --jobs is: the same case files from a fresh
# corpus (Note [Campaigns that do not depend on timing]).
cases() { (cd "$1/regressions" && find . -name '*.json' ! -path '*/.incoming/*' | sort); }
fuzz --corpus "$work/corpus_again" --report "$work/report_again" --jobs 2 >/dev/null 2>&1
if diff <(cases "$work/corpus") <(cases "$work/corpus_again") >/dev/null; then passes=$((passes + 1)); else
  echo "FAIL same seed, other cases"; diff <(cases "$work/corpus") <(cases "$work/corpus_again"); failures=$((failures + 1)); fi
# Three workers racing on cases that all fail alike: the case filed is the first seed's,
# not the first to finish.
printf 'nodes 3\nallow ^aten::logical_not_$\nallow ^aten::relu$\nsource autocast-region 0\n' >"$work/race.cfg"
raced=""
for run in 1 2 3 4 5; do
  rm -rf "$work/corpus_race"
  "${planted[@]}" "$epsmith" fuzz --cases 12 --jobs 3 --seed 1 --config "$work/race.cfg" --checks D2 --minimize-calls 50 --confirm-timeout 0 \
    --corpus "$work/corpus_race" --report "$work/report_race" >/dev/null 2>&1
  raced="$raced$(cases "$work/corpus_race" | tr '\n' ' ')|"
done
first=${raced%%|*}
if [[ "$first" == *"/seed-1.json "* ]] && [ "$raced" = "$first|$first|$first|$first|$first|" ]; then
  passes=$((passes + 1)); else echo "FAIL racing workers filed:$raced"; failures=$((failures + 1)); fi
# A finding that only a process with a case behind it shows (a stale: fault, standing for
# an earlier case's corrupt heap) does not come back in the fresh worker that minimizes
# it: counted flaky, never filed (Note [A finding must come back in a fresh process]).
printf 'nodes 3\nallow ^aten::neg_$\nallow ^aten::relu$\n' >"$work/stale.cfg"
stale_fuzz() {
  rm -rf "$work/corpus_stale" "$work/report_stale"
  env EPSMITH_PLANTED_FAULT="$1" "$epsmith" fuzz --cases 12 --jobs 1 --seed 1 --config "$work/stale.cfg" --checks D2 \
    --minimize-calls 50 --confirm-timeout 0 --corpus "$work/corpus_stale" --report "$work/report_stale" >/dev/null 2>&1
}
stale_fuzz stale:aten::neg_
stale_code=$?
if [ "$stale_code" -eq 0 ] && grep -A1 '"flaky": {' "$work/report_stale/summary.json" | grep -q 'D2 exception-in-one: planted fault' &&
  [ -z "$(cases "$work/corpus_stale")" ]; then passes=$((passes + 1)); else
  echo "FAIL a stale finding was filed (exit $stale_code)"; failures=$((failures + 1)); fi
stale_fuzz aten::neg_  # the same fault in every process is filed
if [ $? -eq 1 ] && [ -n "$(cases "$work/corpus_stale")" ]; then passes=$((passes + 1)); else
  echo "FAIL the planted neg_ fault was not filed"; failures=$((failures + 1)); fi
check replay_campaign 0 "0 not as expected" -- "${campaign_faults[@]}" "$epsmith" replay "$work/corpus"
# A D2 case: the planted faults are D2's, and `check` asks its default checks, which a
# D9 case's (where NativeRT is) is not among.
check check_case_file 1 "FINDING" -- "${campaign_faults[@]}" "$epsmith" check "$(find "$work/corpus/regressions" -path '*/d2-*' -name '*.json' ! -path '*/.incoming/*' | head -1)"
check replay_missing 2 "no such file or directory" -- "$epsmith" replay "$work/none"
printf '{"epsmith_case": 2}' >"$work/bad_case.json"
# A format 1 case file (kept part of its finding) is refused with the way to convert it, and
# ci/migrate-cases.py makes of it the file format 2 keeps: the op out of the signature, the
# message out of the report.
format2=$src/corpus/regressions/d2-exception-in-one-4c7b7db9/seed-202210.json
python3 - "$format2" "$work/format1.json" <<'PY'
import json, sys
case = json.load(open(sys.argv[1]))
case["epsmith_case"] = 1
for key in ("where", "op", "variant", "message"):
    case["expected"].pop(key)
open(sys.argv[2], "w").write(json.dumps(case, indent=1, ensure_ascii=False) + "\n")
PY
check case_format_1 2 "ci/migrate-cases.py" -- "$epsmith" print "$work/format1.json"
check migrate_cases 0 "converted 1 case file(s) to format 2" -- python3 "$src/ci/migrate-cases.py" "$work/format1.json"
check migrated_case 0 "" -- cmp "$work/format1.json" "$format2"
check replay_bad_case 2 "bad_case.json: \$: missing required field \"bucket\"" -- "$epsmith" replay "$work/bad_case.json"
# A case that outlives its time limit is a hang, recorded with the op it was running. A
# default case can finish within the shortest limit on a fast machine; one of 100 calls
# cannot (generating it alone takes tens of milliseconds). Nothing is known beforehand, so
# the hang is new whatever the checked-in corpus holds.
mkdir -p "$work/known_t"
check fuzz_timeout 1 "timeout" -- "$epsmith" fuzz --cases 2 --nodes 100 --timeout 0.001 --minimize-calls 0 \
  --known-corpus "$work/known_t" --known none --corpus "$work/corpus_t" --report "$work/report_t"
check fuzz_timeout_summary 0 '"kind": "timeout"' -- cat "$work/report_t/summary.json"

# SIGKILL at any moment leaves whole case files or none.
for delay in 0.5 1 1.5 2; do
  "$epsmith" fuzz --time 30 --jobs 2 --seed 40 --corpus "$work/corpus_k" --report "$work/report_k" >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  kill -9 "$pid"
  wait "$pid" 2>/dev/null
done
sleep 0.5  # the workers die with their parent
bad=0
while IFS= read -r f; do
  "$epsmith" print "$f" >/dev/null 2>&1 || { echo "FAIL partial case file after SIGKILL: $f"; bad=1; }
done < <(find "$work/corpus_k" -name '*.json' ! -path '*/.incoming/*' 2>/dev/null)
strays=$(find "$work/corpus_k/regressions" -mindepth 1 -maxdepth 1 ! -type d 2>/dev/null | wc -l)
if [ "$bad" -eq 0 ] && [ "$strays" -eq 0 ]; then passes=$((passes + 1)); else failures=$((failures + 1)); fi
check fuzz_after_kill 0 "stat::number_of_executed_cases" -- "$epsmith" fuzz --cases 5 --seed 40 --corpus "$work/corpus_k" --report "$work/report_k" --checks D4
if [ -z "$(ls -A "$work/corpus_k/regressions/.incoming" 2>/dev/null)" ]; then passes=$((passes + 1)); else
  echo "FAIL .incoming not cleaned"; failures=$((failures + 1)); fi

# The checked-in corpus: known upstream LibTorch bugs reproduce, fixed bugs of ours stay fixed.
out=$("$epsmith" replay "$src/corpus/regressions" 2>&1); code=$?
if [ "$code" -eq 0 ] && grep -q " 0 not as expected" <<<"$out"; then passes=$((passes + 1)); else
  echo "FAIL replay_corpus: exit $code"; grep -A2 "NOT AS EXPECTED\|^error" <<<"$out" | head -60; tail -1 <<<"$out"
  failures=$((failures + 1)); fi

# Every bad-input class: exit 2 and the located message recorded beside the file.
for f in "$src"/tests/data/bad/*.json "$src"/tests/data/bad/*.ept; do
  name=${f#"$src"/}
  want=$(cat "$f.expect")
  want=${want#tests/data/bad/}
  check "bad:$name" 2 "$want" -- "$epsmith" print "$f"
  check "bad-verify:$name" 2 "$want" -- "$epsmith" verify "$f"
done

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
