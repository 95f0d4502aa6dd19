// Encoders from IR values to torch.export JSON pieces (and the epsmith extensions), used by
// ir/json_write.cpp. Each fails (json_detail::fail) with `where` for a value no file can hold.
#pragma once

#include <string>
#include <string_view>

#include "ir/json_detail.h"
#include "ir/meta.h"
#include "ir/signature.h"

namespace epsmith::json_detail {

// {"tag": value}: a union member.
OJson oneKey(std::string_view tag, OJson value);
OJson nameObject(const std::string& name);  // TensorArgument / TokenArgument: {"name": ...}
// Compact JSON for a string-valued metadata entry.
std::string dumpEmbedded(const OJson& j, const std::string& where);

OJson dtypeJson(ScalarType t, const std::string& where);
OJson layoutJson(Layout l, const std::string& where);
OJson memoryFormatJson(MemoryFormat m, const std::string& where);
OJson deviceJson(const Device& d);
OJson symExprJson(const SymExpr& e);
OJson symIntJson(const SymIntValue& v);
OJson tensorMetaJson(const TensorMeta& m, const std::string& where);
// The "epsmith.val" union.
OJson valJson(const Val& v, const std::string& where);
OJson constantValueJson(const ConstantValue& v);

OJson specArgJson(const SpecArg& a);
OJson inputSpecJson(const InputSpec& s);
OJson outputSpecJson(const OutputSpec& s);

bool sameNonValMeta(const NodeMeta& a, const NodeMeta& b);
// Node metadata as torch's {str: str} plus extensions; "epsmith.val" unless `val_written`.
OJson metaJson(const NodeMeta& m, bool val_written, const std::string& where);

}  // namespace epsmith::json_detail
