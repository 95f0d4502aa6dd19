// Builders and the round-trip check for the JSON format tests.
#include "tests/formats/json_test_util.h"

#include <sstream>

#include "ir/program_diff.h"
#include "ops/targets.h"

namespace epsmith::testing {

Target target(const std::string& name) {
  auto t = parseTarget(name);
  EXPECT_TRUE(t) << name << ": " << (t ? "" : t.error().str());
  return t ? *t : Target();
}

Node* placeholder(Graph& g, const std::string& name, Val val) {
  Node* n = g.append(OpKind::Placeholder, name);
  n->meta.val = std::move(val);
  return n;
}

Node* call(Graph& g, const std::string& name, const std::string& target_name, std::vector<Argument> args, Val val,
           std::vector<std::pair<std::string, Argument>> kwargs) {
  Node* n = g.append(OpKind::CallFunction, name);
  n->target = target(target_name);
  n->args = std::move(args);
  n->kwargs = std::move(kwargs);
  n->meta.val = std::move(val);
  return n;
}

Node* output(Graph& g, std::vector<Argument> args) {
  Node* n = g.append(OpKind::Output, "output");
  n->args = std::move(args);
  return n;
}

TensorMeta f32(std::vector<int64_t> sizes) { return TensorMeta::contiguous(ScalarType::Float, std::move(sizes)); }

TensorValue tensorOf(ScalarType dtype, std::vector<int64_t> sizes, std::vector<uint8_t> bytes) {
  TensorValue t = TensorValue::zeros(dtype, std::move(sizes));
  t.storage->bytes = std::move(bytes);
  return t;
}

::testing::AssertionResult roundTrips(const ExportedProgram& p, std::string* text) {
  auto first = writeProgramJson(p);
  if (!first) return ::testing::AssertionFailure() << "write failed: " << first.error().str();
  auto back = readProgramJson(*first);
  if (!back) {
    return ::testing::AssertionFailure() << "read failed: " << back.error().str() << "\n" << *first;
  }
  if (auto d = programDiff(p, *back); !d.empty()) {
    return ::testing::AssertionFailure() << "read(write(p)) differs from p: " << d;
  }
  auto second = writeProgramJson(*back);
  if (!second) return ::testing::AssertionFailure() << "second write failed: " << second.error().str();
  if (*first != *second) {
    std::istringstream a(*first), b(*second);
    std::string la, lb;
    for (int line = 1; std::getline(a, la); ++line) {
      if (!std::getline(b, lb) || la != lb) {
        return ::testing::AssertionFailure() << "rewrite differs at line " << line << ":\n  " << la << "\n  " << lb;
      }
    }
    return ::testing::AssertionFailure() << "rewrite is longer";
  }
  if (text) *text = *first;
  return ::testing::AssertionSuccess();
}

ExportedProgram addProgram() {
  ExportedProgram p;
  Graph& g = p.graph();
  Node* x = placeholder(g, "x", f32({2, 3}));
  Node* y = placeholder(g, "y", f32({2, 3}));
  Node* add = call(g, "add", "aten::add.Tensor", {arg::Tensor{x}, arg::Tensor{y}}, f32({2, 3}));
  output(g, {arg::Tensor{add}});
  p.signature.input_specs = {{InputKind::UserInput, SpecArg::tensor("x"), {}, {}},
                             {InputKind::UserInput, SpecArg::tensor("y"), {}, {}}};
  p.signature.output_specs = {{OutputKind::UserOutput, SpecArg::tensor("add"), {}}};
  for (int i = 0; i < 2; ++i) {
    InputValue in;
    in.kind = InputValue::Kind::Tensor;
    in.tensor = TensorValue::zeros(ScalarType::Float, {2, 3});
    p.example_inputs.push_back(in);
  }
  return p;
}

}  // namespace epsmith::testing
