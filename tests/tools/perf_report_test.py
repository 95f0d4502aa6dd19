"""ci/perf.sh's verdict, without the minutes of its benchmarks: Google Benchmark JSON of
known repetitions goes through the real compare.py and ci/perf_report.py's gate, and a
callgrind annotation through its instruction parser.
Usage: perf_report_test.py PYTHON  (exit 77: no compare.py or scipy here)"""
import json
import os
import random
import subprocess
import sys
import tempfile

PYTHON = sys.argv[1]
SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPORT = os.path.join(SRC, "ci", "perf_report.py")
COMPARE = "/usr/share/benchmark/compare.py"
failures = []


def check(what, ok):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def bench_json(path, name, centre, repetitions=10, spread=0.03, seed=1):
    rng = random.Random(seed)
    runs = []
    for i in range(repetitions):
        t = centre * rng.gauss(1, spread)
        runs.append({"name": name, "run_name": name, "run_type": "iteration", "repetitions": repetitions,
                     "repetition_index": i, "threads": 1, "iterations": 100, "real_time": t, "cpu_time": t,
                     "time_unit": "us"})
    times = sorted(r["real_time"] for r in runs)
    median = (times[repetitions // 2 - 1] + times[repetitions // 2]) / 2
    runs.append({"name": name + "_median", "run_name": name, "run_type": "aggregate", "repetitions": repetitions,
                 "threads": 1, "aggregate_name": "median", "iterations": repetitions, "real_time": median,
                 "cpu_time": median, "time_unit": "us"})
    with open(path, "w") as f:
        json.dump({"context": {"date": "2026-11-27", "library_build_type": "release"}, "benchmarks": runs}, f)


def gate(work, base_us, now_us, base_instr, now_instr):
    baseline, out = os.path.join(work, "baseline"), os.path.join(work, "out")
    for d in (baseline, os.path.join(out, "compare"), os.path.join(out, "bench")):
        os.makedirs(d, exist_ok=True)
    bench_json(os.path.join(baseline, "verifier.json"), "BM_Verify/10000", base_us, seed=1)
    bench_json(os.path.join(out, "bench", "verifier.json"), "BM_Verify/10000", now_us, seed=2)
    for d, counts in ((baseline, base_instr), (out, now_instr)):
        with open(os.path.join(d, "instructions.json"), "w") as f:
            json.dump(counts, f)
    subprocess.run([PYTHON, COMPARE, "--no-color", "-a", "-d", os.path.join(out, "compare", "verifier.json"),
                    "benchmarks", os.path.join(baseline, "verifier.json"), os.path.join(out, "bench", "verifier.json")],
                   check=True, stdout=subprocess.DEVNULL)
    history = os.path.join(work, "history.jsonl")
    r = subprocess.run([PYTHON, REPORT, "gate", "--baseline", baseline, "--out", out, "--history", history,
                        "--commit", "abc1234", "--libtorch", "2.13"], capture_output=True, text=True)
    with open(os.path.join(out, "perf.md")) as f:
        return r.returncode, f.read(), history


def main():
    if not os.path.exists(COMPARE) or subprocess.run([PYTHON, "-c", "import scipy"]).returncode != 0:
        print("skipped: no compare.py (libbenchmark-tools) or no scipy beside " + PYTHON)
        sys.exit(77)
    stages = {"catalog": 100, "generate": 1000, "functionalize": 500, "verify": 50, "write_json": 70}
    with tempfile.TemporaryDirectory() as work:
        code, md, history = gate(os.path.join(work, "same"), 100, 100, stages, stages)
        check("the same figures are no regression (exit %d)" % code, code == 0 and "Regressions: none." in md)
        code, md, _ = gate(os.path.join(work, "wall"), 100, 180, stages, stages)
        check("80%% slower wall time is a regression (exit %d)" % code, code == 1 and "BM_Verify/10000" in md.split("Regressions:")[1])
        code, md, _ = gate(os.path.join(work, "noise"), 100, 120, stages, stages)
        check("20%% slower wall time is within the threshold (exit %d)" % code, code == 0)
        more = dict(stages, generate=1050)
        code, md, _ = gate(os.path.join(work, "instr"), 100, 100, stages, more)
        check("5%% more instructions is a regression (exit %d)" % code, code == 1 and "generate" in md.split("Regressions:")[1])
        more = dict(stages, generate=1010)
        code, md, _ = gate(os.path.join(work, "instr-small"), 100, 100, stages, more)
        check("1%% more instructions is not (exit %d)" % code, code == 0)
        with open(history) as f:
            night = json.loads(f.readline())
        check("the history records the night", night["commit"] == "abc1234" and night["instructions"] == stages)
        plots = os.path.join(work, "plots")
        r = subprocess.run([PYTHON, REPORT, "plot", "--history", history, "--report", os.path.join(work, "same", "out", "perf.md"),
                            "--out", plots], capture_output=True, text=True)
        drawn = [n for n in ("perf-trend.png", "perf-latest.png", "perf.html") if os.path.exists(os.path.join(plots, n))]
        check("the plots and the page are drawn: " + r.stderr, r.returncode == 0 and len(drawn) == 3)
        # The instruction parser reads inclusive costs, never the call lines under them.
        annotated = os.path.join(work, "annotated.txt")
        with open(annotated, "w") as f:
            f.write("9,999 ( 1.00%)  => /x/fuzz/programs.cpp:epsmith::generateProgram(A const&) (10x)\n")
            for n, (stage, function) in enumerate([("catalog", "epsmith::OpCatalog::build(C const&)"),
                                                   ("generate", "epsmith::generateProgram(A const&)"),
                                                   ("functionalize", "epsmith::functionalize(epsmith::ExportedProgram const&, O)"),
                                                   ("verify", "epsmith::verify(epsmith::ExportedProgram const&, D)"),
                                                   ("write_json", "epsmith::saveProgram(S const&)")]):
                f.write(f" {1000 * (n + 1):,} ( 2.00%)  /x/y.cpp:{function} [/x/epsmith]\n")
        r = subprocess.run([PYTHON, REPORT, "instructions", annotated], capture_output=True, text=True)
        check("instructions parsed: " + r.stdout + r.stderr,
              r.returncode == 0 and json.loads(r.stdout) == {"catalog": 1000, "generate": 2000, "functionalize": 3000,
                                                             "verify": 4000, "write_json": 5000})
        with open(annotated, "w") as f:
            f.write(" 1,000 ( 2.00%)  /x/y.cpp:epsmith::OpCatalog::build(C const&) [/x/epsmith]\n")
        r = subprocess.run([PYTHON, REPORT, "instructions", annotated], capture_output=True, text=True)
        check("a stage missing from the annotation is an error naming it",
              r.returncode == 2 and "no inclusive cost for generate" in r.stderr)
    sys.exit(1 if failures else 0)


main()
