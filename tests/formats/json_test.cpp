// The JSON program file: torch.export's shapes for the parts torch defines, and exact round
// trips (write → read → write byte for byte, read(write(p)) structurally equal to p) for
// every argument kind, value kind, signature kind, dtype, storage sharing, subgraph and
// multi-output folding, and for invalid programs the verifier must still see.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "formats/text_format.h"
#include "tests/formats/json_test_util.h"

namespace epsmith::testing {
namespace {

using Json = nlohmann::ordered_json;

Json parsed(const std::string& text) { return Json::parse(text); }
const Json& graphOf(const Json& j) { return j["exported_program"]["graph_module"]["graph"]; }

std::vector<std::string> keysOf(const Json& j) {
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  return keys;
}

const Json* nodeNamed(const Json& graph, const std::string& name) {
  for (const auto& n : graph["nodes"]) {
    if (n["name"] == name) return &n;
  }
  return nullptr;
}

TEST(JsonFormat, AddNodeHasTorchShape) {
  std::string text;
  ASSERT_TRUE(roundTrips(addProgram(), &text));
  Json j = parsed(text);
  EXPECT_EQ(keysOf(j), (std::vector<std::string>{"exported_program", "epsmith"}));
  EXPECT_EQ(keysOf(j["exported_program"]),
            (std::vector<std::string>{"graph_module", "opset_version", "range_constraints", "schema_version",
                                      "verifiers", "torch_version", "guards_code"}));
  EXPECT_EQ(
      keysOf(j["exported_program"]["graph_module"]),
      (std::vector<std::string>{"graph", "signature", "module_call_graph", "metadata", "treespec_namedtuple_fields"}));
  const Json& graph = graphOf(j);
  EXPECT_EQ(keysOf(graph), (std::vector<std::string>{"inputs", "outputs", "nodes", "tensor_values", "sym_int_values",
                                                     "sym_bool_values", "is_single_tensor_return", "custom_obj_values",
                                                     "sym_float_values"}));
  EXPECT_EQ(graph["inputs"], Json::parse(R"([{"as_tensor": {"name": "x"}}, {"as_tensor": {"name": "y"}}])"));
  ASSERT_EQ(graph["nodes"].size(), 1u);
  const Json& add = graph["nodes"][0];
  EXPECT_EQ(keysOf(add), (std::vector<std::string>{"target", "inputs", "outputs", "metadata",
                                                   "is_hop_single_tensor_return", "name"}));
  EXPECT_EQ(add["target"], "torch.ops.aten.add.Tensor");
  EXPECT_EQ(add["inputs"][0], Json::parse(R"({"name": "self", "arg": {"as_tensor": {"name": "x"}}, "kind": 1})"));
  EXPECT_EQ(add["inputs"][1], Json::parse(R"({"name": "other", "arg": {"as_tensor": {"name": "y"}}, "kind": 1})"));
  EXPECT_EQ(add["outputs"], Json::parse(R"([{"as_tensor": {"name": "add"}}])"));
  EXPECT_EQ(add["metadata"], Json::object());
  EXPECT_EQ(add["name"], "add");
  EXPECT_EQ(graph["outputs"], Json::parse(R"([{"as_tensor": {"name": "add"}}])"));
  EXPECT_EQ(graph["tensor_values"]["add"], Json::parse(R"({"dtype": 7, "sizes": [{"as_int": 2}, {"as_int": 3}],
                            "requires_grad": false, "device": {"type": "cpu", "index": null},
                            "strides": [{"as_int": 3}, {"as_int": 1}],
                            "storage_offset": {"as_int": 0}, "layout": 7})"));
  EXPECT_EQ(j["exported_program"]["graph_module"]["signature"]["input_specs"][0],
            Json::parse(R"({"user_input": {"arg": {"as_tensor": {"name": "x"}}}})"));
  EXPECT_EQ(j["exported_program"]["schema_version"], Json::parse(R"({"major": 8, "minor": 20})"));
  EXPECT_EQ(keysOf(j["epsmith"]), (std::vector<std::string>{"format_version", "storages", "state_dict", "constants",
                                                            "example_inputs", "attributes", "graphs"}));
  EXPECT_EQ(j["epsmith"]["storages"][0],
            Json::parse(R"({"dtype": 7, "numel": 6, "data": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"})"));
}

TEST(JsonFormat, KeywordArgumentsAreKeywordInputs) {
  ExportedProgram p = addProgram();
  Node* add = p.graph().find("add");
  add->kwargs = {{"alpha", arg::Int{2}}};
  std::string text;
  ASSERT_TRUE(roundTrips(p, &text));
  EXPECT_EQ(graphOf(parsed(text))["nodes"][0]["inputs"][2],
            Json::parse(R"({"name": "alpha", "arg": {"as_int": 2}, "kind": 2})"));
}

// A subgraph whose only node returns its input: placeholder a; return (a).
std::unique_ptr<Graph> identityGraph() {
  auto g = std::make_unique<Graph>();
  Node* a = placeholder(*g, "a", f32({2}));
  output(*g, {arg::Tensor{a}});
  return g;
}

TEST(JsonFormat, EveryArgumentKindRoundTrips) {
  ExportedProgram p;
  Graph& g = p.graph();
  Node* x = placeholder(g, "x", f32({2}));
  Node* s = placeholder(g, "s", Val::SymInt{{"s0", int64_t{4}}});
  Node* f = placeholder(g, "f", Val::SymFloat{{"f0", 0.5}});
  Node* b = placeholder(g, "b", Val::SymBool{{"Eq(s0, 4)", true}});
  Node* obj = placeholder(g, "obj", Val::CustomObj{"__torch__.torch.classes.my.Obj"});
  g.attributes().emplace("sub", Attribute::makeSubgraph(identityGraph()));
  Node* sub = g.append(OpKind::GetAttr, "sub");
  sub->attr = "sub";
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<Argument> args = {
      arg::None{},
      arg::Tensor{x},
      arg::TensorList{{x, x}},
      arg::OptionalTensor{x},
      arg::OptionalTensorList{{x, nullptr}},
      arg::Int{-3},
      arg::IntList{{1, 2}},
      arg::Float{0.5},
      arg::FloatList{{1.5, -inf}},
      arg::Bool{true},
      arg::BoolList{{true, false}},
      arg::String{"q\"uote"},
      arg::StringList{{"a", ""}},
      arg::SymInt{{s, 0}},
      arg::SymIntList{{{s, 0}, {nullptr, 4}}},
      arg::SymFloat{{f, 0}},
      arg::SymFloatList{{{nullptr, 2.5}, {f, 0}}},
      arg::SymBool{{b, false}},
      arg::SymBoolList{{{nullptr, true}, {b, false}}},
      arg::Dtype{ScalarType::BFloat16},
      arg::MemFormat{MemoryFormat::ChannelsLast},
      arg::TensorLayout{Layout::SparseCoo},
      arg::DeviceArg{{"cuda", 1}},
      arg::Graph{sub},
      arg::CustomObj{obj, "__torch__.torch.classes.my.Obj"},
      arg::Operator{"aten::add.Tensor"},
      arg::Complex{1.0, -2.0},
  };
  std::set<ArgKind> kinds;
  for (const auto& a : args) kinds.insert(a.kind());
  ASSERT_EQ(kinds.size(), static_cast<size_t>(kNumArgKinds));
  Node* everything = call(g, "everything", "my_lib.everything", args, f32({2}),
                          {{"opt", arg::OptionalTensor{nullptr}}, {"scale", arg::Float{2.0}}});
  output(g, {arg::Tensor{everything}});

  std::string text;
  ASSERT_TRUE(roundTrips(p, &text));
  Json j = parsed(text);
  const Json& graph = graphOf(j);
  EXPECT_EQ(graph["inputs"][1], Json::parse(R"({"as_sym_int": {"as_name": "s"}})"));
  EXPECT_EQ(graph["sym_int_values"]["s"], Json::parse(R"({"as_expr": {"expr_str": "s0", "hint": {"as_int": 4}}})"));
  EXPECT_EQ(graph["custom_obj_values"]["obj"],
            Json::parse(R"({"name": "obj", "class_fqn": "__torch__.torch.classes.my.Obj"})"));
  ASSERT_EQ(graph["nodes"].size(), 1u) << "the subgraph get_attr folds into its use";
  const Json& inputs = graph["nodes"][0]["inputs"];
  EXPECT_EQ(inputs[0], Json::parse(R"({"name": "arg0", "arg": {"as_none": true}, "kind": 1})"));
  EXPECT_EQ(inputs[4]["arg"],
            Json::parse(R"({"as_optional_tensors": [{"as_tensor": {"name": "x"}}, {"as_none": true}]})"));
  EXPECT_EQ(inputs[8]["arg"], Json::parse(R"({"as_floats": [1.5, "-Infinity"]})"));
  EXPECT_EQ(inputs[14]["arg"], Json::parse(R"({"as_sym_ints": [{"as_name": "s"}, {"as_int": 4}]})"));
  EXPECT_EQ(inputs[22]["arg"], Json::parse(R"({"as_device": {"type": "cuda", "index": 1}})"));
  EXPECT_EQ(inputs[23]["arg"]["as_graph"]["name"], "sub");
  EXPECT_EQ(inputs[23]["arg"]["as_graph"]["graph"]["inputs"], Json::parse(R"([{"as_tensor": {"name": "a"}}])"));
  EXPECT_EQ(inputs[25]["arg"], Json::parse(R"({"as_operator": "torch.ops.aten.add.Tensor"})"));
  EXPECT_EQ(inputs[27], Json::parse(R"({"name": "opt", "arg": {"as_optional_tensor": {"as_none": true}}, "kind": 2})"));
}

TEST(JsonFormat, EveryScalarTypeRoundTripsWithPayloadBytes) {
  const ScalarType all[] = {
      ScalarType::Unknown,    ScalarType::Byte,           ScalarType::Char,           ScalarType::Short,
      ScalarType::Int,        ScalarType::Long,           ScalarType::Half,           ScalarType::Float,
      ScalarType::Double,     ScalarType::ComplexHalf,    ScalarType::ComplexFloat,   ScalarType::ComplexDouble,
      ScalarType::Bool,       ScalarType::BFloat16,       ScalarType::UInt16,         ScalarType::Float8E4M3FN,
      ScalarType::Float8E5M2, ScalarType::Float8E4M3FNUZ, ScalarType::Float8E5M2FNUZ, ScalarType::Float8E8M0FNU,
      ScalarType::UInt32,     ScalarType::UInt64};
  ExportedProgram p = addProgram();
  Graph& g = p.graph();
  Node* first = &g.nodes().front();
  for (ScalarType t : all) {
    std::string name(shortName(t));
    Node* ph = g.insertBefore(first, OpKind::Placeholder, "p_" + name);
    ph->meta.val = TensorMeta::contiguous(t, {3});
    size_t bytes = static_cast<size_t>(elementSize(t)) * 3;
    std::vector<uint8_t> payload(bytes);
    for (size_t i = 0; i < bytes; ++i) payload[i] = static_cast<uint8_t>(i * 37 + 11);
    p.state_dict["w_" + name] = {false, tensorOf(t, {elementSize(t) ? 3 : 0}, payload)};
  }
  // NaN payloads survive as bytes.
  const uint32_t nan_bits = 0x7fc00001u;
  std::vector<uint8_t> nan_bytes(4);
  std::memcpy(nan_bytes.data(), &nan_bits, 4);
  p.state_dict["nan"] = {true, tensorOf(ScalarType::Float, {1}, nan_bytes)};
  ASSERT_TRUE(roundTrips(p));
  auto back = readProgramJson(*writeProgramJson(p));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->state_dict.at("nan").tensor.storage->bytes, nan_bytes);
  EXPECT_TRUE(back->state_dict.at("nan").is_parameter);
  EXPECT_EQ(back->graph().find("p_bf16")->meta.val, Val(TensorMeta::contiguous(ScalarType::BFloat16, {3})));
}

TEST(JsonFormat, AliasingTensorsShareOneStorage) {
  ExportedProgram p = addProgram();
  TensorValue base = tensorOf(ScalarType::Float, {4}, std::vector<uint8_t>(16, 1));
  TensorValue view = base;
  view.sizes = {2};
  view.strides = {1};
  view.storage_offset = 2;
  p.state_dict["a"] = {true, base};
  p.state_dict["b"] = {false, view};
  p.constants["c"] = Constant{view, ""};
  p.constants["obj"] = Constant{std::nullopt, "__torch__.torch.classes.my.Obj"};
  p.example_inputs[1].tensor = base;
  std::string text;
  ASSERT_TRUE(roundTrips(p, &text));
  Json j = parsed(text);
  ASSERT_EQ(j["epsmith"]["storages"].size(), 2u) << "one for the shared storage, one for x";
  EXPECT_EQ(j["epsmith"]["state_dict"]["b"]["tensor"],
            Json::parse(R"({"storage": 0, "sizes": [2], "strides": [1], "storage_offset": 2,
                            "requires_grad": false})"));
  EXPECT_EQ(j["epsmith"]["constants"]["obj"],
            Json::parse(R"({"as_custom_obj": {"class_fqn": "__torch__.torch.classes.my.Obj"}})"));
  auto back = readProgramJson(text);
  ASSERT_TRUE(back);
  const auto& shared = back->state_dict.at("a").tensor.storage;
  EXPECT_EQ(back->state_dict.at("b").tensor.storage, shared);
  EXPECT_EQ(back->constants.at("c").tensor->storage, shared);
  EXPECT_EQ(back->example_inputs[1].tensor.storage, shared);
  EXPECT_NE(back->example_inputs[0].tensor.storage, shared);
}

// pred: b8[], x: f32[2]; true_graph_0 / false_graph_0 get_attrs; cond(pred, t, f, [x]);
// getitem = cond[0]; return (getitem). `between` puts a node between the get_attrs and cond.
ExportedProgram condProgram(bool between) {
  ExportedProgram p;
  Graph& g = p.graph();
  Node* pred = placeholder(g, "pred", TensorMeta::contiguous(ScalarType::Bool, {}));
  Node* x = placeholder(g, "x", f32({2}));
  for (const char* name : {"true_graph_0", "false_graph_0"}) {
    auto sub = std::make_unique<Graph>();
    Node* a = placeholder(*sub, "a", f32({2}));
    Node* op = call(*sub, name[0] == 't' ? "sin" : "cos", name[0] == 't' ? "aten::sin" : "aten::cos", {arg::Tensor{a}},
                    f32({2}));
    output(*sub, {arg::Tensor{op}});
    g.attributes().emplace(name, Attribute::makeSubgraph(std::move(sub)));
    g.append(OpKind::GetAttr, name)->attr = name;
  }
  if (between) call(g, "neg", "aten::neg", {arg::Tensor{x}}, f32({2}));
  Node* cond = call(g, "cond", "torch.ops.higher_order.cond",
                    {arg::Tensor{pred}, arg::Graph{g.find("true_graph_0")}, arg::Graph{g.find("false_graph_0")},
                     arg::TensorList{{x}}},
                    Val::List{f32({2})});
  Node* item = call(g, "getitem", "operator.getitem", {arg::Tensor{cond}, arg::Int{0}}, f32({2}));
  output(g, {arg::Tensor{item}});
  return p;
}

TEST(JsonFormat, CondSubgraphsAreInlinedAsTorchDoes) {
  std::string text;
  ASSERT_TRUE(roundTrips(condProgram(/*between=*/false), &text));
  Json j = parsed(text);
  const Json& nodes = graphOf(j)["nodes"];
  ASSERT_EQ(nodes.size(), 1u) << "get_attrs and getitem fold into the cond node";
  const Json& cond = nodes[0];
  EXPECT_EQ(cond["target"], "torch.ops.higher_order.cond");
  EXPECT_EQ(cond["inputs"][0], Json::parse(R"({"name": "", "arg": {"as_tensor": {"name": "pred"}}, "kind": 1})"));
  EXPECT_EQ(cond["inputs"][1]["arg"]["as_graph"]["name"], "true_graph_0");
  EXPECT_EQ(cond["inputs"][1]["arg"]["as_graph"]["graph"]["nodes"][0]["target"], "torch.ops.aten.sin.default");
  EXPECT_EQ(cond["outputs"], Json::parse(R"([{"as_tensor": {"name": "getitem"}}])"));
  EXPECT_EQ(cond["is_hop_single_tensor_return"], false);
  EXPECT_EQ(j["epsmith"]["attributes"], Json::object());
}

// A while_loop's condition graph returns its bool tensor as it is: torch's
// is_single_tensor_return, `return %lt` in the text form. Lost, torch's while_loop gets a
// tuple from it and raises ("cond_fn must return a boolean scalar tensor").
TEST(JsonFormat, AGraphThatReturnsOneValueBareRoundTrips) {
  const std::string text = R"EPT(graph {
  %i: i64[] = placeholder
  %c = get_attr("while_loop_cond_graph_0")
  %b = get_attr("while_loop_body_graph_0")
  %loop: (i64[],) = higher_order.while_loop(graph(%c), graph(%b), [%i], tensors[])
  %out: i64[] = operator.getitem(%loop, 0)
  return (%out)
  attr "while_loop_body_graph_0" = graph {
    %j: i64[] = placeholder
    %add: i64[] = aten::add.Scalar(%j, 1)
    return (%add)
  }
  attr "while_loop_cond_graph_0" = graph {
    %j: i64[] = placeholder
    %lt: b8[] = aten::lt.Scalar(%j, 3)
    return %lt
  }
}
signature {
  input user_input %i
  output user_output %out
}
)EPT";
  auto p = parseProgramText(text);
  ASSERT_TRUE(p.ok()) << p.error().str();
  EXPECT_TRUE(p->graph().attribute("while_loop_cond_graph_0")->subgraph->returns_one_value);
  EXPECT_FALSE(p->graph().attribute("while_loop_body_graph_0")->subgraph->returns_one_value);
  EXPECT_NE(printProgramText(p.value()).find("    return %lt\n"), std::string::npos) << printProgramText(p.value());
  std::string json;
  ASSERT_TRUE(roundTrips(p.value(), &json));
  // Once: the condition graph's (the body's and the program's say false).
  size_t at = json.find("\"is_single_tensor_return\": true");
  ASSERT_NE(at, std::string::npos) << json;
  EXPECT_EQ(json.find("\"is_single_tensor_return\": true", at + 1), std::string::npos) << json;
}

TEST(JsonFormat, GetAttrNotRightBeforeItsUserStaysAnExplicitNode) {
  std::string text;
  ASSERT_TRUE(roundTrips(condProgram(/*between=*/true), &text));
  Json j = parsed(text);
  const Json* get_attr = nodeNamed(graphOf(j), "true_graph_0");
  ASSERT_NE(get_attr, nullptr);
  EXPECT_EQ((*get_attr)["target"], "true_graph_0");
  EXPECT_EQ((*get_attr)["metadata"], Json::parse(R"({"epsmith.op": "get_attr"})"));
  EXPECT_EQ(nodeNamed(graphOf(j), "cond")->at("inputs")[1]["arg"],
            Json::parse(R"({"as_graph": {"name": "true_graph_0", "graph": null}})"));
  EXPECT_EQ(j["epsmith"]["attributes"][""]["true_graph_0"]["kind"], "graph");
}

TEST(JsonFormat, MultiOutputOpsFoldTheirGetitems) {
  ExportedProgram p;
  Graph& g = p.graph();
  Node* x = placeholder(g, "x", f32({4, 3}));
  Node* split =
      call(g, "split", "aten::split.Tensor", {arg::Tensor{x}, arg::Int{2}}, Val::List{f32({2, 3}), f32({2, 3})});
  Node* a = call(g, "getitem", "operator.getitem", {arg::Tensor{split}, arg::Int{0}}, f32({2, 3}));
  Node* b = call(g, "getitem_1", "operator.getitem", {arg::Tensor{split}, arg::Int{1}}, f32({2, 3}));
  // fx names a max call max_1 (Note [Names FX would not give a node]).
  Node* max = call(g, "max_1", "aten::max.dim", {arg::Tensor{x}, arg::Int{1}},
                   Val::List{f32({4}), TensorMeta::contiguous(ScalarType::Long, {4})});
  Node* c = call(g, "getitem_2", "operator.getitem", {arg::Tensor{max}, arg::Int{0}}, f32({4}));
  output(g, {arg::Tensor{a}, arg::Tensor{b}, arg::Tensor{c}});
  std::string text;
  ASSERT_TRUE(roundTrips(p, &text));
  Json j = parsed(text);
  const Json& graph = graphOf(j);
  ASSERT_EQ(graph["nodes"].size(), 2u);
  EXPECT_EQ(graph["nodes"][0]["outputs"],
            Json::parse(R"([{"as_tensors": [{"name": "getitem"}, {"name": "getitem_1"}]}])"));
  EXPECT_EQ(graph["nodes"][1]["outputs"],
            Json::parse(R"([{"as_tensor": {"name": "getitem_2"}}, {"as_tensor": {"name": "max_1_unused_1"}}])"));
  EXPECT_EQ(graph["nodes"][1]["metadata"], Json::parse(R"({"epsmith.unused_outputs": "[1]"})"));
  EXPECT_EQ(graph["tensor_values"]["max_1_unused_1"]["dtype"], 5);
}

// An empty Tensor[] (unbind of a dim of size 0) is one as_tensors output, as torch.export's
// serializer writes it: NativeRT counts a node's outputs by the entries.
TEST(JsonFormat, AnEmptyTensorListIsOneEmptyAsTensors) {
  ExportedProgram p;
  Graph& g = p.graph();
  Node* x = placeholder(g, "x", f32({0, 3}));
  call(g, "unbind", "aten::unbind.int", {arg::Tensor{x}, arg::Int{0}}, Val::List{});
  output(g, {arg::Tensor{x}});
  std::string text;
  ASSERT_TRUE(roundTrips(p, &text));
  const Json j = parsed(text);
  const Json& graph = graphOf(j);
  ASSERT_EQ(graph["nodes"].size(), 1u);
  EXPECT_EQ(graph["nodes"][0]["outputs"], Json::parse(R"([{"as_tensors": []}])"));
}

// Note [Dtypes newer than a schema]: torch.export's own form of a program holds only its
// schema's dtypes; epsmith's form holds any.
TEST(JsonFormat, ADtypeNewerThanTheSchemaStaysInTheEpsmithForm) {
  ExportedProgram p;
  Graph& g = p.graph();
  Node* x = placeholder(g, "x", TensorMeta::contiguous(ScalarType::UInt64, {2}));
  output(g, {arg::Tensor{x}});
  p.schema_version = {8, 17};
  auto bare = exportedProgramJson(p);
  ASSERT_FALSE(bare.ok());
  EXPECT_NE(bare.error().message.find("torch.uint64 is not in torch.export's schema 8.17"), std::string::npos)
      << bare.error().message;
  EXPECT_TRUE(roundTrips(p));
  p.schema_version = {8, 20};
  EXPECT_TRUE(exportedProgramJson(p).ok());
}

TEST(JsonFormat, NodeMetadataUsesTorchStrings) {
  ExportedProgram p = addProgram();
  Node* add = p.graph().find("add");
  add->meta.stack_trace = "File \"model.py\", line 3";
  add->meta.nn_module_stack = {{"L__self___linear", "linear", "torch.nn.modules.linear.Linear"}};
  add->meta.torch_fn = {"linear_1", "builtin_function_or_method.linear"};
  add->meta.custom = {{"source_fn_stack", "linear,linear"}, {"stack_trace", "not the real one"}};
  Node* x = p.graph().find("x");
  x->meta.nn_module_stack = {{"k", "a,b", "T"}};  // a comma inside: not torch-encodable
  x->meta.torch_fn = {"f;g", "h"};
  std::string text;
  ASSERT_TRUE(roundTrips(p, &text));
  Json j = parsed(text);
  EXPECT_EQ(graphOf(j)["nodes"][0]["metadata"], Json::parse(R"({
      "stack_trace": "File \"model.py\", line 3",
      "nn_module_stack": "L__self___linear,linear,torch.nn.modules.linear.Linear",
      "torch_fn": "linear_1;builtin_function_or_method.linear",
      "source_fn_stack": "linear,linear",
      "epsmith.custom.stack_trace": "not the real one"})"));
  EXPECT_EQ(j["epsmith"]["graphs"][""]["inputs"][0]["metadata"], Json::parse(R"({
      "epsmith.nn_module_stack": "[[\"k\",\"a,b\",\"T\"]]",
      "epsmith.torch_fn": "[\"f;g\",\"h\"]"})"));
}

TEST(JsonFormat, ValuesOfEveryKindRoundTrip) {
  TensorMeta symbolic = f32({2});
  symbolic.sizes = {SymIntValue(SymExpr{"s0 + 1", std::nullopt}), SymIntValue(3)};
  symbolic.strides = {3, 1};
  symbolic.device = Device{"cuda", 0};
  symbolic.requires_grad = true;
  symbolic.layout = Layout::SparseCsr;
  const std::vector<Val> vals = {Val::Missing{},
                                 Val::None{},
                                 symbolic,
                                 Val::List{f32({1}), Val::List{int64_t{1}, Val::None{}}, Val::Missing{}},
                                 int64_t{-7},
                                 std::numeric_limits<double>::quiet_NaN(),
                                 true,
                                 std::string("text"),
                                 ScalarType::Half,
                                 Device{"cpu", std::nullopt},
                                 Layout::Strided,
                                 MemoryFormat::Preserve,
                                 Val::SymInt{{"u0", std::nullopt}},
                                 Val::SymFloat{{"f0 * 2", 1.5}},
                                 Val::SymBool{{"Ne(u0, 1)", false}},
                                 Val::CustomObj{"my.Obj"},
                                 Val::Opaque{"Generator"}};
  ExportedProgram p;
  Graph& g = p.graph();
  std::vector<Argument> outs;
  for (size_t i = 0; i < vals.size(); ++i) placeholder(g, "p" + std::to_string(i), vals[i]);
  for (size_t i = 0; i < vals.size(); ++i) {
    outs.push_back(arg::Tensor{call(g, "v" + std::to_string(i), "my_lib.make", {}, vals[i])});
  }
  Node* out = output(g, outs);
  g.rename(out, "out");
  out->meta.val = Val::List{f32({1})};
  out->meta.stack_trace = "return";
  std::string text;
  ASSERT_TRUE(roundTrips(p, &text));
  Json j = parsed(text);
  const Json& graph = graphOf(j);
  EXPECT_EQ(graph["inputs"][4], Json::parse(R"({"as_int": -7})"));
  EXPECT_EQ(graph["inputs"][5], Json::parse(R"({"as_float": "NaN"})"));
  EXPECT_EQ(j["epsmith"]["graphs"][""]["inputs"][4], Json::parse(R"({"name": "p4", "metadata": {}})"));
  EXPECT_EQ(graph["sym_int_values"]["v4"], Json::parse(R"({"as_int": -7})"));
  EXPECT_EQ(nodeNamed(graph, "v0")->at("outputs"), Json::array());
  EXPECT_EQ(nodeNamed(graph, "v7")->at("metadata"), Json::parse(R"({"epsmith.val": "{\"as_string\":\"text\"}"})"));
  EXPECT_EQ(j["epsmith"]["graphs"][""]["output"]["name"], "out");
}

TEST(JsonFormat, SignatureAndProgramFieldsRoundTrip) {
  ExportedProgram p = addProgram();
  auto in = [](InputKind k, SpecArg a, std::optional<std::string> t = {}, std::optional<bool> persistent = {}) {
    return InputSpec{k, std::move(a), t, persistent};
  };
  auto out = [](OutputKind k, SpecArg a, std::optional<std::string> t = {}) { return OutputSpec{k, std::move(a), t}; };
  auto sym = [](SpecArg::Kind k, std::string name) { return SpecArg{k, std::move(name), "", {}}; };
  p.signature.input_specs = {
      in(InputKind::Parameter, SpecArg::tensor("p_w"), "w"),
      in(InputKind::Buffer, SpecArg::tensor("b_n"), "n", true),
      in(InputKind::Buffer, SpecArg::tensor("b_t"), "t", false),
      in(InputKind::ConstantTensor, SpecArg::tensor("c0"), "_tensor_constant0"),
      in(InputKind::CustomObj, SpecArg{SpecArg::Kind::CustomObj, "obj", "my.Obj", {}}, "obj"),
      in(InputKind::Token, sym(SpecArg::Kind::Token, "token")),
      in(InputKind::UserInput, SpecArg::tensor("x")),
      in(InputKind::UserInput, sym(SpecArg::Kind::SymInt, "s")),
      in(InputKind::UserInput, SpecArg{SpecArg::Kind::Constant, "", "", int64_t{3}}),
      in(InputKind::UserInput, SpecArg{SpecArg::Kind::Constant, "scale", "", 2.0}),
      in(InputKind::Parameter, SpecArg::tensor("p_no_target")),  // not torch-expressible
  };
  p.signature.output_specs = {
      out(OutputKind::UserOutput, SpecArg::tensor("add")),
      out(OutputKind::LossOutput, SpecArg::tensor("loss")),
      out(OutputKind::BufferMutation, SpecArg::tensor("add_"), "n"),
      out(OutputKind::ParameterMutation, SpecArg::tensor("div_"), "w"),
      out(OutputKind::GradientToParameter, SpecArg::tensor("g"), "w"),
      out(OutputKind::GradientToUserInput, SpecArg::tensor("gx"), "x"),
      out(OutputKind::UserInputMutation, SpecArg::tensor("mul_"), "x"),
      out(OutputKind::Token, sym(SpecArg::Kind::Token, "token_out")),
      out(OutputKind::UserOutput, SpecArg{SpecArg::Kind::Constant, "", "", std::monostate{}}),
      out(OutputKind::BufferMutation, sym(SpecArg::Kind::SymInt, "s"), "n"),  // not expressible
  };
  p.module_call_graph = {
      {"",
       ModuleCallSignature{
           {SpecArg::tensor("x")}, {SpecArg::tensor("add")}, "[1, {}]", "[1, {}]", std::vector<std::string>{"x", "y"}}},
      {"sub", std::nullopt}};
  p.range_constraints = {{"s0", {2, std::nullopt}}, {"u0", {std::nullopt, 8}}};
  p.verifiers = {"TRAINING"};
  p.opset_version = {{"aten", 10}, {"my_lib", 1}};
  p.torch_version = "2.6.0";
  p.guards_code = {"L['x'].size()[0] == 2"};
  p.metadata = {{"custom", "{}"}};
  p.treespec_namedtuple_fields = {{"Point", {"x", "y"}}};
  std::string text;
  ASSERT_TRUE(roundTrips(p, &text));
  Json j = parsed(text);
  const Json& inputs = j["exported_program"]["graph_module"]["signature"]["input_specs"];
  EXPECT_EQ(inputs[0], Json::parse(R"({"parameter": {"arg": {"name": "p_w"}, "parameter_name": "w"}})"));
  EXPECT_EQ(inputs[1], Json::parse(R"({"buffer": {"arg": {"name": "b_n"}, "buffer_name": "n", "persistent": true}})"));
  EXPECT_EQ(inputs[5], Json::parse(R"({"token": {"arg": {"name": "token"}}})"));
  EXPECT_EQ(inputs[8], Json::parse(R"({"user_input": {"arg": {"as_int": 3}}})"));
  EXPECT_EQ(inputs[9], Json::parse(R"({"constant_input": {"name": "scale", "value": {"as_float": 2.0}}})"));
  EXPECT_EQ(inputs[10], Json::parse(R"({"epsmith.spec": {"kind": "parameter",
      "arg": {"as_tensor": {"name": "p_no_target"}}, "target": null, "persistent": null}})"));
  const Json& outputs = j["exported_program"]["graph_module"]["signature"]["output_specs"];
  EXPECT_EQ(outputs[2], Json::parse(R"({"buffer_mutation": {"arg": {"name": "add_"}, "buffer_name": "n"}})"));
  EXPECT_EQ(outputs[8], Json::parse(R"({"user_output": {"arg": {"as_none": true}}})"));
  EXPECT_EQ(j["exported_program"]["range_constraints"]["s0"], Json::parse(R"({"min_val": 2, "max_val": null})"));
  EXPECT_EQ(j["exported_program"]["graph_module"]["treespec_namedtuple_fields"],
            Json::parse(R"({"Point": {"field_names": ["x", "y"]}})"));
}

// Programs the verifier must reject still round-trip: the file keeps what torch's schema
// cannot say in "epsmith.*" extensions.
TEST(JsonFormat, InvalidProgramsRoundTrip) {
  ExportedProgram p;
  Graph& g = p.graph();
  Node* x = placeholder(g, "x", f32({4}));
  Node* neg = call(g, "neg", "aten::neg", {}, f32({4}));  // uses relu before it exists
  Node* relu = call(g, "relu", "aten::relu", {arg::Tensor{x}}, Val::Missing{});
  neg->args = {arg::Tensor{relu}};
  Node* late = placeholder(g, "late", f32({4}));  // placeholder after a node
  Node* module = g.append(OpKind::CallModule, "sub_module");
  module->attr = "sub";
  module->args = {arg::Tensor{late}};
  module->meta.val = f32({4});
  Node* method = g.append(OpKind::CallMethod, "view");
  method->attr = "view";
  method->args = {arg::Tensor{module}, arg::Int{2}};
  method->kwargs = {{"dim", arg::Int{0}}};
  Node* split = call(g, "split", "aten::split.Tensor", {arg::Tensor{x}, arg::Int{2}}, Val::List{f32({2}), f32({2})});
  Node* a = call(g, "getitem", "operator.getitem", {arg::Tensor{split}, arg::Int{0}}, f32({2}));
  Node* again = call(g, "getitem_1", "operator.getitem", {arg::Tensor{split}, arg::Int{0}}, f32({2}));
  Node* odd = call(g, "getitem_2", "operator.getitem", {arg::Tensor{split}, arg::Int{1}}, f32({2}));
  odd->meta.stack_trace = "differs from the producer";
  Node* other = g.append(OpKind::CallFunction, "matmul");
  other->target = Target::other("_operator.add");  // spelled like a builtin, but is not one
  other->args = {arg::Tensor{a}, arg::Tensor{again}};
  other->meta.val = f32({2});
  Node* hop = g.append(OpKind::CallFunction, "hop");
  hop->target = Target::higherOrder("");
  hop->meta.val = Val::List{Val::List{f32({1})}};  // nested: not foldable
  g.attributes().emplace("w", Attribute{});
  g.attributes()["w"].kind = Attribute::Kind::Parameter;
  g.attributes()["w"].tensor = TensorValue::zeros(ScalarType::Float, {2});
  g.attributes().emplace("orphan", Attribute::makeSubgraph(identityGraph()));
  Node* w = g.append(OpKind::GetAttr, "w");
  w->attr = "w";
  Node* tree = g.append(OpKind::GetAttr, "spec");
  tree->attr = "spec";
  g.attributes()["spec"].kind = Attribute::Kind::TreeSpec;
  g.attributes()["spec"].text = "[1, {}]";
  g.attributes()["lowered"].kind = Attribute::Kind::Module;
  g.attributes()["lowered"].text = "LoweredBackendModule";
  g.attributes()["lowered"].field_types = {{"backend_id", "str"}};
  g.attributes()["lowered"].has_original_module = true;
  g.attributes()["orphan"].subgraph->attributes()["inner"].kind = Attribute::Kind::Opaque;
  Node* out = output(g, {arg::Tensor{neg}, arg::Tensor{method}, arg::Tensor{odd}, arg::Tensor{other}, arg::Tensor{hop},
                         arg::Tensor{w}, arg::Tensor{x}, arg::Int{3}});
  g.rename(out, "result");
  std::string text;
  ASSERT_TRUE(roundTrips(p, &text));
  Json j = parsed(text);
  const Json& graph = graphOf(j);
  EXPECT_EQ(nodeNamed(graph, "relu")->at("outputs"), Json::array());
  EXPECT_EQ(nodeNamed(graph, "late")->at("metadata"), Json::parse(R"({"epsmith.op": "placeholder"})"));
  EXPECT_EQ(nodeNamed(graph, "view")->at("target"), "view");
  EXPECT_EQ(nodeNamed(graph, "split")->at("outputs"),
            Json::parse(R"([{"as_tensors": [{"name": "getitem"}, {"name": "split_unused_1"}]}])"));
  EXPECT_NE(nodeNamed(graph, "getitem_1"), nullptr) << "a second getitem stays explicit";
  EXPECT_NE(nodeNamed(graph, "getitem_2"), nullptr) << "a getitem with its own metadata stays";
  EXPECT_EQ(nodeNamed(graph, "matmul")->at("metadata"), Json::parse(R"({"epsmith.target": "other"})"));
  EXPECT_EQ(j["epsmith"]["attributes"]["orphan"]["inner"]["kind"], "opaque");
  EXPECT_EQ(j["epsmith"]["graphs"][""]["output"], Json::parse(R"({"name": "result", "metadata": {}})"));
}

TEST(JsonFormat, LiteralInputsTakeTheirNamesFromTheSignature) {
  ExportedProgram p = addProgram();
  Graph& g = p.graph();
  Node* first = &g.nodes().front();
  g.insertBefore(first, OpKind::Placeholder, "scale")->meta.val = 2.0;
  g.insertBefore(first, OpKind::Placeholder, "n")->meta.val = int64_t{3};
  p.signature.input_specs.insert(
      p.signature.input_specs.begin(),
      InputSpec{InputKind::UserInput, SpecArg{SpecArg::Kind::Constant, "scale", "", 2.0}, {}, {}});
  std::string text;
  ASSERT_TRUE(roundTrips(p, &text));
  Json j = parsed(text);
  EXPECT_EQ(graphOf(j)["inputs"][0], Json::parse(R"({"as_float": 2.0})"));
  EXPECT_EQ(graphOf(j)["inputs"][1], Json::parse(R"({"as_int": 3})"));
  EXPECT_EQ(j["epsmith"]["graphs"][""]["inputs"], Json::parse(R"([null, {"name": "n", "metadata": {}}, null, null])"));
}

TEST(JsonFormat, SubgraphReturnedByTheOutputNodeFoldsIntoIt) {
  ExportedProgram p;
  Graph& g = p.graph();
  g.attributes().emplace("body", Attribute::makeSubgraph(identityGraph()));
  g.append(OpKind::GetAttr, "body")->attr = "body";
  output(g, {arg::Graph{g.find("body")}});
  std::string text;
  ASSERT_TRUE(roundTrips(p, &text));
  EXPECT_EQ(graphOf(parsed(text))["nodes"], Json::array());
}

}  // namespace
}  // namespace epsmith::testing
