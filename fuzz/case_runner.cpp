// See case_runner.h.
#include "fuzz/case_runner.h"

#include <ATen/Parallel.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>

#include "fuzz/generalize.h"
#include "fuzz/messages.h"
#include "fuzz/programs.h"
#include "generators/generation_config.h"
#include "generators/random_source.h"
#include "generators/symbolic_sizes.h"
#include "minimizer/minimize.h"
#include "oracle/aten_bridge.h"
#include "oracle/breadcrumb.h"
#include "oracle/compare.h"
#include "oracle/fresh_fill.h"
#include "oracle/libtorch_compat.h"
#include "oracle/op_time.h"
#include "oracle/planted_fault.h"
#include "oracle/run.h"

namespace epsmith {
namespace {

size_t callCount(const ExportedProgram& p) {
  size_t n = 0;
  for (const auto& node : p.graph().nodes()) n += node.op() == OpKind::CallFunction ? 1 : 0;
  return n;
}

}  // namespace

struct CaseRunner::State {
  GenerationConfig config;
  OpCatalog catalog;
  OpShapes shapes;  // Note [Ops a failure does not depend on]
};

void prepareCaseProcess() {
  installFreshTensorFills();  // before any re-run needs it, while no other thread allocates
  at::set_num_threads(1);
  compat::setWarningHandler(silentWarningHandler());
}

HeapShift::HeapShift(int layout) {
  for (int i = 0; i < layout; ++i) {
    for (size_t size : {24, 56, 120, 248, 504, 1016, 4088}) {
      blocks_.emplace_back(new char[size * static_cast<size_t>(i + 1)]);
      blocks_.back()[0] = 0;
    }
  }
}

CaseRunner::CaseRunner(CaseSetup setup) : setup_(std::move(setup)) {}
CaseRunner::~CaseRunner() = default;

Expected<std::unique_ptr<CaseRunner>> CaseRunner::create(const CaseSetup& setup) {
  auto config = parseGenerationConfig(setup.config_text, setup.config_name);
  if (!config.ok()) return config.error();
  if (setup.nodes >= 0) config->generator.nodes = setup.nodes;
  auto catalog = buildGenerationCatalog(config->catalog, setup.config_name);
  if (!catalog.ok()) return catalog.error();
  std::unique_ptr<CaseRunner> runner(new CaseRunner(setup));
  OpShapes shapes(catalog.value());
  runner->state_ =
      std::make_unique<State>(State{std::move(config.value()), std::move(catalog.value()), std::move(shapes)});
  return runner;
}

int CaseRunner::nodes() const { return state_->config.generator.nodes; }

Expected<ExportedProgram> CaseRunner::generate(uint64_t seed, PhaseTimes* times) const {
  notePhase("generate");
  PhaseClock clock(times, Phase::Generate);
  SeededSource random(seed);
  auto program = generateInDialect(state_->catalog, state_->config.generator, random);
  if (program.ok()) drawCaseSizes(program.value(), random);  // the checks run at a size of the range
  return program;
}

CaseResult CaseRunner::run(uint64_t seed) const {
  notePlantedCaseBegins();  // Note [Planted faults]
  CaseResult r;
  r.seed = seed;
  const OpTimeSink ops(&r.times.in_ops);
  auto program = generate(seed, &r.times);
  if (!program.ok()) {
    r.generation_error = program.error().str();
    return r;
  }
  r.nodes = callCount(program.value());
  CheckOptions options;
  options.case_seed = seed;
  if (setup_.one_round_trip_per_case) options.round_trip = drawnRoundTrip(seed);
  options.corruptions_per_case = setup_.corruptions_per_case;
  options.torch_corruptions_per_case = setup_.torch_corruptions_per_case;
  options.times = &r.times;
  options.device = setup_.device;
  options.skip_known_triggers = true;
  options.across_releases = drawnForAcrossReleases(seed, setup_.across_every);
  std::vector<DiffCheck> checks = setup_.checks;
  const auto not_drawn = [&](DiffCheck c) {
    const CheckDraw d = checkInfo(c).draw;
    return !drawnFor(d, seed, setup_.every[static_cast<size_t>(d)]);
  };
  checks.erase(std::remove_if(checks.begin(), checks.end(), not_drawn), checks.end());
  r.outcomes = runChecks(program.value(), checks, options);
  return r;
}

std::string firstSignature(const ExportedProgram& p, const std::vector<DiffCheck>& checks, const Device& device,
                           const Failing* focus, CheckOutcome* finding, PhaseTimes* times) {
  CheckOptions options = focus ? focusedOn(*focus) : CheckOptions{};
  options.device = device;
  options.times = times;
  const auto outcomes = runChecks(p, checks, options);
  const CheckOutcome* found = firstFinding(outcomes);
  if (!found) return "";
  if (finding) *finding = *found;
  return failureSignature(*found);
}

bool stillFails(const ExportedProgram& p, const std::vector<DiffCheck>& checks, const Failing& f, const Device& device,
                const WorkerLimits* limits) {
  if (f.crash) {
    const WorkerLimits crash_limits = limits ? *limits : WorkerLimits{};
    const auto death = runIsolated([&] { return firstSignature(p, checks, device, &f); }, crash_limits).death;
    return death && sameFailure(deathSignature(*death), f.signature);
  }
  CheckOutcome now;
  if (!limits) return !firstSignature(p, checks, device, &f, &now).empty() && f.matches(now);
  IsolatedOutcome o = runIsolated(
      [&] {
        firstSignature(p, checks, device, &f, &now);
        return writeOutcome(now);  // a Pass when there was no finding
      },
      *limits);
  if (!o.result) return false;  // a child that dies does not fail the same way
  auto found = readOutcome(*o.result);
  return found.ok() && f.matches(found.value());
}

std::string CaseRunner::firstSignature(const ExportedProgram& p, const std::vector<DiffCheck>& checks,
                                       const Failing* focus, CheckOutcome* finding, PhaseTimes* times) const {
  return epsmith::firstSignature(p, checks, setup_.device, focus, finding, times);
}

// Note [Re-runs on a perturbed heap]
// Some kernels read memory they do not own: nanmedian.dim on a stride-0 input reads past
// its one-element storage, multilabel_margin_loss on an empty input reads what it never
// wrote. What they return is whatever lies there, so a check that compares two runs
// (D1, D2, D3, D4 each compare against another run) reports a difference that is not the
// check's bug. Asking only whether that difference "comes back" on a re-run is no test:
// the two runs of the check hold different garbage nearly every time, so it comes back as
// often as not (CI saw exactly that). What tells such a program apart is that eager
// disagrees with itself once the garbage changes, and two things change it: where the
// allocator puts the run's blocks (a HeapShift held across the run moves them) and what
// fresh blocks hold (FreshTensorFill gives every tensor block LibTorch allocates a given
// byte, Note [Fresh tensors hold a fill]; under glibc's malloc, M_PERTURB does the same
// for the rest of the heap, and is a no-op under tcmalloc). A consecutive re-run changes
// neither: it gets back the very blocks the last run freed. Nor does either reach the
// slack after a block, which a kernel reading past its input's storage reads, and which on
// some heaps is the same untouched memory every time; so the re-runs also put a different
// fill past each input's storage (Note [Over-reads see a fill]). A finding of those
// checks first needs the program's eager run to give the same results under kFlakyLayouts
// shifted, perturbed, filled heaps as on the heap as it is; then the checks must report
// the same finding under two of them. An exception in one run compares no values, so
// there eager need agree with itself only in what it does compare: where it raised, and
// the shapes and dtypes it made. set_ of a storage it outgrows makes eager read
// new, uninitialized elements, yet functionalization raising there every time is a finding
// (functionalization-set-that-grows-storage), not a flake.
bool comesBackEveryTime(const ExportedProgram& p, const std::vector<DiffCheck>& checks, const Failing& f,
                        const Device& device) {
  constexpr int kFlakyLayouts = 4;
  struct Perturbed {
    explicit Perturbed(int layout) : fill(byteFor(layout)) { ::mallopt(M_PERTURB, byteFor(layout)); }
    ~Perturbed() { ::mallopt(M_PERTURB, 0); }
    static uint8_t byteFor(int layout) { return layout % 2 ? 0x55 : 0xaa; }
    FreshTensorFill fill;  // Note [Fresh tensors hold a fill]
  };
  const bool compares_runs = std::any_of(checks.begin(), checks.end(), [](DiffCheck c) { return c != DiffCheck::D6; });
  const bool compares_values = !f.finding || f.finding->kind != "exception-in-one";
  const auto agrees = [&](const Verdict& v) {
    return v.match() || (!compares_values && v.kind == VerdictKind::ValueMismatch);
  };
  if (compares_runs) {
    compat::WarningHandlerGuard quiet(silentWarningHandler());
    const RunOptions eager(RunMode::Eager, device);
    const RunResult first = runProgram(p, eager);
    for (int layout = 1; layout <= kFlakyLayouts; ++layout) {
      const HeapShift shift(layout);
      const Perturbed heap(layout);
      RunOptions filled = eager;  // and past each input's storage, other bytes each time
      filled.overread_fill = 0x3c * layout % 256;
      if (!agrees(compareResults(first, runProgram(p, filled)))) return false;
    }
  }
  for (int layout = 1; layout <= 2; ++layout) {
    const HeapShift shift(layout);
    const Perturbed heap(layout);
    CheckOutcome now;
    if (firstSignature(p, checks, device, &f, &now).empty() || !f.matches(now)) return false;
  }
  return true;
}

// firstSignature in a forked child; the finding's fields come back as a message
// (fuzz/messages.h). A child that dies is taken to fail as `f` does: the failure the
// program last showed.
std::string CaseRunner::firstSignatureInChild(const ExportedProgram& p, const std::vector<DiffCheck>& checks,
                                              const Failing& f, const WorkerLimits& limits,
                                              CheckOutcome* finding) const {
  IsolatedOutcome isolated = runIsolated(
      [&] {
        CheckOutcome found;
        firstSignature(p, checks, &f, &found);
        return writeOutcome(found);  // a Pass when there was no finding
      },
      limits);
  if (isolated.result) {
    if (auto found = readOutcome(*isolated.result); found.ok()) {
      *finding = found.value();
      return finding->status == CheckOutcome::Status::Finding ? failureSignature(*finding) : "";
    }
    // An answer this binary cannot read is no finding.
    if (!isolated.death) return "";
  }
  if (f.finding) *finding = *f.finding;
  finding->report = "the program fails as " + f.signature + ", but a later look at it ended its child" +
                    (isolated.death ? " (" + isolated.death->kindName() + ")" : "");
  return f.signature;
}

namespace {

// The finding as the case found it, before any step: a check's finding, or a death's kind
// and op.
MinimizedFinding unminimized(const Failing& f) {
  MinimizedFinding m;
  m.signature = f.signature;
  m.check = f.check;
  if (f.finding) m.finding = *f.finding;
  if (f.crash) {
    m.finding.kind = f.crash->kindName();
    m.finding.op = f.crash->op;
  }
  return m;
}

}  // namespace

// Note [Minimizing in forked steps]
// A finding that a check reports is minimized in-process: a fork per step costs more than
// the step. But a smaller program may crash the kernel outright (a use-after-free that
// raised in the case shows as a SIGSEGV once the heap looks different), and that ends the
// worker mid-minimization. The campaign then asks again with fork_steps set: each step
// (its eager runs and its checks), the re-runs and the final look at the program each run
// in a forked child, and a step whose child dies does not count as failing the same way. Only the few findings that
// killed a minimizing worker pay for the forks.
MinimizedFinding CaseRunner::minimize(uint64_t seed, const Failing& f, bool fork_steps) const {
  MinimizedFinding m = unminimized(f);
  const OpTimeSink ops(&m.times.in_ops);
  if (f.crash && f.crash->phase == "generate") return confirmGenerationCrash(seed, std::move(m), f);
  auto generated = generate(seed, &m.times);
  if (!generated.ok()) {
    m.root = RootCause{f.check, crashKind(m.finding.kind), f.message, {}};
    if (f.crash && !f.crash->op.empty()) m.root.ops.push_back(coreOpName(f.crash->op));
    m.finding.report = "the generator made nothing of this seed: " + generated.error().str();
    return m;
  }
  return minimizeFrom(std::move(generated.value()), std::move(m), f, fork_steps);
}

// Note [A finding must come back in a fresh process]
// A worker runs thousands of cases, and a kernel that writes past its memory may leave the
// heap corrupt for a later case, whose worker then dies in an allocation (tcmalloc's
// tc_newarray while the generator builds a tensor) that has nothing to do with it, or
// whose checks see a value or a round trip that the corruption made (a D4 mismatch that a
// fresh process never shows). So the campaign hands each minimization to a fresh worker,
// one that has served no case (Campaign::dispatch), and a finding counts only if it comes
// back there: a mismatch or an exception on every re-run of its program, a death in a
// child forked for it. One that does not is flaky. A hang or an exhausted memory comes
// back wherever the limit strikes again. A death while generating leaves no program: the
// seed is generated again in the child, and a bucket that repeats holds no program to
// shrink.
namespace {

// Whether the child's death `again` is the worker's `d` come back: a signal at the same
// place (Note [One memory error, several signals]); a hang or an exhausted memory anywhere,
// since where a limit strikes depends on how fast the child ran.
bool diesAlike(const WorkerDeath& again, const WorkerDeath& d) {
  if (d.kind == WorkerDeath::Kind::Timeout || d.kind == WorkerDeath::Kind::OutOfMemory) return again.kind == d.kind;
  return sameFailure(deathSignature(again), deathSignature(d));
}

}  // namespace

MinimizedFinding CaseRunner::confirmGenerationCrash(uint64_t seed, MinimizedFinding m, const Failing& f) const {
  const WorkerDeath& d = *f.crash;
  m.root = RootCause{f.check, crashKind(d.kindName()), f.message, {}};
  if (!d.op.empty()) m.root.ops.push_back(coreOpName(d.op));
  IsolatedOutcome again = runIsolated([&] { return generate(seed).ok() ? "made" : "refused"; }, setup_.limits);
  if (!again.death || !diesAlike(*again.death, d)) {
    m.flaky = true;
    m.finding.report = "the worker died (" + d.kindName() +
                       ") while generating this seed, but a fresh child generated it" +
                       (again.death ? " and died as " + deathSignature(*again.death) : "");
    return m;
  }
  m.finding.report = "the worker died (" + d.kindName() + ") while generating the program, running " + d.op +
                     ", and a fresh child died the same way";
  return m;
}

MinimizedFinding CaseRunner::minimizeProgram(const ExportedProgram& p, const Failing& f, bool fork_steps) const {
  return minimizeFrom(p.clone(), unminimized(f), f, fork_steps);
}

// The minimization's time is charged after it returns: a clock in its scope would charge
// the finding it had already handed back.
MinimizedFinding CaseRunner::minimizeFrom(ExportedProgram start, MinimizedFinding m, const Failing& f,
                                          bool fork_steps) const {
  const auto began = std::chrono::steady_clock::now();
  MinimizedFinding done = minimizeSteps(std::move(start), std::move(m), f, fork_steps);
  done.times[Phase::Minimize] += std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return done;
}

MinimizedFinding CaseRunner::minimizeSteps(ExportedProgram start, MinimizedFinding m, const Failing& f,
                                           bool fork_steps) const {
  const OpTimeSink ops(&m.times.in_ops);
  const std::string& check = f.check;
  const std::optional<WorkerDeath>& crash = f.crash;
  std::optional<ExportedProgram> program(std::move(start));
  m.nodes_before = m.nodes_after = callCount(program.value());
  // The checks that see it: the one named, or, for a worker that died outside every check
  // (the eager run, verification), all of them.
  std::vector<DiffCheck> checks = setup_.checks;
  if (auto c = diffCheckFromName(check)) checks = {*c};
  notePhase("minimize");
  // A crash being minimized must crash again to count: each step of it runs in a forked
  // child. Other findings are minimized in-process unless `fork_steps`
  // (Note [Minimizing in forked steps]).
  WorkerLimits limits = setup_.limits;
  fork_steps = fork_steps || crash.has_value();
  // How a child forked to run `p`'s checks died; nullopt where it lived.
  const auto deathIn = [&](const ExportedProgram& p) {
    return runIsolated([&] { return firstSignature(p, checks, &f); }, limits).death;
  };
  const auto still_fails = [&](const ExportedProgram& p) {
    return stillFails(p, checks, f, setup_.device, fork_steps ? &limits : nullptr);
  };
  // A finding must come back every time before it is worth a bucket (one whose re-runs kill
  // the child is real enough); a crash must die again in a child forked for it
  // (Note [A finding must come back in a fresh process]).
  const auto comesBack = [&](const ExportedProgram& p) {
    if (!fork_steps) return comesBackEveryTime(p, checks, f, setup_.device);
    IsolatedOutcome o = runIsolated(
        [&] { return std::string(comesBackEveryTime(p, checks, f, setup_.device) ? "yes" : "no"); }, limits);
    return o.result != "no";
  };
  std::string flaky;
  if (crash) {
    const auto death = deathIn(program.value());
    if (!death || !diesAlike(*death, *crash)) {
      flaky = "the worker died (" + crash->kindName() + "), but the program ran in a fresh child without dying so";
    }
  } else if (!comesBack(program.value())) {
    flaky = "the finding did not come back on every re-run of the program";
  }
  if (!flaky.empty()) {
    m.flaky = true;
    m.root = RootCause{check, "flaky", f.message, coreOps(program.value())};
    m.finding.report = flaky;
    m.program = std::move(program.value());
    return m;
  }
  MinimizeOptions options;
  options.max_oracle_calls = setup_.minimize_calls;
  // A hang costs its whole time limit per step.
  if (crash && crash->kind == WorkerDeath::Kind::Timeout)
    options.max_oracle_calls = std::min(options.max_oracle_calls, 20);
  if (checks.size() == 1 && asksTorch(checks[0]))
    options.max_oracle_calls = std::min(options.max_oracle_calls, setup_.minimize_calls_asking_torch);
  if (fork_steps) options.run_step = eagerStepsInChildren(limits);
  MinimizeResult r = epsmith::minimize(program.value(), still_fails, options);
  // A step checks the finding once, so the minimizer can shrink a program into one whose
  // finding is garbage that one run happened to show (a write removed, a resize_ left to
  // grow an input into fresh memory): a minimized finding must come back as the first did,
  // and where it does not, the program that came back is the case.
  if (!crash && r.nodes_after < m.nodes_before && !comesBack(r.program)) {
    r.program = program->clone();
    r.nodes_after = m.nodes_before;
  }
  m.oracle_calls = r.oracle_calls;
  m.nodes_after = r.nodes_after;
  m.steps = std::move(r.log);
  std::string message = f.message;
  if (crash) {
    m.finding.report = "the worker died (" + crash->kindName() + ") in " + crash->phase +
                       (crash->op.empty() ? "" : " while running " + crash->op) +
                       (crash->frame.empty() ? "" : ", in " + crash->frame);
  } else {
    CheckOutcome o;
    const std::string now = fork_steps ? firstSignatureInChild(r.program, checks, f, limits, &o)
                                       : firstSignature(r.program, checks, &f, &o);
    m.finding = o;
    m.flaky = now.empty() || !f.matches(o);
    message = messageTemplate(o);
  }
  m.root = RootCause{check, crashKind(m.finding.kind), message, coreOps(r.program)};
  if (!crash && !fork_steps && !m.flaky) {
    const FailsWith fails_with = [&](const ExportedProgram& candidate, const OpInfo& from, const OpInfo& by) {
      Failing g = f;  // the stand-in raises where the op it stands for did
      if (g.finding && g.finding->op == from.name()) {
        g.finding->op = by.name();
        g.signature = failureSignature(*g.finding);
      }
      CheckOutcome now;
      return !firstSignature(candidate, checks, &g, &now).empty() && g.matches(now);
    };
    GeneralizedOps g = generalizedOps(r.program, state_->shapes, fails_with, &m.oracle_calls);
    m.root.ops = std::move(g.ops);
    m.root.class_ops = std::move(g.classed);
  }
  m.root.traits = programTraits(r.program);
  m.program = std::move(r.program);
  return m;
}

}  // namespace epsmith
