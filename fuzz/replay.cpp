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

// Note [Replaying memory errors]
// Some LibTorch 1.13 bugs the corpus records are memory errors: functionalization reads a
// tensor after it was freed. What such a read finds depends on where the allocator put
// things, and that depends on everything the process allocated before — the length of the
// case file's path is enough to turn a SIGSEGV into an exception. A case is the same bug
// whichever way it shows, so a run that does not show the recorded signature is repeated
// under other heap layouts (each a fresh child that first allocates and keeps a few blocks
// of assorted sizes), up to kReplayLayouts runs. Deterministic failures reproduce on the
// first run and cost nothing extra; a fixed case costs kReplayLayouts runs of a small
// program. A memory error may also show as another signal (Note [One memory error, several
// signals]).

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
  for (int layout = 0; layout < kReplayLayouts; ++layout) {
    IsolatedOutcome isolated = runIsolated(
        [&]() -> std::string {
          const HeapShift shift(layout);
          if (c.program) return r.firstSignature(*c.program, setup.checks, c.signature);
          auto program = r.generate(c.provenance.seed);
          if (!program.ok()) return "generation-failed";
          return r.firstSignature(program.value(), setup.checks, c.signature);
        },
        limits, prepareCaseProcess);
    ++out.runs;
    const std::string now = isolated.death ? deathSignature(*isolated.death) : isolated.result.value_or("");
    if (layout == 0) out.now = now;  // what a plain run shows, unless a later one reproduces
    if (sameFailure(now, c.signature)) {
      out.now = now;
      break;
    }
  }
  if (sameFailure(out.now, c.signature)) out.verdict = ReplayVerdict::Reproduces;
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
