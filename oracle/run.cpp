// The oracle's run modes; see run.h.
// Note [Functionalize for the whole run]: in libtorch-functionalize mode the Functionalize
// dispatch key stays included for the entire graph, as Python's
// torch._enable_functionalization does, so tensors created without tensor inputs (empty,
// zeros, arange) come out functional too; wrapping only the inputs would mix wrapped and
// plain tensors and trip LibTorch's internal asserts, which are harness artifacts.
#include "oracle/run.h"

#include <ATen/core/Tensor.h>
#include <ATen/Context.h>
#include <ATen/FunctionalTensorWrapper.h>
#include <ATen/core/grad_mode.h>
#include <ATen/ops/empty.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <map>
#include <cstdlib>
#include <string_view>

#include "oracle/aten_bridge.h"
#include "oracle/interpreter.h"
#include "oracle/libtorch_compat.h"
#include "oracle/op_time.h"
#include "oracle/planted_fault.h"

namespace epsmith {
namespace {

struct LiftedInput {
  std::string name;  // "parameter:weight", "buffer:calls", "user_input:x"; empty: not reported
  c10::IValue value;
};

// _graph_module_flat_inputs: lifted state in input-spec order, then the user inputs.
std::vector<LiftedInput> liftInputs(const ExportedProgram& p, const std::vector<InputValue>& user_inputs,
                                    TensorMaterializer& m) {
  std::vector<LiftedInput> flat;
  size_t next_user = 0;
  for (const auto& spec : p.signature.input_specs) {
    const std::string target = spec.target.value_or("");
    switch (spec.kind) {
      case InputKind::UserInput:
        ++next_user;  // appended after every lifted input, below
        break;
      case InputKind::Parameter:
      case InputKind::Buffer: {
        const char* kind = spec.kind == InputKind::Parameter ? "parameter:" : "buffer:";
        if (spec.persistent == false) {
          auto it = p.constants.find(target);
          if (it == p.constants.end() || !it->second.tensor) {
            throw std::invalid_argument("non-persistent buffer '" + target + "' is not in the constants");
          }
          flat.push_back({kind + target, m.materialize(*it->second.tensor)});
        } else {
          auto it = p.state_dict.find(target);
          if (it == p.state_dict.end()) throw std::invalid_argument("'" + target + "' is not in the state dict");
          flat.push_back({kind + target, m.materialize(it->second.tensor)});
        }
        break;
      }
      case InputKind::ConstantTensor: {
        auto it = p.constants.find(target);
        if (it == p.constants.end() || !it->second.tensor) {
          throw std::invalid_argument("tensor constant '" + target + "' is not in the constants");
        }
        flat.push_back({"", m.materialize(*it->second.tensor)});
        break;
      }
      case InputKind::CustomObj: throw std::invalid_argument("custom objects cannot be executed by the eager oracle");
      case InputKind::Token: flat.push_back({"", at::empty({0}, at::TensorOptions().device(m.device()))}); break;
    }
  }
  if (next_user != user_inputs.size()) {
    throw std::invalid_argument("the program takes " + std::to_string(next_user) + " user inputs but " +
                                std::to_string(user_inputs.size()) + " were given");
  }
  // "first params, then buffers, then args as user supplied them": user inputs follow every
  // lifted input whatever their place among the specs (they are first-class placeholders
  // only in programs that list them last, as torch.export makes them).
  size_t user = 0;
  for (const auto& spec : p.signature.input_specs) {
    if (spec.kind != InputKind::UserInput) continue;
    const InputValue& v = user_inputs[user++];
    bool tensor = v.kind == InputValue::Kind::Tensor;
    flat.push_back({tensor ? "user_input:" + spec.arg.name : "", inputIValue(v, m)});
  }
  return flat;
}

namespace {

// Note [Symbolic sizes bound from the inputs]
// A program exported with dynamic shapes gives an input's dimension as a symbol (in its
// meta, `Symbol('s77', positive=True, integer=True)`, sympy's repr) and bounds the symbol in
// range_constraints. A run binds each symbol from the first input dimension it names and
// refuses inputs that give one symbol two sizes, or a size outside its range, as the
// program's contract says (torch 2.13's ep.module() refuses one above the range, and runs
// one of size 1 below a range from 2: docs/pt2-format.md). A dimension given by an
// expression (2*s77) binds nothing; the kernels see the sizes they are given.
// Why the user inputs do not fit the program's symbolic sizes, or nullopt.
std::optional<std::string> symbolicSizesMismatch(const ExportedProgram& p, const std::vector<InputValue>& user_inputs) {
  std::map<std::string, std::pair<int64_t, std::string>> bound;  // symbol -> size, and where
  size_t user = 0;
  for (const auto& spec : p.signature.input_specs) {
    if (spec.kind != InputKind::UserInput) continue;
    if (user >= user_inputs.size()) break;
    const InputValue& v = user_inputs[user++];
    const Node* n = p.graph().find(spec.arg.name);
    const TensorMeta* meta = n ? n->meta.val.tensor() : nullptr;
    if (!meta || v.kind != InputValue::Kind::Tensor || meta->sizes.size() != v.tensor.sizes.size()) continue;
    for (size_t d = 0; d < meta->sizes.size(); ++d) {
      if (meta->sizes[d].isConcrete()) continue;
      const auto symbol = soleSymbol(meta->sizes[d].expr().expr);
      if (!symbol) continue;
      const int64_t size = v.tensor.sizes[d];
      const std::string where = "input " + spec.arg.name + " dim " + std::to_string(d);
      auto [it, fresh] = bound.emplace(*symbol, std::make_pair(size, where));
      if (!fresh && it->second.first != size) {
        return where + " is " + std::to_string(size) + " but " + it->second.second + " is " +
               std::to_string(it->second.first) + ", both " + *symbol;
      }
      auto range = p.range_constraints.find(*symbol);
      if (range == p.range_constraints.end()) continue;
      const RangeConstraint& r = range->second;
      if ((r.min_val && size < *r.min_val) || (r.max_val && size > *r.max_val)) {
        return where + " is " + std::to_string(size) + ", outside " + *symbol + "'s range [" +
               (r.min_val ? std::to_string(*r.min_val) : "-inf") + ", " +
               (r.max_val ? std::to_string(*r.max_val) : "inf") + "]";
      }
    }
  }
  return std::nullopt;
}

}  // namespace

// A result as the comparator reads it: on CPU and outside autograd. (A CPU tensor that
// needs no grad is that already; detaching it would only make another handle.)
c10::IValue toCpu(const c10::IValue& v) {
  if (!v.isTensor()) return v;
  const at::Tensor& t = v.toTensor();
  if (t.is_cpu() && !t.requires_grad()) return v;
  return t.detach().cpu();
}

// Unwraps a functional tensor after syncing it (identity for anything else).
c10::IValue unwrapFunctional(const c10::IValue& v) {
  if (!v.isTensor() || !at::functionalization::impl::isFunctionalTensor(v.toTensor())) return v;
  at::Tensor t = v.toTensor();
  at::functionalization::impl::sync(t);
  return at::functionalization::impl::from_functional_tensor(t);
}

// The graph run under LibTorch's functionalization: each tensor input wrapped, the outputs
// and the inputs' final values unwrapped after syncing.
Interpreter::Outcome runFunctionalized(const Interpreter& interpreter, std::vector<c10::IValue>& inputs,
                                       std::vector<LiftedInput>& flat, const RunOptions& options) {
  for (auto& v : inputs) {
    if (!v.isTensor()) continue;
    at::Tensor original = v.toTensor();
    at::Tensor wrapped = at::functionalization::impl::to_functional_tensor(original);
    // Python mirrors autograd metadata onto the wrapper (torch._mirror_autograd_meta_to).
    if (original.requires_grad()) wrapped.requires_grad_(true);
    v = wrapped;
  }
  Interpreter::Outcome outcome;
  {
    c10::impl::IncludeDispatchKeyGuard functionalize(c10::DispatchKey::Functionalize);
    at::functionalization::impl::FunctionalizationReapplyViewsGuard reapply_views(true);
    outcome = interpreter.run(inputs, options.observe, options.observe_untaken);
  }
  for (auto& v : outcome.outputs) v = unwrapFunctional(v);
  // The final value of each input is what its wrapper holds after syncing.
  for (size_t i = 0; i < flat.size(); ++i) flat[i].value = unwrapFunctional(inputs[i]);
  return outcome;
}

// _postprocess_graph_module_outputs for one mutation output: buffers and parameters take
// the new value, user inputs receive it with copy_. An error when it names no input.
std::optional<RunError> applyMutation(const OutputSpec& spec, const c10::IValue& value,
                                      std::vector<LiftedInput>& flat) {
  auto findInput = [&](const std::string& name) -> LiftedInput* {
    for (auto& in : flat) {
      if (in.name == name) return &in;
    }
    return nullptr;
  };
  if (spec.kind == OutputKind::BufferMutation || spec.kind == OutputKind::ParameterMutation) {
    const char* kind = spec.kind == OutputKind::BufferMutation ? "buffer:" : "parameter:";
    LiftedInput* in = findInput(kind + *spec.target);
    if (!in) return RunError{spec.arg.name, "", "mutation output names no lifted input '" + *spec.target + "'"};
    in->value = value;
  } else if (spec.kind == OutputKind::UserInputMutation) {
    LiftedInput* in = findInput("user_input:" + *spec.target);
    if (!in)
      return RunError{spec.arg.name, "", "user input mutation names no tensor user input '" + *spec.target + "'"};
    try {  // LibTorch reports a copy it refuses by throwing
      in->value.toTensor().copy_(value.toTensor());
    } catch (const c10::Error& e) {
      return RunError{spec.arg.name, "copy_", e.what_without_backtrace()};
    }
  }
  return std::nullopt;
}

RunResult runLifted(const ExportedProgram& p, std::vector<LiftedInput>& flat, const RunOptions& options) {
  RunResult result;
  std::optional<Interpreter> own;
  const c10::Device device = toAten(options.device);
  const bool planned = options.plan && options.plan->device() == device;
  const Interpreter& interpreter = planned ? *options.plan : own.emplace(p.graph(), device);
  std::vector<c10::IValue> inputs;
  inputs.reserve(flat.size());
  for (const auto& in : flat) inputs.push_back(in.value);
  installPlantedFaults();  // Note [Planted faults]
  ScopedSeconds clock(options.run_seconds);
  Interpreter::Outcome outcome = options.mode == RunMode::LibTorchFunctionalize
                                     ? runFunctionalized(interpreter, inputs, flat, options)
                                     : interpreter.run(inputs, options.observe, options.observe_untaken);
  if (outcome.error) {
    result.error = outcome.error;
    return result;
  }
  const auto& specs = p.signature.output_specs;
  if (outcome.outputs.size() != specs.size()) {
    result.error = RunError{"output", "",
                            "the graph returned " + std::to_string(outcome.outputs.size()) +
                                " values but the signature has " + std::to_string(specs.size()) + " outputs"};
    return result;
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    const OutputSpec& spec = specs[i];
    if (spec.kind == OutputKind::UserOutput || spec.kind == OutputKind::LossOutput) {
      result.outputs.push_back(toCpu(outcome.outputs[i]));
    } else if (options.mode != RunMode::Eager && spec.target) {
      if ((result.error = applyMutation(spec, outcome.outputs[i], flat))) return result;
    }
  }
  clock.stop();
  for (const auto& in : flat) {
    if (!in.name.empty() && in.value.isTensor()) result.final_inputs.emplace_back(in.name, toCpu(in.value).toTensor());
  }
  return result;
}

}  // namespace

std::string_view runModeName(RunMode m) {
  switch (m) {
    case RunMode::Eager: return "eager";
    case RunMode::Exported: return "exported";
    case RunMode::LibTorchFunctionalize: return "libtorch-functionalize";
  }
  return "?";
}

std::optional<RunMode> runModeFromName(std::string_view name) {
  for (auto m : {RunMode::Eager, RunMode::Exported, RunMode::LibTorchFunctionalize}) {
    if (runModeName(m) == name) return m;
  }
  return std::nullopt;
}

// Note [Asking for CUDA in a child]
// LibTorch answers "is CUDA available" by counting devices through the CUDA runtime, which
// initializes the driver in the asking process, and a process forked after that cannot use
// CUDA at all. epsmith forks its workers and checks from the process that asks (fuzz, check,
// minimize, replay), so the question goes to a child of its own, once per process, and the
// answer is remembered: the asking process stays free to fork children that use CUDA, and
// so do they (a worker inherits the answer with its memory).
bool cudaAvailable() {
  static const bool available = [] {
    std::fflush(nullptr);  // a child's exit must not write the parent's buffered output twice
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(at::hasCUDA() ? 0 : 1);
    if (pid < 0) return at::hasCUDA();  // no child to ask: ask here, at the cost above
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }();
  return available;
}

// Note [CUDA errors that end the process]
// Some CUDA errors leave the process's CUDA context unusable (a kernel's device-side assert,
// an illegal memory access, a launch failure): every later CUDA call of the process fails
// with the same error, so a process that went on would report every later run as failing
// at whatever op it reached. A run that meets one ends the process instead (abort), as a
// crash in the op it was running, which campaigns minimize in forked steps. Kernels are
// launched synchronously on CUDA (CUDA_LAUNCH_BLOCKING=1, unless the user set it), so that
// op is the one whose kernel failed, not a later one that synchronized.
bool leavesCudaUnusable(std::string_view message) {
  for (std::string_view sticky : {"device-side assert triggered", "an illegal memory access",
                                  "unspecified launch failure", "misaligned address", "an illegal instruction"}) {
    if (message.find(sticky) != std::string_view::npos) return true;
  }
  return false;
}

namespace {

void endOnUnusableCuda(const RunResult& r) {
  if (!r.error || !leavesCudaUnusable(r.error->message)) return;
  std::fprintf(stderr,
               "epsmith: %s: this process's CUDA context is unusable (Note [CUDA errors that end the process])\n",
               r.error->str().c_str());
  std::abort();
}

}  // namespace

RunResult runProgram(const ExportedProgram& p, const std::vector<InputValue>& user_inputs, const RunOptions& options) {
  RunResult result;
  try {
    c10::Device device = toAten(options.device);
    if (device.is_cuda() && !cudaAvailable()) {
      result.error = RunError{"", "", "CUDA not available in this LibTorch build"};
      return result;
    }
    if (device.is_cuda()) ::setenv("CUDA_LAUNCH_BLOCKING", "1", /*overwrite=*/0);
    if (auto mismatch = symbolicSizesMismatch(p, user_inputs)) {  // Note [Symbolic sizes bound from the inputs]
      result.error = RunError{"", "", *mismatch};
      return result;
    }
    std::optional<at::AutoGradMode> grad;
    std::optional<c10::InferenceMode> inference;
    if (options.grad == GradMode::Inference)
      inference.emplace();
    else
      grad.emplace(options.grad == GradMode::Enabled);

    // Materialised on the device directly, so inputs that alias on CPU alias there too.
    TensorMaterializer materializer(device);
    materializer.setOverreadFill(options.overread_fill);
    std::vector<LiftedInput> flat = liftInputs(p, user_inputs, materializer);
    result = runLifted(p, flat, options);
  } catch (const c10::Error& e) {
    result.error = RunError{"", "", e.what_without_backtrace()};
  } catch (const std::exception& e) {
    result.error = RunError{"", "", e.what()};
  }
  if (options.device.type == "cuda") endOnUnusableCuda(result);
  return result;
}

RunResult runProgram(const ExportedProgram& p, const RunOptions& options) {
  return runProgram(p, p.example_inputs, options);
}

}  // namespace epsmith
