// The cases of PyTorch's test/export/test_verifier.py (tests/data/verifier_cases), as
// epsmith reports them: the check id and place of each violation, and the order of the
// violations of a program with several (the first is the one Python raises). What the
// verdicts and first messages must be is torch's to say: torch_verdicts_test.py asks
// torch.export.load on the same files. The programs no .pt2 can hold (a call_module, a
// spec naming no placeholder, two output nodes) are asked of epsmith alone.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "formats/text_format.h"
#include "tests/support/program_text.h"
#include "verifier/verifier.h"

namespace epsmith {
namespace {

std::string caseText(const std::string& name) {
  std::ifstream in(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/verifier_cases/" + name + ".ept");
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << name;
  return text.str();
}

ExportedProgram caseProgram(const std::string& name) { return test::parse(caseText(name)); }

// Each violation as "check-id where", in the order verify() reports them.
std::vector<std::string> violations(const ExportedProgram& p) {
  std::vector<std::string> got;
  for (const auto& d : verify(p)) got.push_back(std::string(checkIdName(d.check)) + " " + d.where);
  return got;
}

using Lines = std::vector<std::string>;

TEST(PyTorchVerifierCases, Accepted) {
  for (const char* name : {"accepted_add", "accepted_cond", "accepted_linear", "accepted_buffer_mutation"}) {
    EXPECT_EQ(violations(caseProgram(name)), Lines{}) << name;
  }
}

TEST(PyTorchVerifierCases, EachViolationAtItsPlace) {
  EXPECT_EQ(violations(caseProgram("in_place_add")), Lines{"non-functional-op %add"});
  EXPECT_EQ(violations(caseProgram("in_place_add_in_cond")), Lines{"non-functional-op true_graph_0/%ADD_OP"});
  EXPECT_EQ(violations(caseProgram("parameter_not_in_state_dict")),
            Lines{"parameter-not-in-state-dict input_specs[0]"});
  EXPECT_EQ(violations(caseProgram("parameter_not_a_parameter")), Lines{"parameter-not-parameter input_specs[0]"});
  EXPECT_EQ(violations(caseProgram("buffer_not_in_state_dict")), Lines{"buffer-not-in-state-dict input_specs[2]"});
  EXPECT_EQ(violations(caseProgram("output_count")), Lines{"output-count %output"});
}

TEST(PyTorchVerifierCases, CallModuleIsRejected) {
  std::string text = caseText("accepted_add");
  text.replace(text.find("aten::add.Tensor(%x, %y)"), 24, "call_module(\"foo\")(%x, %y)");
  text.replace(text.find("}\nsignature"), 0, "  attr \"foo\" = module(\"torch.nn.Module\")\n");
  auto ds = verify(test::parse(text));
  ASSERT_FALSE(ds.empty());
  EXPECT_EQ(ds[0].str(), "%add: error[call-module]: call_module is not valid: got a class 'foo' ");
}

TEST(FirstViolationParity, NodesInOrderThenSubgraphsThenCallGraphThenSignature) {
  // Violations planted everywhere: Python raises the missing val of %neg (first node with a
  // problem in the top graph); the rest follow in the order Python's walk would meet them.
  EXPECT_EQ(violations(caseProgram("violations_everywhere")),
            (Lines{"missing-val %neg", "non-functional-op %add_", "non-functional-op sub/%mul_",
                   "call-graph-input-missing module_call_graph[0]", "input-name input_specs[0]",
                   "user-output-order output[0]"}));
}

TEST(FirstViolationParity, LintOfAGraphComesBeforeItsNodeChecks) {
  // %bad uses %late before its definition: torch.fx lint raises before any meta['val'] check.
  EXPECT_EQ(violations(caseProgram("use_before_definition")), (Lines{"use-before-def %bad", "missing-val %noval"}));
}

TEST(FirstViolationParity, SubgraphsInTheOrderTheirGetAttrsRegisteredThem) {
  // gm.modules() yields true_graph_0 first (its get_attr comes first), whatever the names sort to.
  EXPECT_EQ(violations(caseProgram("both_branches_mutate")),
            (Lines{"non-functional-op true_graph_0/%ADD_OP", "non-functional-op false_graph_0/%sub"}));
}

TEST(FirstViolationParity, EpsmithOnlyChecksComeAfterPythons) {
  // Python accepts a second output node (its last node is an output); the mutable op is its
  // error. epsmith's multiple-outputs comes after it.
  EXPECT_EQ(violations(caseProgram("second_output_node")), (Lines{"non-functional-op %y", "multiple-outputs %output"}));
}

}  // namespace
}  // namespace epsmith
