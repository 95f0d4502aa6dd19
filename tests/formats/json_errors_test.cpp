// Bad program files: one test per class of error, each pinning the JSON path (or line:column)
// the error names and a fragment of its message; plus files the writer must refuse, and
// truncations that must fail cleanly.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/formats/json_test_util.h"

namespace epsmith::testing {
namespace {

using Json = nlohmann::ordered_json;

const std::string kNode0 = "$.exported_program.graph_module.graph.nodes[0]";

// addProgram() as written, for tests to corrupt.
Json base() { return Json::parse(*writeProgramJson(addProgram())); }
Json& node0(Json& j) { return j["exported_program"]["graph_module"]["graph"]["nodes"][0]; }

void expectError(const std::string& text, const std::string& where, const std::string& fragment) {
  auto r = readProgramJson(text);
  ASSERT_FALSE(r) << "accepted:\n" << text;
  EXPECT_EQ(r.error().where, where) << r.error().str();
  EXPECT_NE(r.error().message.find(fragment), std::string::npos) << r.error().str();
}
void expectError(const Json& j, const std::string& where, const std::string& fragment) {
  expectError(j.dump(1), where, fragment);
}

TEST(JsonErrors, MalformedJsonNamesLineAndColumn) {
  expectError(std::string("{\n  \"exported_program\": ,\n}"), "2:23", "malformed JSON");
}

TEST(JsonErrors, NanTokenIsMalformedJson) {
  std::string text = base().dump(1);
  auto pos = text.find("\"storage_offset\": 0");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, 19, "\"storage_offset\": NaN");
  auto r = readProgramJson(text);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().where.find(':'), std::string::npos) << r.error().str();
  EXPECT_NE(r.error().message.find("malformed JSON"), std::string::npos);
}

TEST(JsonErrors, DeepNestingIsRejectedBeforeParsing) {
  expectError(std::string(100000, '['), "1:513", "nested deeper than 512 levels");
}

TEST(JsonErrors, UnionWithTwoKeys) {
  Json j = base();
  node0(j)["inputs"][0]["arg"]["as_int"] = 1;
  expectError(j, kNode0 + ".inputs[0].arg", "exactly one key, got 2 (as_tensor, as_int)");
}

TEST(JsonErrors, UnionWithNoKey) {
  Json j = base();
  node0(j)["inputs"][0]["arg"] = Json::object();
  expectError(j, kNode0 + ".inputs[0].arg", "exactly one key, got 0");
}

TEST(JsonErrors, UnknownUnionTag) {
  Json j = base();
  node0(j)["inputs"][0]["arg"] = Json::parse(R"({"as_frob": 1})");
  expectError(j, kNode0 + ".inputs[0].arg", "unknown Argument tag \"as_frob\"");
}

TEST(JsonErrors, UnknownOperator) {
  Json j = base();
  node0(j)["target"] = "torch.ops.aten.frobnicate.default";
  expectError(j, kNode0 + ".target", "unknown operator aten::frobnicate");
}

TEST(JsonErrors, UnknownOverload) {
  Json j = base();
  node0(j)["target"] = "torch.ops.aten.add.Frob";
  expectError(j, kNode0 + ".target", "unknown overload 'Frob' of aten::add");
}

TEST(JsonErrors, MissingSchemaArgument) {
  Json j = base();
  node0(j)["inputs"].erase(1);
  expectError(j, kNode0, "missing argument 'other' of aten::add.Tensor");
}

TEST(JsonErrors, WrongArgumentTypeForSchema) {
  Json j = base();
  node0(j)["inputs"][1]["arg"] = Json::parse(R"({"as_string": "s"})");
  expectError(j, kNode0, "argument 'other' of aten::add.Tensor expects Tensor, got as_string");
}

TEST(JsonErrors, PositionalArgumentOutOfSchemaOrder) {
  Json j = base();
  std::swap(node0(j)["inputs"][0], node0(j)["inputs"][1]);
  expectError(j, kNode0 + ".inputs[0]", "positional argument \"other\" is argument 1");
}

TEST(JsonErrors, UndefinedName) {
  Json j = base();
  node0(j)["inputs"][0]["arg"]["as_tensor"]["name"] = "nope";
  expectError(j, kNode0 + ".inputs[0].arg.as_tensor", "undefined name \"nope\"");
}

TEST(JsonErrors, DuplicateNodeName) {
  Json j = base();
  node0(j)["name"] = "x";
  node0(j)["outputs"][0]["as_tensor"]["name"] = "x";
  expectError(j, kNode0, "duplicate node name \"x\"");
}

TEST(JsonErrors, UnknownDtype) {
  Json j = base();
  j["exported_program"]["graph_module"]["graph"]["tensor_values"]["x"]["dtype"] = 99;
  expectError(j, "$.exported_program.graph_module.graph.tensor_values.x.dtype", "unknown dtype 99");
}

TEST(JsonErrors, UnknownLayout) {
  Json j = base();
  j["exported_program"]["graph_module"]["graph"]["tensor_values"]["y"]["layout"] = 42;
  expectError(j, "$.exported_program.graph_module.graph.tensor_values.y.layout", "unknown layout 42");
}

TEST(JsonErrors, UnknownMemoryFormat) {
  Json j = base();
  node0(j)["inputs"][1]["arg"] = Json::parse(R"({"as_memory_format": 9})");
  expectError(j, kNode0 + ".inputs[1].arg.as_memory_format", "unknown memory format 9");
}

TEST(JsonErrors, PayloadSizeMismatch) {
  Json j = base();
  j["epsmith"]["storages"][0]["data"] = "AAAA";  // 3 bytes for 6 floats
  expectError(j, "$.epsmith.storages[0].data", "payload has 3 bytes but numel 6 of torch.float32 needs 24");
}

TEST(JsonErrors, ViewOutsideItsStorage) {
  Json j = base();
  j["epsmith"]["example_inputs"][0]["as_tensor"]["sizes"] = Json::parse("[4, 3]");
  expectError(j, "$.epsmith.example_inputs[0].as_tensor", "view needs 12 storage elements but the storage has 6");
}

TEST(JsonErrors, InvalidBase64) {
  Json j = base();
  j["epsmith"]["storages"][0]["data"] = "AAAA!AAA";
  expectError(j, "$.epsmith.storages[0].data", "invalid base64 character \"!\" at offset 4");
}

TEST(JsonErrors, NonFiniteNumberWhereAnIntegerIsExpected) {
  Json j = base();
  j["exported_program"]["range_constraints"]["s0"] = Json::parse(R"({"min_val": "-Infinity", "max_val": null})");
  expectError(j, "$.exported_program.range_constraints.s0.min_val",
              "non-finite number \"-Infinity\" where an integer is expected");
}

TEST(JsonErrors, WrongJsonTypeForField) {
  Json j = base();
  j["exported_program"]["schema_version"]["major"] = "8";
  expectError(j, "$.exported_program.schema_version.major", "expected an integer, got string \"8\"");
}

TEST(JsonErrors, MissingRequiredField) {
  Json j = base();
  node0(j).erase("target");
  expectError(j, kNode0, "missing required field \"target\"");
}

TEST(JsonErrors, UnknownField) {
  Json j = base();
  node0(j)["targett"] = "x";
  expectError(j, kNode0, "unknown field \"targett\"");
}

TEST(JsonErrors, StorageIndexOutOfRange) {
  Json j = base();
  j["epsmith"]["example_inputs"][1]["as_tensor"]["storage"] = 7;
  expectError(j, "$.epsmith.example_inputs[1].as_tensor.storage",
              "storage index 7 out of range (the file has 2 storages)");
}

TEST(JsonErrors, UnknownEpsmithMetadataKey) {
  Json j = base();
  node0(j)["metadata"]["epsmith.frob"] = "1";
  expectError(j, kNode0 + ".metadata[\"epsmith.frob\"]", "unknown epsmith metadata key");
}

TEST(JsonErrors, SideTableForAMissingGraph) {
  Json j = base();
  j["epsmith"]["attributes"]["nowhere"] = Json::object();
  expectError(j, "$.epsmith.attributes.nowhere", "no graph has the path \"nowhere\"");
}

TEST(JsonErrors, BareTorchProgramGetsAHint) {
  Json j = base();
  expectError(j["exported_program"], "$", "wrap it as {\"exported_program\": ...}");
}

TEST(JsonErrors, ExampleInputCountMismatchIsNotAnError) {
  Json j = base();
  j["epsmith"]["example_inputs"].erase(1);
  auto r = readProgramJson(j.dump());
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->example_inputs.size(), 1u);
}

TEST(JsonErrors, EveryTruncationFailsCleanly) {
  std::string text = *writeProgramJson(addProgram());
  for (size_t n = 0; n < text.size(); n += 7) {
    auto r = readProgramJson(text.substr(0, n));
    EXPECT_FALSE(r) << n;
  }
}

TEST(JsonWriteErrors, GraphWithoutOutputNode) {
  ExportedProgram p;
  placeholder(p.graph(), "x", f32({1}));
  auto w = writeProgramJson(p);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().where, "graph");
  EXPECT_NE(w.error().message.find("no output node"), std::string::npos);
}

TEST(JsonWriteErrors, OutputNodeNotLast) {
  ExportedProgram p = addProgram();
  call(p.graph(), "late", "aten::relu", {arg::Tensor{p.graph().find("x")}}, f32({2, 3}));
  auto w = writeProgramJson(p);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().where, "%output");
  EXPECT_NE(w.error().message.find("not the last node"), std::string::npos);
}

TEST(JsonWriteErrors, DuplicateNodeNames) {
  ExportedProgram p;
  Graph& g = p.graph();
  placeholder(g, "x", f32({1}));
  g.appendRaw(OpKind::Placeholder, "x")->meta.val = f32({1});
  output(g, {});
  auto w = writeProgramJson(p);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().where, "%x");
  EXPECT_EQ(w.error().message, "duplicate node name");
}

TEST(JsonWriteErrors, AStringThatIsNotUtf8IsRefusedAtItsNode) {
  ExportedProgram p = addProgram();
  p.graph().find("x")->meta.custom["note"] = "caf\xe9";  // Latin-1, not UTF-8
  auto w = writeProgramJson(p);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().where, "%x");
  EXPECT_NE(w.error().message.find("not valid UTF-8 at its byte 3 (it begins \"caf\")"), std::string::npos)
      << w.error().str();
  p.graph().find("x")->meta.custom["note"] = "caf\xc3\xa9";
  EXPECT_TRUE(writeProgramJson(p)) << "the UTF-8 spelling is written";
}

TEST(JsonWriteErrors, AStringOutsideTheGraphsIsRefusedAtTheTop) {
  ExportedProgram p = addProgram();
  p.metadata["k"] = "\xff";
  auto w = writeProgramJson(p);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().where, "$");
  EXPECT_NE(w.error().message.find("not valid UTF-8"), std::string::npos) << w.error().str();
}

TEST(JsonWriteErrors, StateTensorOutsideItsStorage) {
  ExportedProgram p = addProgram();
  TensorValue t = TensorValue::zeros(ScalarType::Float, {2});
  t.sizes = {3};
  p.state_dict["w"] = {true, t};
  auto w = writeProgramJson(p);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().where, "$.epsmith.state_dict.w.tensor");
  EXPECT_EQ(w.error().message, "view needs 3 storage elements but the storage has 2");
}

// A member whose key is a program's name and whose value cannot be written either: the
// value's fault is the one reported, at the value's own place.
TEST(JsonWriteErrors, AValueIsReportedBeforeItsKey) {
  ExportedProgram p = addProgram();
  TensorValue t = TensorValue::zeros(ScalarType::Float, {2});
  t.sizes = {3};
  p.state_dict["w\xff"] = {true, t};
  auto w = writeProgramJson(p);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message, "view needs 3 storage elements but the storage has 2") << w.error().str();
  p.state_dict["w\xff"].tensor.sizes = {2};
  w = writeProgramJson(p);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().where, "$");
  EXPECT_NE(w.error().message.find("not valid UTF-8"), std::string::npos) << w.error().str();
}

TEST(JsonWriteErrors, AtenCallTheSchemaCannotBind) {
  ExportedProgram p = addProgram();
  p.graph().find("add")->args.pop_back();
  auto w = writeProgramJson(p);
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().where, "%add");
  EXPECT_EQ(w.error().message, "missing argument 'other' of aten::add.Tensor");
}

}  // namespace
}  // namespace epsmith::testing
