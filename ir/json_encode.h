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
JsonOut oneKey(std::string_view tag, JsonOut value);
JsonOut nameObject(const std::string& name);  // TensorArgument / TokenArgument: {"name": ...}
// Compact JSON for a string-valued metadata entry.
std::string dumpEmbedded(const JsonOut& j);

JsonOut dtypeJson(ScalarType t, const std::string& where);
JsonOut layoutJson(Layout l, const std::string& where);
JsonOut memoryFormatJson(MemoryFormat m, const std::string& where);
JsonOut deviceJson(const Device& d);
JsonOut symExprJson(const SymExpr& e);
JsonOut symIntJson(const SymIntValue& v);
JsonOut tensorMetaJson(const TensorMeta& m, const std::string& where);
// The "epsmith.val" union.
JsonOut valJson(const Val& v, const std::string& where);
JsonOut constantValueJson(const ConstantValue& v);

JsonOut specArgJson(const SpecArg& a);
JsonOut inputSpecJson(const InputSpec& s);
JsonOut outputSpecJson(const OutputSpec& s);

bool sameNonValMeta(const NodeMeta& a, const NodeMeta& b);
// Node metadata as torch's {str: str} plus extensions; "epsmith.val" unless `val_written`.
JsonOut metaJson(const NodeMeta& m, bool val_written, const std::string& where);

}  // namespace epsmith::json_detail
