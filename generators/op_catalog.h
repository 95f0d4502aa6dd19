// The op catalog: every ATen overload in the dispatcher, classified from its schema for the
// generators — its category, whether every argument is of a kind we can generate (and why
// not when one is not), and whether the configuration enables it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diagnostic.h"
#include "ops/op_registry.h"

namespace epsmith {

enum class OpCategory : uint8_t {
  Functional,         // fresh results from tensor inputs
  InPlace,            // writes self (add_)
  Out,                // writes out= arguments (add.out)
  View,               // returns an alias of an input (view, slice, split; reshape sometimes)
  MetadataMutation,   // changes a tensor's sizes/strides/storage (transpose_, resize_, set_)
  Random,             // draws from a generator (tag nondeterministic_seeded)
  Factory,            // makes tensors from no tensor input (zeros, arange)
  Nondeterministic,   // results may differ run to run (tag nondeterministic_bitwise)
  BackwardOrPrivate,  // *_backward, _private ops: not what models call
  OtherMutation,      // writes we cannot functionalize (_foreach_*_, fused optimizers)
};
constexpr int kNumOpCategories = static_cast<int>(OpCategory::OtherMutation) + 1;
std::string_view opCategoryName(OpCategory c);  // "in-place", "backward-or-private", ...
bool opCategoryFromName(std::string_view name, OpCategory* out);

struct CatalogEntry {
  const OpInfo* op = nullptr;
  OpCategory category = OpCategory::Functional;
  std::string reason;       // why it cannot be generated; empty when it can
  std::string reason_kind;  // the reason without names, for counting ("a required Dimname argument")
  bool enabled = false;     // generatable, its category on, and through the filters
  // Its only reason is that epsmith's functionalizer refuses it: it can still be generated
  // for the checks that test PyTorch (Note [Ops the functionalizer refuses]).
  bool refused_by_functionalizer = false;
  bool generatable() const { return reason.empty(); }
};

// Which ops a generator may use. Defaults: every category but random, nondeterministic and
// backward/private ops (whose results cannot be compared, or that models never call).
struct CatalogConfig {
  std::vector<std::string> allow;  // ECMAScript regexes over "aten::add.Tensor"; none: all
  std::vector<std::string> deny;
  bool categories[kNumOpCategories];
  CatalogConfig();
};

// A config file: one directive a line — `allow REGEX`, `deny REGEX`, `enable CATEGORY`,
// `disable CATEGORY` — blank lines and `#` comments. Errors name `file:line`.
Expected<CatalogConfig> parseCatalogConfig(std::string_view text, const std::string& where);
Expected<CatalogConfig> loadCatalogConfig(const std::string& path);

// The pieces config files are read with (the generation config extends the catalog's).
// Applies a catalog directive: whether `directive` is one; fails (with no place: the
// caller knows the line) for a bad value.
Expected<bool> applyCatalogDirective(CatalogConfig& config, const std::string& directive, const std::string& value);
// Calls `apply(file:line, directive, value)` per non-blank line; the first error stops it.
std::optional<Diagnostic> forEachDirective(
    std::string_view text, const std::string& where,
    const std::function<std::optional<Diagnostic>(const std::string& here, const std::string& directive,
                                                  const std::string& value)>& apply);
Expected<std::string> readConfigFile(const std::string& path);

class OpCatalog {
 public:
  // Classifies every registered overload; a bad regex is an error naming it.
  static Expected<OpCatalog> build(const CatalogConfig& config = {});
  const std::vector<CatalogEntry>& entries() const { return entries_; }
  std::vector<const CatalogEntry*> enabled() const;
  // The enabled ops of one category, in registry order (kept from build(): generators ask
  // per program).
  const std::vector<const OpInfo*>& enabledOps(OpCategory c) const { return by_category_[static_cast<int>(c)]; }
  // The ops through the filters that only epsmith's functionalizer refuses, and of the
  // categories a model calls (Note [Ops the functionalizer refuses]), with their categories.
  struct Refused {
    const OpInfo* op;
    OpCategory category;
  };
  const std::vector<Refused>& refusedOps() const { return refused_; }
  const CatalogEntry* find(std::string_view name) const;  // "aten::add.Tensor"

 private:
  std::vector<CatalogEntry> entries_;
  std::vector<const OpInfo*> by_category_[kNumOpCategories];
  std::vector<Refused> refused_;
};

// build() for a generator: also an error, at `config_name`, where the config leaves no op to
// call, which would otherwise make programs of inputs alone and a campaign that tests nothing.
Expected<OpCatalog> buildGenerationCatalog(const CatalogConfig& config, const std::string& config_name);

}  // namespace epsmith
