// Note [Schema conformance in C++]: every program epsmith writes is read by LibTorch's own
// generated serialization types (the path C++ runtimes such as NativeRT load through) and
// comes back as written; and the comparison is shown to catch what it is for.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "formats/json_format.h"
#include "fuzz/corpus.h"
#include "generators/graph_generator.h"
#include "generators/op_catalog.h"
#include "generators/random_source.h"
#include "oracle/program_io.h"
#include "oracle/torch_schema.h"

namespace epsmith {
namespace {

namespace fs = std::filesystem;

const OpCatalog& catalog() {
  static const OpCatalog c = OpCatalog::build().value();
  return c;
}

std::string modelJson(const ExportedProgram& p) {
  auto json = exportedProgramJson(p);
  EXPECT_TRUE(json.ok()) << json.error().str();
  return json.ok() ? json.value() : "";
}

#define SKIP_WITHOUT_TYPES()                                        \
  if (!torchSchemaTypesAvailable())                                 \
  GTEST_SKIP() << "this LibTorch ships no generated serialization " \
                  "types (torch/csrc/utils/generated_serialization_types.h)"

TEST(TorchSchema, GeneratedProgramsConform) {
  SKIP_WITHOUT_TYPES();
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    SeededSource random(seed);
    auto p = generateProgram(catalog(), {}, random);
    ASSERT_TRUE(p.ok());
    auto d = torchSchemaDisagreement(modelJson(p.value()));
    EXPECT_FALSE(d) << "seed " << seed << ": " << *d;
  }
}

// The examples and every case of the checked-in corpus: programs of every feature the
// corpus has met (submodule entries, tokens, constants, special floats).
TEST(TorchSchema, ExamplesAndCorpusCasesConform) {
  SKIP_WITHOUT_TYPES();
  int read = 0;
  for (const auto& e : fs::directory_iterator(fs::path(EPSMITH_SOURCE_DIR) / "examples")) {
    auto p = loadProgram(e.path().string());
    ASSERT_TRUE(p.ok()) << p.error().str();
    ++read;
    auto d = torchSchemaDisagreement(modelJson(p.value()));
    EXPECT_FALSE(d) << e.path() << ": " << *d;
  }
  for (const auto& e : fs::recursive_directory_iterator(fs::path(EPSMITH_SOURCE_DIR) / "corpus/regressions")) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    auto c = readCaseFile(e.path().string());
    ASSERT_TRUE(c.ok()) << c.error().str();
    if (!c->program) continue;  // found on another LibTorch, whose operators this one lacks
    ++read;
    auto d = torchSchemaDisagreement(modelJson(*c->program));
    EXPECT_FALSE(d) << e.path() << ": " << *d;
  }
  std::cout << "[ schema   ] " << read << " programs read by LibTorch's types as written\n";
  EXPECT_GT(read, 100);
}

// The comparison finds a misnamed field, an omitted one, a value of the wrong type, and a
// value LibTorch reads otherwise.
TEST(TorchSchema, DisagreementsAreNamed) {
  SKIP_WITHOUT_TYPES();
  SeededSource random(7);
  const std::string json = modelJson(generateProgram(catalog(), {}, random).value());
  ASSERT_FALSE(torchSchemaDisagreement(json));
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = json;
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? s : s.replace(at, from.size(), to);
  };
  auto says = [](std::optional<std::string> d, const std::string& part) {
    EXPECT_TRUE(d && d->find(part) != std::string::npos) << (d ? *d : "no disagreement") << "\nwanted: " << part;
  };
  says(torchSchemaDisagreement(replaced("\"torch_version\"", "\"torch_versoin\"")),
       "$.torch_versoin: a field LibTorch's schema types do not have");
  // An omitted field, as ours-only keys are named first: the schema's `verifiers` list
  // renamed into one it lacks shows the rename; a JSON without the key shows the omission.
  const std::string without = replaced("\"verifiers\":[\"TRAINING\"],", "");
  says(torchSchemaDisagreement(without), "$.verifiers: a field the schema has that epsmith omits");
  says(
      torchSchemaDisagreement(replaced("\"schema_version\":{\"major\":", "\"schema_version\":{\"major\":\"8\",\"x\":")),
      "refuse");
  says(torchSchemaDisagreement("{"), "not JSON");
}

}  // namespace
}  // namespace epsmith
