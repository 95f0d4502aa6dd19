// Target names as files spell them, parsed into Targets: ATen names resolved through the op
// registry, the rest by the tables of ir/target.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ir/diagnostic.h"
#include "ir/target.h"

namespace epsmith {

// Parses any spelling the IR accepts: "aten::add.Tensor", "torch.ops.aten.add.Tensor",
// "operator.add", "_operator.add", "math.ceil", "round", "builtins.round", "torch.sym_int",
// "torch.ops.higher_order.cond", "higher_order.cond", or any other dotted Python path.
// Fails for an unknown ATen op or overload, or a malformed name (a Diagnostic with no
// place: the caller knows it).
Expected<Target> parseTarget(std::string_view text);

}  // namespace epsmith
