// One full campaign case as a campaign runs it: a request to a forked worker that generates
// a program from a seed, verifies it and runs D1, D2, D4 and D6 (functionalize, verify as
// ATEN, the eager and functionalized runs, LibTorch's functionalization, one round trip on
// one case in eight and four corruptions, drawn from the seed as a campaign case draws
// them), and the reply.
// Issue 7's target: at least 1 000 cases/s per core at 16 nodes, at least half of the time
// executing ops. The phase split comes back as counters (percent of the case's time). A
// worker that LibTorch crashes is replaced, as in a campaign.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "formats/json.h"
#include "formats/json_format.h"
#include "formats/text_format.h"
#include "fuzz/campaign.h"
#include "fuzz/case_runner.h"
#include "fuzz/workers.h"
#include "oracle/program_io.h"

namespace epsmith::bench {
namespace {

// A campaign's case runner on the defaults at state.range(0) ops and every check but D3
// (which skips without CUDA); with a second argument of 0, D4 round-trips every form in
// every case (what drawing saves: Notes [Round trips drawn per case], [Round trips
// sampled]). Null,
// with the state told why, if it cannot be made.
std::unique_ptr<CaseRunner> caseRunner(benchmark::State& state) {
  CaseSetup setup;
  setup.nodes = static_cast<int>(state.range(0));
  if (state.range(1) == 0) {
    setup.one_round_trip_per_case = false;
    setup.every[static_cast<size_t>(CheckDraw::RoundTrip)] = 1;
  }
  setup.checks = {DiffCheck::D1, DiffCheck::D2, DiffCheck::D4, DiffCheck::D6};
  auto runner = CaseRunner::create(setup);
  if (!runner.ok()) {
    state.SkipWithError(runner.error().str().c_str());
    return nullptr;
  }
  return std::move(runner.value());
}

void BM_Case(benchmark::State& state) {
  const auto runner = caseRunner(state);
  if (!runner) return;
  const CaseRunner& r = *runner;
  WorkerPool pool(
      1,
      [&r](const std::string& request) {
        const auto start = std::chrono::steady_clock::now();
        PhaseTimes times;
        {
          CaseResult result = r.run(std::stoull(request));
          times = result.times;
        }
        std::ostringstream reply;
        for (double s : times.seconds) reply << s << " ";
        reply << times.in_ops << " " << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return reply.str();
      },
      WorkerLimits{}, prepareCaseProcess);
  uint64_t seed = 1;
  PhaseTimes times;
  double serving = 0;  // the worker's time from request to reply
  int64_t deaths = 0;
  // As a campaign keeps it: the next case queued behind the one being served.
  pool.send(0, std::to_string(seed++));
  for (auto _ : state) {
    pool.send(0, std::to_string(seed++));
    std::vector<WorkerPool::Event> events;
    while (events.empty()) events = pool.wait(1000);
    if (events[0].reply) {
      std::istringstream in(*events[0].reply);
      PhaseTimes t;
      for (double& s : t.seconds) in >> s;
      double served = 0;
      in >> t.in_ops >> served;
      times.add(t);
      serving += served;
    } else {
      ++deaths;
    }
  }
  const auto n = static_cast<double>(seed - 2);  // one is still queued
  state.counters["cases"] = benchmark::Counter(n, benchmark::Counter::kIsRate);
  state.counters["worker_deaths"] = static_cast<double>(deaths);
  state.counters["in_case_us"] = 1e6 * times.total() / n;            // the phases' time, per case
  state.counters["served_us"] = 1e6 * serving / n;                   // and the whole request in the worker
  state.counters["ops_pct"] = 100.0 * times.in_ops / times.total();  // inside ATen kernels, any phase
  for (int i = 0; i < kNumPhases - 1; ++i) {                         // minimizing is not part of a case
    state.counters[std::string(kPhaseNames[i]).substr(0, 4) + "_pct"] =
        100.0 * times.seconds[static_cast<size_t>(i)] / times.total();
  }
}
BENCHMARK(BM_Case)->Args({16, 1})->Args({64, 1})->Args({16, 0})->Unit(benchmark::kMicrosecond)->UseRealTime();

// A whole campaign on the defaults, as a user runs one (one job, every check, seeds from 1,
// an empty corpus): what BM_Case leaves out, on the seeds a campaign meets, findings and
// crashes included: each new signature's re-runs on perturbed heaps, its minimization
// within the family budget, worker deaths and their replacements, the parent's books.
// `cases_per_s` is the campaign's own figure (summary.json's cases_per_second), `min_pct`
// the share of the worker's time spent minimizing. state.range(0) cases per campaign.
void BM_Campaign(benchmark::State& state) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("epsmith_bm_campaign_" + std::to_string(::getpid()));
  CampaignOptions options;
  options.cases = state.range(0);
  options.seconds = 0;
  options.corpus_dir = (dir / "corpus").string();
  options.report_dir = (dir / "report").string();
  options.status_seconds = 3600;
  double cases_per_s = 0, min_share = 0, findings = 0, deaths = 0;
  for (auto _ : state) {
    removeTree(dir.string());
    std::ostringstream log;
    if (auto run = runCampaign(options, log); !run.ok()) {
      state.SkipWithError(run.error().str().c_str());
      break;
    }
    std::ifstream in(dir / "report" / "summary.json");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto read = readJson(text, "summary.json", [&](const JsonAt& summary) {
      cases_per_s += summary.field("cases_per_second").number();
      min_share += summary.field("phase_share").field("minimize").number();
      findings += summary.field("findings").number();
      deaths += summary.field("worker_deaths").number();
      return true;
    });
    if (!read.ok()) {
      state.SkipWithError(read.error().str().c_str());
      break;
    }
  }
  removeTree(dir.string());
  const auto n = static_cast<double>(state.iterations());
  state.counters["cases_per_s"] = cases_per_s / n;
  state.counters["min_pct"] = 100 * min_share / n;
  state.counters["findings"] = findings / n;
  state.counters["worker_deaths"] = deaths / n;
}
BENCHMARK(BM_Campaign)->Arg(4000)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

// A request that does nothing: the round trip to a worker alone.
void BM_RoundTrip(benchmark::State& state) {
  WorkerPool pool(
      1, [](const std::string& request) { return request; }, WorkerLimits{}, prepareCaseProcess);
  for (auto _ : state) {
    pool.send(0, "1");
    std::vector<WorkerPool::Event> events;
    while (events.empty()) events = pool.wait(1000);
  }
}
BENCHMARK(BM_RoundTrip)->Unit(benchmark::kMicrosecond)->UseRealTime();

// The same case in this process, with no worker and no pipe: what BM_Case costs beyond
// this is the request's round trip and the worker's own process.
void BM_CaseInProcess(benchmark::State& state) {
  prepareCaseProcess();
  const auto runner = caseRunner(state);
  if (!runner) return;
  // Seeds whose case kills the process (LibTorch crashes on a few) are left out: each of
  // the first 512 is tried once in a forked child first.
  const CaseRunner& r = *runner;
  std::vector<uint64_t> seeds;
  WorkerPool pool(
      1,
      [&r](const std::string& request) {
        r.run(std::stoull(request));
        return std::string();
      },
      WorkerLimits{}, prepareCaseProcess);
  for (uint64_t seed = 1; seed <= 512; ++seed) {
    pool.send(0, std::to_string(seed));
    std::vector<WorkerPool::Event> events;
    while (events.empty()) events = pool.wait(1000);
    if (events[0].reply) seeds.push_back(seed);
  }
  if (seeds.empty()) {
    state.SkipWithError("every seed's case killed its worker");
    return;
  }
  PhaseTimes times;
  size_t i = 0;
  for (auto _ : state) times.add(r.run(seeds[i++ % seeds.size()]).times);
  for (int i = 0; i < kNumPhases - 1; ++i) {
    state.counters[std::string(kPhaseNames[i]).substr(0, 4) + "_pct"] =
        100.0 * times.seconds[static_cast<size_t>(i)] / times.total();
  }
  state.counters["ops_pct"] = 100.0 * times.in_ops / times.total();
}
BENCHMARK(BM_CaseInProcess)->Args({16, 1})->Unit(benchmark::kMicrosecond);

// The 256 programs of 16 ops that BM_Check and BM_Format share, generated as a campaign
// case generates them; empty (with the state told why) if the runner cannot be made.
std::vector<ExportedProgram> casePrograms(benchmark::State& state, const CaseSetup& setup) {
  prepareCaseProcess();
  auto runner = CaseRunner::create(setup);
  if (!runner.ok()) {
    state.SkipWithError(runner.error().str().c_str());
    return {};
  }
  std::vector<ExportedProgram> programs;
  for (uint64_t seed = 1; programs.size() < 256; ++seed) {
    auto p = runner.value()->generate(seed);
    if (p.ok()) programs.push_back(std::move(p.value()));
  }
  return programs;
}

// The cost of each check alone, in-process, over the same 256 programs of 16 ops: the
// program's verification and eager run (what every check needs, `none`) plus the check.
// Subtract `none` for the check's own cost.
void BM_Check(benchmark::State& state) {
  CaseSetup setup;
  setup.nodes = 16;
  std::vector<ExportedProgram> programs = casePrograms(state, setup);
  if (programs.empty()) return;
  std::vector<DiffCheck> checks;
  if (state.range(0) >= 0) checks.push_back(kAllDiffChecks[state.range(0)]);
  state.SetLabel(checks.empty() ? "none" : std::string(diffCheckName(checks[0])));
  size_t i = 0;
  for (auto _ : state) {
    CheckOptions options;
    options.case_seed = i;  // as in a campaign case:
    options.round_trip = drawnRoundTrip(i);
    options.corruptions_per_case = setup.corruptions_per_case;
    options.torch_corruptions_per_case = setup.torch_corruptions_per_case;
    benchmark::DoNotOptimize(runChecks(programs[i++ % programs.size()], checks, options));
  }
}
BENCHMARK(BM_Check)->DenseRange(-1, 7)->Unit(benchmark::kMicrosecond);

// D4's four serialization steps alone, over the same 256 programs: 0 prints the text form,
// 1 parses it, 2 writes the JSON form, 3 reads it.
void BM_Format(benchmark::State& state) {
  CaseSetup setup;
  setup.nodes = 16;
  std::vector<ExportedProgram> programs = casePrograms(state, setup);
  if (programs.empty()) return;
  std::vector<std::string> texts, jsons;
  for (const auto& p : programs) {
    texts.push_back(printProgramText(p));
    jsons.push_back(*writeProgramJson(p));
  }
  static const char* kSteps[] = {"print text", "parse text", "write JSON", "read JSON"};
  state.SetLabel(kSteps[state.range(0)]);
  size_t i = 0;
  for (auto _ : state) {
    const size_t k = i++ % programs.size();
    switch (state.range(0)) {
      case 0: benchmark::DoNotOptimize(printProgramText(programs[k])); break;
      case 1: benchmark::DoNotOptimize(parseProgramText(texts[k])); break;
      case 2: benchmark::DoNotOptimize(writeProgramJson(programs[k])); break;
      default: benchmark::DoNotOptimize(readProgramJson(jsons[k])); break;
    }
  }
}
BENCHMARK(BM_Format)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace epsmith::bench
