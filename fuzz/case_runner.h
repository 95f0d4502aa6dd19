// One case of a campaign, in-process: generate a program from a seed, run the checks on it,
// and, for a finding, minimize it to its bucket. What a campaign worker does per request,
// what `epsmith replay` and the benchmarks call.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/checks.h"
#include "fuzz/corpus.h"
#include "fuzz/failing.h"
#include "fuzz/phases.h"
#include "fuzz/root_cause.h"
#include "fuzz/workers.h"
#include "ir/program.h"

namespace epsmith {

// Each draw's default, as fuzz/checks.def gives it.
constexpr std::array<int, kCheckDrawCount> defaultDrawEvery() {
  std::array<int, kCheckDrawCount> every{};
  size_t i = 0;
#define EPSMITH_CHECK_DRAW(NAME, FLAG, DEFAULT_EVERY, SALT) every[i++] = DEFAULT_EVERY;
#include "fuzz/checks.def"
  return every;
}

struct CaseSetup {
  std::string config_text;  // the generation config ("" = defaults), docs/generators.md
  std::string config_name = "<config>";
  int nodes = -1;  // overrides the config's when >= 0
  std::vector<DiffCheck> checks{std::begin(kAllDiffChecks), std::end(kAllDiffChecks)};
  Device device;             // where D1, D2 and D4 run
  int minimize_calls = 500;  // oracle calls (checks and eager runs) per minimization at most
  // ... and where the one check that sees the finding asks PyTorch: a step is a question
  // to Python, 0.1-1 s (Note [Torch checks sampled]).
  int minimize_calls_asking_torch = 30;
  bool one_round_trip_per_case = true;  // D4 in each case of run(): one form, drawn, or both
  int corruptions_per_case = 4;         // D6's corruptions in each case of run() (0: all)
  int torch_corruptions_per_case = 1;   // D7's in each asked case of run() (Note [Torch checks sampled])
  // run() runs the checks of each draw on one case in this many (fuzz/checks.def)
  std::array<int, kCheckDrawCount> every = defaultDrawEvery();
  int across_every = 4;  // of the cases that ask torch, D7 saves and loads across
                         // releases on one in this many (Note [Save and load across releases])
  WorkerLimits limits;   // for each isolated minimization step
};

struct CaseResult {
  uint64_t seed = 0;
  PhaseTimes times;
  std::optional<std::string> generation_error;  // the generator made nothing of this seed
  size_t nodes = 0;                             // call nodes of the program
  std::vector<CheckOutcome> outcomes;
};

// A finding made as small as it goes, and its root cause.
struct MinimizedFinding {
  std::string signature;
  RootCause root;
  std::optional<ExportedProgram> program;  // none when it was never made (a crash while generating)
  std::string check;                       // the check, or for a death outside every check its phase ("generate")
  // The finding on the minimized program (a death's kind, op and report, for a crash);
  // for a flaky one or one never minimized, why in its report.
  CheckOutcome finding = blankFinding();
  size_t nodes_before = 0, nodes_after = 0;
  int oracle_calls = 0;
  std::vector<std::string> steps;  // the minimizer's accepted steps, for people
  PhaseTimes times;
  // The finding did not come back on every re-run of the program (a kernel that reads
  // uninitialized memory, say): not a bucket, not minimized.
  bool flaky = false;
};

class CaseRunner {
 public:
  // Reads the config and builds the op catalog; a bad config is a Diagnostic naming the line.
  static Expected<std::unique_ptr<CaseRunner>> create(const CaseSetup& setup);
  ~CaseRunner();

  const CaseSetup& setup() const { return setup_; }
  int nodes() const;  // ops per program, as configured
  Expected<ExportedProgram> generate(uint64_t seed, PhaseTimes* times = nullptr) const;
  CaseResult run(uint64_t seed) const;
  // firstSignature (below) on the runner's device.
  std::string firstSignature(const ExportedProgram& p, const std::vector<DiffCheck>& checks,
                             const Failing* focus = nullptr, CheckOutcome* finding = nullptr,
                             PhaseTimes* times = nullptr) const;
  // Minimizes the failure `f` of the case `seed`: one that a check reports, or one that
  // killed a worker (`f.crash`). Each step of a crash is tried in a forked child; so is each
  // step of any finding when `fork_steps` is set (a minimization that ended its worker once,
  // Note [Minimizing in forked steps]).
  MinimizedFinding minimize(uint64_t seed, const Failing& f, bool fork_steps = false) const;
  // The same for a program at hand (a corpus case's), not remade from a seed.
  MinimizedFinding minimizeProgram(const ExportedProgram& p, const Failing& f, bool fork_steps = false) const;

 private:
  explicit CaseRunner(CaseSetup setup);
  // A death while generating `seed`, generated again in a child: flaky unless it dies again.
  MinimizedFinding confirmGenerationCrash(uint64_t seed, MinimizedFinding m, const Failing& f) const;
  MinimizedFinding minimizeFrom(ExportedProgram start, MinimizedFinding m, const Failing& f, bool fork_steps) const;
  MinimizedFinding minimizeSteps(ExportedProgram start, MinimizedFinding m, const Failing& f, bool fork_steps) const;
  std::string firstSignatureInChild(const ExportedProgram& p, const std::vector<DiffCheck>& checks, const Failing& f,
                                    const WorkerLimits& limits, CheckOutcome* finding) const;
  struct State;
  CaseSetup setup_;
  std::unique_ptr<State> state_;
};

// The conditions every case runs under, set once in each worker process: one intra-op
// thread (so a result never depends on the machine's core count), LibTorch's warnings
// silenced (they are about programs, not findings), the allocator that the flakiness
// re-runs fill through (Note [Fresh tensors hold a fill]). Campaign workers and replay
// use it.
void prepareCaseProcess();

// The signature of the first finding of `checks` on `p` run on `device` ("" when none), the
// checks focused on the variant `focus` was found by (Note [Re-runs focus on the finding]).
std::string firstSignature(const ExportedProgram& p, const std::vector<DiffCheck>& checks, const Device& device,
                           const Failing* focus = nullptr, CheckOutcome* finding = nullptr,
                           PhaseTimes* times = nullptr);

// Note [One rule for still failing]
// Whether a step of a minimization still fails as `f`: a check's finding must come first
// with `f`'s signature and its message template (Failing::matches), a crash must kill a
// child alike (its deathSignature). A campaign's minimization, `epsmith minimize` and
// `import-crash` all ask this, so a program one of them keeps the others keep too.
// `limits`: each step's checks run in a forked child under them (a crash's always do);
// null: in-process.
bool stillFails(const ExportedProgram& p, const std::vector<DiffCheck>& checks, const Failing& f, const Device& device,
                const WorkerLimits* limits);

// Whether `f` is the first finding of `checks` on `p` every time: `p`'s eager run must
// agree with itself, and the finding come back, on heaps whose fresh memory holds
// different garbage each time (Note [Re-runs on a perturbed heap]).
bool comesBackEveryTime(const ExportedProgram& p, const std::vector<DiffCheck>& checks, const Failing& f,
                        const Device& device);

// Blocks of assorted sizes held for a while, so that what is allocated meanwhile lands
// elsewhere on the heap: layout 0 holds none, each further layout more and larger ones.
// Replay and the flakiness re-runs use it to see a program under several heap layouts.
class HeapShift {
 public:
  explicit HeapShift(int layout);

 private:
  std::vector<std::unique_ptr<char[]>> blocks_;
};

}  // namespace epsmith
