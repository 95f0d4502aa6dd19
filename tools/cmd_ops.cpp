// `epsmith ops [--filter REGEX] [--config FILE] [--json]`: the op catalog — how many schemas
// fall in each category, how many the generators can use and have enabled, why the others
// cannot be generated; with --filter, one line per matching op.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <regex>

#include <nlohmann/json.hpp>

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
                << (e->enabled ? "enabled" : e->generatable() ? "disabled" : "not generatable: " + e->reason) << "\n";
    }
    std::cout << "\n";
  }
  std::cout << all.total << " schemas" << (filtered ? " matched" : "") << ", " << all.generatable
            << " generatable, " << all.enabled << " enabled\n\n";
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
  nlohmann::ordered_json out;
  nlohmann::ordered_json categories = nlohmann::ordered_json::object();
  nlohmann::ordered_json reasons = nlohmann::ordered_json::object();
  nlohmann::ordered_json ops = nlohmann::ordered_json::array();
  int generatable = 0, enabled = 0;
  for (const CatalogEntry* e : matched) {
    auto& c = categories[std::string(opCategoryName(e->category))];
    if (c.is_null()) c = {{"total", 0}, {"generatable", 0}, {"enabled", 0}};
    c["total"] = c["total"].get<int>() + 1;
    if (e->generatable()) c["generatable"] = c["generatable"].get<int>() + 1;
    if (e->enabled) c["enabled"] = c["enabled"].get<int>() + 1;
    generatable += e->generatable() ? 1 : 0;
    enabled += e->enabled ? 1 : 0;
    if (!e->generatable()) reasons[e->reason_kind] = reasons.value(e->reason_kind, 0) + 1;
    ops.push_back({{"name", e->op->name()},
                   {"category", std::string(opCategoryName(e->category))},
                   {"enabled", e->enabled},
                   {"reason", e->reason}});
  }
  out["total"] = matched.size();
  out["generatable"] = generatable;
  out["enabled"] = enabled;
  out["categories"] = categories;
  out["reasons"] = reasons;
  out["ops"] = ops;
  std::cout << out.dump(2) << "\n";
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
