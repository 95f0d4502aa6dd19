// Inputs before the walk and the graph after it; see graph_io.h.
#include "functionalizer/graph_io.h"

#include <algorithm>
#include <iterator>
#include <unordered_map>

#include "ops/op_roles.h"

namespace epsmith::functionalizer {
namespace {

bool overlaps(const TensorValue& a, const TensorValue& b) {
  if (a.numel() == 0 || b.numel() == 0) return false;
  auto elements = [](const TensorValue& t) {
    std::vector<int64_t> out{t.storage_offset};
    for (size_t d = 0; d < t.sizes.size(); ++d) {
      std::vector<int64_t> next;
      next.reserve(out.size() * static_cast<size_t>(t.sizes[d]));
      for (int64_t base : out) {
        for (int64_t i = 0; i < t.sizes[d]; ++i) next.push_back(base + i * t.strides[d]);
      }
      out.swap(next);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  auto range = [](const TensorValue& t) {
    int64_t lo = t.storage_offset, hi = t.storage_offset;
    for (size_t d = 0; d < t.sizes.size(); ++d) (t.strides[d] < 0 ? lo : hi) += (t.sizes[d] - 1) * t.strides[d];
    return std::make_pair(lo, hi);
  };
  auto [alo, ahi] = range(a);
  auto [blo, bhi] = range(b);
  if (ahi < blo || bhi < alo) return false;
  if (a.numel() > (1 << 20) || b.numel() > (1 << 20)) return true;  // conservative
  auto ea = elements(a), eb = elements(b);
  std::vector<int64_t> common;
  std::set_intersection(ea.begin(), ea.end(), eb.begin(), eb.end(), std::back_inserter(common));
  return !common.empty();
}

const TensorValue* runtimeValue(const ExportedProgram& p, const InputSpec& spec, size_t& user) {
  const std::string target = spec.target.value_or("");
  auto constant = [&]() -> const TensorValue* {
    auto it = p.constants.find(target);
    return it != p.constants.end() && it->second.tensor ? &*it->second.tensor : nullptr;
  };
  switch (spec.kind) {
    case InputKind::UserInput: {
      size_t k = user++;
      if (k < p.example_inputs.size() && p.example_inputs[k].kind == InputValue::Kind::Tensor) {
        return &p.example_inputs[k].tensor;
      }
      return nullptr;
    }
    case InputKind::Parameter:
    case InputKind::Buffer: {
      if (spec.persistent == false) return constant();
      auto it = p.state_dict.find(target);
      return it != p.state_dict.end() ? &it->second.tensor : nullptr;
    }
    case InputKind::ConstantTensor: return constant();
    default: return nullptr;
  }
}

bool isView(const Node& n) {
  if (n.op() != OpKind::CallFunction) return false;
  if (n.target.kind() == Target::Kind::Builtin) return n.target.builtinOp() == BuiltinOp::GetItem;
  if (n.target.kind() != Target::Kind::Aten) return false;
  const OpRole role = opRole(*n.target.op()).role;
  return role == OpRole::View || role == OpRole::MaybeView;
}

}  // namespace

std::vector<GraphInput> describeInputs(const ExportedProgram& p) {
  std::vector<GraphInput> inputs;
  const auto& specs = p.signature.input_specs;
  size_t user = 0;
  for (const Node& n : p.graph().nodes()) {
    if (!n.isPlaceholder()) continue;
    GraphInput in;
    in.node = &n;
    in.spec = inputs.size() < specs.size() ? &specs[inputs.size()] : nullptr;
    if (in.spec) in.runtime = runtimeValue(p, *in.spec, user);
    const TensorMeta* meta = n.meta.val.tensor();
    in.requires_grad = (meta && meta->requires_grad) || (in.runtime && in.runtime->requires_grad);
    inputs.push_back(in);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    for (size_t j = 0; j < inputs.size(); ++j) {
      const TensorValue* a = inputs[i].runtime;
      const TensorValue* b = inputs[j].runtime;
      if (i == j || !a || !b || !a->storage || a->storage != b->storage) continue;
      if (overlaps(*a, *b)) inputs[i].aliases = static_cast<int>(j);
    }
  }
  return inputs;
}

void dropSupersededViews(Graph& g, std::vector<Node*>& superseded) {
  if (superseded.empty()) return;
  // One walk numbers the nodes (Node::visit_stamp) and counts uses.
  const uint64_t first = reserveVisitStamps(g.size());
  uint64_t stamp = first;
  std::vector<int> uses(g.size(), 0);
  for (const Node& n : g.nodes()) {
    n.visit_stamp = stamp++;
    n.forEachInput([&](const Node* in) { ++uses[in->visit_stamp - first]; });
  }
  // Latest first, so a dropped view's own inputs are looked at after it.
  std::sort(superseded.begin(), superseded.end(),
            [](const Node* a, const Node* b) { return a->visit_stamp > b->visit_stamp; });
  superseded.erase(std::unique(superseded.begin(), superseded.end()), superseded.end());
  for (Node* n : superseded) {
    if (uses[n->visit_stamp - first] > 0 || !isView(*n)) continue;
    n->forEachInput([&](const Node* in) { --uses[in->visit_stamp - first]; });
    g.eraseUnused(n);
  }
}

void renameModuleCallOutputs(const GraphSignature& before, ExportedProgram& result) {
  std::unordered_map<std::string, std::string> renamed;
  const auto& old_specs = before.output_specs;
  const auto& new_specs = result.signature.output_specs;
  size_t j = result.signature.mutationOutputEnd();
  for (const auto& spec : old_specs) {
    if (j >= new_specs.size()) break;
    if (spec.kind == OutputKind::Token || spec.kind == OutputKind::BufferMutation ||
        spec.kind == OutputKind::ParameterMutation || spec.kind == OutputKind::UserInputMutation) {
      continue;
    }
    renamed[spec.arg.name] = new_specs[j++].arg.name;
  }
  for (auto& entry : result.module_call_graph) {
    if (!entry.signature) continue;
    for (auto& o : entry.signature->outputs) {
      auto it = renamed.find(o.name);
      if (it != renamed.end()) o.name = it->second;
    }
  }
}

}  // namespace epsmith::functionalizer
