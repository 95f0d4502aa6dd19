// The differential checks; see checks.h.
#include "fuzz/checks.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <variant>

#include "formats/json_format.h"
#include "fuzz/aliases.h"
#include "fuzz/check_steps.h"
#include "fuzz/nativert_check.h"
#include "fuzz/root_cause.h"
#include "fuzz/torch_checks.h"
#include "formats/text_format.h"
#include "functionalizer/functionalize.h"
#include "generators/corruptions.h"
#include "generators/random_source.h"
#include "ir/program_diff.h"
#include "ops/meta_kernels.h"
#include "ops/op_registry.h"
#include "oracle/aten_bridge.h"
#include "oracle/breadcrumb.h"
#include "oracle/compare.h"
#include "oracle/interpreter.h"
#include "oracle/libtorch_compat.h"
#include "oracle/nativert.h"
#include "oracle/pt2_archive.h"
#include "oracle/run.h"
#include "oracle/torch_schema.h"
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

namespace {

// D1 and D2 compare a program's values with another computation of them
// (Note [Values compared at the precision they were computed in]).
CompareOptions atComputedPrecision(const ExportedProgram& p) {
  CompareOptions options;
  options.computed_in = [&p](const std::string& where) { return computedIn(p, where); };
  return options;
}

}  // namespace

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
    const auto word = [&](size_t j) { return std::isalnum(static_cast<unsigned char>(message[j])) || message[j] == '_'; };
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

namespace {

using namespace check_detail;

CheckOutcome d1(const ExportedProgram& p, const RunResult& eager, const Device& device, PhaseTimes* times) {
  std::optional<Expected<ExportedProgram>> f;
  {
    PhaseClock clock(times, Phase::Functionalize);
    FunctionalizeOptions options;
    // runChecks verified it in its own dialect before any check ran.
    options.verified_as_training = p.verifiers.size() == 1 && p.verifiers[0] == "TRAINING";
    f = functionalize(p, options);
  }
  if (!f->ok()) return skip(DiffCheck::D1, "the functionalizer refuses it: " + f->error().str());
  std::vector<Violation> diagnostics;
  {
    PhaseClock clock(times, Phase::Verify);
    diagnostics = verify(f->value(), *findDialect("ATEN"));
  }
  if (!diagnostics.empty()) {
    CheckOutcome o = finding(DiffCheck::D1, "invalid-functional-program", diagnostics.front().where,
                             "the functionalized program does not verify as ATEN: " + diagnostics.front().str());
    o.message = std::string(checkIdName(diagnostics.front().check));
    return o;
  }
  return compare(DiffCheck::D1, eager, run(f->value(), RunOptions(RunMode::Exported, device), times), times,
                 atComputedPrecision(p));
}

// Note [Meta kernels only Python registers]
// LibTorch's C++ functionalization runs a mutable op's meta kernel before its functional
// form, and PyTorch registers some meta kernels only from Python (on 2.13: abs.out, the
// logical_* outs, nan_to_num.out, floor_divide.out, mvlgamma.out), which a process without
// Python lacks, so D2 raises at every program that calls one or a form that runs one
// (floor_divide_ runs floor_divide.out's). That is pytorch#105105, and it was a fifth of a
// default campaign's cases; torch.func.functionalize, which has Python, never meets it.
// In a campaign's cases D2 therefore skips such a run, and the campaign counts it under the
// skip's reason rather than as a finding: only where the message says so about an op that
// this process's dispatcher really holds no meta or composite kernel for (runsOnMetaHere), so
// that the same words about any other op stay a finding. `epsmith check` and replay still
// show the finding, so the corpus's cases of it keep reproducing while the bug exists.
std::optional<std::string> needsAMetaKernelOnlyPythonHas(const CheckOutcome& o) {
  // Every D2 exception of a campaign comes here: a plain search, then the name before it.
  constexpr std::string_view kNoMeta = ": attempted to run this operator with Meta tensors";
  if (o.status != Status::Finding || o.kind != "exception-in-one") return std::nullopt;
  const size_t at = o.report.find(kNoMeta);
  if (at == std::string::npos) return std::nullopt;
  size_t begin = at;
  while (begin > 0 && (std::isalnum(static_cast<unsigned char>(o.report[begin - 1])) ||
                       std::string_view("_.:").find(o.report[begin - 1]) != std::string_view::npos)) {
    --begin;
  }
  const std::string name = o.report.substr(begin, at - begin);  // "aten::floor_divide.out"
  const OpInfo* op = findOpByName(name);
  if (!op || runsOnMetaHere(*op)) return std::nullopt;
  return "LibTorch's C++ functionalization needs " + name +
         "'s meta kernel, which only Python registers (pytorch#105105; Note [Meta kernels only Python registers])";
}

CheckOutcome d2(const ExportedProgram& p, const RunResult& eager, const CheckOptions& options, const Interpreter* plan) {
  CheckOutcome o = compare(DiffCheck::D2, eager,
                           run(p, runOf(RunMode::LibTorchFunctionalize, options.device, plan), options.times),
                           options.times, atComputedPrecision(p));
  if (!options.skip_known_triggers) return o;
  if (auto why = needsAMetaKernelOnlyPythonHas(o)) return skip(DiffCheck::D2, *why);
  return o;
}

// Note [Results a device may choose]
// Some ops leave part of their result to the kernel, and CPU and CUDA kernels choose apart:
// the order of equal elements after an unstable sort and the index a tie reports (sort,
// topk, max.dim, ...), which write lands where indices repeat (scatter, index_put_, put_).
// D3 would report the choice, not a bug (a first D3 campaign on an H200 with LibTorch 2.11
// filed 960 such value mismatches, nearly all from sort's ties). tensor_split takes its
// indices as a CPU tensor, which a program moved to CUDA does not have. D3 skips a program
// calling any of these, naming the call. Written from the schemas' documentation; the
// schemas cannot say it.
struct DeviceChoice {
  std::string_view name;      // qualified name
  std::string_view overload;  // "*": every overload
  std::string_view why;
};
constexpr std::string_view kTies = "reports one of several equal elements as its kernel finds it";
constexpr std::string_view kRepeats = "lets one of several writes to a repeated index win, as its kernel orders them";
constexpr DeviceChoice kDeviceChoices[] = {
    {"aten::sort", "*", kTies},        {"aten::argsort", "*", kTies},     {"aten::msort", "*", kTies},
    {"aten::topk", "*", kTies},        {"aten::kthvalue", "*", kTies},    {"aten::median", "dim", kTies},
    {"aten::median", "dim_values", kTies}, {"aten::nanmedian", "dim", kTies},
    {"aten::nanmedian", "dim_values", kTies}, {"aten::mode", "*", kTies}, {"aten::max", "dim", kTies},
    {"aten::max", "dim_max", kTies},   {"aten::min", "dim", kTies},       {"aten::min", "dim_min", kTies},
    {"aten::argmax", "*", kTies},      {"aten::argmin", "*", kTies},      {"aten::cummax", "*", kTies},
    {"aten::cummin", "*", kTies},      {"aten::scatter", "*", kRepeats},  {"aten::scatter_", "*", kRepeats},
    {"aten::index_put", "*", kRepeats}, {"aten::index_put_", "*", kRepeats}, {"aten::_index_put_impl_", "*", kRepeats},
    {"aten::put", "*", kRepeats},      {"aten::put_", "*", kRepeats},     {"aten::index_copy", "*", kRepeats},
    {"aten::index_copy_", "*", kRepeats},
    {"aten::tensor_split", "tensor_indices_or_sections", "takes its indices as a CPU tensor"},
};

// The first call of `g` whose result a device may choose, with why; nullopt when none does.
std::optional<std::string> deviceChoice(const Graph& g) {
  for (const Node& n : g.nodes()) {
    const OpInfo* op = n.op() == OpKind::CallFunction ? n.target.op() : nullptr;
    if (!op) continue;
    for (const DeviceChoice& c : kDeviceChoices) {
      if (c.name == op->qualified_name && (c.overload == "*" || c.overload == op->overload)) {
        return "%" + n.name() + ": " + op->name() + " " + std::string(c.why);
      }
    }
  }
  return std::nullopt;
}

CheckOutcome d3(const ExportedProgram& p, const Interpreter* plan, PhaseTimes* times) {
  if (auto choice = deviceChoice(p.graph())) {
    return skip(DiffCheck::D3, *choice + ", which CPU and CUDA choose apart (Note [Results a device may choose])");
  }
  if (!cudaAvailable()) return skip(DiffCheck::D3, "CUDA is not available in this LibTorch build or machine");
  RunResult cpu = run(p, runOf(RunMode::Exported, Device(), plan), times);
  Device cuda_device;
  cuda_device.type = "cuda";
  // The CUDA run plans the program for the GPU (Note [Programs moved to a device]).
  RunResult cuda = run(p, runOf(RunMode::Exported, cuda_device, plan), times);
  CompareOptions options;
  options.same_node_raising_agrees = true;
  return compare(DiffCheck::D3, cpu, cuda, times, options);
}

// Note [Round trips drawn per case]
// D4 keeps the harness honest: written in the text form, the JSON form or a .pt2 archive
// and read back, a program must be itself again, and run the same. Both round trips together cost a third
// of a whole case (printing, parsing, writing and reading a program is far more work than
// running its 16 ops), and whether a form gives a program back depends on what the program
// holds, not on which other form was tried first. So, as with D6's corruptions
// (Note [Corruptions drawn per case]), a campaign case round-trips one form, drawn from its
// seed, and runs what it read back; over a campaign each form still goes round thousands
// of programs a minute. `epsmith check` tries all three, text first, and runs the last;
// minimization and replay try the form the finding names
// (Note [Re-runs focus on the finding]): every D4 kind names its form, a program read back equal that runs
// differently too.
using Form = RoundTripForm;

std::string_view formName(Form f) { return f == Form::Text ? "text" : f == Form::Json ? "JSON" : ".pt2"; }
// A D4 finding's variant, and its kind's first word: "text-unreadable", "json-round-trip-differs".
std::string_view variantName(Form f) { return f == Form::Text ? "text" : f == Form::Json ? "json" : "pt2"; }
constexpr Form kForms[] = {Form::Text, Form::Json, Form::Pt2};

std::string kindPrefix(Form f) { return std::string(variantName(f)) + "-"; }

// A D4 finding where LibTorch's generated serialization types read the program's JSON
// otherwise than epsmith wrote it (Note [Schema conformance in C++]). Asked in the JSON
// form's round trip only: a question costs ~0.4 ms for a 16-op program, a third of a case.
std::optional<CheckOutcome> conformsToTorchSchema(const ExportedProgram& p) {
  if (!torchSchemaTypesAvailable()) return std::nullopt;
  auto json = exportedProgramJson(p);
  if (!json.ok()) return std::nullopt;  // the forms' own round trips say why
  auto d = torchSchemaDisagreement(json.value());
  if (!d) return std::nullopt;
  CheckOutcome o = finding(DiffCheck::D4, "schema-nonconforming", "",
                           "LibTorch's generated serialization types read the JSON otherwise: " + *d,
                           std::string(variantName(Form::Json)));
  o.message = d->substr(0, d->find(':'));
  return o;
}

// `p` written in `form` and read back, or the D4 finding that says why it is not `p` again
// (structurally: ir/program_diff.h), or nothing where the form cannot hold `p`.
std::variant<ExportedProgram, CheckOutcome, std::monostate> readBack(Form form, const ExportedProgram& p) {
  const std::string prefix = kindPrefix(form), variant(variantName(form));
  std::optional<Expected<ExportedProgram>> back;
  if (form == Form::Text) {
    back.emplace(parseProgramText(printProgramText(p)));
  } else if (form == Form::Pt2) {
    auto archive = writeProgramPt2(p);
    if (!archive.ok()) {
      if (pt2CannotHold(p)) return std::monostate{};  // docs/pt2-format.md: the form is skipped
      return finding(DiffCheck::D4, "pt2-unwritable", "", archive.error().str(), variant);
    }
    back.emplace(readProgramPt2(archive.value()));
  } else {
    auto json = writeProgramJson(p, JsonLayout::Compact);  // the indented layout only adds spaces
    if (!json.ok()) return finding(DiffCheck::D4, "json-unwritable", "", json.error().str(), variant);
    if (auto d = conformsToTorchSchema(p)) return std::move(*d);
    back.emplace(readProgramJson(json.value()));
  }
  if (!back->ok()) return finding(DiffCheck::D4, prefix + "unreadable", "", back->error().str(), variant);
  if (auto d = programDiff(p, back->value()); !d.empty()) {
    return finding(DiffCheck::D4, prefix + "round-trip-differs", "",
                   "the " + std::string(formName(form)) + " form read back differs: " + d, variant);
  }
  return std::move(back->value());
}

CheckOutcome d4(const ExportedProgram& p, const RunResult& eager, const CheckOptions& options, PhaseTimes* times) {
  std::vector<Form> forms(std::begin(kForms), std::end(kForms));
  if (options.round_trip) forms = {*options.round_trip};
  std::optional<ExportedProgram> back;
  std::vector<Form> read;  // the forms that could hold the program
  {
    PhaseClock clock(times, Phase::Compare);
    for (Form form : forms) {
      auto r = readBack(form, p);
      if (auto* o = std::get_if<CheckOutcome>(&r)) return std::move(*o);
      if (auto* program = std::get_if<ExportedProgram>(&r)) back = std::move(*program), read.push_back(form);
    }
  }
  if (!back) return skip(DiffCheck::D4, "a .pt2 cannot hold this program (docs/pt2-format.md)");
  forms = read;
  const std::string ran(formName(forms.back()));
  CheckOutcome o = compare(DiffCheck::D4, eager, run(*back, RunOptions(RunMode::Eager, options.device), times), times);
  if (o.status == Status::Finding) {
    o.kind = kindPrefix(forms.back()) + "round-trip-runs-differently";
    o.variant = variantName(forms.back());
    o.op.clear();  // an exception in a round trip's run is the round trip's finding
    o.report = "the " + ran + " form read back runs differently: " + o.report;
  } else {
    std::string names;
    for (size_t i = 0; i < forms.size(); ++i) {
      names += std::string(i == 0 ? "" : i + 1 == forms.size() ? " and " : ", ") + std::string(formName(forms[i]));
    }
    o.report = forms.size() == 1 ? "the " + ran + " form read back, run"
                                 : "the " + names + " forms read back, the " + ran + " form run";
  }
  return o;
}

// Note [Corruptions drawn per case]
// A program of 16 ops has a place for about 30 of the corruptions, and each costs a
// verification and an undo (Note [Corruptions undone]): run them all and D6 alone takes
// longer than everything else a case does. The verifier's answer to a corruption depends on the
// program's shape, not on which other corruptions were tried, so a campaign case tries a
// few (`limit`) in an order drawn from its seed, and over a campaign every corruption is
// still applied to thousands of programs. `epsmith check` tries every corruption with a
// place, in check-id order; minimization and replay try the one the finding names
// (Note [Re-runs focus on the finding]).
CheckOutcome d6(const ExportedProgram& p, uint64_t seed, int limit, std::optional<CheckId> only, PhaseTimes* times) {
  PhaseClock clock(times, Phase::Verify);
  std::string tried;  // the check ids, for the pass's report
  std::optional<CheckOutcome> found;
  const int applied = eachCorruption(p, seed, limit, only, [&](const ExportedProgram& work, const Corruption& c) {
    auto diagnostics = verify(work);
    const std::string want(checkIdName(c.check));
    tried += (tried.empty() ? "" : " ") + want;
    if (diagnostics.empty()) {
      found = finding(DiffCheck::D6, "corruption-unreported:" + want, "", std::string(c.what) + ": the verifier accepts it",
                      want);
    } else if (diagnostics.front().check != c.check) {
      found = finding(DiffCheck::D6, "corruption-misreported:" + want, diagnostics.front().where,
                      std::string(c.what) + ": reported first as " + diagnostics.front().str(), want);
    }
    return !found;
  });
  if (found) return std::move(*found);
  if (applied == 0) return skip(DiffCheck::D6, "no corruption has a place in this program");
  CheckOutcome o = pass(DiffCheck::D6);
  o.report = std::to_string(applied) + " corruptions, each reported first with its own check id: " + tried;
  return o;
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

std::optional<CheckOutcome> findingFromSignature(std::string_view signature) {
  const size_t space = signature.find(' ');
  const auto check = diffCheckFromName(signature.substr(0, space));
  if (!check || space == std::string_view::npos) return std::nullopt;
  CheckOutcome o = finding(*check, "", "", "");
  std::string_view rest = signature.substr(space + 1);
  const size_t op_at = rest.find(" aten::");
  o.kind = std::string(rest.substr(0, op_at));
  if (op_at != std::string_view::npos) o.op = std::string(rest.substr(op_at + 1));
  if (*check == DiffCheck::D4) {
    for (Form form : kForms) {
      if (o.kind.rfind(kindPrefix(form), 0) == 0) o.variant = variantName(form);
    }
  }
  if (*check == DiffCheck::D6 || *check == DiffCheck::D7) {
    if (const size_t colon = o.kind.find(':'); colon != std::string::npos) o.variant = o.kind.substr(colon + 1);
  }
  return o;
}

RoundTripForm drawnRoundTrip(uint64_t case_seed) {
  SeededSource random(case_seed ^ 0xd4d4d4d4d4d4d4d4ULL);  // a stream of its own: D6 draws from the seed itself
  return kForms[random.below(std::size(kForms))];
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

bool drawnForRoundTrip(uint64_t case_seed, int every) { return drawnOneIn(case_seed, every, 0x4d4d4d4d4d4d4d4dULL); }

// Note [Torch checks sampled]
// D5, D7 and D8 ask PyTorch itself, in the torch peer (oracle/torch_peer.h), and a question
// costs what Python costs: ~0.2 s for a 16-op program (run_decompositions({}) ~170 ms,
// torch.export.load ~15 ms for the program and as much for each corruption D7 asks about,
// two ep.module() runs ~15 ms; 2.13, the development machine, with the peer's
// Note [Peer shortcuts that change no answer]), against ~0.9 ms for the rest of a case,
// and a finding of theirs is minimized by such questions. So a campaign case asks on one
// case in `--torch-every` (2000 by default, drawn from its seed apart from the other
// draws), and D7 asks about the first of the corruptions D6 tries, not all four: a
// 10-minute default campaign then spends 11% of its time asking and 8% minimizing, and
// runs ~1 000 cases/s, while an 8-hour night still asks torch about some 15 000 programs
// per core. `epsmith check`, minimization and replay ask whenever the checks are named,
// `epsmith check` about every corruption.
bool drawnForTorch(uint64_t case_seed, int every) { return drawnOneIn(case_seed, every, 0x7070707070707070ULL); }

// Note [D9 sampled]
// D9 writes the case's .pt2 to a file and has NativeRT load it (ModelRunnerHandle takes a
// path, then parses, places and plans the graph on every load), a cost no build at hand
// could measure (Note [Where NativeRT is]); so a campaign case runs it on one case in
// `--nativert-every` (10 by default), drawn from its seed, apart from the other draws.
// `epsmith check`, minimization and replay run it whenever it is named.
bool drawnForNativeRt(uint64_t case_seed, int every) { return drawnOneIn(case_seed, every, 0x5252525252525252ULL); }

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
  options.across_releases = finding.check == DiffCheck::D7 && finding.kind.rfind(kAcrossReleases, 0) == 0;
  if (finding.variant.empty()) return options;
  if (finding.check == DiffCheck::D4) {
    for (Form form : kForms) {
      if (finding.variant == variantName(form)) options.round_trip = form;
    }
  }
  if (finding.check == DiffCheck::D6 || finding.check == DiffCheck::D7) options.corruption = checkIdFromName(finding.variant);
  if (finding.check == DiffCheck::D9) {
    for (NativeForm form : {NativeForm::Training, NativeForm::Aten}) {
      if (finding.variant == nativeFormName(form)) options.native_form = form;
    }
  }
  return options;
}

CheckOptions focusedOn(std::string_view signature) {
  const auto finding = findingFromSignature(signature);
  return finding ? focusedOn(*finding) : CheckOptions{};
}

std::string_view diffCheckName(DiffCheck c) {
  switch (c) {
    case DiffCheck::D1: return "D1";
    case DiffCheck::D2: return "D2";
    case DiffCheck::D3: return "D3";
    case DiffCheck::D4: return "D4";
    case DiffCheck::D5: return "D5";
    case DiffCheck::D6: return "D6";
    case DiffCheck::D7: return "D7";
    case DiffCheck::D8: return "D8";
    case DiffCheck::D9: return "D9";
  }
  return "?";
}

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
    if (!c) return Diagnostic{"", "unknown check '" + std::string(name) + "' (D1 to D9)"};
    out.push_back(*c);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  if (out.empty()) return Diagnostic{"", "no check named"};
  return out;
}

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
  std::optional<TorchAnswer> torch;  // asked at the first torch check, for all of them
  const auto runsAnotherWay = [](DiffCheck c) {
    return c == DiffCheck::D2 || c == DiffCheck::D3 || c == DiffCheck::D8 || c == DiffCheck::D9;
  };
  const bool compares_runs = std::any_of(checks.begin(), checks.end(), runsAnotherWay);
  const std::optional<std::string> undefined = compares_runs ? writeEagerLeavesUndefined(p) : std::nullopt;
  for (DiffCheck c : checks) {
    notePhase(diffCheckName(c));
    if (!eager.ok() && (c == DiffCheck::D1 || c == DiffCheck::D2)) {
      out.push_back(skip(c, "the program raises eagerly on its example inputs: " + eager.error->str()));
      continue;
    }
    // The oracle turns an op's exceptions into results; one that escapes anyway (LibTorch
    // handing back a tensor whose data cannot be read, say) is a finding about the check.
    try {
      if (asksTorch(c) && !torch) torch = askTorch(p, checks, options);
      switch (c) {
        case DiffCheck::D1: out.push_back(d1(p, eager, options.device, times)); break;
        case DiffCheck::D2: out.push_back(d2(p, eager, options, shared)); break;
        case DiffCheck::D3: out.push_back(d3(p, shared, times)); break;
        case DiffCheck::D4: out.push_back(d4(p, eager, options, times)); break;
        case DiffCheck::D5: out.push_back(d5(p, *torch, options.device, shared, times)); break;
        case DiffCheck::D6:
          out.push_back(d6(p, options.case_seed, options.corruptions_per_case, options.corruption, times));
          break;
        case DiffCheck::D7: out.push_back(d7(p, *torch, options)); break;
        case DiffCheck::D8: out.push_back(d8(p, eager, *torch, times)); break;
        case DiffCheck::D9: {
          std::string why_not;
          ArchiveRuntime* runtime = options.archive_runtime ? options.archive_runtime : nativeRuntime(&why_not);
          out.push_back(d9(p, eager, runtime, why_not, options, times));
          break;
        }
      }
    } catch (const std::exception& e) {
      std::string what = e.what();
      what = what.substr(0, what.find('\n'));
      out.push_back(finding(c, "escaped-exception", "", "an exception escaped the check: " + what));
      out.back().message = what;
    }
    CheckOutcome& last = out.back();
    // Note [Writes eager leaves undefined]: the runs are made so that a crash counts, and
    // what they differ in is no finding.
    if (last.status == Status::Finding && undefined && runsAnotherWay(c)) {
      last = skip(c, *undefined);
    } else if (last.status == Status::Finding && isMismatchKind(last.kind)) {
      last.slice = sliceOps(p, last.where);
    }
  }
  return out;
}

}  // namespace epsmith
