// The arguments of a call as its op's schema numbers them, whether the call gives them by
// position or by keyword.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/graph.h"
#include "ir/op_info.h"

namespace epsmith {

// The i-th schema argument of `n` (positional, else by keyword), or nullptr when defaulted.
const Argument* schemaArgument(const Node& n, const OpInfo& op, size_t i);
// Its value when it is a literal int (`fallback` when defaulted or None), or int list.
std::optional<int64_t> intArgument(const Node& n, const OpInfo& op, size_t i, std::optional<int64_t> fallback);
std::optional<std::vector<int64_t>> intListArgument(const Node& n, const OpInfo& op, size_t i);

}  // namespace epsmith
