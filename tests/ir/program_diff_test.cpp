// programDiff: what a round trip must give back. Each edit a format could lose (an
// argument, a float's sign, two tensors sharing a storage, a state entry, a program field)
// is reported with its place; a copy, NaN payloads included, is equal.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ir/program_diff.h"
#include "tests/formats/json_test_util.h"

namespace epsmith::testing {
namespace {

// x: f32[2, 3]; mul = aten::mul.Scalar(x, 0.5); return (mul), with a buffer and an example
// input that share a storage.
ExportedProgram scaledProgram() {
  ExportedProgram p = addProgram();
  Graph& g = p.graph();
  Node* add = g.find("add");
  Node* mul = g.insertAfter(add, OpKind::CallFunction, "mul");
  mul->target = target("aten::mul.Scalar");
  mul->args = {arg::Tensor{add}, arg::Float{0.5}};
  mul->meta.val = f32({2, 3});
  g.outputNode()->args = {arg::Tensor{mul}};
  p.signature.output_specs[0].arg = SpecArg::tensor("mul");
  p.state_dict["b"] = StateEntry{false, p.example_inputs[0].tensor};
  return p;
}

TEST(ProgramDiff, ACopyIsEqual) {
  ExportedProgram p = scaledProgram();
  p.graph().find("mul")->args[1] = arg::Float{std::numeric_limits<double>::quiet_NaN()};
  EXPECT_EQ(programDiff(p, p.clone()), "");
}

TEST(ProgramDiff, EachEditIsReportedWithItsPlace) {
  const ExportedProgram p = scaledProgram();
  {
    ExportedProgram q = p.clone();
    q.graph().find("mul")->args[1] = arg::Float{-0.5};
    EXPECT_EQ(programDiff(p, q), "graph '': node mul: argument 1 differs");
  }
  {
    ExportedProgram q = p.clone();
    q.graph().find("mul")->args[1] = arg::Int{0};
    EXPECT_EQ(programDiff(p, q), "graph '': node mul: argument 1 differs");
  }
  {
    ExportedProgram q = p.clone();
    Node* mul = q.graph().find("mul");
    mul->args[0] = arg::Tensor{q.graph().find("x")};
    EXPECT_EQ(programDiff(p, q), "graph '': node mul: argument 0 differs");
  }
  {
    ExportedProgram a = p.clone(), b = p.clone();
    a.graph().find("mul")->args[1] = arg::Float{0.0};
    b.graph().find("mul")->args[1] = arg::Float{-0.0};
    EXPECT_EQ(programDiff(a, b), "graph '': node mul: argument 1 differs");
  }
  {
    ExportedProgram q = p.clone();
    q.graph().find("mul")->meta.val = f32({3, 2});
    EXPECT_EQ(programDiff(p, q), "graph '': node mul: meta differs");
  }
  {
    ExportedProgram q = p.clone();  // the same bytes, but no longer the input's storage
    q.state_dict["b"].tensor.storage = std::make_shared<Storage>(*q.state_dict["b"].tensor.storage);
    EXPECT_EQ(programDiff(p, q), "example input 0: storage sharing differs");
  }
  {
    ExportedProgram q = p.clone();
    q.state_dict["b"].is_parameter = true;
    EXPECT_EQ(programDiff(p, q), "state b: parameter or buffer differs");
  }
  {
    ExportedProgram q = p.clone();  // clones share tensor payloads: give it its own
    auto& t = q.state_dict["b"].tensor;
    t.storage = std::make_shared<Storage>(*t.storage);
    t.storage->bytes[0] ^= 1;
    EXPECT_EQ(programDiff(p, q), "state b: storage contents differ");
  }
  {
    ExportedProgram q = p.clone();
    q.graph().rename(q.graph().find("y"), "z");
    EXPECT_EQ(programDiff(p, q), "graph '': node y: name differs (z)");
  }
  {
    ExportedProgram q = p.clone();
    q.torch_version = "2.1.0";
    EXPECT_EQ(programDiff(p, q), "torch versions differ");
  }
}

}  // namespace
}  // namespace epsmith::testing
