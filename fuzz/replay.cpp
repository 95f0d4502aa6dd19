// See replay.h.
#include "fuzz/replay.h"

#include "fuzz/case_runner.h"
#include "oracle/run.h"

namespace epsmith {

std::string_view replayVerdictName(ReplayVerdict v) {
  switch (v) {
    case ReplayVerdict::Reproduces: return "reproduces";
    case ReplayVerdict::Fixed: return "fixed";
    case ReplayVerdict::Changed: return "changed";
  }
  return "?";
}

ReplayOutcome replayCase(const CaseFile& c, const WorkerLimits& limits) {
  ReplayOutcome out;
  CaseSetup setup;
  setup.config_text = c.provenance.config;
  setup.config_name = "the case's config";
  setup.nodes = c.provenance.nodes;
  setup.limits = limits;
  if (auto check = diffCheckFromName(c.check)) {
    setup.checks = {*check};
  } else {
    setup.checks.clear();  // a worker died outside every check: all of them run, as then
    for (DiffCheck d : kAllDiffChecks) {
      if (d != DiffCheck::D3 || cudaAvailable()) setup.checks.push_back(d);
    }
  }
  if (setup.checks == std::vector<DiffCheck>{DiffCheck::D3} && !cudaAvailable()) {
    out.error = "D3 needs CUDA, which is not available here";
    out.as_expected = c.status == CaseStatus::KnownUpstream;
    return out;
  }
  auto runner = CaseRunner::create(setup);
  if (!runner.ok()) {
    out.error = runner.error().str();
    out.as_expected = false;
    return out;
  }
  const CaseRunner& r = *runner.value();
  IsolatedOutcome isolated = runIsolated(
      [&]() -> std::string {
        if (c.program) return r.firstSignature(*c.program, setup.checks);
        auto program = r.generate(c.provenance.seed);
        if (!program.ok()) return "generation-failed";
        return r.firstSignature(program.value(), setup.checks);
      },
      limits);
  out.now = isolated.death ? deathSignature(*isolated.death) : isolated.result.value_or("");
  if (out.now == c.signature) out.verdict = ReplayVerdict::Reproduces;
  else if (out.now.empty()) out.verdict = ReplayVerdict::Fixed;
  else out.verdict = ReplayVerdict::Changed;
  switch (c.status) {
    case CaseStatus::Open: out.as_expected = out.verdict == ReplayVerdict::Reproduces; break;
    case CaseStatus::Fixed: out.as_expected = out.verdict == ReplayVerdict::Fixed; break;
    case CaseStatus::KnownUpstream:
      out.as_expected = out.verdict == ReplayVerdict::Reproduces || c.provenance.libtorch != libtorchVersion();
      break;
  }
  return out;
}

}  // namespace epsmith
