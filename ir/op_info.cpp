// OpInfo's accessors; the digest itself is built in ops/op_registry.cpp.
#include "ir/op_info.h"

namespace epsmith {

std::string_view OpInfo::localName() const {
  std::string_view q = qualified_name;
  auto sep = q.find("::");
  return sep == std::string_view::npos ? q : q.substr(sep + 2);
}

int OpInfo::argumentIndex(std::string_view arg_name) const {
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].name == arg_name) return static_cast<int>(i);
  }
  return -1;
}

int OpInfo::positionalCount() const {
  int n = 0;
  for (const auto& a : arguments) n += a.kwarg_only ? 0 : 1;
  return n;
}

std::string_view paramTypeName(ParamType t) {
  static constexpr std::string_view kNames[] = {
      "Tensor",       "Tensor[]",  "Tensor?[]", "int",       "SymInt",  "int[]",    "SymInt[]",   "float",   "float[]",
      "bool",         "bool[]",    "str",       "str[]",     "Scalar",  "Scalar[]", "ScalarType", "Layout",  "Device",
      "MemoryFormat", "Generator", "Dimname",   "Dimname[]", "Storage", "Stream",   "Quantizer",  "QScheme", "other"};
  return kNames[static_cast<int>(t)];
}

}  // namespace epsmith
