// See perf.h. Timing one program; the timing file's JSON.
#include "perf/perf.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <unordered_map>

#include "formats/json.h"
#include "functionalizer/functionalize.h"
#include "oracle/aten_bridge.h"
#include "oracle/libtorch_compat.h"
#include "oracle/nativert.h"
#include "oracle/op_time.h"
#include "oracle/pt2_archive.h"
#include "oracle/run.h"

namespace epsmith::perf {
namespace {

constexpr std::string_view kModeNames[] = {"eager", "functionalized", "libtorch-functionalize", "nativert"};

// One timed run: the microseconds it took and each node's time inside ATen kernels, or why
// it did not run.
struct OneRun {
  double micros = 0;
  std::unordered_map<const Node*, double> node_micros;
  std::string error;
};
using Runner = std::function<OneRun()>;

// A run of `p` in `mode` through the oracle, each node charged with the time of its own
// dispatcher calls (the op-time sink read as each node's value arrives).
OneRun runOracle(const ExportedProgram& p, RunMode mode) {
  OneRun one;
  double seconds = 0, in_ops = 0, seen = 0;
  RunOptions options(mode);
  options.run_seconds = &seconds;
  options.observe = [&](const Node& node, const c10::IValue&) {
    one.node_micros[&node] += (in_ops - seen) * 1e6;
    seen = in_ops;
  };
  RunResult r;
  {
    const OpTimeSink sink(&in_ops);
    r = runProgram(p, options);
  }
  if (!r.ok()) one.error = "raised: " + r.error->str();
  one.micros = seconds * 1e6;
  return one;
}

// NativeRT loads the archive and runs it; both are timed, as a user's first call pays both.
Runner nativeRunner(const ExportedProgram& p, std::string& error) {
  std::string why_not;
  ArchiveRuntime* runtime = nativeRuntime(&why_not);
  if (!runtime) {
    error = "unavailable: " + why_not;
    return {};
  }
  auto archive = writeProgramPt2(p);
  if (!archive.ok()) {
    error = "a .pt2 cannot hold it: " + archive.error().str();
    return {};
  }
  auto file = std::make_shared<TemporaryArchive>(archive.value());
  if (file->error()) {
    error = "cannot write the archive: " + file->error()->str();
    return {};
  }
  return [&p, runtime, file] {
    OneRun one;
    TensorMaterializer materializer;
    std::vector<c10::IValue> inputs;
    for (const InputValue& v : p.example_inputs) inputs.push_back(inputIValue(v, materializer));
    const auto started = std::chrono::steady_clock::now();
    ArchiveRun r = runtime->run(file->path(), "model", std::move(inputs));
    one.micros = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started).count();
    if (r.stage != ArchiveRun::Stage::Ran) one.error = "raised: " + r.error;
    return one;
  };
}

// How `p` runs in `mode`, or why it cannot (`error`). `functional` keeps the ATEN form alive.
Runner runnerFor(const ExportedProgram& p, Mode mode, std::optional<ExportedProgram>& functional, std::string& error) {
  switch (mode) {
    case Mode::Eager: return [&p] { return runOracle(p, RunMode::Eager); };
    case Mode::LibTorchFunctionalize: return [&p] { return runOracle(p, RunMode::LibTorchFunctionalize); };
    case Mode::Functionalized: {
      auto f = functionalize(p);
      if (!f.ok()) {
        error = "the functionalizer refuses it: " + f.error().str();
        return {};
      }
      functional = std::move(f.value());
      return [&functional] { return runOracle(*functional, RunMode::Exported); };
    }
    case Mode::NativeRT: return nativeRunner(p, error);
  }
  return {};
}

// Each op's median over the repetitions of the time its nodes spent in kernels.
std::map<std::string, std::vector<double>> opMedians(const std::vector<OneRun>& runs) {
  std::map<std::string, std::vector<double>> per_op;
  for (size_t r = 0; r < runs.size(); ++r) {
    std::map<std::string, double> this_run;
    for (const auto& [node, micros] : runs[r].node_micros) this_run[node->target.textName()] += micros;
    for (const auto& [op, micros] : this_run) {
      auto& v = per_op[op];
      v.resize(r, 0.0);  // a repetition that never reached the op spent nothing in it
      v.push_back(micros);
    }
  }
  std::map<std::string, std::vector<double>> medians;
  for (auto& [op, v] : per_op) {
    v.resize(runs.size(), 0.0);
    medians[op] = {median(std::move(v))};
  }
  return medians;
}

}  // namespace

std::string_view modeName(Mode m) { return kModeNames[static_cast<int>(m)]; }

std::optional<Mode> modeFromName(std::string_view name) {
  for (Mode m : kAllModes) {
    if (modeName(m) == name) return m;
  }
  return std::nullopt;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  if (v.size() % 2 == 1) return v[mid];
  const double upper = v[mid];
  return (*std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid)) + upper) / 2;
}

// Note [Timing interleaved]
// Each mode first runs `warmup` times untimed (caches, the allocator's pools, LibTorch's
// lazily built dispatch tables), then the timed repetitions go round the modes: repetition
// r of every mode before repetition r+1 of any. A machine that slows down for a while (a
// neighbour's job, frequency scaling) then slows every mode alike, so a comparison of two
// modes of one file sees the program, not the minute it ran in.
ProgramTiming timeProgram(const ExportedProgram& p, const TimingOptions& options) {
  ProgramTiming t;
  t.digest = programDigest(p);
  std::optional<ExportedProgram> functional;
  std::vector<std::pair<Mode, Runner>> runners;
  for (Mode mode : options.modes) {
    std::string error;
    Runner run = runnerFor(p, mode, functional, error);
    for (int w = 0; run && w < options.warmup; ++w) {
      OneRun one = run();
      if (one.error.empty()) continue;
      error = one.error;
      run = {};
    }
    if (run)
      runners.emplace_back(mode, std::move(run));
    else
      t.modes[std::string(modeName(mode))].error = error;
  }
  std::vector<std::vector<OneRun>> runs(runners.size());
  for (int r = 0; r < options.reps; ++r) {
    for (size_t m = 0; m < runners.size(); ++m) runs[m].push_back(runners[m].second());
  }
  for (size_t m = 0; m < runners.size(); ++m) {
    ModeTiming& timing = t.modes[std::string(modeName(runners[m].first))];
    for (const OneRun& one : runs[m]) {
      if (!one.error.empty()) timing.error = one.error;  // a run that raises only sometimes
      timing.micros.push_back(one.micros);
    }
    if (!timing.error.empty())
      timing.micros.clear();
    else
      timing.op_micros = opMedians(runs[m]);
  }
  return t;
}

// Note [Timing in rounds]
// Repetitions taken back to back in one process share the state of the machine at that
// moment: a neighbour's burst, a slower clock. Two timings of one build, made a minute
// apart, then disagree far beyond what the U test over such repetitions expects (a quarter
// of 100 programs 1.5x slower or more, measured on the 2-core development machine). So the
// repetitions are spread over rounds, each a pass over every program in a fresh child: a
// moment of contention then meets one round of a program, not all of it, and the median
// and the test see it as the outlier it is. Two builds compared are timed the same way:
// their rounds alternate, each appended to its build's file (`--rounds 1 --append`), so a
// slow stretch of the machine slows a round of each, not one build (docs/perf.md).
void addRounds(ProgramTiming& total, ProgramTiming more) {
  if (total.error.empty()) total.error = more.error;
  total.digest = more.digest;
  for (auto& [name, m] : more.modes) {
    ModeTiming& into = total.modes[name];
    if (!m.error.empty()) into.error = m.error;
    into.micros.insert(into.micros.end(), m.micros.begin(), m.micros.end());
    for (auto& [op, rounds] : m.op_micros) {
      auto& v = into.op_micros[op];
      v.insert(v.end(), rounds.begin(), rounds.end());
    }
    if (!into.error.empty()) {
      into.micros.clear();
      into.op_micros.clear();
    }
  }
}

std::optional<Diagnostic> addRounds(TimingFile& total, TimingFile more) {
  const auto& a = total.options;
  const auto& b = more.options;
  if (total.libtorch != more.libtorch || a.modes != b.modes || a.reps != b.reps || a.warmup != b.warmup) {
    return Diagnostic{"", "timed otherwise (LibTorch " + more.libtorch + " against " + total.libtorch +
                              ", or other modes, repetitions or warm-up): the rounds would not be alike"};
  }
  std::map<std::string, ProgramTiming*> by_id;
  for (ProgramTiming& t : total.programs) by_id[t.id] = &t;
  for (ProgramTiming& t : more.programs) {
    auto it = by_id.find(t.id);
    if (it == by_id.end()) {
      total.programs.push_back(std::move(t));
      continue;
    }
    if (it->second->error.empty() && t.error.empty() && it->second->digest != t.digest) {
      return Diagnostic{t.id, "another program than the one of that id already in the file"};
    }
    addRounds(*it->second, std::move(t));
  }
  total.options.rounds += more.options.rounds;
  return std::nullopt;
}

uint64_t programDigest(const ExportedProgram& p) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  auto mix = [&h](std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  for (const Node& n : p.graph().nodes()) {
    if (n.op() == OpKind::CallFunction) mix(n.target.textName());
  }
  for (const InputValue& v : p.example_inputs) {
    if (v.kind != InputValue::Kind::Tensor) continue;
    mix(shortName(v.tensor.dtype()));
    for (int64_t s : v.tensor.sizes) mix(std::to_string(s));
  }
  return h;
}

}  // namespace epsmith::perf
