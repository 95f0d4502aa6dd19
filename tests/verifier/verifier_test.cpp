// One minimal violating program per check id (text form), asserting the id, the location
// and the message; plus the accepting programs.
#include <gtest/gtest.h>

#include <set>

#include "formats/text_format.h"
#include "ops/op_registry.h"
#include "tests/support/program_text.h"
#include "verifier/verifier.h"

namespace epsmith {
namespace {

std::string program(const std::string& graph, const std::string& signature, const std::string& rest = "",
                    const std::string& dialect = "ATEN") {
  return "program {\n  verifiers [\"" + dialect + "\"]\n}\ngraph {\n" + graph + "}\nsignature {\n" + signature + "}\n" +
         rest;
}

using test::parse;

std::string dump(const std::vector<Violation>& ds) {
  std::string out;
  for (const auto& d : ds) out += d.str() + "\n";
  return out;
}

// x + y: the accepted base most cases modify.
const std::string kAddGraph =
    "  %x: f32[2] = placeholder\n"
    "  %y: f32[2] = placeholder\n"
    "  %add: f32[2] = aten::add.Tensor(%x, %y)\n"
    "  return (%add)\n";
const std::string kAddSignature = "  input user_input %x\n  input user_input %y\n  output user_output %add\n";

// A parameter, a persistent buffer, a constant and a custom object, all lifted.
const std::string kLiftedGraph =
    "  %p: f32[2] = placeholder\n"
    "  %b: f32[2] = placeholder\n"
    "  %c: f32[2] = placeholder\n"
    "  %o: custom_obj(\"my.Obj\") = placeholder\n"
    "  %x: f32[2] = placeholder\n"
    "  %add: f32[2] = aten::add.Tensor(%x, %p)\n"
    "  return (%add)\n";
const std::string kLiftedState =
    "storages {\n  $0: f32[2] = [1.0, 2.0]\n}\n"
    "state {\n  parameter \"w\" = $0 f32[2]\n  buffer \"buf\" = $0 f32[2]\n}\n"
    "constants {\n  \"c0\" = $0 f32[2]\n  \"obj\" = custom_obj(\"my.Obj\")\n}\n";
std::string liftedSignature(const std::string& p, const std::string& b, const std::string& c, const std::string& o) {
  return "  input " + p + "\n  input " + b + "\n  input " + c + "\n  input " + o +
         "\n  input user_input %x\n  output user_output %add\n";
}
const std::string kP = "parameter %p -> \"w\"", kB = "buffer %b -> \"buf\" persistent=True",
                  kC = "tensor_constant %c -> \"c0\"", kO = "custom_obj custom_obj(%o, \"my.Obj\") -> \"obj\"";

struct Case {
  const char* name;
  std::string text;
  CheckId check;
  std::string where;
  std::string message;  // fragment
};

class VerifierRejects : public ::testing::TestWithParam<Case> {};

TEST_P(VerifierRejects, WithItsCheckIdLocationAndMessage) {
  const Case& c = GetParam();
  auto p = parse(c.text);
  auto ds = verify(p);
  ASSERT_FALSE(ds.empty()) << c.name << " was accepted";
  EXPECT_EQ(checkIdName(ds[0].check), checkIdName(c.check)) << dump(ds);
  EXPECT_EQ(ds[0].where, c.where) << dump(ds);
  EXPECT_NE(ds[0].message.find(c.message), std::string::npos) << dump(ds);
  // --first gives exactly the first of the full list.
  auto first = verify(p, VerifyOptions{/*first_only=*/true});
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].str(), ds[0].str());
}

std::vector<Case> cases() {
  std::vector<Case> v;
  auto add = [&](const char* name, std::string text, CheckId id, std::string where, std::string msg) {
    v.push_back({name, std::move(text), id, std::move(where), std::move(msg)});
  };
  add("use_before_def",
      program("  %x: f32[2] = placeholder\n  %y: f32[2] = placeholder\n"
              "  %add: f32[2] = aten::add.Tensor(%x, %late)\n  %late: f32[2] = aten::neg(%y)\n"
              "  return (%add)\n",
              kAddSignature),
      CheckId::UseBeforeDef, "%add", "Argument 'late' of Node 'add' was used before it has been defined!");
  add("nonexistent_attribute",
      program("  %x: f32[2] = placeholder\n  %g = get_attr(\"sub.nope\")\n  return (%x)\n",
              "  input user_input %x\n  output user_output %x\n"),
      CheckId::NonexistentAttribute, "%g", "Node g target sub.nope references nonexistent attribute sub of ");
  add("nonexistent_attribute_in_existing_prefix",
      program("  %x: f32[2] = placeholder\n  %g = get_attr(\"sub.nope\")\n  return (%x)\n"
              "  attr \"sub\" = treespec(\"[]\")\n",
              "  input user_input %x\n  output user_output %x\n"),
      CheckId::NonexistentAttribute, "%g", "Node g target sub.nope references nonexistent attribute nope of sub");
  add("call_module_target_not_module",
      program("  %x: f32[2] = placeholder\n  %m: f32[2] = call_module(\"w\")(%x)\n  return (%m)\n"
              "  attr \"w\" = parameter\n",
              "  input user_input %x\n  output user_output %m\n"),
      CheckId::CallModuleTargetNotModule, "%m", "Node m target w does not reference an nn.Module");
  add("multiple_outputs",
      program("  %x: f32[2] = placeholder\n  return (%x)\n  return[%output_1] (%x)\n",
              "  input user_input %x\n  output user_output %x\n"),
      CheckId::MultipleOutputs, "%output_1", "more than one output node");
  add("output_not_last",
      program("  %x: f32[2] = placeholder\n  return (%x)\n  %neg: f32[2] = aten::neg(%x)\n",
              "  input user_input %x\n  output user_output %x\n"),
      CheckId::OutputNotLast, "graph", "found call_function %neg");
  add("subgraph_without_output",
      program("  %x: f32[2] = placeholder\n  %g = get_attr(\"sub\")\n  return (%x)\n"
              "  attr \"sub\" = graph {\n    %a: f32[2] = placeholder\n  }\n",
              "  input user_input %x\n  output user_output %x\n"),
      CheckId::OutputNotLast, "sub", "must be its output node");
  add("call_module",
      program("  %x: f32[2] = placeholder\n  %m: f32[2] = call_module(\"lin\")(%x)\n  return (%m)\n"
              "  attr \"lin\" = module(\"torch.nn.modules.linear.Linear\")\n",
              "  input user_input %x\n  output user_output %m\n"),
      CheckId::CallModule, "%m", "call_module is not valid: got a class 'lin'");
  add("call_method",
      program("  %x: f32[2] = placeholder\n  %m: f32[2] = call_method(\"relu\")(%x)\n  return (%m)\n",
              "  input user_input %x\n  output user_output %m\n"),
      CheckId::CallMethod, "%m", "call_method is not valid");
  add("missing_val_call",
      program("  %x: f32[2] = placeholder\n  %y: f32[2] = placeholder\n"
              "  %add = aten::add.Tensor(%x, %y)\n  return (%add)\n",
              kAddSignature),
      CheckId::MissingVal, "%add", "Node.meta add is missing val field.");
  add("missing_val_placeholder",
      program("  %x = placeholder\n  %y: f32[2] = placeholder\n"
              "  %add: f32[2] = aten::add.Tensor(%x, %y)\n  return (%add)\n",
              kAddSignature),
      CheckId::MissingVal, "%x", "Node.meta x is missing val field.");
  add("invalid_val",
      program("  %x: f32[2] = placeholder\n  %y: f32[2] = placeholder\n"
              "  %add: (f32[2], opaque(\"object\")) = aten::add.Tensor(%x, %y)\n  return (%add)\n",
              kAddSignature),
      CheckId::InvalidVal, "%add", "Node.meta add has invalid val field (f32[2], opaque(\"object\"))");
  add("disallowed_op",
      program("  %x: f32[2] = placeholder\n  %y: f32[2] = placeholder\n"
              "  %add: f32[2] = operator.matmul(%x, %y)\n  return (%add)\n",
              kAddSignature),
      CheckId::DisallowedOp, "%add", "Operator 'operator.matmul' is not an allowed operator type");
  add("non_functional_op",
      program("  %x: f32[2] = placeholder\n  %y: f32[2] = placeholder\n"
              "  %add: f32[2] = aten::add_.Tensor(%x, %y)\n  return (%add)\n",
              kAddSignature),
      CheckId::NonFunctionalOp, "%add", "operator 'aten.add_.Tensor' is not functional");
  add("non_functional_out_op",
      program("  %x: f32[2] = placeholder\n  %y: f32[2] = placeholder\n"
              "  %add: f32[2] = aten::add.out(%x, %y, out=%y)\n  return (%add)\n",
              kAddSignature),
      CheckId::NonFunctionalOp, "%add", "operator 'aten.add.out' is not functional");
  add("getattr_parameter_at_top_level",
      program("  %x: f32[2] = placeholder\n  %w: f32[2] = get_attr(\"w\")\n  return (%x)\n"
              "  attr \"w\" = parameter\n",
              "  input user_input %x\n  output user_output %x\n"),
      CheckId::InvalidGetAttrType, "%w", "Invalid get_attr type <class 'torch.nn.parameter.Parameter'> on target w.");
  add("getattr_plain_module",
      program("  %x: f32[2] = placeholder\n  %m = get_attr(\"lin\")\n  return (%x)\n"
              "  attr \"lin\" = module(\"torch.nn.modules.linear.Linear\")\n",
              "  input user_input %x\n  output user_output %x\n"),
      CheckId::InvalidGetAttrType, "%m", "<class 'torch.nn.modules.linear.Linear'>");
  add("invalid_lowered_module",
      program("  %x: f32[2] = placeholder\n  %m = get_attr(\"low\")\n  return (%x)\n"
              "  attr \"low\" = module(\"LoweredBackendModule\", backend_id=\"str\", "
              "processed_bytes=\"str\", compile_specs=\"list\", original_module=True)\n",
              "  input user_input %x\n  output user_output %x\n"),
      CheckId::InvalidLoweredModule, "%m", "processed_bytes(bytes) : <class 'str'>");
  add("call_graph_input_missing",
      program(kAddGraph, kAddSignature,
              "module_call_graph {\n  entry \"\" inputs=[%x, %nope] outputs=[%add] in_spec=\"\" out_spec=\"\"\n}\n"),
      CheckId::CallGraphInputMissing, "module_call_graph[0]", "Input nope does not exist in the graph.");
  add("call_graph_output_missing",
      program(kAddGraph, kAddSignature,
              "module_call_graph {\n  entry \"\"\n  entry \"sub\" inputs=[] outputs=[%gone] in_spec=\"\" "
              "out_spec=\"\"\n}\n"),
      CheckId::CallGraphOutputMissing, "module_call_graph[1]", "Output gone does not exist in the graph.");
  add("input_count", program(kAddGraph, "  input user_input %x\n  output user_output %add\n"), CheckId::InputCount,
      "input_specs", "Number of graph inputs (2) does not match number of inputs in the graph signature (1)");
  add("input_name", program(kAddGraph, "  input user_input %y\n  input user_input %x\n  output user_output %add\n"),
      CheckId::InputName, "input_specs[0]", "Input spec name y does not match node name x");
  add("spec_missing_target", program(kLiftedGraph, liftedSignature("parameter %p", kB, kC, kO), kLiftedState),
      CheckId::SpecMissingTarget, "input_specs[0]", "InputSpec for p has no target.");
  add("parameter_not_tensor",
      program(kLiftedGraph, liftedSignature("parameter token(%p) -> \"w\"", kB, kC, kO), kLiftedState),
      CheckId::ParameterNotTensor, "input_specs[0]",
      "Parameter p is not a tensor argument. Found TokenArgument(name='p') instead.");
  add("parameter_not_in_state_dict",
      program(kLiftedGraph, liftedSignature("parameter %p -> \"w2\"", kB, kC, kO), kLiftedState),
      CheckId::ParameterNotInStateDict, "input_specs[0]", "Parameter w2 is not in the state dict.");
  add("parameter_not_parameter",
      program(kLiftedGraph, liftedSignature("parameter %p -> \"buf\"", kB, kC, kO), kLiftedState),
      CheckId::ParameterNotParameter, "input_specs[0]",
      "State dict entry for parameter buf is not an instance of torch.nn.Parameter.");
  add("buffer_not_tensor",
      program(kLiftedGraph, liftedSignature(kP, "buffer sym_int(%b) -> \"buf\" persistent=True", kC, kO), kLiftedState),
      CheckId::BufferNotTensor, "input_specs[1]", "Buffer b is not a tensor argument.");
  add("buffer_missing_persistence",
      program(kLiftedGraph, liftedSignature(kP, "buffer %b -> \"buf\"", kC, kO), kLiftedState),
      CheckId::BufferMissingPersistence, "input_specs[1]", "Buffer buf is missing a persistence flag");
  add("buffer_not_in_state_dict",
      program(kLiftedGraph, liftedSignature(kP, "buffer %b -> \"gone\" persistent=True", kC, kO), kLiftedState),
      CheckId::BufferNotInStateDict, "input_specs[1]", "Buffer gone is not in the state dict.");
  add("non_persistent_buffer_in_state_dict",
      program(kLiftedGraph, liftedSignature(kP, "buffer %b -> \"buf\" persistent=False", kC, kO), kLiftedState),
      CheckId::NonPersistentBufferInStateDict, "input_specs[1]",
      "Non-persistent buffer buf is in the state dict, it should not be.");
  add("constant_not_tensor",
      program(kLiftedGraph, liftedSignature(kP, kB, "tensor_constant sym_float(%c) -> \"c0\"", kO), kLiftedState),
      CheckId::ConstantNotTensor, "input_specs[2]", "Constant tensor c is not a tensor argument.");
  add("constant_not_in_constants",
      program(kLiftedGraph, liftedSignature(kP, kB, "tensor_constant %c -> \"c9\"", kO), kLiftedState),
      CheckId::ConstantNotInConstants, "input_specs[2]", "Constant tensor c9 is not in the constants dictionary.");
  add("custom_obj_not_custom_obj",
      program(kLiftedGraph, liftedSignature(kP, kB, kC, "custom_obj %o -> \"obj\""), kLiftedState),
      CheckId::CustomObjNotCustomObj, "input_specs[3]",
      "Custom object o is not a custom object argument. Found TensorArgument(name='o') instead.");
  add("custom_obj_not_in_constants",
      program(kLiftedGraph, liftedSignature(kP, kB, kC, "custom_obj custom_obj(%o, \"my.Obj\") -> \"other\""),
              kLiftedState),
      CheckId::CustomObjNotInConstants, "input_specs[3]", "Custom object other is not in the constants dictionary.");
  add("token_not_token",
      program("  %t: f32[0] = placeholder\n  %x: f32[2] = placeholder\n  return (%x)\n",
              "  input token %t\n  input user_input %x\n  output user_output %x\n"),
      CheckId::TokenNotToken, "input_specs[0]", "Token t is not a token argument.");
  add("output_count", program(kAddGraph, kAddSignature + "  output user_output %x\n"), CheckId::OutputCount, "%output",
      "Number of output nodes 1 is different Than the number of outputs specified by the graph signature");
  const std::string mutation_graph =
      "  %b: f32[2] = placeholder\n  %x: f32[2] = placeholder\n"
      "  %add: f32[2] = aten::add.Tensor(%b, %x)\n  %mul: f32[2] = aten::mul.Tensor(%x, %x)\n"
      "  return (%add, %mul)\n";
  const std::string mutation_state =
      "storages {\n  $0: f32[2] = [1.0, 2.0]\n}\nstate {\n  buffer \"buf\" = $0 f32[2]\n  parameter \"w\" = $0 "
      "f32[2]\n}\n";
  add("buffer_mutation_target",
      program(mutation_graph,
              "  input buffer %b -> \"buf\" persistent=True\n  input user_input %x\n"
              "  output buffer_mutation %add -> \"other\"\n  output user_output %mul\n",
              mutation_state),
      CheckId::BufferMutationTarget, "output[0]",
      "Buffer output add does not point to a buffer that exists. \nDict of buffers that are mutated, "
      "in order: {'add': 'other'} \nBuffer nodes available: ['buf'] \n");
  add("parameter_mutation_target",
      program(mutation_graph,
              "  input buffer %b -> \"buf\" persistent=True\n  input user_input %x\n"
              "  output parameter_mutation %add -> \"w\"\n  output user_output %mul\n",
              mutation_state),
      CheckId::ParameterMutationTarget, "output[0]", "Parameter output add does not point to a parameter that exists.");
  add("user_input_mutation_target",
      program(mutation_graph,
              "  input buffer %b -> \"buf\" persistent=True\n  input user_input %x\n"
              "  output user_input_mutation %add -> \"b\"\n  output user_output %mul\n",
              mutation_state),
      CheckId::UserInputMutationTarget, "output[0]",
      "User input output add does not point to a user input that exists.");
  // Python matches mutation outputs by name, not by spec position: the slice's %mul is in no
  // mutation dict.
  add("mutation_output_kind",
      program("  %b: f32[2] = placeholder\n  %x: f32[2] = placeholder\n"
              "  %add: f32[2] = aten::add.Tensor(%b, %x)\n  %mul: f32[2] = aten::mul.Tensor(%x, %x)\n"
              "  return (%mul, %mul)\n",
              "  input buffer %b -> \"buf\" persistent=True\n  input user_input %x\n"
              "  output buffer_mutation %add -> \"buf\"\n  output user_output %mul\n",
              mutation_state),
      CheckId::MutationOutputKind, "output[0]", "Mutation node mul is neither a buffer nor a user input.");
  add("user_output_order",
      program(mutation_graph,
              "  input buffer %b -> \"buf\" persistent=True\n  input user_input %x\n"
              "  output buffer_mutation %add -> \"buf\"\n  output user_output %add\n",
              mutation_state),
      CheckId::UserOutputOrder, "output[1]",
      "User output mul is not in the correct order or is not found in the exported program's "
      "user_output list: ['add']. ");
  add("unknown_dialect", program(kAddGraph, kAddSignature, "", "NOPE"), CheckId::UnknownDialect, "verifiers",
      "no verifier is registered for dialect 'NOPE'");
  return v;
}

INSTANTIATE_TEST_SUITE_P(EveryCheck, VerifierRejects, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// Checks whose violations the text loader refuses to build are made with the IR API.
TEST(VerifierRejects, DuplicateNodeNamesBuiltThroughTheApi) {
  auto p = parse(program(kAddGraph, kAddSignature));
  p.graph().insertRawBefore(p.graph().find("add"), OpKind::Placeholder, "x")->meta.val =
      TensorMeta::contiguous(ScalarType::Float, {2});
  auto ds = verify(p);
  ASSERT_FALSE(ds.empty());
  EXPECT_EQ(ds[0].check, CheckId::DuplicateNodeName);
  EXPECT_EQ(ds[0].str(), "%x: error[duplicate-node-name]: Node redefined name x!");
}

TEST(VerifierRejects, ArgumentFromAnotherGraph) {
  auto p =
      parse(program("  %x: f32[2] = placeholder\n  %g = get_attr(\"sub\")\n  return (%x)\n"
                    "  attr \"sub\" = graph {\n    %a: f32[2] = placeholder\n    %n: f32[2] = aten::neg(%a)\n"
                    "    return (%n)\n  }\n",
                    "  input user_input %x\n  output user_output %x\n"));
  Graph& sub = *p.graph().attributes().at("sub").subgraph;
  sub.find("n")->args[0] = arg::Tensor{p.graph().find("x")};
  auto ds = verify(p);
  ASSERT_FALSE(ds.empty());
  EXPECT_EQ(ds[0].str(),
            "sub/%n: error[arg-not-in-graph]: Argument 'x' of Node 'n' does not belong to this "
            "Graph, but was used as an argument!");
}

TEST(VerifierRejects, UnknownInputKindBuiltThroughTheApi) {
  auto p = parse(program(kAddGraph, kAddSignature));
  p.signature.input_specs[1].kind = static_cast<InputKind>(42);
  auto ds = verify(p);
  ASSERT_EQ(ds.size(), 1u) << dump(ds);
  EXPECT_EQ(ds[0].str(), "input_specs[1]: error[unknown-input-kind]: Unknown InputKind 42.");
}

// A dialect added later, with both extension points of verifier.py.
class NoAddDialect : public Dialect {
 public:
  NoAddDialect() : Dialect("NO_ADD") {}
  std::optional<std::string> checkValidOp(const Target& target) const override {
    if (target.kind() == Target::Kind::Aten && target.op()->qualified_name == "aten::add") {
      return "aten::add is not part of NO_ADD";
    }
    return std::nullopt;
  }
  void checkAdditional(const Graph& g, std::vector<std::string>& problems) const override {
    if (g.size() > 3) problems.push_back("NO_ADD graphs have at most 3 nodes");
  }
};

TEST(VerifierDialects, ExtensionPointsReportTheirOwnCheckIds) {
  registerDialect(std::make_unique<NoAddDialect>());
  auto p = parse(program(kAddGraph, kAddSignature, "", "NO_ADD"));
  auto ds = verify(p);
  ASSERT_EQ(ds.size(), 2u) << dump(ds);
  EXPECT_EQ(ds[0].str(), "%add: error[dialect-op]: aten::add is not part of NO_ADD");
  EXPECT_EQ(ds[1].str(), "graph: error[dialect-graph]: NO_ADD graphs have at most 3 nodes");
  // The same program passes the ATEN dialect.
  EXPECT_TRUE(verify(p, *findDialect("ATEN")).empty());
  EXPECT_EQ(findDialect(""), findDialect("ATEN"));
}

TEST(VerifierCoverage, EveryCheckIdHasANegativeTest) {
  std::set<CheckId> covered;
  for (const auto& c : cases()) covered.insert(c.check);
  // Covered by the API-built tests above.
  covered.insert(CheckId::DuplicateNodeName);
  covered.insert(CheckId::ArgNotInGraph);
  covered.insert(CheckId::UnknownInputKind);
  covered.insert(CheckId::DialectOp);
  covered.insert(CheckId::DialectGraph);
  for (int i = 0; i < kNumCheckIds; ++i) {
    EXPECT_TRUE(covered.count(static_cast<CheckId>(i))) << checkIdName(static_cast<CheckId>(i));
    EXPECT_EQ(checkIdFromName(checkIdName(static_cast<CheckId>(i))), static_cast<CheckId>(i));
  }
}

TEST(VerifierAccepts, LiftedStateOfEveryKind) {
  auto p = parse(program(kLiftedGraph, liftedSignature(kP, kB, kC, kO), kLiftedState));
  EXPECT_EQ(dump(verify(p)), "");
}

TEST(VerifierAccepts, NoReturnOpsNeedNoVal) {
  auto p = parse(program("  %x: f32[2] = placeholder\n  %a = aten::_assert_async(%x)\n  return (%x)\n",
                         "  input user_input %x\n  output user_output %x\n"));
  EXPECT_EQ(dump(verify(p)), "");
}

TEST(VerifierAccepts, MutableOpsInTheTrainingDialect) {
  auto p =
      parse(program("  %x: f32[2] = placeholder\n  %y: f32[2] = placeholder\n"
                    "  %add: f32[2] = aten::add_.Tensor(%x, %y)\n  return (%add)\n",
                    kAddSignature, "", "TRAINING"));
  EXPECT_EQ(dump(verify(p)), "");
  EXPECT_EQ(verify(p, *findDialect("ATEN")).size(), 1u);
}

TEST(VerifierDialects, EveryVerifierTheProgramNamesRuns) {
  auto p =
      parse(program("  %x: f32[2] = placeholder\n  %y: f32[2] = placeholder\n"
                    "  %add: f32[2] = aten::add_.Tensor(%x, %y)\n  return (%add)\n",
                    kAddSignature, "", "TRAINING"));
  p.verifiers = {"TRAINING", "ATEN"};
  EXPECT_EQ(dump(verify(p)), "%add: error[non-functional-op]: operator 'aten.add_.Tensor' is not functional\n");
  p.verifiers = {"TRAINING", "NOPE"};
  EXPECT_EQ(dump(verify(p)), "verifiers: error[unknown-dialect]: no verifier is registered for dialect 'NOPE'\n");
}

TEST(VerifierAccepts, BuiltinsSymFunctionsAndConstantOutputs) {
  auto p =
      parse(program("  %x: f32[2] = placeholder\n  %s: sym_int(\"s0\", hint=2) = placeholder\n"
                    "  %t: sym_int(\"2*s0\") = operator.mul(sym_int(%s), 2)\n"
                    "  %m: sym_int(\"Max(s0, 2)\") = torch.sym_max(sym_int(%s), 2)\n"
                    "  %c: 2 = math.ceil(2.5)\n"
                    "  %g = torch._C._set_grad_enabled(False)\n"
                    "  return (%x, sym_int(%t), 3)\n",
                    "  input user_input %x\n  input user_input sym_int(%s)\n  output user_output %x\n"
                    "  output user_output sym_int(%t)\n  output user_output 3\n"));
  // torch._C._set_grad_enabled returns None, recorded as a val of None.
  p.graph().find("g")->meta.val = Val::None{};
  EXPECT_EQ(dump(verify(p)), "");
}

}  // namespace
}  // namespace epsmith
