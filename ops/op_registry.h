// ATen operator overloads resolved once through the c10 dispatcher into the digest of
// ir/op_info.h. Only op_registry.cpp includes dispatcher headers; other code sees c10 types
// as opaque.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "ir/op_info.h"

namespace epsmith {

// Finds "aten::add" overload "Tensor" ("" or "default" for the default overload). The result
// lives as long as the process; nullptr when the dispatcher has no such operator. Every
// spelling of one op gives the same OpInfo. Names are not checked here (a qualified name
// holding its overload, findOp("aten::add.Tensor", ""), finds that overload): callers that
// read names from files check them first (parseTarget, ops/targets.h).
const OpInfo* findOp(std::string_view qualified_name, std::string_view overload);
// Parses "aten::add.Tensor" / "aten::relu" and looks it up.
const OpInfo* findOpByName(std::string_view name);
// The op this exact spelling names, "aten::add.Tensor" (OpInfo::name()) or
// "torch.ops.aten.add.Tensor" (OpInfo::exportName()), among the ops already resolved; else
// nullptr, with nothing asked of the dispatcher. The readers try it first: one hash lookup
// for nearly every node, with the parsing and checking of a name left to the rest.
const OpInfo* findResolvedOp(std::string_view spelling);
// The qualified name of the op a `_copy` variant copies ("aten::values" for
// "aten::values_copy"); nullopt for any other op. A name only: the op may not exist.
std::optional<std::string_view> copiedOpName(const OpInfo& op);
// Every registered operator overload, in dispatcher order (resolved lazily, cached).
const std::vector<const OpInfo*>& allOps();

}  // namespace epsmith
