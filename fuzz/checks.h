// The differential checks of docs/design.md on one program, as the campaign and `epsmith check`
// run them. Each is a row of fuzz/checks.def (what it compares, what it needs, how a campaign
// samples it) and a file, fuzz/checks/ID.cpp, that says how it runs. D3 is skipped, with the
// reason, without CUDA; D5, D7 and D8 where no torch peer can be started; D9 where the
// LibTorch has no NativeRT (Note [Where NativeRT is]).
// Each check passes, finds something (a kind, stable for bucketing, and a readable report)
// or is skipped with the reason (a functionalizer refusal is export's own refusal, not a
// disagreement).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/phases.h"
#include "ir/diagnostic.h"
#include "ir/program.h"
#include "verifier/check_ids.h"

namespace epsmith {

// The checks and how each runs, from the one table of them (fuzz/checks.def).
enum class DiffCheck : uint8_t {
#define EPSMITH_CHECK(ID, ...) ID,
#include "fuzz/checks.def"
};
constexpr DiffCheck kAllDiffChecks[] = {
#define EPSMITH_CHECK(ID, ...) DiffCheck::ID,
#include "fuzz/checks.def"
};
// What must be here for a check to run.
enum class CheckNeeds : uint8_t { Nothing, Cuda, TorchPeer, NativeRt };
// Which draw of a campaign case decides whether the case runs a check.
enum class CheckDraw : uint8_t {
#define EPSMITH_CHECK_DRAW(NAME, ...) NAME,
#include "fuzz/checks.def"
};
constexpr CheckDraw kAllCheckDraws[] = {
#define EPSMITH_CHECK_DRAW(NAME, ...) CheckDraw::NAME,
#include "fuzz/checks.def"
};
constexpr size_t kCheckDrawCount = std::size(kAllCheckDraws);

struct CheckInfo {
  std::string_view name;  // "D1"
  CheckNeeds needs;
  CheckDraw draw;
  bool runs_elsewhere;  // compares a run in another runtime with eager
  bool needs_eager;     // skipped where the eager run raises
  std::string_view summary;
};
// The rows of checks.def, in DiffCheck order.
inline constexpr CheckInfo kCheckInfo[] = {
#define EPSMITH_CHECK(ID, NEEDS, DRAW, RUNS_ELSEWHERE, NEEDS_EAGER, SUMMARY) \
  {#ID, CheckNeeds::NEEDS, CheckDraw::DRAW, RUNS_ELSEWHERE, NEEDS_EAGER, SUMMARY},
#include "fuzz/checks.def"
};
constexpr const CheckInfo& checkInfo(DiffCheck c) { return kCheckInfo[static_cast<size_t>(c)]; }

struct CheckDrawInfo {
  std::string_view flag;  // "--torch-every"; "" for Every
  int default_every;
  uint64_t salt;
};
const CheckDrawInfo& checkDrawInfo(CheckDraw d);
// `--FLAG`'s help: "run D5,D7,D8 on one case in N, drawn from its seed".
std::string checkDrawHelp(CheckDraw d);

// Every check, as --checks takes them: "D1,D2,...,D9".
std::string allDiffCheckNames();
// `--checks`' help, naming the checks and what the ones with needs need.
std::string checksHelp();
// Whether a check asks the torch peer.
constexpr bool asksTorch(DiffCheck c) { return checkInfo(c).needs == CheckNeeds::TorchPeer; }
std::string_view diffCheckName(DiffCheck c);  // "D1"
std::optional<DiffCheck> diffCheckFromName(std::string_view name);
// "D1,D2,D6" → the checks, in the order given; fails for an unknown name or none.
Expected<std::vector<DiffCheck>> parseDiffChecks(std::string_view list);
// Why `c` cannot run here (no CUDA, no torch peer, no NativeRT); nullopt when it can. A
// campaign's parent starts the zygote its workers' peers come from (`for_workers`); anyone
// else starts a peer of its own.
std::optional<std::string> checkUnavailable(DiffCheck c, bool for_workers = false);

// A check's result. A finding is a record whose fields every stage carries unchanged (the
// worker's reply, the minimizer's "still fails", buckets, case files, replay): keys and
// re-runs are computed from the fields, never read back out of the report.
struct CheckOutcome {
  enum class Status : uint8_t { Pass, Finding, Skipped };
  DiffCheck check = DiffCheck::D1;
  Status status = Status::Pass;
  std::string kind;     // a finding's kind: a verdict kind, "invalid-functional-program", ...
  std::string where;    // "output 1", "%add_", "input buffer:calls"
  std::string report;   // for people; for a skip, the reason
  std::string op;       // an exception's raising op ("aten::logical_not_"); "" otherwise
  std::string variant;  // the check's variant that found it: D4's form ("text", "json"), D6's check id
  // What went wrong in one line, for keying (Note [Root causes]): an exception's message,
  // the mismatch and its dtype, the violation's check id; "" where the kind says it all.
  std::string message;
  // A mismatch: the core ops its differing value depends on (Note [The slice of a mismatch]).
  std::vector<std::string> slice;
};

// A finding with none of its fields filled: where a record that keeps one starts.
inline CheckOutcome blankFinding() {
  CheckOutcome o;
  o.status = CheckOutcome::Status::Finding;
  return o;
}

// The first finding among `outcomes`, in check order; null when every check passed or
// skipped.
const CheckOutcome* firstFinding(const std::vector<CheckOutcome>& outcomes);

// What stays the same while a failure is minimized and what buckets it: the check, the
// finding's kind and, for exceptions, the op that raised ("D2 exception-in-one aten::logical_not_").
std::string failureSignature(const CheckOutcome& o);

enum class RoundTripForm : uint8_t { Text, Json, Pt2 };
// What D9 hands the runtime: the program itself, or its functionalized ATEN form.
enum class NativeForm : uint8_t { Training, Aten };
std::string_view nativeFormName(NativeForm f);  // "training", "aten"

class ArchiveRuntime;

struct CheckOptions {
  uint64_t case_seed = 1;  // D6 draws the place of each corruption from it
  // D4 round-trips only this form; unset: text, then JSON
  // (Note [Round trips drawn per case]).
  std::optional<RoundTripForm> round_trip;
  // D6 tries at most this many corruptions with a place, in an order drawn from
  // case_seed; 0: every one, in check-id order (Note [Corruptions drawn per case]).
  int corruptions_per_case = 0;
  // D7 asks torch about at most this many of them (each a torch.export.load); 0: as many
  // as D6 tries (Note [Torch checks sampled]).
  int torch_corruptions_per_case = 0;
  // D6 (and D7) try only the corruption for this verifier check.
  std::optional<CheckId> corruption;
  // D9 hands the runtime only this form; unset: one drawn from case_seed.
  std::optional<NativeForm> native_form;
  // D9's runtime; null: NativeRT where this LibTorch has it (tests hand in their own).
  ArchiveRuntime* archive_runtime = nullptr;
  PhaseTimes* times = nullptr;  // when set, each phase's time is added to it
  Device device;                // where D1, D2 and D4 run (D3 compares CPU with CUDA)
  // A campaign's case: D2 skips a known bug's trigger that no program escapes
  // (Note [Meta kernels only Python registers]); `check` and replay show the finding.
  bool skip_known_triggers = false;
  // D7 also saves and loads the program across two installed releases, where a second one
  // is (Note [Save and load across releases]): a campaign's drawn cases and re-runs of such
  // a finding.
  bool across_releases = false;
};

// The form a campaign case round-trips in D4, drawn from its seed.
RoundTripForm drawnRoundTrip(uint64_t case_seed);
// Whether a campaign case runs the checks of draw `d`: one case in `every` (1: each), drawn
// from its seed apart from the other draws (Note [Round trips sampled], Note [Torch checks sampled],
// Note [D9 sampled]).
bool drawnFor(CheckDraw d, uint64_t case_seed, int every);
// Whether a campaign case that asks torch also saves and loads across releases: one in
// `every` of them, drawn from its seed (Note [Save and load across releases]).
bool drawnForAcrossReleases(uint64_t case_seed, int every);

// Options that re-run only the variant of a check a finding came from, where it has one:
// D4's form, D6's corruption (its place drawn afresh); default options otherwise
// (Note [Re-runs focus on the finding]). The second form reads the variant from a signature.
CheckOptions focusedOn(const CheckOutcome& finding);

// Runs `checks` on `p`. A program that does not verify in its own dialect cannot be checked:
// every check asked for reports a finding of kind "invalid-program" with the first
// diagnostic. Never throws for a program that loads.
std::vector<CheckOutcome> runChecks(const ExportedProgram& p, const std::vector<DiffCheck>& checks,
                                    const CheckOptions& options = {});

}  // namespace epsmith
