// torch.export union tags of argument kinds.
#include "ir/argument.h"

#include <array>

namespace epsmith {

std::string_view serializedTag(ArgKind kind) {
  static constexpr std::array<std::string_view, kNumArgKinds> kTags{
      "as_none",          "as_tensor",     "as_tensors",  "as_optional_tensor", "as_optional_tensors",
      "as_int",           "as_ints",       "as_float",    "as_floats",          "as_bool",
      "as_bools",         "as_string",     "as_strings",  "as_sym_int",         "as_sym_ints",
      "as_sym_float",     "as_sym_floats", "as_sym_bool", "as_sym_bools",       "as_scalar_type",
      "as_memory_format", "as_layout",     "as_device",   "as_graph",           "as_custom_obj",
      "as_operator",      "as_complex"};
  return kTags[static_cast<int>(kind)];
}

}  // namespace epsmith
