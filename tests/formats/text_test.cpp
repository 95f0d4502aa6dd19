// The text form: exact round trips over every argument kind, value kind, signature kind and
// dtype, and the meaning the parser gives each construct.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "formats/scalar_format.h"
#include "formats/text_format.h"
#include "ops/op_registry.h"
#include "tests/support/program_text.h"

namespace epsmith {
namespace {

using test::parse;

// print(parse(text)) == text for text in printed form.
void expectExactRoundTrip(const std::string& text) {
  auto p = parse(text);
  EXPECT_EQ(printProgramText(p), text);
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const Node& node(const ExportedProgram& p, const std::string& name) {
  const Node* n = p.graph().find(name);
  EXPECT_NE(n, nullptr) << name;
  return *n;
}

TEST(TextForm, BundledExampleRoundTripsExactly) {
  std::string source = readFile(std::string(EPSMITH_SOURCE_DIR) + "/examples/linear_counter.ept");
  ASSERT_FALSE(source.empty());
  // The printer drops comments; everything else comes back byte for byte.
  std::string without_comments;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("#", 0) != 0) without_comments += line + "\n";
  }
  auto p = parse(source);
  EXPECT_EQ(printProgramText(p), without_comments);
  EXPECT_EQ(p.dialectName(), "TRAINING");
  EXPECT_EQ(p.graph().size(), 8u);
  const Node& add = node(p, "add_");
  ASSERT_EQ(add.target.kind(), Target::Kind::Aten);
  EXPECT_EQ(add.target.op()->name(), "aten::add_.Scalar");
  EXPECT_TRUE(add.target.op()->is_mutable);
  EXPECT_EQ(add.args[0].get<arg::Tensor>()->node, p.graph().find("b_calls"));
  EXPECT_EQ(add.args[1].get<arg::Int>()->value, 1);
  EXPECT_EQ(node(p, "mm").meta.stack_trace, "model.py:8 in forward");
  EXPECT_TRUE(p.state_dict.at("weight").is_parameter);
  EXPECT_EQ(p.state_dict.at("weight").tensor.sizes, (std::vector<int64_t>{3, 3}));
  EXPECT_TRUE(p.state_dict.at("weight").tensor.requires_grad);
  ASSERT_EQ(p.example_inputs.size(), 1u);
  float first;
  std::memcpy(&first, p.example_inputs[0].tensor.storage->bytes.data(), 4);
  EXPECT_EQ(first, 0.5f);
}

// A call to a Python callable outside ATen takes any arguments, so one node can carry every
// argument kind without a schema getting in the way.
constexpr const char* kEveryArgumentKind = R"EPT(program {
  verifiers ["ATEN"]
  schema_version 8.17
  torch_version "1.13.1"
  opset {"aten": 10}
}

graph {
  %x: f32[2] = placeholder
  %y: f32[2] = placeholder
  %s: sym_int("s0", hint=4) = placeholder
  %f: sym_float("s1 / 2") = placeholder
  %b: sym_bool("Eq(s0, 4)", hint=True) = placeholder
  %obj: custom_obj("__torch__.torch.classes.my.Thing") = placeholder
  %g = get_attr("true_graph_0")
  %call = mylib.every_kind(None, %x, [%x, %y], optional(%x), optional(None), optional[%x, None], 3, [1, -2], 2.5, [1.0, -0.0, inf, -inf, nan], True, [True, False], "a\"b\n", ["p", "q"], sym_int(%s), sym_int(7), sym_ints[%s, 3], sym_float(%f), sym_float(1.5), sym_floats[%f, 2.0], sym_bool(%b), sym_bool(False), sym_bools[%b, True], torch.bfloat16, torch.channels_last, torch.sparse_coo, device("cuda:1"), graph(%g), custom_obj(%obj, "__torch__.torch.classes.my.Thing"), operator("aten::add.Tensor"), complex(1.0, -2.0), [], floats[], bools[], strings[], tensors[], optional[], sym_ints[], kw=1)
  return (%x)
  attr "true_graph_0" = graph {
    %a: f32[2] = placeholder
    %neg: f32[2] = aten::neg(%a)
    return (%neg)
  }
}
)EPT";

TEST(TextForm, EveryArgumentKindRoundTripsAndParsesToItsKind) {
  expectExactRoundTrip(kEveryArgumentKind);
  auto p = parse(kEveryArgumentKind);
  const Node& call = node(p, "call");
  EXPECT_EQ(call.target.kind(), Target::Kind::Other);
  std::vector<ArgKind> kinds;
  for (const auto& a : call.args) kinds.push_back(a.kind());
  const std::vector<ArgKind> expected = {ArgKind::None,
                                         ArgKind::Tensor,
                                         ArgKind::TensorList,
                                         ArgKind::OptionalTensor,
                                         ArgKind::OptionalTensor,
                                         ArgKind::OptionalTensorList,
                                         ArgKind::Int,
                                         ArgKind::IntList,
                                         ArgKind::Float,
                                         ArgKind::FloatList,
                                         ArgKind::Bool,
                                         ArgKind::BoolList,
                                         ArgKind::String,
                                         ArgKind::StringList,
                                         ArgKind::SymInt,
                                         ArgKind::SymInt,
                                         ArgKind::SymIntList,
                                         ArgKind::SymFloat,
                                         ArgKind::SymFloat,
                                         ArgKind::SymFloatList,
                                         ArgKind::SymBool,
                                         ArgKind::SymBool,
                                         ArgKind::SymBoolList,
                                         ArgKind::ScalarType,
                                         ArgKind::MemoryFormat,
                                         ArgKind::Layout,
                                         ArgKind::Device,
                                         ArgKind::Graph,
                                         ArgKind::CustomObj,
                                         ArgKind::Operator,
                                         ArgKind::Complex,
                                         ArgKind::IntList,
                                         ArgKind::FloatList,
                                         ArgKind::BoolList,
                                         ArgKind::StringList,
                                         ArgKind::TensorList,
                                         ArgKind::OptionalTensorList,
                                         ArgKind::SymIntList};
  EXPECT_EQ(kinds, expected);
  // Every kind of the IR appears at least once.
  std::vector<bool> seen(kNumArgKinds);
  for (auto k : kinds) seen[static_cast<int>(k)] = true;
  for (int k = 0; k < kNumArgKinds; ++k) EXPECT_TRUE(seen[k]) << serializedTag(static_cast<ArgKind>(k));

  EXPECT_EQ(call.args[5].get<arg::OptionalTensorList>()->nodes[1], nullptr);
  EXPECT_EQ(call.args[12].get<arg::String>()->value, "a\"b\n");
  const auto& floats = call.args[9].get<arg::FloatList>()->values;
  EXPECT_TRUE(std::signbit(floats[1]));
  EXPECT_TRUE(std::isinf(floats[2]) && floats[3] < 0 && std::isnan(floats[4]));
  EXPECT_EQ(call.args[15].get<arg::SymInt>()->value.literal, 7);
  EXPECT_EQ(call.args[16].get<arg::SymIntList>()->values[0].node, p.graph().find("s"));
  EXPECT_EQ(call.args[23].get<arg::Dtype>()->value, ScalarType::BFloat16);
  EXPECT_EQ(call.args[26].get<arg::DeviceArg>()->value.str(), "cuda:1");
  EXPECT_EQ(call.args[27].get<arg::Graph>()->node->attr, "true_graph_0");
  ASSERT_EQ(call.kwargs.size(), 1u);
  EXPECT_EQ(call.kwargs[0].first, "kw");
  const Attribute* sub = p.graph().attribute("true_graph_0");
  ASSERT_NE(sub, nullptr);
  ASSERT_EQ(sub->kind, Attribute::Kind::Subgraph);
  EXPECT_EQ(sub->subgraph->size(), 3u);
}

TEST(TextForm, EveryValueKindRoundTrips) {
  const std::string text = R"EPT(program {
  verifiers []
  schema_version 8.17
  torch_version "2.5.0"
  opset {"aten": 10, "mylib": 2}
  metadata {"k": "v"}
  guards_code ["L['x'].size()[0] == 2"]
  namedtuple_fields {"Point": ["x", "y"]}
}

graph {
  %t: f16[2, sym("s0"), 3]<stride=[9, 3, 1], offset=sym("s1", hint=2), device="cuda:0", requires_grad=True, layout=torch.sparse_csr> = placeholder
  %none: None = placeholder
  %i: -3 = placeholder
  %f: 0.1 = placeholder
  %b: False = placeholder
  %str: "text" = placeholder
  %dt: torch.int32 = placeholder
  %dev: device("cpu") = placeholder
  %lay: torch.strided = placeholder
  %mf: torch.preserve_format = placeholder
  %tup: (f32[], (i64[0], b8[1, 0]), 2) = placeholder
  %one: (c64[2],) = placeholder
  %empty: () = placeholder
  %weird: opaque("collections.OrderedDict") = placeholder
  %noval = placeholder
  %meta: f32[2] = aten::neg(%noval) {stack_trace="File \"m.py\", line 3", nn_module_stack=[("L__self__", "", "M"), ("L__self___lin", "lin", "torch.nn.Linear")], torch_fn=("neg", "method_descriptor.neg"), custom={"a": "1", "b": "2"}}
  return[%out: f32[2]] (%meta, 3, None)
}
)EPT";
  expectExactRoundTrip(text);
  auto p = parse(text);
  EXPECT_EQ(p.dialectName(), "ATEN");  // no verifiers means ATEN
  const TensorMeta* t = node(p, "t").meta.val.tensor();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->dtype, ScalarType::Half);
  EXPECT_FALSE(t->sizes[1].isConcrete());
  EXPECT_EQ(t->layout, Layout::SparseCsr);
  EXPECT_TRUE(node(p, "noval").meta.val.isMissing());
  EXPECT_NE(node(p, "none").meta.val.get<Val::None>(), nullptr);
  EXPECT_EQ(node(p, "tup").meta.val.list()->size(), 3u);
  EXPECT_EQ(node(p, "one").meta.val.list()->size(), 1u);
  EXPECT_EQ(node(p, "weird").meta.val.get<Val::Opaque>()->type_name, "collections.OrderedDict");
  EXPECT_EQ(node(p, "meta").meta.nn_module_stack->at(1).type, "torch.nn.Linear");
  EXPECT_EQ(p.graph().outputNode()->name(), "out");
}

TEST(TextForm, EverySignatureKindRoundTripsAndFeedsTheDerivedViews) {
  const std::string text = R"EPT(program {
  verifiers ["ATEN"]
  schema_version 8.17
  torch_version "1.13.1"
  opset {"aten": 10}
}

graph {
  %p: f32[2] = placeholder
  %b: f32[2] = placeholder
  %nb: f32[2] = placeholder
  %c: f32[2] = placeholder
  %obj: custom_obj("my.Obj") = placeholder
  %tok: f32[0] = placeholder
  %x: f32[2] = placeholder
  %s: sym_int("s0") = placeholder
  %add: f32[2] = aten::add.Tensor(%x, %p)
  return (%tok, %add, %add, %add, %add, %add, %add, %add)
}

signature {
  input parameter %p -> "weight"
  input buffer %b -> "running" persistent=True
  input buffer %nb -> "scratch" persistent=False
  input tensor_constant %c -> "_tensor_constant0"
  input custom_obj custom_obj(%obj, "my.Obj") -> "obj"
  input token token(%tok)
  input user_input %x
  input user_input sym_int(%s)
  input user_input 3
  input constant_input "scale" = 2.0
  input buffer %b
  output token token(%tok)
  output buffer_mutation %add -> "running"
  output parameter_mutation %add -> "weight"
  output user_input_mutation %add -> "x"
  output user_output %add
  output loss_output %add
  output gradient_to_parameter %add -> "weight"
  output gradient_to_user_input %add -> "x"
}

range_constraints {
  "s0" = [2, 8]
  "s1" = [0, null]
}
)EPT";
  expectExactRoundTrip(text);
  auto p = parse(text);
  const auto& sig = p.signature;
  EXPECT_EQ(sig.input_specs.size(), 11u);
  EXPECT_EQ(sig.output_specs.size(), 8u);
  EXPECT_EQ(sig.parameters(), std::vector<std::string>{"weight"});
  EXPECT_EQ(sig.buffers(), (std::vector<std::string>{"running", "scratch"}));
  EXPECT_EQ(sig.nonPersistentBuffers(), std::vector<std::string>{"scratch"});
  EXPECT_EQ(sig.liftedTensorConstants(), std::vector<std::string>{"_tensor_constant0"});
  EXPECT_EQ(sig.liftedCustomObjs(), std::vector<std::string>{"obj"});
  EXPECT_EQ(sig.inputTokens(), std::vector<std::string>{"tok"});
  EXPECT_EQ(sig.outputTokens(), std::vector<std::string>{"tok"});
  auto users = sig.userInputs();
  ASSERT_EQ(users.size(), 4u);
  EXPECT_EQ(std::get<std::string>(users[0]), "x");
  EXPECT_EQ(std::get<std::string>(users[1]), "s");
  EXPECT_EQ(std::get<int64_t>(std::get<ConstantValue>(users[2])), 3);
  EXPECT_EQ(std::get<double>(std::get<ConstantValue>(users[3])), 2.0);
  EXPECT_EQ(sig.userOutputs().size(), 2u);  // USER_OUTPUT and LOSS_OUTPUT
  EXPECT_EQ(sig.buffersToMutate(), (OrderedMap{{"add", "running"}}));
  EXPECT_EQ(sig.parametersToMutate(), (OrderedMap{{"add", "weight"}}));
  EXPECT_EQ(sig.userInputsToMutate(), (OrderedMap{{"add", "x"}}));
  EXPECT_EQ(sig.inputsToBuffers(), (OrderedMap{{"b", "running"}, {"nb", "scratch"}}));
  EXPECT_EQ(sig.mutationOutputEnd(), 4u);
  auto backward = sig.backwardSignature();
  ASSERT_TRUE(backward.has_value());
  EXPECT_EQ(backward->loss_output, "add");
  EXPECT_EQ(backward->gradients_to_parameters, (OrderedMap{{"add", "weight"}}));
  EXPECT_FALSE(sig.input_specs[10].persistent.has_value());
  EXPECT_EQ(p.range_constraints.at("s1").max_val, std::nullopt);
}

TEST(TextForm, EveryDtypeStorageRoundTripsBitForBit) {
  std::string storages, state;
  int id = 0;
  for (int v = 0; v <= 40; ++v) {
    auto t = scalarTypeFromInt(v);
    if (!t || *t == ScalarType::Unknown) continue;
    // Two elements of each dtype: all-zero bytes and 0x3c..-style patterns give valid values
    // of every type (integers, floats, bools are 0/1).
    Storage s;
    s.dtype = *t;
    s.bytes.assign(static_cast<size_t>(2 * elementSize(*t)), 0);
    for (size_t i = s.bytes.size() / 2; i < s.bytes.size(); ++i) s.bytes[i] = (*t == ScalarType::Bool) ? 1 : 0x3c;
    ExportedProgram p;
    p.graph().append(OpKind::Output, "output");
    TensorValue tv;
    tv.storage = std::make_shared<Storage>(s);
    tv.sizes = {2};
    tv.strides = {1};
    p.state_dict["t"] = {false, tv};
    auto printed = printProgramText(p);
    auto back = parse(printed);
    ASSERT_EQ(back.state_dict.count("t"), 1u) << shortName(*t);
    EXPECT_EQ(back.state_dict["t"].tensor.storage->bytes, s.bytes) << shortName(*t) << "\n" << printed;
    EXPECT_EQ(printProgramText(back), printed);
    ++id;
  }
  EXPECT_EQ(id, 21);  // every dtype of the schema but Unknown
}

TEST(TextForm, FloatSpecialsAndNanPayloadsSurvive) {
  auto bits32 = [](uint32_t b) {
    std::vector<uint8_t> v(4);
    std::memcpy(v.data(), &b, 4);
    return v;
  };
  Storage s;
  s.dtype = ScalarType::Float;
  for (uint32_t b : {0x7fc00000u, 0x7fc00001u, 0xffc00000u, 0x80000000u, 0x7f800000u, 0x00000001u, 0x3dcccccdu}) {
    auto v = bits32(b);
    s.bytes.insert(s.bytes.end(), v.begin(), v.end());
  }
  Storage h;
  h.dtype = ScalarType::Half;
  for (uint16_t b : {0x7e00, 0x7e01, 0x0001, 0x3555, 0xfc00, 0x8000}) {
    h.bytes.push_back(static_cast<uint8_t>(b & 0xff));
    h.bytes.push_back(static_cast<uint8_t>(b >> 8));
  }
  ExportedProgram p;
  p.graph().append(OpKind::Output, "output");
  TensorValue a{std::make_shared<Storage>(s), {7}, {1}, 0, false};
  TensorValue b{std::make_shared<Storage>(h), {6}, {1}, 0, false};
  p.state_dict["a"] = {false, a};
  p.state_dict["b"] = {false, b};
  auto printed = printProgramText(p);
  EXPECT_NE(printed.find("[nan, nan:0x7fc00001, nan:0xffc00000, -0.0, inf, 1e-45, 0.1]"), std::string::npos) << printed;
  auto back = parse(printed);
  EXPECT_EQ(back.state_dict["a"].tensor.storage->bytes, s.bytes);
  EXPECT_EQ(back.state_dict["b"].tensor.storage->bytes, h.bytes);
}

// appendElement writes whole numbers and halves directly (Note [Halves printed directly]);
// every 16-bit float, and floats and doubles around the cut-offs, must come out as the
// general shortest-text path spells them.
TEST(TextForm, ElementsWrittenDirectlyAreSpelledAsTheShortestText) {
  auto same = [](ScalarType dtype, const uint8_t* bytes) {
    std::string direct;
    appendElement(direct, dtype, bytes);
    return direct == formatElement(dtype, bytes) ? "" : direct + " vs " + formatElement(dtype, bytes);
  };
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const uint16_t b = static_cast<uint16_t>(bits);
    const auto* bytes = reinterpret_cast<const uint8_t*>(&b);
    ASSERT_EQ(same(ScalarType::Half, bytes), "") << "half 0x" << std::hex << bits;
    ASSERT_EQ(same(ScalarType::BFloat16, bytes), "") << "bfloat16 0x" << std::hex << bits;
  }
  std::vector<double> values{0.0, -0.0, 0.5, -0.5, 1023.5, -1023.5, 1024.0, 1000.0, 100.0, 0.25, 1e-300, 3.0};
  for (int k = -2100; k <= 2100; ++k) values.push_back(k / 2.0);
  for (double v : values) {
    const float f = static_cast<float>(v);
    ASSERT_EQ(same(ScalarType::Float, reinterpret_cast<const uint8_t*>(&f)), "") << v;
    ASSERT_EQ(same(ScalarType::Double, reinterpret_cast<const uint8_t*>(&v)), "") << v;
  }
  std::string ints;
  const int64_t big = -9223372036854775807 - 1;
  appendElement(ints, ScalarType::Long, reinterpret_cast<const uint8_t*>(&big));
  EXPECT_EQ(ints, "-9223372036854775808");
}

// parseRealElement reads "k.0" and "k.5" directly; it must store what the general path
// stores for the same number spelled otherwise ("k.00", "k.50"), in every floating dtype.
TEST(TextForm, ElementsReadDirectlyHoldWhatTheGeneralPathHolds) {
  for (ScalarType dtype : {ScalarType::Float, ScalarType::Double, ScalarType::Half, ScalarType::BFloat16}) {
    for (int k = -20000; k <= 20000; ++k) {
      const std::string whole = std::to_string(std::abs(k) / 2), sign = k < 0 ? "-" : "";
      const std::string direct = sign + whole + (k % 2 ? ".5" : ".0");
      const std::string general = sign + whole + (k % 2 ? ".50" : ".00");
      uint8_t a[8] = {}, b[8] = {};
      ASSERT_EQ(parseRealElement(dtype, direct, a), std::nullopt) << direct;
      ASSERT_EQ(parseRealElement(dtype, general, b), std::nullopt) << general;
      ASSERT_EQ(std::memcmp(a, b, sizeof a), 0) << shortName(dtype) << " " << direct;
    }
  }
}

TEST(TextForm, ACommentMaySitBetweenStorageElements) {
  const std::string text = R"EPT(program {
  verifiers ["ATEN"]
}

graph {
  return ()
}

storages {
  $0: f32[3] = [1.5  # the first
                , -2.0, 3.25]
}

state {
  buffer "b" = $0 f32[3]
}
)EPT";
  auto p = parseProgramText(text);
  ASSERT_TRUE(p.ok()) << p.error().str();
  const auto& bytes = p->state_dict.at("b").tensor.storage->bytes;
  float values[3];
  std::memcpy(values, bytes.data(), sizeof values);
  EXPECT_EQ(values[0], 1.5f);
  EXPECT_EQ(values[1], -2.0f);
  EXPECT_EQ(values[2], 3.25f);
}

TEST(TextForm, AliasingTensorsShareOneStorage) {
  const std::string text = R"EPT(program {
  verifiers ["ATEN"]
  schema_version 8.17
  torch_version "1.13.1"
  opset {"aten": 10}
}

graph {
  return ()
}

storages {
  $0: f32[6] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
}

state {
  buffer "base" = $0 f32[2, 3]
  buffer "col" = $0 f32[2]<stride=[3], offset=1>
}

constants {
  "c" = $0 f32[3]<offset=3>
  "obj" = custom_obj("my.Obj")
}

example_inputs {
  $0 f32[3, 2]<stride=[1, 3]>
  4
  2.5
  True
  None
}
)EPT";
  expectExactRoundTrip(text);
  auto p = parse(text);
  EXPECT_EQ(p.state_dict["base"].tensor.storage, p.state_dict["col"].tensor.storage);
  EXPECT_EQ(p.constants["c"].tensor->storage, p.example_inputs[0].tensor.storage);
  EXPECT_FALSE(p.constants["obj"].isTensor());
  EXPECT_EQ(p.example_inputs[1].kind, InputValue::Kind::Int);
  EXPECT_EQ(p.example_inputs[4].kind, InputValue::Kind::None);
}

TEST(TextForm, AttributesOfEveryKindRoundTrip) {
  const std::string text = R"EPT(program {
  verifiers ["ATEN"]
  schema_version 8.17
  torch_version "1.13.1"
  opset {"aten": 10}
}

graph {
  %w = get_attr("w")
  %m = call_module("sub")(%w)
  %r = call_method("relu")(%m)
  return (%r)
  attr "lowered" = module("LoweredBackendModule", backend_id="str", compile_specs="list", processed_bytes="bytes", original_module=True)
  attr "nothing" = parameter
  attr "spec" = treespec("[1, {\"type\": null}]")
  attr "thing" = opaque("SomeType")
  attr "w" = parameter $0 f32[2]
  attr "z" = tensor $0 f32[1]<offset=1>
}

storages {
  $0: f32[2] = [1.0, 2.0]
}
)EPT";
  expectExactRoundTrip(text);
  auto p = parse(text);
  EXPECT_EQ(node(p, "m").op(), OpKind::CallModule);
  EXPECT_EQ(node(p, "r").op(), OpKind::CallMethod);
  EXPECT_EQ(p.graph().attribute("lowered")->field_types.at("backend_id"), "str");
  EXPECT_FALSE(p.graph().attribute("nothing")->tensor.has_value());
}

TEST(TextForm, UntaggedListsTakeTheKindOfTheirFirstElement) {
  auto p = parse(R"EPT(graph {
  %x: f32[2, 3] = placeholder
  %v: f32[3, 2] = aten::view(%x, [3, 2])
  %e: f32[3, 2] = aten::view(%x, sym_ints[3, 2])
  %c: f32[4, 3] = aten::cat([%x, %x])
  return (%v, %e, %c)
})EPT");
  EXPECT_EQ(node(p, "v").args[1].kind(), ArgKind::IntList);
  EXPECT_EQ(node(p, "e").args[1].kind(), ArgKind::SymIntList);
  EXPECT_EQ(node(p, "c").args[0].kind(), ArgKind::TensorList);
  // A program without a program { } section gets the defaults: the ATEN dialect.
  EXPECT_EQ(p.dialectName(), "ATEN");
}

// quote() appends runs of plain bytes whole: every byte value, alone and among plain text,
// is escaped exactly as one byte at a time would (control characters and DEL as \u00XX,
// non-ASCII as is), and the parser reads the literal back as the bytes it came from.
TEST(TextForm, QuotedStringsEscapeEveryByteAsOneAtATimeWould) {
  auto oneAtATime = [](std::string_view s) {
    std::string out = "\"";
    for (unsigned char c : s) {
      if (c == '"')
        out += "\\\"";
      else if (c == '\\')
        out += "\\\\";
      else if (c == '\n')
        out += "\\n";
      else if (c == '\t')
        out += "\\t";
      else if (c == '\r')
        out += "\\r";
      else if (c < 0x20 || c == 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
    return out + "\"";
  };
  for (int c = 0; c < 256; ++c) {
    for (const std::string& s :
         {std::string(1, static_cast<char>(c)), "ab" + std::string(1, static_cast<char>(c)) + "cd",
          std::string(3, static_cast<char>(c)) + "x"}) {
      ASSERT_EQ(quote(s), oneAtATime(s)) << "byte " << c;
    }
  }
  ExportedProgram p = parse("graph {\n  %x: f32[2] = placeholder\n  return (%x)\n}\n");
  const std::string text = "a\"b\\c\nd\te\x01f\x7fg h{}[]";
  p.graph().find("x")->meta.stack_trace = text;
  auto back = parseProgramText(printProgramText(p));
  ASSERT_TRUE(back.ok()) << back.error().str();
  EXPECT_EQ(back.value().graph().find("x")->meta.stack_trace, text);
}

TEST(TextForm, NamesThatAreNotIdentifiersAreQuotedEverywhere) {
  expectExactRoundTrip(R"EPT(program {
  verifiers ["ATEN"]
  schema_version 8.17
  torch_version "1.13.1"
  opset {"aten": 10}
}

graph {
  %"x.0": f32[2] = placeholder
  %"s 1": sym_int("s1") = placeholder
  %"neg-1": f32[2] = aten::neg(%"x.0")
  return (%"neg-1")
}

signature {
  input user_input %"x.0"
  input user_input sym_int(%"s 1")
  output user_output %"neg-1"
}
)EPT");
}

TEST(TextForm, ForwardReferencesLoadSoThatTheVerifierCanReportThem) {
  auto p = parse(R"EPT(graph {
  %y: f32[2] = aten::neg(%x)
  %x: f32[2] = placeholder
  return (%y)
})EPT");
  EXPECT_EQ(p.graph().firstOutOfOrderUse(), p.graph().find("y"));
}

}  // namespace
}  // namespace epsmith
