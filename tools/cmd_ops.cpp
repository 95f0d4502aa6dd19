// `epsmith ops [--filter REGEX] [--config FILE] [--json]`: the op catalog — how many schemas
// fall in each category, how many the generators can use and have enabled, why the others
// cannot be generated; with --filter, one line per matching op.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <regex>

#include "formats/json.h"
#include "generators/op_catalog.h"
#include "tools/command.h"

namespace epsmith::cli {
namespace {

struct Counts {
  int total = 0, generatable = 0, enabled = 0;
};

std::string row(const std::string& name, const std::string& total, const std::string& generatable,
                const std::string& enabled) {
  char line[128];
  std::snprintf(line, sizeof line, "%-22s %7s %12s %8s\n", name.c_str(), total.c_str(), generatable.c_str(),
                enabled.c_str());
  return line;
}

void printText(const std::vector<const CatalogEntry*>& matched, bool filtered) {
  std::map<OpCategory, Counts> by_category;
  std::map<std::string, int> by_reason;
  Counts all;
  for (const CatalogEntry* e : matched) {
    for (Counts* c : {&all, &by_category[e->category]}) {
      ++c->total;
      c->generatable += e->generatable() ? 1 : 0;
      c->enabled += e->enabled ? 1 : 0;
    }
    if (!e->generatable()) ++by_reason[e->reason_kind];
  }
  if (filtered) {
    for (const CatalogEntry* e : matched) {
      std::cout << e->op->name() << "  " << opCategoryName(e->category) << "  "
                << (e->enabled         ? "enabled"
                    : e->generatable() ? "disabled"
                                       : "not generatable: " + e->reason)
                << "\n";
    }
    std::cout << "\n";
  }
  std::cout << all.total << " schemas" << (filtered ? " matched" : "") << ", " << all.generatable << " generatable, "
            << all.enabled << " enabled\n\n";
  std::cout << row("category", "total", "generatable", "enabled");
  for (const auto& [category, c] : by_category) {
    std::cout << row(std::string(opCategoryName(category)), std::to_string(c.total), std::to_string(c.generatable),
                     std::to_string(c.enabled));
  }
  if (by_reason.empty()) return;
  std::cout << "\nnot generatable, by reason:\n";
  std::vector<std::pair<int, std::string>> reasons;
  for (const auto& [reason, n] : by_reason) reasons.emplace_back(-n, reason);
  std::sort(reasons.begin(), reasons.end());
  for (const auto& [n, reason] : reasons) std::cout << "  " << -n << "  " << reason << "\n";
}

void printJson(const std::vector<const CatalogEntry*>& matched) {
  std::map<std::string, Counts> categories;  // by name
  std::map<std::string, int> reasons;
  int generatable = 0, enabled = 0;
  JsonWriter ops;
  ops.beginArray();
  for (const CatalogEntry* e : matched) {
    Counts& c = categories[std::string(opCategoryName(e->category))];
    ++c.total;
    c.generatable += e->generatable() ? 1 : 0;
    c.enabled += e->enabled ? 1 : 0;
    generatable += e->generatable() ? 1 : 0;
    enabled += e->enabled ? 1 : 0;
    if (!e->generatable()) ++reasons[e->reason_kind];
    ops.beginObject();
    ops.key("name").string(e->op->name());
    ops.key("category").string(opCategoryName(e->category));
    ops.key("enabled").boolean(e->enabled);
    ops.key("reason").string(e->reason);
    ops.endObject();
  }
  ops.endArray();
  JsonWriter w;
  w.beginObject();
  w.key("total").unsignedInteger(matched.size());
  w.key("generatable").integer(generatable);
  w.key("enabled").integer(enabled);
  w.key("categories").beginObject();
  for (const auto& [name, c] : categories) {
    w.member(name, [&, &c = c](JsonWriter& v) {
      v.beginObject();
      v.key("total").integer(c.total);
      v.key("generatable").integer(c.generatable);
      v.key("enabled").integer(c.enabled);
      v.endObject();
    });
  }
  w.endObject();
  w.key("reasons").beginObject();
  for (const auto& [reason, n] : reasons) w.member(reason, [&n = n](JsonWriter& v) { v.integer(n); });
  w.endObject();
  w.key("ops").raw(ops.compact());
  w.endObject();
  std::cout << indentedJson(w.compact());
}

}  // namespace

void addOpsCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("ops", "The op catalog: categories, what the generators can use, and why not");
  struct Options {
    std::string filter;
    std::string config;
    bool json = false;
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("--filter", opts->filter, "only ops whose name (aten::add.Tensor) matches this regex; lists them");
  cmd->add_option("--config", opts->config, "catalog config file (allow/deny regexes, enable/disable categories)");
  cmd->add_flag("--json", opts->json, "machine-readable output, every op listed");
  cmd->callback([opts, &exit_code] {
    CatalogConfig config;
    if (!opts->config.empty()) {
      auto loaded = loadCatalogConfig(opts->config);
      if (!loaded.ok()) {
        std::cerr << "epsmith ops: " << loaded.error().str() << "\n";
        exit_code = kExitBadInput;
        return;
      }
      config = loaded.value();
    }
    std::regex filter;
    try {
      filter = std::regex(opts->filter, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      std::cerr << "epsmith ops: --filter: bad regex '" << opts->filter << "': " << e.what() << "\n";
      exit_code = kExitBadInput;
      return;
    }
    auto catalog = OpCatalog::build(config);
    if (!catalog.ok()) {
      std::cerr << "epsmith ops: " << catalog.error().str() << "\n";
      exit_code = kExitBadInput;
      return;
    }
    std::vector<const CatalogEntry*> matched;
    for (const auto& e : catalog->entries()) {
      if (opts->filter.empty() || std::regex_search(e.op->name(), filter)) matched.push_back(&e);
    }
    if (opts->json) {
      printJson(matched);
    } else {
      printText(matched, !opts->filter.empty());
    }
    exit_code = kExitOk;
  });
}

}  // namespace epsmith::cli
