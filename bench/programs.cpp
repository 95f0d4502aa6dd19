// Synthetic programs for the benchmarks; see programs.h.
#include "bench/programs.h"

#include <string>

#include "ops/op_registry.h"

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
    p.signature.input_specs.push_back(
        {InputKind::UserInput, SpecArg::tensor("x" + std::to_string(i)), std::nullopt, std::nullopt});
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

ExportedProgram mutationProgram(int64_t nodes) {
  ExportedProgram p;
  p.setDialect(IrDialect::Training);
  Graph& g = p.graph();
  const TensorMeta square = TensorMeta::contiguous(ScalarType::Float, {8, 8});
  const TensorMeta row_meta = TensorMeta::contiguous(ScalarType::Float, {8});
  TensorMeta transposed = square;
  transposed.strides = {1, 8};
  TensorMeta half = TensorMeta::contiguous(ScalarType::Float, {4, 8});

  auto placeholder = [&](const std::string& name) {
    Node* n = g.append(OpKind::Placeholder, name);
    n->meta.val = square;
    return n;
  };
  Node* b = placeholder("b_state");
  Node* x = placeholder("x");
  Node* y = placeholder("y");
  p.signature.input_specs.push_back({InputKind::Buffer, SpecArg::tensor(b->name()), "state", true});
  p.signature.input_specs.push_back({InputKind::UserInput, SpecArg::tensor("x"), std::nullopt, std::nullopt});
  p.signature.input_specs.push_back({InputKind::UserInput, SpecArg::tensor("y"), std::nullopt, std::nullopt});
  p.state_dict["state"] = {false, TensorValue::zeros(ScalarType::Float, {8, 8})};
  for (int i = 0; i < 2; ++i) {
    InputValue v;
    v.kind = InputValue::Kind::Tensor;
    v.tensor = TensorValue::zeros(ScalarType::Float, {8, 8});
    p.example_inputs.push_back(v);
  }

  auto call = [&](const char* op, std::vector<Argument> args, const TensorMeta& meta,
                  std::vector<std::pair<std::string, Argument>> kwargs = {}) {
    const OpInfo* info = findOpByName(op);
    Node* n = g.append(OpKind::CallFunction, "n");
    n->target = Target::aten(info);
    n->args = std::move(args);
    n->kwargs = std::move(kwargs);
    n->meta.val = meta;
    return n;
  };
  Node* cur = call("aten::clone", {arg::Tensor{y}}, square);
  for (int64_t k = 0; static_cast<int64_t>(g.size()) + 12 < nodes; ++k) {
    Node* row = call("aten::select.int", {arg::Tensor{x}, arg::Int{0}, arg::Int{k % 8}}, row_meta);
    call("aten::add_.Scalar", {arg::Tensor{row}, arg::Int{1}}, row_meta);  // into x
    Node* tt = call("aten::t", {arg::Tensor{cur}}, transposed);
    call("aten::mul_.Scalar", {arg::Tensor{cur}, arg::Float{0.5}}, square);           // tt is stale
    Node* m = call("aten::mul.Tensor", {arg::Tensor{tt}, arg::Tensor{row}}, square);  // replays tt
    Node* sl = call("aten::slice.Tensor", {arg::Tensor{m}, arg::Int{0}, arg::Int{0}, arg::Int{4}}, half);
    call("aten::mul_.Scalar", {arg::Tensor{sl}, arg::Int{2}}, half);  // into m
    Node* r = call("aten::relu", {arg::Tensor{m}}, square);
    switch (k % 3) {
      case 0: call("aten::add_.Tensor", {arg::Tensor{b}, arg::Tensor{r}}, square); break;  // buffer
      case 1: call("aten::abs.out", {arg::Tensor{r}}, square, {{"out", arg::Tensor{m}}}); break;
      default: call("aten::neg", {arg::Tensor{r}}, square); break;
    }
    cur = call("aten::add.Tensor", {arg::Tensor{r}, arg::Tensor{m}}, square);
  }
  Node* out = g.append(OpKind::Output, "output");
  out->args = {arg::Tensor{cur}};
  p.signature.output_specs.push_back({OutputKind::UserOutput, SpecArg::tensor(cur->name()), std::nullopt});
  return p;
}

}  // namespace epsmith::bench
