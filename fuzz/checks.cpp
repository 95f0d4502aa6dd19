// The differential checks; see checks.h.
#include "fuzz/checks.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "fuzz/aliases.h"
#include "fuzz/check_steps.h"
#include "fuzz/root_cause.h"
#include "generators/random_source.h"
#include "oracle/aten_bridge.h"
#include "oracle/breadcrumb.h"
#include "oracle/interpreter.h"
#include "ops/op_registry.h"
#include "oracle/libtorch_compat.h"
#include "oracle/nativert.h"
#include "oracle/run.h"
#include "oracle/torch_peer.h"
#include "verifier/verifier.h"

namespace epsmith {

namespace check_detail {

CheckOutcome pass(DiffCheck c) { return {c, Status::Pass, "", "", "", "", "", "", {}}; }
CheckOutcome skip(DiffCheck c, std::string why) { return {c, Status::Skipped, "", "", std::move(why), "", "", "", {}}; }
CheckOutcome finding(DiffCheck c, std::string kind, std::string where, std::string report, std::string variant) {
  return {c, Status::Finding, std::move(kind), std::move(where), std::move(report), "", std::move(variant), "", {}};
}

CheckOutcome fromVerdict(DiffCheck c, const Verdict& v) {
  if (v.match()) return pass(c);
  CheckOutcome o = finding(c, std::string(verdictKindName(v.kind)), v.where, v.report);
  o.op = v.op;
  o.message = v.message;
  return o;
}

RunResult run(const ExportedProgram& p, const RunOptions& options, PhaseTimes* times) {
  PhaseClock clock(times, Phase::Execute);
  return runProgram(p, options);
}

CompareOptions atComputedPrecision(const ExportedProgram& p) {
  CompareOptions options;
  options.computed_in = [&p](const std::string& where) { return computedIn(p, where); };
  return options;
}

CheckOutcome compare(DiffCheck c, const RunResult& expected, const RunResult& actual, PhaseTimes* times,
                     const CompareOptions& options) {
  PhaseClock clock(times, Phase::Compare);
  return fromVerdict(c, compareResults(expected, actual, options));
}

RunOptions runOf(RunMode mode, const Device& device, const Interpreter* plan) {
  RunOptions options(mode, device);
  options.plan = plan;
  return options;
}

// `message` with each word that names a node of `p` as "NODE": torch's messages name the
// nodes they met ("Output getitem_3 does not exist in the graph."), and a root cause's
// template keeps words (Note [Root causes]), so without this one bug would file a bucket
// per node name. A word that is also the name of an op `p` calls stays: it may be the op
// ("aten.geqrf.default"), which the template must keep.
std::string withoutNodeNames(const std::string& message, const ExportedProgram& p) {
  std::set<std::string, std::less<>> ops;
  for (const Node& n : p.graph().nodes()) {
    if (n.target.kind() != Target::Kind::Aten || !n.target.op()) continue;
    const std::string& q = n.target.op()->qualified_name;
    ops.insert(q.substr(q.find("::") + 2));
  }
  std::string out;
  for (size_t i = 0; i < message.size();) {
    const auto word = [&](size_t j) {
      return std::isalnum(static_cast<unsigned char>(message[j])) || message[j] == '_';
    };
    if (!word(i)) {
      out += message[i++];
      continue;
    }
    size_t end = i;
    while (end < message.size() && word(end)) ++end;
    const std::string w = message.substr(i, end - i);
    const bool named = i > 0 && message[i - 1] == '%';  // "%logit_" is a node, though logit_ is an op too
    const Node* n = p.graph().find(w);
    out += n && !n->isOutput() && (named || !ops.count(w)) ? "NODE" : w;  // "output" is a word too
    i = end;
  }
  return out;
}

}  // namespace check_detail

using namespace check_detail;

namespace {

constexpr CheckDrawInfo kCheckDrawInfo[] = {
#define EPSMITH_CHECK_DRAW(NAME, FLAG, DEFAULT_EVERY, SALT) {FLAG, DEFAULT_EVERY, SALT},
#include "fuzz/checks.def"
};
using CheckRun = CheckOutcome (*)(CheckContext&);
constexpr CheckRun kCheckRuns[] = {
#define EPSMITH_CHECK(ID, ...) &run##ID,
#include "fuzz/checks.def"
};
using CheckFocus = void (*)(const CheckOutcome&, CheckOptions&);
constexpr CheckFocus kCheckFocus[] = {
#define EPSMITH_CHECK(ID, ...) &focus##ID,
#include "fuzz/checks.def"
};

// "D5,D7,D8": the checks `keep` picks, in table order.
template <typename Keep>
std::string namesOf(Keep keep) {
  std::string out;
  for (DiffCheck c : kAllDiffChecks) {
    if (keep(checkInfo(c))) out += (out.empty() ? "" : ",") + std::string(diffCheckName(c));
  }
  return out;
}

}  // namespace

const CheckOutcome* firstFinding(const std::vector<CheckOutcome>& outcomes) {
  for (const auto& o : outcomes) {
    if (o.status == CheckOutcome::Status::Finding) return &o;
  }
  return nullptr;
}

std::string failureSignature(const CheckOutcome& o) {
  std::string signature = std::string(diffCheckName(o.check)) + " " + o.kind;
  return o.op.empty() ? signature : signature + " " + o.op;
}

RoundTripForm drawnRoundTrip(uint64_t case_seed) {
  SeededSource random(case_seed ^ 0xd4d4d4d4d4d4d4d4ULL);  // a stream of its own: D6 draws from the seed itself
  return kRoundTripForms[random.below(std::size(kRoundTripForms))];
}

// Note [Round trips sampled]
// D4 is epsmith's own check on its formats, and a campaign's cases are all made by one
// generator through one printer and two readers: run on every case it was a fifth of a
// case's time, and no campaign has filed a D4 bucket (the formats' bugs were found by
// the property tests over random programs, which run it on everything). So a campaign
// case runs it on one case in `--round-trip-every` (8 by default), drawn from its seed;
// over a campaign each form still goes round thousands of programs a minute. `epsmith
// check`, minimization and replay run it whenever asked.
namespace {

// One case in `every`, drawn from its seed apart from the other draws (`salt`).
bool drawnOneIn(uint64_t case_seed, int every, uint64_t salt) {
  if (every <= 1) return true;
  SeededSource random(case_seed ^ salt);
  return random.below(static_cast<uint64_t>(every)) == 0;
}

}  // namespace

// Note [Torch checks sampled]
// D5, D7 and D8 ask PyTorch itself, in the torch peer (oracle/torch_peer.h), and a question
// costs what Python costs: ~0.2 s for a flat 16-op program (run_decompositions({})
// ~170 ms, torch.export.load ~15 ms for the program and as much for each corruption D7
// asks about, two ep.module() runs ~15 ms; 2.13, with the peer's
// Note [Peer shortcuts that change no answer]) and ~1 s on average for the default
// programs, with regions, conds, maps and module call graphs, against ~1.5 ms for the
// rest of a case; and a finding of theirs is minimized by such questions. So a campaign
// case asks on one case in `--torch-every` (2000 by default, drawn from its seed apart
// from the other draws), and D7 asks about the first of the corruptions D6 tries, not all
// four: a default campaign then spends about a fifth of its time asking
// (docs/fuzzing.md, "Throughput"), while an 8-hour night still asks torch about some
// 7 000 programs per core. `epsmith check`, minimization and replay ask whenever the checks are named,
// `epsmith check` about every corruption.

// Note [D9 sampled]
// D9 writes the case's .pt2 to a file and has NativeRT load it (ModelRunnerHandle takes a
// path, then parses, places and plans the graph on every load), a cost no build at hand
// could measure (Note [Where NativeRT is]); so a campaign case runs it on one case in
// `--nativert-every` (10 by default), drawn from its seed, apart from the other draws.
// `epsmith check`, minimization and replay run it whenever it is named.
bool drawnFor(CheckDraw d, uint64_t case_seed, int every) {
  return d == CheckDraw::Every || drawnOneIn(case_seed, every, checkDrawInfo(d).salt);
}

bool drawnForAcrossReleases(uint64_t case_seed, int every) {
  return drawnOneIn(case_seed, every, 0x7a7a7a7a7a7a7a7aULL);
}

// Note [Re-runs focus on the finding]
// A campaign case tries one of D4's forms and a few of D6's corruptions
// (Note [Round trips drawn per case], Note [Corruptions drawn per case]). Were minimization
// and replay to try all of them, a program on which an untried one fails too would show
// that one first: its finding would look flaky to the campaign, and "changed" to replay,
// though nothing about it changed. So a finding records the variant that found it (D4's
// form, D6's check id) and the re-runs try that one alone. The corruption's place in the
// program is drawn afresh (from the default seed, and the program being minimized is
// another), so a verifier bug that shows only at some places may still not come back.
// Findings with no variant (an exception escaping the check, a worker's death) re-run all.
CheckOptions focusedOn(const CheckOutcome& finding) {
  CheckOptions options;
  kCheckFocus[static_cast<size_t>(finding.check)](finding, options);
  return options;
}

const CheckDrawInfo& checkDrawInfo(CheckDraw d) { return kCheckDrawInfo[static_cast<size_t>(d)]; }

std::string checkDrawHelp(CheckDraw d) {
  return "run " + namesOf([d](const CheckInfo& i) { return i.draw == d; }) + " on one case in N, drawn from its seed";
}

std::string checksHelp() {
  const std::string all =
      std::string(diffCheckName(kAllDiffChecks[0])) + "-" + std::string(diffCheckName(std::end(kAllDiffChecks)[-1]));
  const auto needing = [](CheckNeeds n) { return namesOf([n](const CheckInfo& i) { return i.needs == n; }); };
  return "comma-separated subset of " + all + " (" + needing(CheckNeeds::TorchPeer) + " ask PyTorch; " +
         needing(CheckNeeds::NativeRt) + " runs NativeRT; " + needing(CheckNeeds::Cuda) +
         " needs CUDA: docs/design.md)";
}

std::optional<std::string> checkUnavailable(DiffCheck c, bool for_workers) {
  switch (checkInfo(c).needs) {
    case CheckNeeds::Nothing: return std::nullopt;
    case CheckNeeds::Cuda:
      if (cudaAvailable()) return std::nullopt;
      return std::string("CUDA is not available in this LibTorch build or machine");
    case CheckNeeds::TorchPeer: {
      auto why = for_workers ? startTorchZygote() : torchPeerUnavailable();
      if (!why) return std::nullopt;
      return "no torch peer: " + *why;
    }
    case CheckNeeds::NativeRt: {
      std::string why;
      if (nativeRuntime(&why)) return std::nullopt;
      return why;
    }
  }
  return std::nullopt;
}

std::string_view diffCheckName(DiffCheck c) { return checkInfo(c).name; }

std::string allDiffCheckNames() {
  std::string out;
  for (DiffCheck c : kAllDiffChecks) out += (out.empty() ? "" : ",") + std::string(diffCheckName(c));
  return out;
}

std::string_view nativeFormName(NativeForm f) { return f == NativeForm::Training ? "training" : "aten"; }

std::optional<DiffCheck> diffCheckFromName(std::string_view name) {
  for (DiffCheck c : kAllDiffChecks) {
    if (diffCheckName(c) == name) return c;
  }
  return std::nullopt;
}

Expected<std::vector<DiffCheck>> parseDiffChecks(std::string_view list) {
  std::vector<DiffCheck> out;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    auto c = diffCheckFromName(name);
    if (!c) {
      return Diagnostic{"", "unknown check '" + std::string(name) + "' (" +
                                std::string(diffCheckName(kAllDiffChecks[0])) + " to " +
                                std::string(diffCheckName(std::end(kAllDiffChecks)[-1])) + ")"};
    }
    out.push_back(*c);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  if (out.empty()) return Diagnostic{"", "no check named"};
  return out;
}

namespace {

// The oracle turns an op's exceptions into results; one that escapes anyway (LibTorch
// handing back a tensor whose data cannot be read, say) is a finding about the check.
CheckOutcome runOne(DiffCheck c, CheckContext& context) {
  try {
    return kCheckRuns[static_cast<size_t>(c)](context);
  } catch (const std::exception& e) {
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    CheckOutcome o = finding(c, "escaped-exception", "", "an exception escaped the check: " + what);
    o.message = what;
    return o;
  }
}

}  // namespace

std::vector<CheckOutcome> runChecks(const ExportedProgram& p, const std::vector<DiffCheck>& checks,
                                    const CheckOptions& options) {
  // LibTorch's deprecation warnings (out= resizes, say) are about the program, not findings.
  compat::WarningHandlerGuard quiet(silentWarningHandler());
  std::vector<CheckOutcome> out;
  PhaseTimes* times = options.times;
  notePhase("verify");
  std::vector<Violation> diagnostics;
  {
    PhaseClock clock(times, Phase::Verify);
    diagnostics = verify(p);
  }
  if (!diagnostics.empty()) {
    for (DiffCheck c : checks) {
      out.push_back(finding(c, "invalid-program", diagnostics.front().where,
                            "the program does not verify in its dialect: " + diagnostics.front().str()));
    }
    return out;
  }
  notePhase("eager");
  // The eager run, D2 and D3 run `p` itself: one plan serves them all when it can
  // (Note [One plan for the runs of a program]); a graph that cannot be planned is left to each
  // run, which reports why.
  std::optional<Interpreter> plan;
  {
    PhaseClock clock(times, Phase::Execute);
    try {
      plan.emplace(p.graph());
      if (!plan->servesManyRuns()) plan.reset();
    } catch (const std::exception&) {
      plan.reset();
    }
  }
  const Interpreter* shared = plan ? &*plan : nullptr;
  const RunResult eager = run(p, runOf(RunMode::Eager, options.device, shared), times);
  const auto runs_elsewhere = [](DiffCheck c) { return checkInfo(c).runs_elsewhere; };
  const bool compares_runs = std::any_of(checks.begin(), checks.end(), runs_elsewhere);
  const std::optional<std::string> undefined = compares_runs ? writeEagerLeavesUndefined(p) : std::nullopt;
  CheckContext context{p, eager, options, shared, checks, std::nullopt};
  for (DiffCheck c : checks) {
    notePhase(diffCheckName(c));
    if (!eager.ok() && checkInfo(c).needs_eager) {
      out.push_back(skip(c, "the program raises eagerly on its example inputs: " + eager.error->str()));
      continue;
    }
    out.push_back(runOne(c, context));
    CheckOutcome& last = out.back();
    // Note [Writes eager leaves undefined]: the runs are made so that a crash counts, and
    // what they differ in is no finding.
    if (last.status == Status::Finding && undefined && runs_elsewhere(c)) {
      last = skip(c, *undefined);
    } else if (last.status == Status::Finding && isMismatchKind(last.kind)) {
      last.slice = sliceOps(p, last.where);
    }
  }
  return out;
}

}  // namespace epsmith
