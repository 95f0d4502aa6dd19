// Generation config files; see generation_config.h.
#include "generators/generation_config.h"

#include <charconv>
#include <sstream>
#include <type_traits>

namespace epsmith {

namespace {

std::optional<ScalarType> dtypeFromTorchName(std::string_view name) {
  static const std::pair<std::string_view, ScalarType> kNames[] = {
      {"float32", ScalarType::Float},     {"float64", ScalarType::Double}, {"float16", ScalarType::Half},
      {"bfloat16", ScalarType::BFloat16}, {"int64", ScalarType::Long},     {"int32", ScalarType::Int},
      {"int16", ScalarType::Short},       {"int8", ScalarType::Char},      {"uint8", ScalarType::Byte},
      {"bool", ScalarType::Bool},
  };
  for (const auto& [n, d] : kNames) {
    if (n == name) return d;
  }
  return std::nullopt;
}

std::vector<std::string> words(const std::string& value) {
  std::istringstream in(value);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// A non-negative integer no larger than `max`, or an error message.
std::optional<std::string> number(const std::string& text, int64_t max, int64_t* out) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || stop != end || v < 0 || v > max) {
    return "'" + text + "' is not a whole number in [0, " + std::to_string(max) + "]";
  }
  *out = v;
  return std::nullopt;
}

// `inputs MIN MAX`; why not, for a bad value.
std::optional<std::string> applyInputs(GeneratorConfig& g, const std::vector<std::string>& v) {
  int64_t lo = 0, hi = 0;
  if (v.size() != 2) return "takes MIN MAX";
  if (auto e = number(v[0], 64, &lo)) return e;
  if (auto e = number(v[1], 64, &hi)) return e;
  if (hi < lo) return "MAX is below MIN";
  g.min_inputs = static_cast<int>(lo), g.max_inputs = static_cast<int>(hi);
  return std::nullopt;
}

// `dtypes NAME...`; why not, for a bad value.
std::optional<std::string> applyDtypes(GeneratorConfig& g, const std::vector<std::string>& v) {
  g.dtypes.clear();
  for (const auto& w : v) {
    auto d = dtypeFromTorchName(w);
    if (!d)
      return "unknown dtype '" + w + "' (float32, float64, float16, bfloat16, int64, int32, int16, int8, uint8, bool)";
    g.dtypes.push_back(*d);
  }
  return std::nullopt;
}

// `weight CATEGORY N` or `state-weight KIND N`; why not, for a bad value.
std::optional<std::string> applyWeight(GeneratorConfig& g, const std::string& directive,
                                       const std::vector<std::string>& v) {
  if (v.size() != 2) return "takes NAME WEIGHT";
  int64_t w = 0;
  if (auto e = number(v[1], 1000000, &w)) return e;
  const auto weight = static_cast<uint32_t>(w);
  static const std::pair<std::string_view, uint32_t GeneratorConfig::*> kWeights[] = {
      {"functional", &GeneratorConfig::weight_functional},
      {"in-place", &GeneratorConfig::weight_in_place},
      {"view", &GeneratorConfig::weight_view},
      {"out", &GeneratorConfig::weight_out},
      {"metadata-mutation", &GeneratorConfig::weight_metadata},
      {"factory", &GeneratorConfig::weight_factory},
      {"refused", &GeneratorConfig::weight_refused},
  };
  static const std::string_view kStateNames[kNumStateKinds] = {"parameter", "buffer", "non-persistent-buffer",
                                                               "constant"};
  if (directive == "weight") {
    for (const auto& [name, field] : kWeights) {
      if (name == v[0]) return g.*field = weight, std::nullopt;
    }
    return "unknown category '" + v[0] + "' (functional, in-place, view, out, metadata-mutation, factory, refused)";
  }
  for (int k = 0; k < kNumStateKinds; ++k) {
    if (kStateNames[k] == v[0]) return g.state_weights[k] = weight, std::nullopt;
  }
  return "unknown state kind '" + v[0] + "' (parameter, buffer, non-persistent-buffer, constant)";
}

// `source NAME N` (generators/node_sources.def); why not, for a bad value.
std::optional<std::string> applySourceWeight(GeneratorConfig& g, const std::vector<std::string>& v) {
  if (v.size() != 2) return "takes NAME WEIGHT";
  int64_t w = 0;
  if (auto e = number(v[1], 1000000, &w)) return e;
  std::string names;
  for (size_t i = 0; i < kNodeSourceCount; ++i) {
    const NodeSourceInfo& info = nodeSourceInfo(static_cast<NodeSource>(i));
    if (info.name == v[0]) return g.source_weights[i] = static_cast<uint32_t>(w), std::nullopt;
    names += (names.empty() ? "" : ", ") + std::string(info.name);
  }
  return "unknown node source '" + v[0] + "' (" + names + ")";
}

}  // namespace

// Note [Generation config directives]: one directive a line, `#` comments —
//   nodes N | inputs MIN MAX | state MAX | max-rank N | max-dim N | dtypes NAME... |
//   noncontiguous PERCENT | weight CATEGORY N (functional, in-place, view, out,
//   metadata-mutation, factory, refused) | state-weight KIND N (parameter, buffer,
//   non-persistent-buffer, constant) | mutable-state PERCENT | effects PERCENT |
//   no-grad PERCENT | submodule PERCENT | nested-cond PERCENT | module-tree PERCENT |
//   symbolic-size PERCENT | refused PERCENT | dialect TRAINING|ATEN |
//   source NAME N (aten-call, view-chain: generators/node_sources.def)
// and the catalog's allow / deny / enable / disable.
Expected<GenerationConfig> parseGenerationConfig(std::string_view text, const std::string& where) {
  GenerationConfig config;
  GeneratorConfig& g = config.generator;
  auto error = forEachDirective(
      text, where,
      [&](const std::string& here, const std::string& directive,
          const std::string& value) -> std::optional<Diagnostic> {
        auto catalog = applyCatalogDirective(config.catalog, directive, value);
        if (!catalog) return Diagnostic{here, catalog.error().message};
        if (catalog.value()) return std::nullopt;
        const std::vector<std::string> v = words(value);
        auto bad = [&](const std::string& why) { return Diagnostic{here, "'" + directive + "': " + why}; };
        auto one = [&](int64_t max, auto* field) -> std::optional<Diagnostic> {
          if (v.size() != 1) return bad("takes one value");
          int64_t n = 0;
          if (auto e = number(v[0], max, &n)) return bad(*e);
          *field = static_cast<std::remove_pointer_t<decltype(field)>>(n);
          return std::nullopt;
        };
        if (directive == "nodes") return one(100000, &g.nodes);
        if (directive == "state") return one(64, &g.max_state);
        if (directive == "max-rank") return one(8, &g.max_rank);
        if (directive == "max-dim") return one(64, &g.max_dim);
        if (directive == "noncontiguous") return one(100, &g.noncontiguous_percent);
        if (directive == "mutable-state") return one(100, &g.mutable_state_percent);
        if (directive == "effects") return one(100, &g.effects_percent);
        if (directive == "tokens") {
          return bad("torch.export makes effect tokens only around an op with effects: 'effects PERCENT'");
        }
        if (directive == "no-grad") return one(100, &g.no_grad_percent);
        if (directive == "submodule") return one(100, &g.submodule_percent);
        if (directive == "nested-cond") return one(100, &g.nested_cond_percent);
        if (directive == "module-tree") return one(100, &g.module_tree_percent);
        if (directive == "symbolic-size") return one(100, &g.symbolic_size_percent);
        if (directive == "refused") return one(100, &g.refused_percent);
        auto orBad = [&](std::optional<std::string> why) -> std::optional<Diagnostic> {
          if (why) return bad(*why);
          return std::nullopt;
        };
        if (directive == "inputs") return orBad(applyInputs(g, v));
        if (directive == "dtypes") return orBad(applyDtypes(g, v));
        if (directive == "weight" || directive == "state-weight") return orBad(applyWeight(g, directive, v));
        if (directive == "source") return orBad(applySourceWeight(g, v));
        if (directive == "dialect") {
          if (value == "TRAINING") return g.dialect = IrDialect::Training, std::nullopt;
          if (value == "ATEN") return g.dialect = IrDialect::Aten, std::nullopt;
          return bad("unknown dialect '" + value + "' (TRAINING, ATEN)");
        }
        return Diagnostic{here, "unknown directive '" + directive + "' (see docs/generators.md)"};
      });
  if (error) return *error;
  if (g.dtypes.empty()) return Diagnostic{where, "'dtypes' leaves no dtype to generate"};
  bool any_source = false;
  for (uint32_t w : g.source_weights) any_source = any_source || w > 0;
  if (!any_source) return Diagnostic{where, "'source' leaves no node source to generate with"};
  return config;
}

Expected<GenerationConfig> loadGenerationConfig(const std::string& path) {
  auto text = readConfigFile(path);
  if (!text.ok()) return text.error();
  return parseGenerationConfig(text.value(), path);
}

}  // namespace epsmith
