// The .pt2 archive: generated programs survive a write and a read unchanged (their JSON
// form byte for byte), and every kind of bad archive gets a located error. Archives torch
// itself writes and reads are tested against torch in tests/oracle/pt2_torch_test.py.
#include <gtest/gtest.h>

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <map>
#include <sstream>

#include "formats/json_format.h"
#include "generators/graph_generator.h"
#include "generators/op_catalog.h"
#include "generators/random_source.h"
#include "ir/call_specs.h"
#include "ir/program_diff.h"
#include "oracle/program_io.h"
#include "oracle/pt2_archive.h"

namespace epsmith {
namespace {

const OpCatalog& catalog() {
  static const OpCatalog c = OpCatalog::build().value();
  return c;
}

ExportedProgram generated(uint64_t seed) {
  GeneratorConfig config;
  config.nodes = 12;
  SeededSource random(seed);
  return std::move(generateProgram(catalog(), config, random).value());
}

TEST(Pt2, GeneratedProgramsRoundTripExactly) {
  int written = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    ExportedProgram p = generated(seed);
    auto archive = writeProgramPt2(p);
    if (!archive.ok()) {
      // Only what a .pt2 cannot hold may be refused (docs/pt2-format.md).
      EXPECT_TRUE(pt2CannotHold(p).has_value()) << "seed " << seed << ": " << archive.error().str();
      continue;
    }
    ++written;
    auto back = readProgramPt2(archive.value());
    ASSERT_TRUE(back.ok()) << "seed " << seed << ": " << back.error().str();
    EXPECT_EQ(programDiff(p, back.value()), "") << "seed " << seed;
    EXPECT_EQ(writeProgramJson(back.value()).value(), writeProgramJson(p).value()) << "seed " << seed;
  }
  EXPECT_GE(written, 36);
}

// The members of a valid archive, to take apart and put back together wrongly.
std::map<std::string, std::string> members(const std::string& archive) {
  std::istringstream in(archive);
  caffe2::serialize::PyTorchStreamReader zip(&in);
  std::map<std::string, std::string> out;
  for (const auto& name : zip.getAllRecords()) {
    auto [data, size] = zip.getRecord(name);
    out[name] = std::string(static_cast<const char*>(data.get()), size);
  }
  return out;
}

std::string archiveOf(const std::map<std::string, std::string>& records) {
  std::string out;
  caffe2::serialize::PyTorchStreamWriter zip([&](const void* data, size_t size) {
    out.append(static_cast<const char*>(data), size);
    return size;
  });
  for (const auto& [name, bytes] : records) {
    if (name.rfind(".data/", 0) != 0) zip.writeRecord(name, bytes.data(), bytes.size());
  }
  zip.writeEndOfFile();
  return out;
}

// A program with a parameter, so the archive has a weight record.
std::map<std::string, std::string> validMembers() {
  for (uint64_t seed = 1;; ++seed) {
    ExportedProgram p = generated(seed);
    if (p.state_dict.empty()) continue;
    auto archive = writeProgramPt2(p);
    if (archive.ok()) return members(archive.value());
  }
}

Diagnostic readError(const std::string& bytes) {
  auto p = readProgramPt2(bytes);
  EXPECT_FALSE(p.ok());
  return p.ok() ? Diagnostic{} : p.error();
}

TEST(Pt2, BadArchivesGetLocatedErrors) {
  const auto valid = validMembers();
  ASSERT_TRUE(readProgramPt2(archiveOf(valid)).ok());

  EXPECT_NE(readError("hello").message.find("not a readable .pt2 archive"), std::string::npos);
  const std::string whole = archiveOf(valid);
  EXPECT_NE(readError(whole.substr(0, whole.size() / 2)).message.find("not a readable .pt2 archive"),
            std::string::npos);

  auto without = valid;
  without.erase("models/model.json");
  EXPECT_NE(readError(archiveOf(without)).message.find("no exported program"), std::string::npos);

  without = valid;
  without.erase("data/weights/model_weights_config.json");
  EXPECT_EQ(readError(archiveOf(without)).where, "data/weights/model_weights_config.json");

  auto wrong = valid;
  wrong["archive_format"] = "pt3";
  EXPECT_EQ(readError(archiveOf(wrong)).where, "archive_format");

  wrong = valid;
  wrong["archive_version"] = "7";
  EXPECT_EQ(readError(archiveOf(wrong)).where, "archive_version");

  // A weight one byte short: not a whole number of elements.
  wrong = valid;
  std::string& weight = wrong.at("data/weights/weight_0");
  ASSERT_FALSE(weight.empty());
  weight.pop_back();
  EXPECT_EQ(readError(archiveOf(wrong)).where, "data/weights/weight_0");

  // A weight one element short of what its tensor meta needs.
  wrong = valid;
  std::string& config = wrong.at("data/weights/model_weights_config.json");
  const size_t sizes = config.find("\"sizes\": [");
  const size_t compact = config.find("\"sizes\":[");
  ASSERT_TRUE(sizes != std::string::npos || compact != std::string::npos);
  const size_t at = sizes != std::string::npos ? sizes + 10 : compact + 9;
  config.insert(at, "{\"as_int\": 1000}, ");
  const Diagnostic e = readError(archiveOf(wrong));
  EXPECT_EQ(e.where, "data/weights/weight_0") << e.str();
  EXPECT_NE(e.message.find("too few bytes"), std::string::npos) << e.str();

  // A malformed model: the error names the member and the JSON path.
  wrong = valid;
  wrong["models/model.json"] = "{\"graph_module\": 3}";
  EXPECT_EQ(readError(archiveOf(wrong)).where.rfind("models/model.json: $", 0), 0u);
}

TEST(Pt2, LoadProgramKnowsTheFormatByExtensionAndByContents) {
  EXPECT_EQ(formatFromPath("a/b.pt2"), FileFormat::Pt2);
  auto archive = writeProgramPt2(generated(3));
  ASSERT_TRUE(archive.ok());
  auto p = parseProgram(archive.value(), FileFormat::Pt2, "x.pt2");
  ASSERT_TRUE(p.ok()) << p.error().str();
  auto bad = parseProgram("nonsense", FileFormat::Pt2, "x.pt2");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().where.rfind("x.pt2", 0), 0u);
}

// Note [Example inputs laid out by the call spec]: the root entry's in_spec puts the last
// user input in a keyword argument, and torch.save's (args, kwargs) says so; a spec that
// cannot be read leaves every input positional. Either way the archive reads back into the
// same flat inputs.
TEST(Pt2, ExampleInputsAreLaidOutByTheRootCallSpec) {
  ExportedProgram p = generated(1);
  for (uint64_t seed = 2; userInputOutputCounts(p).first < 2; ++seed) p = generated(seed);
  const size_t inputs = userInputOutputCounts(p).first;
  ASSERT_EQ(p.example_inputs.size(), inputs);
  const std::string leaf = R"({"type": null, "context": null, "children_spec": []})";
  std::string args;
  for (size_t i = 0; i + 1 < inputs; ++i) args += (i ? ", " : "") + leaf;
  const std::string keyword = R"([1, {"type": "builtins.tuple", "context": "null", "children_spec": [)"
                              R"({"type": "builtins.tuple", "context": "null", "children_spec": [)" +
                              args + R"(]}, {"type": "builtins.dict", "context": "[\"scale\"]", "children_spec": [)" +
                              leaf + "]}]}]";
  auto laidOut = [&](const std::string& in_spec) {
    for (auto& entry : p.module_call_graph) {
      if (entry.fqn.empty() && entry.signature) entry.signature->in_spec = in_spec;
    }
    auto archive = writeProgramPt2(p);
    EXPECT_TRUE(archive.ok());
    auto back = readProgramPt2(archive.value());
    EXPECT_TRUE(back.ok());
    EXPECT_EQ(back.value().example_inputs.size(), inputs);
    const std::string pickled = members(archive.value()).at("data/sample_inputs/model.pt");
    return torch::jit::pickle_load(std::vector<char>(pickled.begin(), pickled.end()));
  };
  c10::IValue by_keyword = laidOut(keyword);
  ASSERT_TRUE(by_keyword.isTuple());
  EXPECT_EQ(by_keyword.toTupleRef().elements()[0].toTupleRef().elements().size(), inputs - 1);
  const auto kwargs = by_keyword.toTupleRef().elements()[1].toGenericDict();
  ASSERT_EQ(kwargs.size(), 1u);
  EXPECT_EQ(kwargs.begin()->key().toStringRef(), "scale");
  c10::IValue positional = laidOut("not a spec");
  EXPECT_EQ(positional.toTupleRef().elements()[0].toTupleRef().elements().size(), inputs);
  EXPECT_EQ(positional.toTupleRef().elements()[1].toGenericDict().size(), 0u);
}

}  // namespace
}  // namespace epsmith
