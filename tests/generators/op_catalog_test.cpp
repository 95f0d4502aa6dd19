// The op catalog: categories read from the schemas and tags, what is generatable and why
// not, defaults, allow/deny filters and the config file's located errors.
#include <gtest/gtest.h>

#include "generators/op_catalog.h"

namespace epsmith {
namespace {

const OpCatalog& catalog() {
  static const OpCatalog c = OpCatalog::build().value();
  return c;
}

const CatalogEntry& entry(std::string_view name) {
  const CatalogEntry* e = catalog().find(name);
  EXPECT_NE(e, nullptr) << name;
  static CatalogEntry none;
  return e ? *e : none;
}

TEST(OpCatalog, CoversEveryRegisteredOverload) {
  EXPECT_EQ(catalog().entries().size(), allOps().size());
  EXPECT_GT(allOps().size(), 3000u);  // LibTorch 1.13 registers ~3 200
}

TEST(OpCatalog, CategoriesComeFromSchemasAndTags) {
  EXPECT_EQ(entry("aten::add.Tensor").category, OpCategory::Functional);
  EXPECT_EQ(entry("aten::add_.Tensor").category, OpCategory::InPlace);
  EXPECT_EQ(entry("aten::add.out").category, OpCategory::Out);
  EXPECT_EQ(entry("aten::view").category, OpCategory::View);
  EXPECT_EQ(entry("aten::split.Tensor").category, OpCategory::View);
  EXPECT_EQ(entry("aten::reshape").category, OpCategory::View);
  EXPECT_EQ(entry("aten::transpose_").category, OpCategory::MetadataMutation);
  EXPECT_EQ(entry("aten::resize_").category, OpCategory::Nondeterministic);  // uninitialized memory
  EXPECT_EQ(entry("aten::empty_like").category, OpCategory::Nondeterministic);
  EXPECT_EQ(entry("aten::squeeze_").category, OpCategory::MetadataMutation);
  EXPECT_EQ(entry("aten::bernoulli").category, OpCategory::Random);
  EXPECT_EQ(entry("aten::dropout").category, OpCategory::Random);  // tagged nondeterministic_seeded
  EXPECT_EQ(entry("aten::zeros").category, OpCategory::Factory);
  EXPECT_EQ(entry("aten::arange.start_step").category, OpCategory::Factory);
  EXPECT_EQ(entry("aten::threshold_backward").category, OpCategory::BackwardOrPrivate);
  EXPECT_EQ(entry("aten::_softmax").category, OpCategory::BackwardOrPrivate);
  EXPECT_EQ(entry("aten::_foreach_add_.Scalar").category, OpCategory::BackwardOrPrivate);
}

TEST(OpCatalog, DefaultsEnableWhatCanBeComparedAndGenerated) {
  for (const char* on : {"aten::add.Tensor", "aten::add_.Tensor", "aten::mm.out", "aten::slice.Tensor",
                         "aten::unsqueeze_", "aten::zeros", "aten::index_put_", "aten::cat"}) {
    EXPECT_TRUE(entry(on).enabled) << on << ": " << entry(on).reason;
  }
  EXPECT_TRUE(entry("aten::normal.Tensor_float").generatable());
  EXPECT_FALSE(entry("aten::normal.Tensor_float").enabled);  // random: off by default
  EXPECT_FALSE(entry("aten::threshold_backward").enabled);
}

TEST(OpCatalog, ReasonsNameWhatCannotBeGenerated) {
  EXPECT_EQ(entry("aten::linalg_norm.ord_str").reason, "a required str argument: 'ord'");
  EXPECT_EQ(entry("aten::linalg_norm.ord_str").reason_kind, "a required str argument");
  // Optional arguments of kinds we do not generate are left to the schema (None).
  EXPECT_TRUE(entry("aten::div.Tensor_mode").generatable()) << entry("aten::div.Tensor_mode").reason;
  EXPECT_EQ(entry("aten::to_sparse").reason_kind, "backend-specific");
  EXPECT_EQ(entry("aten::_foreach_add_.Scalar").reason_kind, "not functionalizable");
  EXPECT_EQ(entry("aten::set.source_Tensor").reason_kind, "not functionalizable");
  EXPECT_TRUE(entry("aten::add.Tensor").reason.empty());
  for (const auto& e : catalog().entries()) {
    if (e.enabled) {
      EXPECT_TRUE(e.generatable()) << e.op->name();
    }
    if (!e.generatable()) {
      EXPECT_FALSE(e.reason_kind.empty()) << e.op->name();
    }
  }
}

TEST(OpCatalog, FiltersAndCategoriesFromAConfig) {
  auto config = parseCatalogConfig(R"(# only additions, random ones too
allow ^aten::add
deny \.out$
enable random
)",
                                   "cfg");
  ASSERT_TRUE(config.ok()) << config.error().str();
  auto c = OpCatalog::build(config.value());
  ASSERT_TRUE(c.ok());
  int enabled = 0;
  for (const CatalogEntry* e : c->enabled()) {
    ++enabled;
    const std::string name = e->op->name();
    EXPECT_EQ(name.rfind("aten::add", 0), 0u) << name;
    EXPECT_EQ(name.find(".out"), std::string::npos) << name;
  }
  EXPECT_GT(enabled, 2);
  EXPECT_TRUE(c->find("aten::add_.Tensor")->enabled);
  EXPECT_FALSE(c->find("aten::add.out")->enabled);
  EXPECT_FALSE(c->find("aten::mul.Tensor")->enabled);
}

TEST(OpCatalog, ConfigErrorsAreLocated) {
  auto bad_regex = parseCatalogConfig("allow ok\ndeny (unclosed\n", "ops.cfg");
  ASSERT_FALSE(bad_regex.ok());
  EXPECT_EQ(bad_regex.error().where, "ops.cfg:2");
  EXPECT_NE(bad_regex.error().message.find("bad regex '(unclosed'"), std::string::npos);
  auto bad_category = parseCatalogConfig("enable randomness\n", "ops.cfg");
  ASSERT_FALSE(bad_category.ok());
  EXPECT_EQ(bad_category.error().str().rfind("ops.cfg:1: unknown category 'randomness'", 0), 0u)
      << bad_category.error().str();
  auto bad_directive = parseCatalogConfig("\n\nfrobnicate x\n", "ops.cfg");
  ASSERT_FALSE(bad_directive.ok());
  EXPECT_EQ(bad_directive.error().where, "ops.cfg:3");
  EXPECT_FALSE(loadCatalogConfig("/nonexistent/ops.cfg").ok());
}

}  // namespace
}  // namespace epsmith
