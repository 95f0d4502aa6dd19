// Synthetic programs for the benchmarks; see programs.h.
#include "bench/programs.h"

#include <string>

#include "ir/op_registry.h"

namespace epsmith::bench {

ExportedProgram chainProgram(int64_t nodes) {
  ExportedProgram p;
  Graph& g = p.graph();
  const TensorMeta meta = TensorMeta::contiguous(ScalarType::Float, {4, 4});
  std::vector<Node*> values;
  auto placeholder = [&](const std::string& name) {
    Node* n = g.append(OpKind::Placeholder, name);
    n->meta.val = meta;
    values.push_back(n);
    return n;
  };
  Node* w = placeholder("p_weight");
  Node* b = placeholder("b_buffer");
  for (int i = 0; i < 4; ++i) placeholder("x" + std::to_string(i));
  p.signature.input_specs.push_back({InputKind::Parameter, SpecArg::tensor(w->name()), "weight", std::nullopt});
  p.signature.input_specs.push_back({InputKind::Buffer, SpecArg::tensor(b->name()), "buffer", true});
  for (int i = 0; i < 4; ++i) {
    p.signature.input_specs.push_back({InputKind::UserInput, SpecArg::tensor("x" + std::to_string(i)), std::nullopt, std::nullopt});
  }
  auto weight = TensorValue::zeros(ScalarType::Float, {4, 4});
  p.state_dict["weight"] = {true, weight};
  p.state_dict["buffer"] = {false, weight};

  const OpInfo* unary[] = {findOpByName("aten::neg"), findOpByName("aten::relu")};
  const OpInfo* binary[] = {findOpByName("aten::add.Tensor"), findOpByName("aten::mul.Tensor")};
  const OpInfo* view = findOpByName("aten::view");
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  const int64_t body = std::max<int64_t>(nodes - 7, 1);
  for (int64_t i = 0; i < body; ++i) {
    Node* a = values[values.size() - 1 - next() % std::min<size_t>(values.size(), 8)];
    Node* n = g.append(OpKind::CallFunction, "n" + std::to_string(i));
    switch (next() % 5) {
      case 0:
      case 1:
        n->target = Target::aten(unary[next() % 2]);
        n->args = {arg::Tensor{a}};
        break;
      case 2:
      case 3:
        n->target = Target::aten(binary[next() % 2]);
        n->args = {arg::Tensor{a}, arg::Tensor{values[next() % values.size()]}};
        break;
      default:
        n->target = Target::aten(view);
        n->args = {arg::Tensor{a}, arg::IntList{{4, 4}}};
        break;
    }
    n->meta.val = meta;
    values.push_back(n);
  }
  Node* out = g.append(OpKind::Output, "output");
  out->args = {arg::Tensor{values.back()}};
  p.signature.output_specs.push_back({OutputKind::UserOutput, SpecArg::tensor(values.back()->name()), std::nullopt});
  return p;
}

}  // namespace epsmith::bench
