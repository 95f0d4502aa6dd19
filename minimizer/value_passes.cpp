// The value passes and meta.val rebuilding; see passes.h.
#include <ATen/ATen.h>

#include <map>

#include "generators/result_values.h"
#include "minimizer/passes.h"
#include "oracle/aten_bridge.h"
#include "oracle/run.h"

namespace epsmith {
namespace {

// The placeholder name of each user input, in example-input order.
std::vector<std::string> userInputNames(const ExportedProgram& p) {
  std::vector<std::string> names;
  for (const auto& s : p.signature.input_specs) {
    if (s.kind == InputKind::UserInput) names.push_back(s.arg.name);
  }
  return names;
}

// Replaces user input `i` by `make(old)`, fixes its placeholder's meta.val and rebuilds the
// rest; false when it does not apply or the program stops running.
bool replaceUserInput(ExportedProgram& q, size_t i, const std::function<at::Tensor(const at::Tensor&)>& make) {
  const auto names = userInputNames(q);
  if (i >= q.example_inputs.size() || i >= names.size()) return false;
  InputValue& in = q.example_inputs[i];
  if (in.kind != InputValue::Kind::Tensor) return false;
  Node* ph = q.graph().find(names[i]);
  if (!ph) return false;
  TensorMaterializer m;
  at::Tensor old = m.materialize(in.tensor);
  at::Tensor fresh;
  {
    at::NoGradGuard no_grad;
    fresh = make(old.detach());
  }
  if (!fresh.defined()) return false;
  fresh.requires_grad_(old.requires_grad());
  ExportedProgram saved = q.clone();
  in.tensor = toTensorValue(fresh);
  ph->meta.val = tensorMetaOf(fresh);
  if (!refreshVals(q)) {
    q = std::move(saved);
    return false;
  }
  return true;
}

}  // namespace

bool refreshVals(ExportedProgram& p) {
  std::map<const Node*, Val> vals;
  bool holdable = true;
  RunOptions options(RunMode::Eager);
  options.observe = [&](const Node& n, const c10::IValue& v) {
    if (v.isNone()) return;
    Val val;
    if (valOf(v, &val)) vals[&n] = std::move(val);
    else holdable = false;
  };
  RunResult r = runProgram(p, options);
  if (!r.ok() || !holdable) return false;
  for (Node& n : p.graph().nodes()) {
    if (auto it = vals.find(&n); it != vals.end()) n.meta.val = it->second;
  }
  return true;
}

std::vector<Variant> shrinkShapes(const ExportedProgram& p) {
  std::vector<Variant> out;
  for (size_t i = 0; i < p.example_inputs.size(); ++i) {
    const InputValue& in = p.example_inputs[i];
    if (in.kind != InputValue::Kind::Tensor) continue;
    const auto& sizes = in.tensor.sizes;
    for (size_t d = 0; d < sizes.size(); ++d) {
      std::vector<int64_t> targets{1};
      if (sizes[d] / 2 > 1) targets.push_back(sizes[d] / 2);
      for (int64_t to : targets) {
        if (to >= sizes[d]) continue;
        out.push_back({"shrink-shapes: input " + std::to_string(i) + " dim " + std::to_string(d) + " " +
                           std::to_string(sizes[d]) + " -> " + std::to_string(to),
                       [i, d, to](ExportedProgram& q) {
                         return replaceUserInput(q, i, [&](const at::Tensor& t) {
                           return t.narrow(static_cast<int64_t>(d), 0, to).clone(at::MemoryFormat::Contiguous);
                         });
                       }});
      }
    }
  }
  return out;
}

std::vector<Variant> simplifyDtypes(const ExportedProgram& p) {
  std::vector<Variant> out;
  for (size_t i = 0; i < p.example_inputs.size(); ++i) {
    const InputValue& in = p.example_inputs[i];
    if (in.kind != InputValue::Kind::Tensor || in.tensor.dtype() == ScalarType::Float) continue;
    out.push_back({"simplify-dtypes: input " + std::to_string(i) + " -> f32", [i](ExportedProgram& q) {
                     return replaceUserInput(q, i, [](const at::Tensor& t) { return t.to(at::kFloat); });
                   }});
  }
  return out;
}

}  // namespace epsmith
