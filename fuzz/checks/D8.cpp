// D8: eager(original) vs PyTorch's ep.run_decompositions({}) run by ep.module(); its
// signature vs the native functionalizer's; its refusals vs the ones export makes.
#include "fuzz/check_steps.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <tuple>

#include "functionalizer/functionalize.h"
#include "ops/op_registry.h"

namespace epsmith::check_detail {

namespace {

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

// Note [Lifted state compared by name]
// run_decompositions lifts a module's state again module by module, so a submodule's
// buffer comes after the root's tensor constants where torch.export put every buffer
// before every constant (2.13: export gives (BUFFER r, BUFFER layer.scratch0,
// CONSTANT_TENSOR c), its decomposition (BUFFER r, CONSTANT_TENSOR c, BUFFER
// layer.scratch0)). Lifted state is bound by its target, never by its place (ep.module(),
// AOTInductor and NativeRT look it up by name), so the state inputs compare as a set of
// kinds and targets; tokens and user inputs, bound by place, compare in order.
SpecList withStateByName(SpecList s) {
  auto lifted = [](const std::pair<std::string, std::string>& in) {
    return in.first == "PARAMETER" || in.first == "BUFFER" || in.first == "CONSTANT_TENSOR" || in.first == "CUSTOM_OBJ";
  };
  std::vector<size_t> at;
  std::vector<std::pair<std::string, std::string>> state;
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    if (lifted(s.inputs[i])) at.push_back(i), state.push_back(s.inputs[i]);
  }
  std::sort(state.begin(), state.end());
  for (size_t k = 0; k < at.size(); ++k) s.inputs[at[k]] = state[k];
  return s;
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

}  // namespace

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
    o.report =
        "run_decompositions takes a parameter written with grad on, as export under no_grad makes it: " +
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
  const SpecList theirs = withStateByName(*a.reply.decomposed_signature);
  if (withStateByName(mine) == theirs) return o;
  CheckOutcome differs = finding(DiffCheck::D8, "signature-differs", firstDifference(withStateByName(mine), theirs),
                                 "the functionalized signatures differ:\n  epsmith: " + specText(mine) +
                                     "\n  torch:   " + specText(*a.reply.decomposed_signature));
  differs.message = differs.where;
  return differs;
}

CheckOutcome runD8(CheckContext& c) { return d8(c.program, c.eager, torchAnswer(c), c.options.times); }

void focusD8(const CheckOutcome&, CheckOptions&) {}  // it has no variants

}  // namespace epsmith::check_detail
