// The cases of PyTorch's test/export/test_verifier.py rebuilt in the text form, with the
// verdicts PyTorch's verifier gives them, and first-violation parity on programs with
// several violations (the first diagnostic is the error Python raises).
#include <gtest/gtest.h>

#include "formats/text_format.h"
#include "tests/support/program_text.h"
#include "verifier/verifier.h"

namespace epsmith {
namespace {

using test::parse;

std::string firstError(const ExportedProgram& p) {
  auto ds = verify(p);
  return ds.empty() ? "" : ds[0].str();
}

// test_verifier_basic: x + y.
const char* kBasic = R"EPT(graph {
  %x: f32[10, 10] = placeholder
  %y: f32[10, 10] = placeholder
  %add: f32[10, 10] = aten::add.Tensor(%x, %y)
  return (%add)
}
signature {
  input user_input %x
  input user_input %y
  output user_output %add
}
)EPT";

// test_verifier_higher_order: torch.cond with true/false subgraphs.
const char* kCond = R"EPT(graph {
  %x: f32[3, 3] = placeholder
  %y: f32[3, 3] = placeholder
  %sum: f32[] = aten::sum(%x)
  %gt: b8[] = aten::gt.Scalar(%sum, 0)
  %true_graph_0 = get_attr("true_graph_0")
  %false_graph_0 = get_attr("false_graph_0")
  %cond: (f32[3, 3],) = higher_order.cond(%gt, graph(%true_graph_0), graph(%false_graph_0), [%x, %y])
  %getitem: f32[3, 3] = operator.getitem(%cond, 0)
  return (%getitem)
  attr "false_graph_0" = graph {
    %x_1: f32[3, 3] = placeholder
    %y_1: f32[3, 3] = placeholder
    %sub: f32[3, 3] = aten::sub.Tensor(%x_1, %y_1)
    return (%sub)
  }
  attr "true_graph_0" = graph {
    %x_1: f32[3, 3] = placeholder
    %y_1: f32[3, 3] = placeholder
    %ADD_OP: f32[3, 3] = aten::add.Tensor(%x_1, %y_1)
    return (%ADD_OP)
  }
}
signature {
  input user_input %x
  input user_input %y
  output user_output %getitem
}
)EPT";

// test_ep_verifier_basic / invalid_param / invalid_buffer: a Linear module with a buffer.
const char* kLinear = R"EPT(graph {
  %p_linear_weight: f32[10, 10]<requires_grad=True> = placeholder
  %p_linear_bias: f32[10]<requires_grad=True> = placeholder
  %b_my_buffer: f32[10] = placeholder
  %x: f32[10, 10] = placeholder
  %linear: f32[10, 10] = aten::addmm(%p_linear_bias, %x, aten_t_PLACEHOLDER)
  %add: f32[10, 10] = aten::add.Tensor(%linear, %b_my_buffer)
  return (%add)
}
signature {
  input parameter %p_linear_weight -> "linear.weight"
  input parameter %p_linear_bias -> "linear.bias"
  input buffer %b_my_buffer -> "my_buffer" persistent=True
  input user_input %x
  output user_output %add
}
storages {
  $0: f32[10] = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
}
state {
  parameter "linear.bias" = $0 f32[10]<requires_grad=True>
  parameter "linear.weight" = $0 f32[10, 10]<stride=[0, 1], requires_grad=True>
  buffer "my_buffer" = $0 f32[10]
}
)EPT";

std::string linearProgram() {
  std::string text = kLinear;
  // addmm(bias, x, weight.t()): the transpose is its own node.
  auto at = text.find("  %linear:");
  text.insert(at, "  %t: f32[10, 10]<stride=[1, 10]> = aten::t(%p_linear_weight)\n");
  auto ph = text.find("aten_t_PLACEHOLDER");
  text.replace(ph, std::string("aten_t_PLACEHOLDER").size(), "%t");
  return text;
}

// test_ep_verifier_buffer_mutate: my_buffer2.add_(1.0) after export is a functional add and
// a BUFFER_MUTATION output.
const char* kBufferMutate = R"EPT(graph {
  %b_my_buffer1: f32[] = placeholder
  %b_my_buffer2: f32[] = placeholder
  %x1: f32[] = placeholder
  %x2: f32[] = placeholder
  %add: f32[] = aten::add.Tensor(%x1, %b_my_buffer1)
  %add_1: f32[] = aten::add.Tensor(%b_my_buffer2, 1.0)
  %add_2: f32[] = aten::add.Tensor(%add, %add_1)
  return (%add_1, %add_2)
}
signature {
  input buffer %b_my_buffer1 -> "my_parameter" persistent=True
  input buffer %b_my_buffer2 -> "my_buffer2" persistent=True
  input user_input %x1
  input user_input %x2
  output buffer_mutation %add_1 -> "my_buffer2"
  output user_output %add_2
}
storages {
  $0: f32[1] = [1.0]
  $1: f32[1] = [2.0]
}
state {
  buffer "my_buffer2" = $1 f32[]
  buffer "my_parameter" = $0 f32[]
}
)EPT";

TEST(PyTorchVerifierCases, Accepted) {
  EXPECT_EQ(firstError(parse(kBasic)), "");
  EXPECT_EQ(firstError(parse(kCond)), "");
  EXPECT_EQ(firstError(parse(linearProgram())), "");
  EXPECT_EQ(firstError(parse(kBufferMutate)), "");
}

TEST(PyTorchVerifierCases, CallModuleIsRejected) {
  std::string text = kBasic;
  text.replace(text.find("aten::add.Tensor(%x, %y)"), 24, "call_module(\"foo\")(%x, %y)");
  text.replace(text.find("  return"), 0, "  attr \"foo\" = module(\"torch.nn.Module\")\n");
  // attrs come after nodes in a graph block: move it after the return line.
  auto p = parseProgramText(text);
  if (!p.ok()) {
    text = kBasic;
    text.replace(text.find("aten::add.Tensor(%x, %y)"), 24, "call_module(\"foo\")(%x, %y)");
    text.replace(text.find("}\nsignature"), 0, "  attr \"foo\" = module(\"torch.nn.Module\")\n");
  }
  EXPECT_EQ(firstError(parse(text)), "%add: error[call-module]: call_module is not valid: got a class 'foo' ");
}

TEST(PyTorchVerifierCases, InPlaceAddIsNotFunctional) {
  std::string text = kBasic;
  text.replace(text.find("aten::add.Tensor"), 16, "aten::add_.Tensor");
  EXPECT_EQ(firstError(parse(text)),
            "%add: error[non-functional-op]: operator 'aten.add_.Tensor' is not functional");
}

TEST(PyTorchVerifierCases, InPlaceAddInsideACondBranchIsRejected) {
  std::string text = kCond;
  text.replace(text.find("aten::add.Tensor(%x_1, %y_1)"), 16, "aten::add_.Tensor");
  EXPECT_EQ(firstError(parse(text)),
            "true_graph_0/%ADD_OP: error[non-functional-op]: operator 'aten.add_.Tensor' is not functional");
}

TEST(PyTorchVerifierCases, ParameterRetargetedOutOfTheStateDictThenToAPlainTensor) {
  auto p = parse(linearProgram());
  p.signature.input_specs[0].target = "bad_param";
  EXPECT_EQ(firstError(p), "input_specs[0]: error[parameter-not-in-state-dict]: Parameter bad_param is not in the state dict.");
  p.state_dict["bad_param"] = StateEntry{/*is_parameter=*/false, p.state_dict["my_buffer"].tensor};
  EXPECT_EQ(firstError(p),
            "input_specs[0]: error[parameter-not-parameter]: State dict entry for parameter bad_param "
            "is not an instance of torch.nn.Parameter.");
}

TEST(PyTorchVerifierCases, PersistentBufferMissingFromTheStateDict) {
  auto p = parse(linearProgram());
  p.signature.input_specs[2].target = "bad_buffer";
  EXPECT_EQ(firstError(p), "input_specs[2]: error[buffer-not-in-state-dict]: Buffer bad_buffer is not in the state dict.");
}

TEST(PyTorchVerifierCases, OutputTupleLengthDiffersFromTheSpecs) {
  auto p = parse(kBufferMutate);
  // test_ep_verifier_invalid_output: the output node gains an extra value.
  Node* out = p.graph().outputNode();
  out->args.push_back(arg::Tensor{p.graph().find("add")});
  EXPECT_EQ(firstError(p),
            "%output: error[output-count]: Number of output nodes 3 is different Than the number of "
            "outputs specified by the graph signature: \nNumber of mutated buffers: 1. \nNumber of "
            "user outputs: 1. \n");
}

TEST(FirstViolationParity, NodesInOrderThenSubgraphsThenCallGraphThenSignature) {
  // Violations planted everywhere: Python raises the missing val of %neg (first node with a
  // problem in the top graph); the rest follow in the order Python's walk would meet them.
  auto p = parse(R"EPT(program {
  verifiers ["ATEN"]
}
graph {
  %x: f32[2] = placeholder
  %neg = aten::neg(%x)
  %add_: f32[2] = aten::add_.Tensor(%x, %neg)
  %g = get_attr("sub")
  return (%add_)
  attr "sub" = graph {
    %a: f32[2] = placeholder
    %mul_: f32[2] = aten::mul_.Tensor(%a, %a)
    return (%mul_)
  }
}
signature {
  input user_input %y
  output user_output %neg
}
module_call_graph {
  entry "" inputs=[%nope] outputs=[] in_spec="" out_spec=""
}
)EPT");
  std::vector<std::string> got;
  for (const auto& d : verify(p)) got.push_back(std::string(checkIdName(d.check)) + " " + d.where);
  EXPECT_EQ(got, (std::vector<std::string>{
                     "missing-val %neg", "non-functional-op %add_", "non-functional-op sub/%mul_",
                     "call-graph-input-missing module_call_graph[0]", "input-name input_specs[0]",
                     "user-output-order output[0]"}));
}

TEST(FirstViolationParity, LintOfAGraphComesBeforeItsNodeChecks) {
  // %bad uses %late before its definition: torch.fx lint raises before any meta['val'] check.
  auto p = parse(R"EPT(graph {
  %x: f32[2] = placeholder
  %noval = aten::neg(%x)
  %bad: f32[2] = aten::add.Tensor(%x, %late)
  %late: f32[2] = aten::neg(%x)
  return (%bad)
}
signature {
  input user_input %x
  output user_output %bad
}
)EPT");
  auto ds = verify(p);
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[0].check, CheckId::UseBeforeDef);
  EXPECT_EQ(ds[1].check, CheckId::MissingVal);
}

TEST(FirstViolationParity, SubgraphsInTheOrderTheirGetAttrsRegisteredThem) {
  // gm.modules() yields true_graph_0 first (its get_attr comes first), whatever the names sort to.
  std::string text = kCond;
  text.replace(text.find("aten::add.Tensor(%x_1, %y_1)"), 16, "aten::add_.Tensor");
  text.replace(text.find("aten::sub.Tensor(%x_1, %y_1)"), 16, "aten::sub_.Tensor");
  auto p = parse(text);
  auto ds = verify(p);
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[0].where, "true_graph_0/%ADD_OP");
  EXPECT_EQ(ds[1].where, "false_graph_0/%sub");
}

TEST(FirstViolationParity, EpsmithOnlyChecksComeAfterPythons) {
  // Python accepts a second output node (its last node is an output); the mutable op is its
  // error. epsmith's multiple-outputs comes after it.
  auto p = parse(R"EPT(graph {
  %x: f32[2] = placeholder
  return[%output_0] (%x)
  %y: f32[2] = aten::relu_(%x)
  return (%y)
}
signature {
  input user_input %x
  output user_output %y
}
)EPT");
  auto ds = verify(p);
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[0].str(), "%y: error[non-functional-op]: operator 'aten.relu_.default' is not functional");
  EXPECT_EQ(ds[1].check, CheckId::MultipleOutputs);
}

}  // namespace
}  // namespace epsmith
