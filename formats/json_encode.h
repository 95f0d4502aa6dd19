// Encoders from IR values to torch.export JSON pieces (and the epsmith extensions), used by
// formats/json_write.cpp. Each fails (json_detail::fail) with `where` for a value no file can hold.
#pragma once

#include <string>
#include <string_view>

#include "formats/json_detail.h"
#include "ir/meta.h"
#include "ir/signature.h"

namespace epsmith::json_detail {

// {"tag": value}: a union member, its value written by `value()`.
template <typename F>
void oneKey(JsonWriter& w, std::string_view tag, F&& value) {
  w.beginObject();
  w.key(tag);
  value();
  w.endObject();
}
void nameObject(JsonWriter& w, const std::string& name);  // TensorArgument / TokenArgument: {"name": ...}

// Where an encoder fails, `where` names the place; "" leaves it to the caller (the graph
// writer places failures at their node).
void dtypeJson(JsonWriter& w, ScalarType t, const std::string& where);
void layoutJson(JsonWriter& w, Layout l, const std::string& where);
void memoryFormatJson(JsonWriter& w, MemoryFormat m, const std::string& where);
void deviceJson(JsonWriter& w, const Device& d);
void symExprJson(JsonWriter& w, const SymExpr& e);
void symIntJson(JsonWriter& w, const SymIntValue& v);
void tensorMetaJson(JsonWriter& w, const TensorMeta& m, const std::string& where);
// The "epsmith.val" union.
void valJson(JsonWriter& w, const Val& v, const std::string& where);
void constantValueJson(JsonWriter& w, const ConstantValue& v);

void specArgJson(JsonWriter& w, const SpecArg& a);
void inputSpecJson(JsonWriter& w, const InputSpec& s);
void outputSpecJson(JsonWriter& w, const OutputSpec& s);

bool sameNonValMeta(const NodeMeta& a, const NodeMeta& b);
// Node metadata as torch's {str: str} plus extensions; "epsmith.val" unless `val_written`.
// The object is left open for the caller's own extension keys.
void beginMetaJson(JsonWriter& w, const NodeMeta& m, bool val_written, const std::string& where);
// Whether beginMetaJson writes no member.
bool metaIsEmpty(const NodeMeta& m, bool val_written);

}  // namespace epsmith::json_detail
