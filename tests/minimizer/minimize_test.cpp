// The minimizer on a planted bug: a LibTorch 1.13 divergence (logical_not_ raises under
// LibTorch's functionalization, D2) planted at the end of a ~50-node generated program that
// otherwise passes D2. Minimized while "D2 still finds an exception in logical_not", it must
// end at a handful of nodes with the failure intact and a bounded number of oracle calls.
#include <gtest/gtest.h>

#include <iostream>

#include "fuzz/checks.h"
#include "generators/graph_generator.h"
#include "ir/op_registry.h"
#include "ir/text_format.h"
#include "minimizer/minimize.h"
#include "verifier/verifier.h"

namespace epsmith {
namespace {

bool d2FailsInLogicalNot(const ExportedProgram& p) {
  auto outcomes = runChecks(p, {DiffCheck::D2});
  return outcomes.size() == 1 && outcomes[0].status == CheckOutcome::Status::Finding &&
         outcomes[0].kind == "exception-in-one" && outcomes[0].report.find("logical_not") != std::string::npos;
}

size_t calls(const ExportedProgram& p) {
  size_t n = 0;
  for (const auto& node : p.graph().nodes()) n += node.op() == OpKind::CallFunction ? 1 : 0;
  return n;
}

TEST(Minimizer, APlantedBugIn50NodesEndsInAHandful) {
  const OpCatalog catalog = OpCatalog::build().value();
  GeneratorConfig config;
  config.nodes = 48;
  config.dtypes = {ScalarType::Float};
  config.max_state = 2;
  std::optional<ExportedProgram> planted;
  for (uint64_t seed = 1; seed <= 30 && !planted; ++seed) {
    SeededSource random(seed);
    auto p = generateProgram(catalog, config, random);
    ASSERT_TRUE(p.ok());
    auto d2 = runChecks(p.value(), {DiffCheck::D2});
    if (d2[0].status != CheckOutcome::Status::Pass) continue;  // fails D2 already, elsewhere
    Graph& g = p.value().graph();
    Node* x = g.find("x0");
    Node* bug = g.insertBefore(g.outputNode(), OpKind::CallFunction, "logical_not_");
    bug->target = Target::aten(findOp("aten::logical_not_", ""));
    bug->args = {arg::Tensor{x}};
    bug->meta.val = x->meta.val;
    if (verify(p.value()).empty() && d2FailsInLogicalNot(p.value())) planted = std::move(p.value());
  }
  ASSERT_TRUE(planted.has_value()) << "no seed gave a program that passes D2 to plant the bug in";
  ASSERT_GE(calls(*planted), 45u);

  MinimizeOptions options;
  options.max_oracle_calls = 400;
  MinimizeResult r = minimize(*planted, d2FailsInLogicalNot, options);
  std::cout << "[ minimized ] " << r.nodes_before << " -> " << r.nodes_after << " calls in " << r.oracle_calls
            << " oracle calls\n" << printProgramText(r.program);
  EXPECT_LE(r.nodes_after, 4u) << printProgramText(r.program);
  EXPECT_LE(r.oracle_calls, options.max_oracle_calls);
  EXPECT_TRUE(verify(r.program).empty());
  EXPECT_TRUE(d2FailsInLogicalNot(r.program));  // the failure kept its signature
  EXPECT_NE(r.program.graph().find("logical_not_"), nullptr);
}

// A predicate that holds for nothing smaller leaves the program as it was.
TEST(Minimizer, NothingSmallerFailsNothingChanges) {
  const OpCatalog catalog = OpCatalog::build().value();
  SeededSource random(3);
  auto p = generateProgram(catalog, {}, random);
  ASSERT_TRUE(p.ok());
  const std::string before = printProgramText(p.value());
  MinimizeResult r = minimize(p.value(), [](const ExportedProgram&) { return false; });
  EXPECT_EQ(printProgramText(r.program), before);
  EXPECT_GT(r.oracle_calls, 0);
  EXPECT_TRUE(r.log.empty());
}

}  // namespace
}  // namespace epsmith
