// The differential checks of docs/design.md on one program, as the campaign and `epsmith check`
// run them:
//   D1 eager(original) vs the native functionalizer's ATEN program (exported convention)
//   D2 eager(original) vs LibTorch's own functionalization of the original
//   D3 the program on CPU vs on CUDA (skipped, with the reason, without CUDA)
//   D4 the program vs its text and JSON round trips (read back structurally equal,
//      ir/program_diff.h; the form read back last, run, gives the same results; a campaign
//      case round-trips one form, drawn from its seed; elsewhere both, or the one a
//      finding names)
//   D5 epsmith's exported run vs PyTorch's ep.module() (the torch peer, oracle/torch_peer.h)
//   D6 each corruption tried that has a place in the program is reported first with its
//      check id (a campaign case tries a few, drawn from its seed; elsewhere all of them,
//      or the one a finding names)
//   D7 torch.export.load (torch's deserializer and verifier) accepts the program, and
//      rejects the corruptions of it that epsmith's verifier rejects (tried as D6 tries them)
//   D8 eager(original) vs PyTorch's ep.run_decompositions({}) run by ep.module(), and its
//      signature vs the native functionalizer's where both exist
//   D9 eager(original) vs NativeRT (oracle/nativert.h) running the program's .pt2, the
//      TRAINING form or the functionalized ATEN one (Note [What D9 hands NativeRT])
// D5, D7 and D8 are skipped, with the reason, where no torch peer can be started; D9 where
// the LibTorch has no NativeRT (Note [Where NativeRT is]).
// Each check passes, finds something (a kind, stable for bucketing, and a readable report)
// or is skipped with the reason (a functionalizer refusal is export's own refusal, not a
// disagreement).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/phases.h"
#include "ir/diagnostic.h"
#include "ir/program.h"
#include "verifier/check_ids.h"

namespace epsmith {

enum class DiffCheck : uint8_t { D1, D2, D3, D4, D5, D6, D7, D8, D9 };
constexpr DiffCheck kAllDiffChecks[] = {DiffCheck::D1, DiffCheck::D2, DiffCheck::D3, DiffCheck::D4, DiffCheck::D5,
                                        DiffCheck::D6, DiffCheck::D7, DiffCheck::D8, DiffCheck::D9};
// Every check, as --checks takes them: "D1,D2,...,D9".
std::string allDiffCheckNames();
// The checks that ask the torch peer.
constexpr bool asksTorch(DiffCheck c) { return c == DiffCheck::D5 || c == DiffCheck::D7 || c == DiffCheck::D8; }
std::string_view diffCheckName(DiffCheck c);  // "D1"
std::optional<DiffCheck> diffCheckFromName(std::string_view name);
// "D1,D2,D6" → the checks, in the order given; fails for an unknown name or none.
Expected<std::vector<DiffCheck>> parseDiffChecks(std::string_view list);

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

// The first finding among `outcomes`, in check order; null when every check passed or
// skipped.
const CheckOutcome* firstFinding(const std::vector<CheckOutcome>& outcomes);

// What stays the same while a failure is minimized and what buckets it: the check, the
// finding's kind and, for exceptions, the op that raised ("D2 exception-in-one aten::logical_not_").
std::string failureSignature(const CheckOutcome& o);
// The fields a stored signature names (check, kind, op, variant), for case files written
// before they kept the fields themselves; nullopt when it names no check of ours.
std::optional<CheckOutcome> findingFromSignature(std::string_view signature);

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
  PhaseTimes* times = nullptr;   // when set, each phase's time is added to it
  Device device;                 // where D1, D2 and D4 run (D3 compares CPU with CUDA)
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
// Whether a campaign case runs D4 at all: one case in `every` (1: each), drawn from its
// seed (Note [Round trips sampled]).
bool drawnForRoundTrip(uint64_t case_seed, int every);
// Whether a campaign case asks the torch peer (D5, D7, D8): one in `every`, drawn from its
// seed (Note [Torch checks sampled]).
bool drawnForTorch(uint64_t case_seed, int every);
// Whether a campaign case runs D9: one in `every`, drawn from its seed (Note [D9 sampled]).
bool drawnForNativeRt(uint64_t case_seed, int every);
// Whether a campaign case that asks torch also saves and loads across releases: one in
// `every` of them, drawn from its seed (Note [Save and load across releases]).
bool drawnForAcrossReleases(uint64_t case_seed, int every);

// Options that re-run only the variant of a check a finding came from, where it has one:
// D4's form, D6's corruption (its place drawn afresh); default options otherwise
// (Note [Re-runs focus on the finding]). The second form reads the variant from a signature.
CheckOptions focusedOn(const CheckOutcome& finding);
CheckOptions focusedOn(std::string_view signature);

// Runs `checks` on `p`. A program that does not verify in its own dialect cannot be checked:
// every check asked for reports a finding of kind "invalid-program" with the first
// diagnostic. Never throws for a program that loads.
std::vector<CheckOutcome> runChecks(const ExportedProgram& p, const std::vector<DiffCheck>& checks,
                                    const CheckOptions& options = {});

}  // namespace epsmith
