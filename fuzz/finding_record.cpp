// See finding_record.h.
#include "fuzz/finding_record.h"

namespace epsmith {

void writeFindingFields(JsonWriter& w, const CheckOutcome& o) {
  w.key("kind").string(o.kind);
  w.key("where").string(o.where);
  w.key("op").string(o.op);
  w.key("variant").string(o.variant);
  w.key("message").string(o.message);
  if (!o.slice.empty()) w.key("slice").strings(o.slice);
  w.key("report").string(o.report);
}

void readFindingFields(const JsonAt& j, CheckOutcome& o) {
  o.kind = j.field("kind").string();
  o.where = j.field("where").string();
  o.op = j.field("op").string();
  o.variant = j.field("variant").string();
  o.message = j.field("message").string();
  if (auto slice = j.optional("slice")) o.slice = slice->strings();
  o.report = j.field("report").string();
}

}  // namespace epsmith
