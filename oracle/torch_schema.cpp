// LibTorch's generated serialization types asked about epsmith's JSON; see torch_schema.h.
//
// Note [Schema conformance in C++]
// C++ consumers of exported programs (NativeRT; anything built on LibTorch 2.x) read the
// serialized ExportedProgram through torch::_export's generated types, whose from_json
// fills every absent field with its default and drops every field it does not know: a
// field epsmith misnames or misplaces would be lost silently there, not refused. So the
// JSON is read into the types and written back by them, and the two trees must agree: a
// key only epsmith writes is one the schema does not have; a key only they write, with a
// value other than null (an absent optional), is one epsmith omits; a value that does not
// come back is one they read differently. Their F64 writer turns -inf into "Infinity"
// (std::isinf is true for both signs; 2.13's header), so "-Infinity" read back as
// "Infinity" is theirs, not a disagreement. The types are header-only (nlohmann::json) and
// shipped by LibTorch; where a build lacks them the check says it is unavailable.
#include "oracle/torch_schema.h"

#if EPSMITH_HAVE_TORCH_SCHEMA_TYPES
#include <nlohmann/json.hpp>
#include <torch/csrc/utils/generated_serialization_types.h>
#endif

namespace epsmith {

#if EPSMITH_HAVE_TORCH_SCHEMA_TYPES
namespace {

using Json = nlohmann::json;

std::string shown(const Json& j) {
  std::string s = j.dump();
  return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

std::optional<std::string> firstDifference(const Json& ours, const Json& theirs, const std::string& path);

std::optional<std::string> objectDifference(const Json& ours, const Json& theirs, const std::string& path) {
  for (const auto& [key, value] : ours.items()) {
    if (!theirs.contains(key)) return path + "." + key + ": a field LibTorch's schema types do not have";
  }
  for (const auto& [key, value] : theirs.items()) {
    if (ours.contains(key)) {
      if (auto d = firstDifference(ours[key], value, path + "." + key)) return d;
    } else if (!value.is_null()) {
      return path + "." + key + ": a field the schema has that epsmith omits (LibTorch's types write " + shown(value) +
             ")";
    }
  }
  return std::nullopt;
}

std::optional<std::string> firstDifference(const Json& ours, const Json& theirs, const std::string& path) {
  if (ours.is_object() && theirs.is_object()) return objectDifference(ours, theirs, path);
  if (ours.is_array() && theirs.is_array()) {
    if (ours.size() != theirs.size()) {
      return path + ": " + std::to_string(ours.size()) + " elements written, " + std::to_string(theirs.size()) +
             " read back";
    }
    for (size_t i = 0; i < ours.size(); ++i) {
      if (auto d = firstDifference(ours[i], theirs[i], path + "[" + std::to_string(i) + "]")) return d;
    }
    return std::nullopt;
  }
  if (ours == "-Infinity" && theirs == "Infinity") return std::nullopt;  // Note [Schema conformance in C++]
  if (ours == theirs) return std::nullopt;
  return path + ": epsmith writes " + shown(ours) + ", LibTorch's types read back " + shown(theirs);
}

}  // namespace

bool torchSchemaTypesAvailable() { return true; }

std::optional<std::string> torchSchemaDisagreement(std::string_view exported_program_json) {
  // nlohmann reports what it cannot parse or convert by throwing; this is its boundary.
  Json ours, theirs;
  try {
    ours = Json::parse(exported_program_json);
  } catch (const std::exception& e) {
    return std::string("not JSON nlohmann::json reads: ") + e.what();
  }
  try {
    theirs = ours.get<torch::_export::ExportedProgram>();
  } catch (const std::exception& e) {
    return std::string("LibTorch's schema types refuse it: ") + e.what();
  }
  return firstDifference(ours, theirs, "$");
}

#else

bool torchSchemaTypesAvailable() { return false; }

std::optional<std::string> torchSchemaDisagreement(std::string_view) { return std::nullopt; }

#endif

}  // namespace epsmith
