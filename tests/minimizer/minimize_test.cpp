// The minimizer on a planted bug: logical_not_ raises under LibTorch's functionalization
// (D2; Note [Planted faults], switched on for this binary), planted at the end of a ~50-node generated program that
// otherwise passes D2. Minimized while "D2 still finds an exception in logical_not", it must
// end at a handful of nodes with the failure intact and a bounded number of oracle calls.
#include <gtest/gtest.h>

#include <ATen/core/Tensor.h>

#include <algorithm>
#include <functional>
#include <iostream>

#include "formats/text_format.h"
#include "fuzz/checks.h"
#include "fuzz/messages.h"
#include "fuzz/workers.h"
#include "generators/graph_generator.h"
#include "minimizer/minimize.h"
#include "ops/op_registry.h"
#include "oracle/run.h"
#include "tests/support/planted_fault.h"
#include "verifier/verifier.h"

namespace epsmith {
namespace {

bool d2FailsInLogicalNot(const ExportedProgram& p) {
  auto outcomes = runChecks(p, {DiffCheck::D2});
  return outcomes.size() == 1 && outcomes[0].status == CheckOutcome::Status::Finding &&
         outcomes[0].kind == "exception-in-one" && outcomes[0].report.find("logical_not") != std::string::npos;
}

// Whether D2 passes on `p`, asked in a child: LibTorch's own functionalization may crash on
// a generated program (2.13's slice_inverse does), and such a seed is skipped, not fatal.
bool passesD2(const ExportedProgram& p) {
  IsolatedOutcome o = runIsolated(
      [&] {
        return std::string(runChecks(p, {DiffCheck::D2})[0].status == CheckOutcome::Status::Pass ? "pass" : "no");
      },
      WorkerLimits{});
  return o.result == "pass";
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
    if (!passesD2(p.value())) continue;  // fails D2 already, elsewhere
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
            << " oracle calls\n"
            << printProgramText(r.program);
  EXPECT_LE(r.nodes_after, 4u) << printProgramText(r.program);
  EXPECT_LE(r.oracle_calls, options.max_oracle_calls);
  EXPECT_TRUE(verify(r.program).empty());
  EXPECT_TRUE(d2FailsInLogicalNot(r.program));  // the failure kept its signature
  EXPECT_NE(r.program.graph().find("logical_not_"), nullptr);
}

// A bug that needs two ops: the planted logical_not_ fails under LibTorch's functionalization
// only when it writes through an alias (the predicate says so), so both must stay. The
// 50-node program ends at 4 calls or fewer, and its user inputs shrink to at most one
// element of float32, with every meta.val rebuilt from the smaller inputs.
bool failsThroughAnAlias(const ExportedProgram& p) {
  const Node* bug = p.graph().find("planted");
  if (!bug || bug->args.empty() || !bug->args[0].get<arg::Tensor>()) return false;
  const Node* base = bug->args[0].get<arg::Tensor>()->node;
  return base->target.kind() == Target::Kind::Aten && base->target.textName() == "aten::alias" &&
         d2FailsInLogicalNot(p);
}

TEST(Minimizer, ABugThatNeedsTwoOpsEndsAtFourCallsWithOneElementInputs) {
  const OpCatalog catalog = OpCatalog::build().value();
  GeneratorConfig config;
  config.nodes = 48;
  config.max_state = 2;
  config.dtypes = {ScalarType::Double, ScalarType::Float};
  std::optional<ExportedProgram> planted;
  for (uint64_t seed = 40; seed <= 80 && !planted; ++seed) {
    SeededSource random(seed);
    auto p = generateProgram(catalog, config, random);
    ASSERT_TRUE(p.ok());
    if (!passesD2(p.value())) continue;
    Graph& g = p.value().graph();
    Node* x = g.find("x0");
    if (!x || x->meta.val.tensor()->sizes.size() < 2) continue;
    Node* alias = g.insertBefore(g.outputNode(), OpKind::CallFunction, "planted_alias");
    alias->target = Target::aten(findOp("aten::alias", ""));
    alias->args = {arg::Tensor{x}};
    alias->meta.val = x->meta.val;
    Node* bug = g.insertBefore(g.outputNode(), OpKind::CallFunction, "planted");
    bug->target = Target::aten(findOp("aten::logical_not_", ""));
    bug->args = {arg::Tensor{alias}};
    bug->meta.val = x->meta.val;
    if (verify(p.value()).empty() && failsThroughAnAlias(p.value())) planted = std::move(p.value());
  }
  ASSERT_TRUE(planted.has_value()) << "no seed gave a program that passes D2 to plant the bug in";
  ASSERT_GE(calls(*planted), 45u);

  MinimizeOptions options;
  options.max_oracle_calls = 600;
  MinimizeResult r = minimize(*planted, failsThroughAnAlias, options);
  std::cout << "[ minimized ] " << r.nodes_before << " -> " << r.nodes_after << " calls in " << r.oracle_calls
            << " oracle calls\n"
            << printProgramText(r.program);
  EXPECT_LE(r.nodes_after, 4u);
  EXPECT_TRUE(failsThroughAnAlias(r.program));
  EXPECT_TRUE(verify(r.program).empty());
  for (const auto& in : r.program.example_inputs) {
    if (in.kind != InputValue::Kind::Tensor) continue;
    EXPECT_LE(in.tensor.numel(), 1) << printProgramText(r.program);  // one element, or none
    EXPECT_EQ(in.tensor.dtype(), ScalarType::Float);
  }
  // meta.val follows the shrunken inputs.
  const TensorMeta* x = r.program.graph().find("x0")->meta.val.tensor();
  const TensorMeta* bug = r.program.graph().find("planted")->meta.val.tensor();
  ASSERT_TRUE(x && bug);
  EXPECT_EQ(bug->sizes, x->sizes);
  EXPECT_EQ(bug->dtype, ScalarType::Float);
}

ExportedProgram fromText(const std::string& graph, const std::string& inputs) {
  const std::string text = "program {\n  verifiers [\"TRAINING\"]\n}\n\ngraph {\n" + graph + "}\n\nsignature {\n" +
                           inputs +
                           "}\n\nstorages {\n  $0: f32[2] = [1.0, 2.0]\n}\n\nexample_inputs {\n  $0 f32[2]\n}\n";
  auto p = parseProgramText(text);
  EXPECT_TRUE(p.ok()) << p.error().str();
  return std::move(p.value());
}

// The first element neg computes, in an eager run (NaN when there is no neg).
double negOutput(const ExportedProgram& p) {
  double out = std::nan("");
  RunOptions options(RunMode::Eager);
  options.observe = [&](const Node& n, const c10::IValue& v) {
    if (n.target.kind() == Target::Kind::Aten && n.target.textName() == "aten::neg" && v.isTensor()) {
      out = v.toTensor().flatten()[0].item<double>();
    }
  };
  runProgram(p, options);
  return out;
}

// A bug that needs neg's operand to hold 7: removing the calls that make the operand changes
// the value, but cutting the operand's call to an input holding its value keeps it, and the
// calls before it go. The float scalar ends at 0.0 rather than swinging between 0 and 1.
TEST(Minimizer, TheCallsThatMadeAnOperandGoWhenItsValueIsKept) {
  ExportedProgram p = fromText(
      "  %x: f32[2] = placeholder\n"
      "  %add: f32[2] = aten::add.Scalar(%x, 2.5)\n"
      "  %mul: f32[2] = aten::mul.Scalar(%add, 2)\n"
      "  %neg: f32[2] = aten::neg(%mul)\n"
      "  %scaled: f32[2] = aten::mul.Scalar(%neg, 0.5)\n"
      "  return (%neg, %scaled)\n",
      "  input user_input %x\n  output user_output %neg\n  output user_output %scaled\n");
  const auto negIsMinus7 = [](const ExportedProgram& q) { return negOutput(q) == -7.0; };
  ASSERT_TRUE(negIsMinus7(p));
  MinimizeResult r = minimize(p, negIsMinus7, {});
  EXPECT_EQ(r.nodes_after, 1u) << printProgramText(r.program);
  EXPECT_TRUE(negIsMinus7(r.program));
  EXPECT_LT(r.oracle_calls, 60) << printProgramText(r.program);
  EXPECT_TRUE(verify(r.program).empty());
}

// A bug that needs the value an in-place call left in an input, not the call: the call goes
// and the input holds that value (Note [Folding a write into its input]), where
// remove-nodes would change the value and cut-to-input does not apply (nothing reads the
// call's result).
TEST(Minimizer, AWriteThatOnlyMadeAnInputsValueIsFoldedIntoIt) {
  auto parsed = parseProgramText(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[2] = placeholder
  %frac_: f32[2] = aten::frac_(%x)
  %neg: f32[2] = aten::neg(%x)
  return (%frac_, %neg)
}
signature {
  input user_input %x
  output user_input_mutation %frac_ -> "x"
  output user_output %neg
}
storages {
  $0: f32[2] = [2.25, 3.5]
}
example_inputs {
  $0 f32[2]
}
)EPT");
  ASSERT_TRUE(parsed.ok()) << parsed.error().str();
  const ExportedProgram& p = parsed.value();
  const auto negIsAFraction = [](const ExportedProgram& q) { return negOutput(q) == -0.25; };
  ASSERT_TRUE(negIsAFraction(p));
  MinimizeResult r = minimize(p, negIsAFraction, {});
  EXPECT_EQ(r.nodes_after, 1u) << printProgramText(r.program);
  EXPECT_EQ(r.program.graph().find("frac_"), nullptr) << printProgramText(r.program);
  EXPECT_NE(std::find(r.log.begin(), r.log.end(), "fold-into-input: %frac_"), r.log.end());
  EXPECT_TRUE(negIsAFraction(r.program));
  EXPECT_TRUE(verify(r.program).empty()) << printProgramText(r.program);
}

// A mutation output of a TRAINING program names the write into its target (add_ of the
// buffer): cutting that write to an input would leave a write-back of a value the graph
// never wrote, which torch.export never makes. The write stays, and the buffer's mutation
// output still names it.
TEST(Minimizer, AWriteThatAMutationOutputNamesIsNotCutToAnInput) {
  auto parsed = parseProgramText(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %b_calls: i64[] = placeholder
  %x: f32[2] = placeholder
  %add_: i64[] = aten::add_.Scalar(%b_calls, 1)
  %neg: f32[2] = aten::neg(%x)
  return (%add_, %neg)
}
signature {
  input buffer %b_calls -> "calls" persistent=True
  input user_input %x
  output buffer_mutation %add_ -> "calls"
  output user_output %neg
}
storages {
  $0: i64[1] = [0]
  $1: f32[2] = [2.25, 3.5]
}
state {
  buffer "calls" = $0 i64[]
}
example_inputs {
  $1 f32[2]
}
)EPT");
  ASSERT_TRUE(parsed.ok()) << parsed.error().str();
  // Fails while the buffer ends at 1 as the calling convention writes it back: removing add_
  // leaves it at 0, an input holding 1 in add_'s place would keep it at 1.
  const auto countsOne = [](const ExportedProgram& q) {
    const RunResult run = runProgram(q, RunOptions(RunMode::Exported));
    for (const auto& [name, value] : run.final_inputs) {
      if (name == "buffer:calls") return value.item<int64_t>() == 1;
    }
    return false;
  };
  ASSERT_TRUE(countsOne(parsed.value()));
  MinimizeResult r = minimize(parsed.value(), countsOne, {});
  EXPECT_EQ(std::find(r.log.begin(), r.log.end(), "cut-to-input: %add_"), r.log.end());
  EXPECT_NE(r.program.graph().find("add_"), nullptr) << printProgramText(r.program);
  for (const OutputSpec& s : r.program.signature.output_specs) {
    if (s.kind != OutputKind::BufferMutation) continue;
    const Node* named = r.program.graph().find(s.arg.name);
    ASSERT_NE(named, nullptr);
    EXPECT_TRUE(named->name() == "b_calls" || named->name() == "add_") << printProgramText(r.program);
  }
  EXPECT_TRUE(verify(r.program).empty()) << printProgramText(r.program);
}

// Note [A mutation output names a write]: removing the write a mutation output names moves
// the output to the last call still writing its target, and drops it with the last write;
// it never names the target's own placeholder.
TEST(Minimizer, AMutationOutputFollowsTheWritesOfItsTarget) {
  auto parsed = parseProgramText(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[2] = placeholder
  %mul_: f32[2] = aten::mul_.Scalar(%x, 2)
  %add_: f32[2] = aten::add_.Scalar(%x, 1)
  %neg: f32[2] = aten::neg(%x)
  return (%add_, %neg)
}
signature {
  input user_input %x
  output user_input_mutation %add_ -> "x"
  output user_output %neg
}
storages {
  $0: f32[2] = [2.25, 3.5]
}
example_inputs {
  $0 f32[2]
}
)EPT");
  ASSERT_TRUE(parsed.ok()) << parsed.error().str();
  std::vector<std::string> named;  // what the mutation output names in each candidate tried
  const auto mutation = [](const ExportedProgram& q) -> std::string {
    for (const OutputSpec& s : q.signature.output_specs) {
      if (s.kind == OutputKind::UserInputMutation) return s.arg.name;
    }
    return "";
  };
  // Fails while mul_ stays: add_ goes, and the output moves to mul_.
  const auto keepsMul = [&](const ExportedProgram& q) {
    named.push_back(mutation(q));
    return q.graph().find("mul_") != nullptr;
  };
  MinimizeResult r = minimize(parsed.value(), keepsMul, {});
  EXPECT_EQ(std::count(named.begin(), named.end(), "x"), 0) << printProgramText(r.program);
  EXPECT_EQ(r.program.graph().find("add_"), nullptr) << printProgramText(r.program);
  EXPECT_EQ(mutation(r.program), "mul_") << printProgramText(r.program);
  EXPECT_TRUE(verify(r.program).empty()) << printProgramText(r.program);
  // With every write gone, the output goes too.
  r = minimize(parsed.value(), [&](const ExportedProgram& q) { return named.push_back(mutation(q)), true; }, {});
  EXPECT_EQ(std::count(named.begin(), named.end(), "x"), 0) << printProgramText(r.program);
  EXPECT_EQ(mutation(r.program), "") << printProgramText(r.program);
  // An out= call's output never moves to the value it read: in a TRAINING program that is
  // no write of the out.
  auto out_call = parseProgramText(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[2] = placeholder
  %o: f32[2] = placeholder
  %abs: f32[2] = aten::abs.out(%x, out=%o)
  %neg: f32[2] = aten::neg(%x)
  return (%abs, %neg)
}
signature {
  input user_input %x
  input user_input %o
  output user_input_mutation %abs -> "o"
  output user_output %neg
}
storages {
  $0: f32[2] = [2.25, -3.5]
  $1: f32[2] = [0.0, 0.0]
}
example_inputs {
  $0 f32[2]
  $1 f32[2]
}
)EPT");
  ASSERT_TRUE(out_call.ok()) << out_call.error().str();
  named.clear();
  r = minimize(out_call.value(), [&](const ExportedProgram& q) { return named.push_back(mutation(q)), true; }, {});
  for (const std::string& n : named) EXPECT_TRUE(n == "abs" || n.empty()) << n;
}

// Every eager run of the engine goes through MinimizeOptions::run_step
// (Note [The delta engine]): run in forked children (fuzz/messages.h), the minimization takes the same steps
// as in-process; when every step's child dies, each candidate is rejected and the
// minimizing process lives on with the program as it was.
TEST(Minimizer, EagerStepsRunWhereTheCallerSays) {
  ExportedProgram p = fromText(
      "  %x: f32[2] = placeholder\n"
      "  %add: f32[2] = aten::add.Scalar(%x, 2.5)\n"
      "  %mul: f32[2] = aten::mul.Scalar(%add, 2)\n"
      "  %neg: f32[2] = aten::neg(%mul)\n"
      "  return (%neg)\n",
      "  input user_input %x\n  output user_output %neg\n");
  const auto negIsMinus7 = [](const ExportedProgram& q) { return negOutput(q) == -7.0; };
  const MinimizeResult here = minimize(p, negIsMinus7, {});
  ASSERT_FALSE(here.log.empty());
  MinimizeOptions forked;
  int steps = 0;
  const StepRunner children = eagerStepsInChildren(WorkerLimits{});
  forked.run_step = [&](const EagerStep& step) { return ++steps, children(step); };
  const MinimizeResult there = minimize(p, negIsMinus7, forked);
  EXPECT_GT(steps, 0);
  EXPECT_EQ(there.log, here.log);
  EXPECT_EQ(there.oracle_calls, here.oracle_calls);
  EXPECT_EQ(printProgramText(there.program), printProgramText(here.program));

  MinimizeOptions dying;
  dying.run_step = [&](const EagerStep&) {
    return children([]() -> std::optional<ExportedProgram> { std::_Exit(3); });
  };
  const MinimizeResult none = minimize(
      p, [](const ExportedProgram&) { return true; }, dying);
  EXPECT_TRUE(none.log.empty());
  EXPECT_EQ(printProgramText(none.program), printProgramText(p));
}

// Scalars only ever get simpler: a float that may be anything settles at 0.0 in a couple of
// calls instead of swinging between 0 and 1 until the budget runs out.
TEST(Minimizer, ScalarsSettle) {
  ExportedProgram p =
      fromText("  %x: f32[2] = placeholder\n  %mul: f32[2] = aten::mul.Scalar(%x, 0.5)\n  return (%mul)\n",
               "  input user_input %x\n  output user_output %mul\n");
  const auto hasMul = [](const ExportedProgram& q) { return q.graph().find("mul") != nullptr; };
  MinimizeOptions options;
  options.max_oracle_calls = 200;
  MinimizeResult r = minimize(p, hasMul, options);
  EXPECT_LT(r.oracle_calls, 20) << printProgramText(r.program);
  const Node* mul = r.program.graph().find("mul");
  ASSERT_NE(mul, nullptr);
  const auto* scalar = mul->args[1].get<arg::Float>();
  ASSERT_NE(scalar, nullptr);
  EXPECT_EQ(scalar->value, 0.0);
}

// Every run counts against the budget (Note [The delta engine]): each predicate call comes
// after the eager run that rebuilt the candidate's vals, and both stop at the budget even
// while every candidate would be accepted.
TEST(Minimizer, EveryRunCountsAgainstTheBudget) {
  const OpCatalog catalog = OpCatalog::build().value();
  GeneratorConfig config;
  config.nodes = 32;
  SeededSource random(5);
  auto p = generateProgram(catalog, config, random);
  ASSERT_TRUE(p.ok());
  for (int budget : {2, 3, 9, 25}) {
    SCOPED_TRACE("budget " + std::to_string(budget));
    int asked = 0;
    MinimizeOptions options;
    options.max_oracle_calls = budget;
    MinimizeResult r = minimize(
        p.value(), [&](const ExportedProgram&) { return ++asked, true; }, options);
    EXPECT_LE(r.oracle_calls, budget);
    EXPECT_GE(asked, 1);
    EXPECT_LE(2 * asked, r.oracle_calls);  // each predicate call paid for its eager run too
    EXPECT_EQ(r.log.size(), static_cast<size_t>(asked));
  }
}

// A module tree the finding does not need goes (flatten-modules): every call's stack is the
// root's, only entries with a signature stay, and state takes its short name, its
// placeholder renamed as export names it; what is left verifies and runs.
TEST(Minimizer, AModuleTreeTheFindingDoesNotNeedIsFlattened) {
  const OpCatalog catalog = OpCatalog::build().value();
  GeneratorConfig config;
  config.module_tree_percent = 100;
  int flattened = 0, renamed_state = 0;
  for (uint64_t seed = 1; seed <= 20 && flattened < 3; ++seed) {
    SeededSource random(seed);
    auto p = generateProgram(catalog, config, random);
    ASSERT_TRUE(p.ok());
    const InputSpec* deep = nullptr;
    for (const auto& s : p->signature.input_specs)
      deep = s.target && s.target->find('.') != std::string::npos ? &s : deep;
    const Node* read = nullptr;  // a call reading that state
    for (const Node& n : p->graph().nodes()) {
      n.forEachInput(
          [&](const Node* in) { read = !read && deep && in->name() == deep->arg.name && n.atenOp() ? &n : read; });
    }
    if (!read) continue;
    ++flattened;
    const std::string op = read->atenOp()->qualified_name;
    // The finding: a call of that op on state, in a program that runs.
    MinimizeResult m = minimize(p.value(), [&](const ExportedProgram& q) {
      bool calls = false, state = false;
      for (const Node& n : q.graph().nodes()) calls = calls || (n.atenOp() && n.atenOp()->qualified_name == op);
      for (const auto& s : q.signature.input_specs) state = state || s.target.has_value();
      return calls && state && runProgram(q, RunOptions(RunMode::Eager)).ok();
    });
    const std::string text = printProgramText(m.program);
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + text);
    for (const Node& n : m.program.graph().nodes()) {
      EXPECT_TRUE(!n.meta.nn_module_stack || n.meta.nn_module_stack->size() <= 1) << n.name();
    }
    for (const auto& e : m.program.module_call_graph) EXPECT_TRUE(e.signature.has_value()) << e.fqn;
    for (const auto& s : m.program.signature.input_specs) {
      if (!s.target) continue;
      EXPECT_EQ(s.target->find('.'), std::string::npos) << *s.target;
      EXPECT_NE(m.program.graph().find(s.arg.name), nullptr) << s.arg.name;
      EXPECT_TRUE(m.program.state_dict.count(*s.target) || m.program.constants.count(*s.target)) << *s.target;
    }
    EXPECT_TRUE(verify(m.program).empty()) << verify(m.program).front().str();
    bool logged = false, renamed = false;
    for (const auto& line : m.log) logged = logged || line.find("flatten-modules: stacks and entries") == 0;
    EXPECT_TRUE(logged);
    for (const auto& s : m.program.signature.input_specs) {
      for (const auto& was : p->signature.input_specs) {
        renamed =
            renamed ||
            (s.target && was.target && *was.target != *s.target && was.target->size() > s.target->size() &&
             was.target->compare(was.target->size() - s.target->size() - 1, std::string::npos, "." + *s.target) == 0);
      }
    }
    renamed_state += renamed ? 1 : 0;
  }
  EXPECT_EQ(flattened, 3);
  EXPECT_GT(renamed_state, 0);
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
