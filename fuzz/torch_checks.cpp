// D5, D7 and D8; see torch_checks.h.
#include "fuzz/torch_checks.h"

#include <algorithm>
#include <string_view>
#include <tuple>

#include "functionalizer/functionalize.h"
#include "fuzz/check_steps.h"
#include "ops/op_registry.h"
#include "oracle/pt2_archive.h"
#include "verifier/verifier.h"

namespace epsmith::check_detail {
namespace {

bool asks(const std::vector<DiffCheck>& checks, DiffCheck c) {
  return std::find(checks.begin(), checks.end(), c) != checks.end();
}


// The outcome every torch check gets when the peer could not answer.
std::optional<CheckOutcome> unanswered(DiffCheck c, const TorchAnswer& a) {
  if (a.skipped) return skip(c, *a.skipped);
  if (a.failed) {
    CheckOutcome o = finding(c, "torch-peer-failed", "", "torch died or hung on this program: " + *a.failed);
    o.message = *a.failed;
    return o;
  }
  return std::nullopt;
}

std::string verdictText(const PeerVerdict& v) { return v.stage + " " + v.type + ": " + v.message; }


// Both sides raising agree whatever the words: torch's message comes from Python, without
// the op that raised.
CheckOutcome compareWithTorch(const ExportedProgram& p, DiffCheck c, const RunResult& ours, const RunResult& torch,
                              const std::string& what, PhaseTimes* times) {
  if (!ours.ok() && !torch.ok()) {
    CheckOutcome o = pass(c);
    o.report = "both raise: epsmith's " + ours.error->str() + "; " + what + ": " + torch.error->message;
    return o;
  }
  CheckOutcome o = compare(c, ours, torch, times);
  if (o.status == Status::Finding) {
    o.report = what + " differs from epsmith's run: " + o.report;
    o.message = withoutNodeNames(o.message, p);
  }
  return o;
}


// The first place two signatures differ: "input 2", "output 0", "outputs" (counts).
std::string firstDifference(const SpecList& ours, const SpecList& theirs) {
  for (size_t i = 0; i < std::min(ours.inputs.size(), theirs.inputs.size()); ++i) {
    if (ours.inputs[i] != theirs.inputs[i]) return "input " + std::to_string(i);
  }
  if (ours.inputs.size() != theirs.inputs.size()) return "inputs";
  for (size_t i = 0; i < std::min(ours.outputs.size(), theirs.outputs.size()); ++i) {
    if (ours.outputs[i] != theirs.outputs[i]) return "output " + std::to_string(i);
  }
  return "outputs";
}

std::string specText(const SpecList& s) {
  std::string out;
  for (const auto* list : {&s.inputs, &s.outputs}) {
    out += list == &s.inputs ? "(" : ") -> (";
    for (size_t i = 0; i < list->size(); ++i) {
      const auto& [kind, target] = (*list)[i];
      out += (i ? ", " : "") + kind + (target.empty() ? "" : " " + target);
    }
  }
  return out + ")";
}

}  // namespace

TorchAnswer askTorch(const ExportedProgram& p, const std::vector<DiffCheck>& checks, const CheckOptions& options) {
  PhaseClock clock(options.times, Phase::Torch);
  TorchAnswer a;
  if (auto why = torchPeerUnavailable()) {
    a.skipped = "no torch peer: " + *why;
    return a;
  }
  if (auto why = pt2CannotHold(p)) {
    a.skipped = "no .pt2 holds this program: " + *why;
    return a;
  }
  PeerRequest request;
  auto bytes = writeProgramPt2(p);
  if (!bytes.ok()) {  // D4's .pt2 form reports the writer's bug
    a.skipped = "its .pt2 cannot be written: " + bytes.error().str();
    return a;
  }
  request.archives.push_back(std::move(bytes).value());
  request.module_run = asks(checks, DiffCheck::D5);
  request.decompose = asks(checks, DiffCheck::D8);
  if (asks(checks, DiffCheck::D7)) {
    const int limit = options.torch_corruptions_per_case > 0 ? options.torch_corruptions_per_case
                                                           : options.corruptions_per_case;
    eachCorruption(p, options.case_seed, limit, options.corruption,
                   [&](const ExportedProgram& work, const Corruption& c) {
                     auto diagnostics = verify(work);
                     if (diagnostics.empty()) return true;  // D6's finding, not a question for torch
                     auto corrupt = writeProgramPt2(work);
                     if (!corrupt.ok()) return true;  // a form no .pt2 can hold: torch cannot be asked
                     request.archives.push_back(std::move(corrupt).value());
                     a.corruptions.push_back(&c);
                     a.rejected_as.push_back(diagnostics.front().str());
                     return true;
                   });
  }
  auto reply = askTorchPeer(request);
  if (!reply.ok()) {
    a.failed = reply.error().message;
  } else {
    a.reply = std::move(reply).value();
  }
  return a;
}

namespace {

// Note [Save and load across releases]
// A program saved by one release is served by the next (a model exported and saved with
// torch 2.13, loaded by a server on 2.14), and torch.export's serialized schema is versioned
// for that: a release must load what an older one wrote, or refuse it by the schema's
// major version, and what it loads must be the same program. So D7, where a second
// release's torch is installed beside the peer's (otherReleasePython(): .venv-2.14 beside
// .venv's 2.13, and the other way round), has each release load epsmith's .pt2, run it and
// save it again with its own torch.export.save, then the other release load what it saved
// and run that: both directions. A release that cannot load what the other wrote, while
// both load epsmith's .pt2, is a finding (`across-releases-rejects`, with the schema
// versions of the writer's archive named); so is what it loaded computing otherwise than
// the program it loads from epsmith's .pt2, on the same release, inputs and kernels
// (`across-releases-` and the mismatch's kind), which no numerics change between releases
// can explain. It costs four more questions, two of a second peer spawned once per process
// (no zygote: Note [A zygote for campaign peers] is the peer's own release's), so a campaign
// asks it on one in `--across-every` of the cases that ask torch.
struct Saved {
  PeerReply reply;  // the release's answer about epsmith's .pt2: verdict, run, its own save
  std::string torch;
};

std::string schemaOf(const std::string& archive) {
  auto program = readProgramPt2(archive);
  if (!program.ok()) return "a schema epsmith cannot read";
  return "schema " + std::to_string(program->schema_version.major) + "." + std::to_string(program->schema_version.minor);
}

// `loader` loading what `saver` saved: a finding where it refuses it or runs it otherwise
// than the program it loads from epsmith's .pt2.
std::optional<CheckOutcome> acrossOneWay(const ExportedProgram& p, const Saved& saver, const Saved& loader,
                                         const PeerReply& loaded, PhaseTimes* times) {
  const PeerVerdict& v = loaded.verdicts.at(0);
  const std::string way = "torch " + loader.torch + " loading what torch " + saver.torch + "'s torch.export.save wrote (" +
                          schemaOf(*saver.reply.resaved) + ")";
  if (!v.accepts) {
    CheckOutcome o = finding(DiffCheck::D7, std::string(kAcrossReleases) + "-rejects", "",
                             way + " refuses it, though both load epsmith's .pt2: " + verdictText(v));
    o.message = withoutNodeNames(v.type + ": " + v.message, p);
    return o;
  }
  if (!loader.reply.module_run || !loaded.module_run) return std::nullopt;
  CheckOutcome o = compareWithTorch(p, DiffCheck::D7, *loader.reply.module_run, *loaded.module_run, way, times);
  if (o.status != Status::Finding) return std::nullopt;
  o.kind = std::string(kAcrossReleases) + "-" + o.kind;
  return o;
}

CheckOutcome acrossReleases(const ExportedProgram& p, PhaseTimes* times) {
  const auto ask = [times](const PeerRequest& request, PeerRelease release) {
    PhaseClock clock(times, Phase::Torch);
    return askTorchPeer(request, 120, release);
  };
  auto archive = writeProgramPt2(p);
  if (!archive.ok()) return skip(DiffCheck::D7, "its .pt2 cannot be written");
  PeerRequest first;
  first.module_run = first.resave = true;
  first.archives = {archive.value()};
  auto own = ask(first, PeerRelease::Own);
  auto other = ask(first, PeerRelease::Other);
  if (!other.ok() && otherReleasePython().empty()) return skip(DiffCheck::D7, other.error().message);
  for (const auto* r : {&own, &other}) {
    if (!r->ok()) return finding(DiffCheck::D7, "torch-peer-failed", "", "torch died or hung on this program: " + r->error().message);
  }
  const Saved a{own.value(), own->torch_version}, b{other.value(), other->torch_version};
  if (!a.reply.verdicts.at(0).accepts || !b.reply.verdicts.at(0).accepts || !a.reply.resaved || !b.reply.resaved) {
    CheckOutcome o = pass(DiffCheck::D7);
    o.report = "across releases: not both load and save epsmith's .pt2";
    return o;
  }
  for (const auto& [saver, loader, release] : {std::tuple{&a, &b, PeerRelease::Other}, std::tuple{&b, &a, PeerRelease::Own}}) {
    PeerRequest load;
    load.module_run = true;
    load.archives = {*saver->reply.resaved};
    auto loaded = ask(load, release);
    if (!loaded.ok()) return finding(DiffCheck::D7, "torch-peer-failed", "", "torch died or hung on this program: " + loaded.error().message);
    if (auto o = acrossOneWay(p, *saver, *loader, loaded.value(), times)) return *o;
  }
  CheckOutcome o = pass(DiffCheck::D7);
  o.report = "torch " + a.torch + " and torch " + b.torch + " each load and run what the other saved";
  return o;
}

}  // namespace

CheckOutcome d7(const ExportedProgram& p, const TorchAnswer& a, const CheckOptions& options) {
  if (auto o = unanswered(DiffCheck::D7, a)) return *o;
  const std::string torch = "torch " + a.reply.torch_version;
  const PeerVerdict& own = a.reply.verdicts.at(0);
  if (!own.accepts) {
    CheckOutcome o = finding(DiffCheck::D7, "torch-rejects", "",
                             "epsmith's verifier accepts the program; torch.export.load (" + torch +
                                 ") refuses it: " + verdictText(own));
    o.message = withoutNodeNames(own.type + ": " + own.message, p);
    return o;
  }
  for (size_t i = 0; i < a.corruptions.size(); ++i) {
    if (a.reply.verdicts.at(i + 1).accepts) {
      const std::string id(checkIdName(a.corruptions[i]->check));
      return finding(DiffCheck::D7, "torch-accepts:" + id, "",
                     std::string(a.corruptions[i]->what) + ": epsmith's verifier rejects it (" + a.rejected_as[i] +
                         "); torch.export.load (" + torch + ") accepts it",
                     id);
    }
  }
  if (options.across_releases) {
    CheckOutcome across = acrossReleases(p, options.times);
    if (across.status == Status::Finding) return across;
  }
  CheckOutcome o = pass(DiffCheck::D7);
  o.report = "torch.export.load accepts the program and rejects " + std::to_string(a.corruptions.size()) +
             " corruption(s) of it, as epsmith's verifier does";
  return o;
}

CheckOutcome d5(const ExportedProgram& p, const TorchAnswer& a, const Device& device, const Interpreter* plan,
                PhaseTimes* times) {
  if (auto o = unanswered(DiffCheck::D5, a)) return *o;
  if (!a.reply.module_run) return skip(DiffCheck::D5, "torch cannot load the program (D7 says why)");
  const RunResult exported = run(p, runOf(RunMode::Exported, device, plan), times);
  return compareWithTorch(p, DiffCheck::D5, exported, *a.reply.module_run, "ep.module()", times);
}

// Note [Parameters written with grad on]
// torch.export.export refuses a module that writes a parameter in place with grad on where
// autograd does (Note [Writes autograd lets through]), and epsmith's functionalizer refuses
// the program with that reason. But a program records no grad mode of its own: exported
// under torch.no_grad(), the same module makes a TRAINING program with the very write and
// no grad region, and run_decompositions takes it, by design, as a parameter mutation
// (2.13, checked with torch alone; a campaign's D8 refusal-parity case was this). So D8
// does not ask torch to refuse such a program; where torch refuses it anyway, the reasons
// are still compared (Note [Refusal reasons compared]). A SpecViolationError is no refusal:
// torch's verifier raises it on the program run_decompositions made, so it took the write.
constexpr std::string_view kWrittenWithGradOn = "requires gradients, and received a mutation";

// Note [Refusal reasons compared]
// Where epsmith refuses a program as export does (Note [Refusals export makes]) and
// run_decompositions refuses it too, the two must be the same refusal. Each kind of export
// refusal is known by words of epsmith's message and the words torch's may say it in:
// export's own (aot_autograd's "Found an input that received a metadata mutation") or, for a
// parameter written under grad, autograd's, which refuses the in-place write before
// aot_autograd sees it (2.13): into a leaf that requires grad, or into the base of a view
// run_decompositions' retrace made under no_grad (a view of the parameter taken before).
// Torch refusing for another reason is refusal parity broken as much as torch taking the
// program: a 3-minute D8 campaign on 2.13 met an input's unsqueeze_ that
// run_decompositions did not refuse but failed on later, with its own assertion
// (`len(mutations) != num_mutated_inp_runtime_indices`) or with a later op's complaint
// about sizes. Torch's refusals by design come first wherever they are (an op
// whose output is data-dependent, or without a fake kernel, raises when tracing reaches it,
// before the end of the graph where a metadata mutation is seen) and say nothing of parity.
// A refusal of a kind not listed here is not compared.
struct RefusalWords {
  std::string_view ours;
  std::vector<std::string_view> torch;
};
bool sameRefusal(const std::string& ours, const std::string& torch) {
  static const RefusalWords kinds[] = {
      {"received a metadata mutation", {"received a metadata mutation"}},
      {kWrittenWithGradOn,
       {kWrittenWithGradOn, "requires grad is being used in an in-place operation",
        "its base has been modified inplace with grad mode enabled"}},
      {"aliased inputs that are mutated", {"aliased inputs that are mutated", "synthetic base"}},
  };
  static const std::string_view by_design[] = {"DataDependentOutputException", "DynamicOutputShapeException",
                                               "GuardOnDataDependentSymNode", "UnsupportedOperatorException"};
  for (std::string_view w : by_design) {
    if (torch.rfind(w, 0) == 0) return true;
  }
  for (const RefusalWords& kind : kinds) {
    if (ours.find(kind.ours) == std::string::npos) continue;
    return std::any_of(kind.torch.begin(), kind.torch.end(),
                       [&](std::string_view w) { return torch.find(w) != std::string::npos; });
  }
  return true;
}

// Export refuses the program (`ours` says why, as epsmith's functionalizer refused it);
// run_decompositions did something else (`what`).
CheckOutcome refusalParity(const ExportedProgram& p, const TorchAnswer& a, const Diagnostic& ours,
                           const std::string& what) {
  CheckOutcome o = finding(DiffCheck::D8, "refusal-parity", "",
                           "ep.run_decompositions({}) (torch " + a.reply.torch_version + ") " + what +
                               "; export refuses it, as epsmith's functionalizer does: " + ours.str());
  o.message = withoutNodeNames(ours.message, p);
  return o;
}

CheckOutcome d8(const ExportedProgram& p, const RunResult& eager, const TorchAnswer& a, PhaseTimes* times) {
  if (auto o = unanswered(DiffCheck::D8, a)) return *o;
  if (a.reply.verdicts.empty() || !a.reply.verdicts[0].accepts) {
    return skip(DiffCheck::D8, "torch cannot load the program (D7 says why)");
  }
  std::optional<Expected<ExportedProgram>> ours;
  {
    PhaseClock clock(times, Phase::Functionalize);
    ours = functionalize(p);
  }
  // Note [Parameters written with grad on]: torch taking the write, its verifier failing
  // on what it made or not, is no finding.
  const bool written_with_grad_on = !ours->ok() && ours->error().message.find(kWrittenWithGradOn) != std::string::npos;
  const bool torch_took_it = !a.reply.decompose_error || a.reply.decompose_error->rfind("SpecViolationError", 0) == 0;
  if (written_with_grad_on && torch_took_it) {
    CheckOutcome o = pass(DiffCheck::D8);
    o.report = "run_decompositions takes a parameter written with grad on, as export under no_grad makes it: " +
               ours->error().str() +
               (a.reply.decompose_error ? "; its verifier then fails on what it made: " + *a.reply.decompose_error : "");
    return o;
  }
  if (a.reply.decompose_error) {
    if (!ours->ok() && refusedAsExportDoes(ours->error()) &&
        !sameRefusal(ours->error().message, *a.reply.decompose_error)) {
      return refusalParity(p, a, ours->error(), "refuses the program for another reason: " + *a.reply.decompose_error);
    }
    // Torch refusing what eager refuses is no finding whatever it says: a minimizer that
    // kept such programs would end at one eager refuses (a vsplit of a 0-d tensor).
    if (!ours->ok() || !eager.ok()) {
      CheckOutcome o = pass(DiffCheck::D8);
      o.report = "both refuse: run_decompositions: " + *a.reply.decompose_error +
                 (ours->ok() ? "; eager: " + eager.error->str() : "; epsmith: " + ours->error().str());
      return o;
    }
    CheckOutcome o = finding(DiffCheck::D8, "decompositions-raise", "",
                             "ep.run_decompositions({}) (torch " + a.reply.torch_version +
                                 ") raises on a program epsmith functionalizes: " + *a.reply.decompose_error);
    o.message = withoutNodeNames(*a.reply.decompose_error, p);
    return o;
  }
  // Note [Refusals export makes]
  // Some programs torch.export itself refuses to make: one that changes an input's metadata
  // (transpose_, unsqueeze_ of an input), one that mutates inputs which alias. epsmith's
  // functionalizer refuses them with export's reason (refusedAsExportDoes), and
  // run_decompositions, handed such a program as a TRAINING .pt2, should refuse it as well;
  // 2.13's takes an input's unsqueeze_ and makes a program that raises where eager does
  // not. A share of generated programs changes an input's metadata (the generator's refused
  // share, Note [Ops the functionalizer refuses]), and D8 files run_decompositions taking
  // one as `refusal-parity`, whatever the decomposed program then computes.
  if (!ours->ok() && refusedAsExportDoes(ours->error())) return refusalParity(p, a, ours->error(), "takes the program");
  if (!a.reply.decomposed_run) return skip(DiffCheck::D8, "the peer sent no run of the decomposed program");
  CheckOutcome o = compareWithTorch(p, DiffCheck::D8, eager, *a.reply.decomposed_run,
                                    "the program after run_decompositions({}), run by ep.module()", times);
  if (o.status == Status::Finding || !ours->ok() || !a.reply.decomposed_signature) return o;
  const SpecList mine = specList(ours->value());
  if (mine == *a.reply.decomposed_signature) return o;
  CheckOutcome differs = finding(DiffCheck::D8, "signature-differs", firstDifference(mine, *a.reply.decomposed_signature),
                                 "the functionalized signatures differ:\n  epsmith: " + specText(mine) +
                                     "\n  torch:   " + specText(*a.reply.decomposed_signature));
  differs.message = differs.where;
  return differs;
}

}  // namespace epsmith::check_detail
