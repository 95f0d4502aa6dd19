// D9: eager(original) vs a C++ runtime that loads .pt2 archives (NativeRT, oracle/nativert.h)
// running the program's .pt2, the TRAINING form or the functionalized ATEN one.
//
// Note [What D9 hands NativeRT]
// NativeRT loads a .pt2's model JSON and runs its graph as it is, TRAINING or ATEN alike
// (no decomposition pass of its own; PyTorch's tests hand it run_decompositions' output),
// takes the user inputs alone (parameters, buffers and constants come from the archive) and
// gives back the user outputs alone: mutation outputs are neither returned nor applied,
// and the weights it writes stay inside it (torch/nativert/ModelRunner.cpp,
// executor/GraphExecutorBase.cpp; 2.13). So a case hands it one of two forms, drawn from
// its seed (the finding's variant): the TRAINING program itself, whose in-place writes land
// in the user input tensors handed over, compared with eager on the user outputs and the
// user inputs after the call; or epsmith's functionalized ATEN program, compared on the
// user outputs alone. The buffers after the call are out of sight through
// ModelRunnerHandle. A load or run error with one of NativeRT's own "not supported" words
// is recorded as unsupported (a skip whose reason the report counts), not filed as a bug.
// NativeRT runs every model under c10::InferenceMode ("ModelRunner is only used for
// inference", executor/ModelRunnerBase.cpp), where grad mode decides nothing, and refuses
// torch._C._set_grad_enabled as an unsupported operator: most generated programs, any with a
// no_grad region, would go untested. So the calls that set grad mode are left out of what
// it is handed; the other ops run as they would.
#include "fuzz/check_steps.h"

#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <regex>

#include "functionalizer/functionalize.h"
#include "generators/random_source.h"
#include "ir/grad_mode.h"
#include "oracle/aten_bridge.h"
#include "oracle/nativert.h"
#include "oracle/pt2_archive.h"

namespace epsmith::check_detail {
namespace {

// NativeRT's words for what it does not do (graph/Serialization.cpp, kernels/KernelFactory.cpp,
// graph/Graph.cpp; graph/GraphSignature.cpp, whose 2.11 knows every output spec but
// parameter_mutation): not a bug unless PyTorch documents the feature as supported.
std::optional<std::string> unsupportedKind(const std::string& message) {
  for (const char* words : {"not implemented yet", "Unknown higher order op", "Unsupported operator", "NYI",
                            "Unknown pytree node type", "not supported", "Unknown OutputSpec tag"}) {
    if (message.find(words) != std::string::npos) return std::string(words);
  }
  return std::nullopt;
}

// What eager's run says that the runtime can be held to: the user outputs, and for the
// TRAINING form the user inputs after the call.
RunResult observable(const RunResult& eager, NativeForm form) {
  RunResult r;
  r.outputs = eager.outputs;
  if (form == NativeForm::Training) {
    for (const auto& [name, value] : eager.final_inputs) {
      if (name.rfind("user_input:", 0) == 0) r.final_inputs.emplace_back(name, value);
    }
  }
  return r;
}

// `message` with the arguments of the node NativeRT prints cut ("Output size mismatch for
// %x = torch.ops.aten.unbind.int(self=%y, dim=0)": whether an argument was passed or left
// to its default is not the bug).
std::string nodeTextOut(const std::string& message) {
  static const std::regex node(R"((torch\.ops\.[A-Za-z0-9_.]+)\([^()]*\))");
  return std::regex_replace(message, node, "$1(...)");
}

// The line of a NativeRT error that says what went wrong. A kernel's exception comes
// wrapped: "Exception while executing node: %cos_ = torch.ops.aten.cos_.default(...)\nwith
// args:\n<one line per argument>\n\n<the kernel's message>\n...": the kernel's message,
// not the node, is the finding.
std::string causeLine(const std::string& error) {
  size_t start = 0;
  if (error.rfind("Exception while executing node:", 0) == 0) {
    const size_t blank = error.find("\n\n");
    if (blank != std::string::npos && blank + 2 < error.size()) start = blank + 2;
  }
  return error.substr(start, error.find('\n', start) - start);
}

// `p` without its calls that set grad mode, or nullopt where it has none.
std::optional<ExportedProgram> withoutGradMode(const ExportedProgram& p) {
  const auto& nodes = p.graph().nodes();
  if (std::none_of(nodes.begin(), nodes.end(), setsGradMode)) return std::nullopt;
  ExportedProgram q = p.clone();
  std::vector<Node*> calls;
  for (Node& n : q.graph().nodes()) {
    if (setsGradMode(n) && q.graph().users(&n).empty()) calls.push_back(&n);
  }
  for (Node* n : calls) q.graph().erase(n);
  return q;
}

// The skip or finding of a run that failed; `p` is the program handed over, whose node
// names the message may hold.
CheckOutcome ranOrRefused(const ArchiveRun& r, ArchiveRuntime& runtime, const std::string& variant,
                          const ExportedProgram& p) {
  const bool load = r.stage == ArchiveRun::Stage::Load;
  if (auto kind = unsupportedKind(r.error)) {
    return skip(DiffCheck::D9, "unsupported by " + runtime.name() + " (" + *kind + "): " + r.error);
  }
  CheckOutcome o = finding(
      DiffCheck::D9, load ? "load-error" : "exception-in-runtime", "",
      runtime.name() + (load ? " cannot load a program epsmith verifies: " : " raises where eager runs: ") + r.error,
      variant);
  o.message = nodeTextOut(withoutNodeNames(causeLine(r.error), p));
  return o;
}

// The form a case hands the runtime when the options name none, drawn from its seed.
NativeForm drawnNativeForm(uint64_t case_seed) {
  SeededSource random(case_seed ^ 0x3939393939393939ULL);  // apart from the other draws
  return random.chance(50) ? NativeForm::Training : NativeForm::Aten;
}

// D9 on `p`, whose eager run is `eager`, with `runtime` (null: skipped with `why_not`).
CheckOutcome d9(const ExportedProgram& p, const RunResult& eager, ArchiveRuntime* runtime, const std::string& why_not,
                const CheckOptions& options, PhaseTimes* times) {
  if (!runtime) return skip(DiffCheck::D9, why_not);
  if (!eager.ok())
    return skip(DiffCheck::D9, "the program raises eagerly on its example inputs: " + eager.error->str());
  const NativeForm form = options.native_form.value_or(drawnNativeForm(options.case_seed));
  const std::string variant(nativeFormName(form));
  std::optional<Expected<ExportedProgram>> functional;
  const ExportedProgram* handed = &p;
  if (form == NativeForm::Aten) {
    PhaseClock clock(times, Phase::Functionalize);
    functional = functionalize(p);
    if (!functional->ok())
      return skip(DiffCheck::D9, "no ATEN form: the functionalizer refuses it: " + functional->error().str());
    handed = &functional->value();
  }
  const std::optional<ExportedProgram> inferred = withoutGradMode(*handed);
  if (inferred) handed = &*inferred;
  ArchiveRun r;
  RunResult theirs;
  // What NativeRT hands back it made under InferenceMode (Note [What D9 hands NativeRT]):
  // a view of an input it made there may not be touched outside it, so it is compared
  // there too (the inputs are made before, as normal tensors).
  std::optional<c10::InferenceMode> inference;
  {
    PhaseClock clock(times, Phase::Execute);
    auto archive = writeProgramPt2(*handed);
    if (!archive.ok()) return skip(DiffCheck::D9, "a .pt2 cannot hold this program: " + archive.error().str());
    TemporaryArchive file(archive.value());
    if (file.error()) return skip(DiffCheck::D9, "cannot write the archive: " + file.error()->str());
    TensorMaterializer materializer;
    std::vector<c10::IValue> inputs;
    size_t user = 0;
    for (const auto& spec : handed->signature.input_specs) {
      if (spec.kind != InputKind::UserInput || user >= handed->example_inputs.size()) continue;
      inputs.push_back(inputIValue(handed->example_inputs[user++], materializer));
      if (form == NativeForm::Training && inputs.back().isTensor()) {
        theirs.final_inputs.emplace_back("user_input:" + spec.arg.name, inputs.back().toTensor());
      }
    }
    inference.emplace();
    r = runtime->run(file.path(), "model", std::move(inputs));
  }
  if (r.stage != ArchiveRun::Stage::Ran) return ranOrRefused(r, *runtime, variant, *handed);
  theirs.outputs = std::move(r.outputs);
  CheckOutcome o = compare(DiffCheck::D9, observable(eager, form), theirs, times);
  o.variant = variant;
  if (o.status == Status::Finding) {
    o.report = runtime->name() + " (the " + variant + " form) differs from eager: " + o.report;
    o.message = withoutNodeNames(o.message, p);
  }
  return o;
}

}  // namespace

CheckOutcome runD9(CheckContext& c) {
  std::string why_not;
  ArchiveRuntime* runtime = c.options.archive_runtime ? c.options.archive_runtime : nativeRuntime(&why_not);
  return d9(c.program, c.eager, runtime, why_not, c.options, c.options.times);
}

void focusD9(const CheckOutcome& finding, CheckOptions& options) {
  for (NativeForm form : {NativeForm::Training, NativeForm::Aten}) {
    if (finding.variant == nativeFormName(form)) options.native_form = form;
  }
}

}  // namespace epsmith::check_detail
