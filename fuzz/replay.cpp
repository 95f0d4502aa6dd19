// See replay.h.
#include "fuzz/replay.h"

#include "fuzz/case_runner.h"
#include "fuzz/root_cause.h"
#include "minimizer/minimize.h"
#include "oracle/run.h"

namespace epsmith {

namespace {

// The failure a case file records, as the fields its re-runs focus on, with the template
// its message must keep (Note [A replay keeps the message]). A death's case ("D2
// crash-SIGSEGV aten::x") has no variant, so its re-runs try every one.
// Whether a finding of `kind` with message template `message` may be one of the ways a
// memory error shows (Note [One memory error, several signals]): a crash, an assertion of
// LibTorch's that a freed block still intact trips, a finding whose later look died.
bool mayShowAMemoryError(const std::string& kind, const std::string& message) {
  return kind.rfind("crash", 0) == 0 || message.find("INTERNAL ASSERT FAILED") != std::string::npos ||
         message.find("ended its child") != std::string::npos;
}

Failing recordedFailing(const CaseFile& c) {
  Failing f{c.check, c.signature, std::nullopt, std::nullopt, ""};
  if (diffCheckFromName(c.check)) {
    f.finding = c.finding;
    std::string message = messageTemplate(c.finding);
    if (!mayShowAMemoryError(c.finding.kind, message)) f.message = std::move(message);
  }
  return f;
}

// Note [A replay keeps the message]
// A case is one root cause, and a root cause is its check, kind, message template and ops
// (Note [Root causes]); the minimizer keeps all of them, so a replay asks for all of them
// too. A program whose op now fails the same check for another reason (a planted fault's
// case once the real kernel refuses the program) is another bug: "changed", with the
// message it shows now. A case that recorded no message (a finding kept before findings kept
// one and whose report names none) is judged by its signature alone, and so is a memory
// error, recorded or seen now, whose message is whatever the freed memory held
// (Note [One memory error, several signals]).
struct Shown {
  std::string signature;  // "" when nothing failed
  std::string message;    // its template
  bool died = false;      // the child died: a memory error's showing
};

constexpr char kMessageAfter = '\x1f';  // between a child's signature and its template

Shown shownBy(const std::string& child_result) {
  const size_t cut = child_result.find(kMessageAfter);
  if (cut == std::string::npos) return {child_result, ""};
  return {child_result.substr(0, cut), child_result.substr(cut + 1)};
}

bool showsRecorded(const Shown& now, const Failing& recorded) {
  return sameFailure(now.signature, recorded.signature) &&
         (recorded.message.empty() || now.message == recorded.message || now.died ||
          mayShowAMemoryError("", now.message));
}

}  // namespace

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
// program. A memory error may also show as another signal
// (Note [One memory error, several signals]).

namespace {

// The setup the case was found with, running the checks that can show it.
CaseSetup replaySetup(const CaseFile& c, const WorkerLimits& limits) {
  CaseSetup setup;
  setup.config_text = c.provenance.config;
  setup.config_name = "the case's config";
  setup.nodes = c.provenance.nodes;
  setup.limits = limits;
  if (auto check = diffCheckFromName(c.check)) {
    setup.checks = {*check};
  } else if (c.check == "generate") {
    // A failure to generate: whether the seed's program is made now, and nothing else (a
    // remade program may well meet some check's finding that has no bearing on this case).
    setup.checks.clear();
  } else {
    setup.checks.clear();  // a worker died outside every check: all of them run, as then
    for (DiffCheck d : kAllDiffChecks) {
      if (checkInfo(d).needs != CheckNeeds::Cuda || cudaAvailable()) setup.checks.push_back(d);
    }
  }
  return setup;
}

// Runs the case under up to kReplayLayouts heap layouts, each in a child, until one shows
// the recorded signature (Note [Replaying memory errors]); `out.now` is what it showed.
void runUnderLayouts(const CaseFile& c, const CaseRunner& r, const std::optional<ExportedProgram>& program,
                     const WorkerLimits& limits, ReplayOutcome& out) {
  const Failing recorded = recordedFailing(c);
  const std::vector<DiffCheck>& checks = r.setup().checks;
  auto signatureAndMessage = [&](const ExportedProgram& p) {
    CheckOutcome finding;
    const std::string signature = r.firstSignature(p, checks, &recorded, &finding);
    return signature.empty() ? signature : signature + kMessageAfter + messageTemplate(finding);
  };
  for (int layout = 0; layout < kReplayLayouts; ++layout) {
    IsolatedOutcome isolated = runIsolated(
        [&]() -> std::string {
          const HeapShift shift(layout);
          if (program) return signatureAndMessage(*program);
          auto remade = r.generate(c.provenance.seed);
          if (!remade.ok()) return "generation-failed";
          return signatureAndMessage(remade.value());
        },
        limits, prepareCaseProcess);
    ++out.runs;
    const Shown now =
        isolated.death ? Shown{deathSignature(*isolated.death), "", true} : shownBy(isolated.result.value_or(""));
    const bool reproduces = showsRecorded(now, recorded);
    if (layout == 0 || reproduces) {  // what a plain run shows, unless a later one reproduces
      out.now = now.signature;
      out.now_message = now.message;
      out.reproduced = reproduces;
    }
    if (reproduces) return;
  }
}

// Note [Cases found on another LibTorch]
// A case records the LibTorch it was found on. An upstream bug, or an open one of ours
// whose showing depends on LibTorch's behaviour, that does not come back on another
// release is a fact about that release ("fixed in 2.13"), not a failure; a bug of ours
// marked fixed must stay fixed on every release. An upstream bug that no longer shows on
// the release it was found on (a patch release fixed it) is as expected too, and counted
// as fixed there: the corpus never depends on an upstream bug still existing, while a bug
// of ours that comes back, or an upstream one that now fails otherwise, is not as expected. A program that calls an operator or
// overload another release lacks (1.13's named-tensor overloads are gone from 2.x) cannot
// run there at all: replay says so and moves on, as expected whatever its status. And its
// meta.val are the finding release's: where an op's result differs between releases (2.x's
// as_strided_copy.out resizes an out 1.13 refused), they are recomputed here first.
void judge(const CaseFile& c, bool found_here, ReplayOutcome& out) {
  if (out.reproduced)
    out.verdict = ReplayVerdict::Reproduces;
  else if (out.now.empty())
    out.verdict = ReplayVerdict::Fixed;
  else
    out.verdict = ReplayVerdict::Changed;
  const bool upstream_fixed = c.status == CaseStatus::KnownUpstream && out.verdict == ReplayVerdict::Fixed;
  if ((!found_here || upstream_fixed) && c.status != CaseStatus::Fixed && out.verdict != ReplayVerdict::Reproduces) {
    out.fixed_in = libtorchVersion();
  }
  switch (c.status) {
    case CaseStatus::Open: out.as_expected = out.verdict == ReplayVerdict::Reproduces || !found_here; break;
    case CaseStatus::KnownUpstream:
      out.as_expected = out.verdict == ReplayVerdict::Reproduces || upstream_fixed || !found_here;
      break;
    case CaseStatus::Fixed: out.as_expected = out.verdict == ReplayVerdict::Fixed; break;
  }
}

}  // namespace

ReplayOutcome replayCase(const CaseFile& c, const WorkerLimits& limits) {
  ReplayOutcome out;
  if (!c.program_unreadable_here.empty()) {  // Note [Cases found on another LibTorch]
    out.error = "found on LibTorch " + c.provenance.libtorch + "; LibTorch " + libtorchVersion() +
                " cannot run its program: " + c.program_unreadable_here;
    out.not_here = true;
    return out;
  }
  const CaseSetup setup = replaySetup(c, limits);
  if (setup.checks.size() == 1) {
    if (auto why = checkUnavailable(setup.checks[0])) {
      out.error = std::string(diffCheckName(setup.checks[0])) + " cannot run here: " + *why;
      out.not_here = true;
      return out;
    }
  }
  auto runner = CaseRunner::create(setup);
  if (!runner.ok()) {
    out.error = runner.error().str();
    out.as_expected = false;
    return out;
  }
  // Its meta.val are what the LibTorch that found it computed; on another one they are
  // recomputed by an eager run here, as an export here would
  // (Note [Cases found on another LibTorch]). A program that raises here keeps its own.
  const bool found_here = c.provenance.libtorch == libtorchVersion();
  std::optional<ExportedProgram> program;
  if (c.program) {
    program = c.program->clone();
    if (!found_here) refreshVals(*program);
  }
  runUnderLayouts(c, *runner.value(), program, limits, out);
  judge(c, found_here, out);
  return out;
}

}  // namespace epsmith
