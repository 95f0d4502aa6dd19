// The arguments of a call as its op's schema numbers them, whether the call gives them by
// position or by keyword.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/op_info.h"

namespace epsmith {

// The i-th schema argument of `n` (positional, else by keyword), or nullptr when defaulted.
const Argument* schemaArgument(const Node& n, const OpInfo& op, size_t i);
// Its value when it is a literal int (`fallback` when defaulted or None), or int list.
std::optional<int64_t> intArgument(const Node& n, const OpInfo& op, size_t i, std::optional<int64_t> fallback);
std::optional<std::vector<int64_t>> intListArgument(const Node& n, const OpInfo& op, size_t i);

// The arguments of `n` (of `op`) but those at `dropped` (schema indices): what the
// functional form of an in-place or out= call takes.
void keptArguments(const Node& n, const OpInfo& op, const std::vector<int>& dropped, std::vector<Argument>& args,
                   std::vector<std::pair<std::string, Argument>>& kwargs);
// A call of `fn` in `scratch` with those arguments, still naming `n`'s inputs: for probing a
// functional form (its inputs' metadata is eager's) before it joins the graph.
Node* scratchFunctionalCall(Graph& scratch, const Node& n, const OpInfo& fn, const std::vector<int>& dropped);

}  // namespace epsmith
