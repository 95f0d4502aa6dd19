// Checks the arguments of an ATen call against its schema digest (count, names, kinds), so
// that every loader rejects a call the dispatcher could not bind, with a message naming it.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/argument.h"
#include "ops/op_registry.h"

namespace epsmith {

// Whether an argument of this kind may be passed for this schema parameter.
bool argumentFits(ArgKind kind, const ParamInfo& param);

// nullopt when `args` (positional) and `kwargs` bind to `op`'s schema; else the reason.
std::optional<std::string> checkSchemaCall(const OpInfo& op, const std::vector<Argument>& args,
                                           const std::vector<std::pair<std::string, Argument>>& kwargs);

}  // namespace epsmith
