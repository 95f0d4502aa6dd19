// D9; see nativert_check.h.
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
#include "fuzz/nativert_check.h"

#include "functionalizer/functionalize.h"
#include "generators/random_source.h"
#include "oracle/aten_bridge.h"
#include "oracle/nativert.h"
#include "oracle/pt2_archive.h"

namespace epsmith::check_detail {
namespace {

// NativeRT's words for what it does not do (graph/Serialization.cpp, kernels/KernelFactory.cpp,
// graph/Graph.cpp; 2.13): not a bug unless PyTorch documents the feature as supported.
std::optional<std::string> unsupportedKind(const std::string& message) {
  for (const char* words : {"not implemented yet", "Unknown higher order op", "Unsupported operator", "NYI",
                            "Unknown pytree node type", "not supported"}) {
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

CheckOutcome ranOrRefused(const ArchiveRun& r, ArchiveRuntime& runtime, const std::string& variant,
                          const ExportedProgram& p) {
  const bool load = r.stage == ArchiveRun::Stage::Load;
  if (auto kind = unsupportedKind(r.error)) {
    return skip(DiffCheck::D9, "unsupported by " + runtime.name() + " (" + *kind + "): " + r.error);
  }
  CheckOutcome o = finding(DiffCheck::D9, load ? "load-error" : "exception-in-runtime", "",
                           runtime.name() + (load ? " cannot load a program epsmith verifies: "
                                                  : " raises where eager runs: ") + r.error,
                           variant);
  o.message = withoutNodeNames(r.error.substr(0, r.error.find('\n')), p);
  return o;
}

}  // namespace

NativeForm drawnNativeForm(uint64_t case_seed) {
  SeededSource random(case_seed ^ 0x3939393939393939ULL);  // apart from the other draws
  return random.chance(50) ? NativeForm::Training : NativeForm::Aten;
}

CheckOutcome d9(const ExportedProgram& p, const RunResult& eager, ArchiveRuntime* runtime, const std::string& why_not,
                const CheckOptions& options, PhaseTimes* times) {
  if (!runtime) return skip(DiffCheck::D9, why_not);
  if (!eager.ok()) return skip(DiffCheck::D9, "the program raises eagerly on its example inputs: " + eager.error->str());
  const NativeForm form = options.native_form.value_or(drawnNativeForm(options.case_seed));
  const std::string variant(nativeFormName(form));
  std::optional<Expected<ExportedProgram>> functional;
  const ExportedProgram* handed = &p;
  if (form == NativeForm::Aten) {
    PhaseClock clock(times, Phase::Functionalize);
    functional = functionalize(p);
    if (!functional->ok()) return skip(DiffCheck::D9, "no ATEN form: the functionalizer refuses it: " + functional->error().str());
    handed = &functional->value();
  }
  ArchiveRun r;
  RunResult theirs;
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
    r = runtime->run(file.path(), "model", std::move(inputs));
  }
  if (r.stage != ArchiveRun::Stage::Ran) return ranOrRefused(r, *runtime, variant, p);
  theirs.outputs = std::move(r.outputs);
  CheckOutcome o = compare(DiffCheck::D9, observable(eager, form), theirs, times);
  o.variant = variant;
  if (o.status == Status::Finding) {
    o.report = runtime->name() + " (the " + variant + " form) differs from eager: " + o.report;
    o.message = withoutNodeNames(o.message, p);
  }
  return o;
}

}  // namespace epsmith::check_detail
