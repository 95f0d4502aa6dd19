// See case_runner.h.
#include "fuzz/case_runner.h"

#include <ATen/Parallel.h>
#include <malloc.h>

#include "generators/generation_config.h"
#include "generators/random_source.h"
#include "minimizer/minimize.h"
#include "oracle/aten_bridge.h"
#include "oracle/breadcrumb.h"

namespace epsmith {
namespace {

size_t callCount(const ExportedProgram& p) {
  size_t n = 0;
  for (const auto& node : p.graph().nodes()) n += node.op() == OpKind::CallFunction ? 1 : 0;
  return n;
}

// The raising op at the end of an exception's signature ("D2 exception-in-one aten::x").
std::string lastWordIfOp(const std::string& signature) {
  const size_t space = signature.rfind(' ');
  if (space == std::string::npos) return "";
  std::string word = signature.substr(space + 1);
  return word.rfind("aten::", 0) == 0 ? word : "";
}

}  // namespace

struct CaseRunner::State {
  GenerationConfig config;
  OpCatalog catalog;
};

void prepareCaseProcess() {
  at::set_num_threads(1);
  c10::Warning::set_warning_handler(silentWarningHandler());
}

std::string deathSignature(const WorkerDeath& d) {
  std::string s = (d.phase.empty() ? "worker" : d.phase) + " " + d.kindName();
  if (!d.op.empty()) s += " " + d.op;
  return s;
}

CaseRunner::CaseRunner(CaseSetup setup) : setup_(std::move(setup)) {}
CaseRunner::~CaseRunner() = default;

Expected<std::unique_ptr<CaseRunner>> CaseRunner::create(const CaseSetup& setup) {
  auto config = parseGenerationConfig(setup.config_text, setup.config_name);
  if (!config.ok()) return config.error();
  if (setup.nodes >= 0) config->generator.nodes = setup.nodes;
  auto catalog = OpCatalog::build(config->catalog);
  if (!catalog.ok()) return catalog.error();
  std::unique_ptr<CaseRunner> runner(new CaseRunner(setup));
  runner->state_ = std::make_unique<State>(State{std::move(config.value()), std::move(catalog.value())});
  return runner;
}

int CaseRunner::nodes() const { return state_->config.generator.nodes; }

Expected<ExportedProgram> CaseRunner::generate(uint64_t seed, PhaseTimes* times) const {
  notePhase("generate");
  PhaseClock clock(times, Phase::Generate);
  SeededSource random(seed);
  return generateProgram(state_->catalog, state_->config.generator, random);
}

CaseResult CaseRunner::run(uint64_t seed) const {
  CaseResult r;
  r.seed = seed;
  auto program = generate(seed, &r.times);
  if (!program.ok()) {
    r.generation_error = program.error().str();
    return r;
  }
  r.nodes = callCount(program.value());
  CheckOptions options;
  options.corruption_seed = seed;
  options.times = &r.times;
  options.device = setup_.device;
  r.outcomes = runChecks(program.value(), setup_.checks, options);
  return r;
}

std::string CaseRunner::firstSignature(const ExportedProgram& p, const std::vector<DiffCheck>& checks,
                                       CheckOutcome* finding, PhaseTimes* times) const {
  CheckOptions options;
  options.device = setup_.device;
  options.times = times;
  for (auto& o : runChecks(p, checks, options)) {
    if (o.status != CheckOutcome::Status::Finding) continue;
    if (finding) *finding = o;
    return failureSignature(o);
  }
  return "";
}

// Note [Re-runs on a perturbed heap]
// Some kernels read memory they never wrote (nanmedian.dim's index on a stride-0 input,
// multilabel_margin_loss on an empty one): what they return is whatever the allocator hands
// out, which is the same on a plain re-run in the same process more often than not. The
// re-runs therefore ask glibc to fill every fresh block with a different byte each time
// (M_PERTURB; LibTorch's CPU allocator goes through posix_memalign, which honours it), so
// a result that depends on uninitialized memory changes between them and the finding is
// flaky, not a bug of the check that happened to compare two runs.
bool CaseRunner::comesBackEveryTime(const ExportedProgram& p, const std::vector<DiffCheck>& checks,
                                    const std::string& signature) const {
  bool every_time = true;
  for (int fill : {0x55, 0xaa}) {
    ::mallopt(M_PERTURB, fill);
    every_time = firstSignature(p, checks) == signature;
    ::mallopt(M_PERTURB, 0);
    if (!every_time) break;
  }
  return every_time;
}

MinimizedFinding CaseRunner::minimize(uint64_t seed, const std::string& check, const std::string& signature,
                                      const std::optional<WorkerDeath>& crash) const {
  MinimizedFinding m;
  m.signature = signature;
  m.check = check;
  m.kind = crash ? crash->kindName() : "";
  auto program = generate(seed, &m.times);
  if (!program.ok()) {
    m.bucket = BucketKey{check, m.kind, {}, crash ? lastWordIfOp(signature) : ""};
    m.report = "the generator made nothing of this seed: " + program.error().str();
    return m;
  }
  m.nodes_before = m.nodes_after = callCount(program.value());
  // The checks that see it: the one named, or, for a worker that died outside every check
  // (the eager run, verification), all of them.
  std::vector<DiffCheck> checks = setup_.checks;
  if (auto c = diffCheckFromName(check)) checks = {*c};
  notePhase("minimize");
  PhaseClock clock(&m.times, Phase::Minimize);
  // A crash being minimized must crash again to count: each step of it runs in a forked
  // child. Other findings are minimized in-process (a fork per step costs more than the
  // step); a smaller program that crashes a kernel ends this worker, and the campaign files
  // the finding unminimized.
  WorkerLimits limits = setup_.limits;
  const auto still_fails = [&](const ExportedProgram& p) {
    if (!crash) return firstSignature(p, checks) == signature;
    IsolatedOutcome o = runIsolated([&] { return firstSignature(p, checks); }, limits);
    return o.death && deathSignature(*o.death) == signature;
  };
  // A finding must come back every time before it is worth a bucket.
  if (!crash) {
    m.flaky = !comesBackEveryTime(program.value(), checks, signature);
    if (m.flaky) {
      m.bucket = BucketKey{check, "flaky", opSetOf(program.value()), ""};
      m.report = "the finding did not come back on every re-run of the program";
      m.program = std::move(program.value());
      return m;
    }
  }
  MinimizeOptions options;
  options.max_oracle_calls = setup_.minimize_calls;
  // A hang costs its whole time limit per step.
  if (crash && crash->kind == WorkerDeath::Kind::Timeout) options.max_oracle_calls = std::min(options.max_oracle_calls, 20);
  MinimizeResult r = epsmith::minimize(program.value(), still_fails, options);
  m.oracle_calls = r.oracle_calls;
  m.nodes_after = r.nodes_after;
  std::string detail;
  if (crash) {
    m.kind = crash->kindName();
    m.report = "the worker died (" + crash->kindName() + ") in " + crash->phase +
               (crash->op.empty() ? "" : " while running " + crash->op);
    detail = lastWordIfOp(signature);
  } else {
    CheckOutcome o;
    const std::string now = firstSignature(r.program, checks, &o);
    m.kind = o.kind;
    m.where = o.where;
    m.report = o.report;
    m.flaky = now != signature;
    detail = o.kind.find("exception") != std::string::npos ? lastWordIfOp(signature) : whereKind(o.where);
  }
  m.bucket = BucketKey{check, m.kind, opSetOf(r.program), detail};
  m.program = std::move(r.program);
  return m;
}

}  // namespace epsmith
