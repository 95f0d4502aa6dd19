// The one JSON form of a finding's fields (CheckOutcome), kept by every record that holds a
// finding: a worker's reply, a minimized finding, a case file's expected verdict and a
// campaign summary's bucket. Signatures are computed from these fields (failureSignature),
// never parsed back out of one.
#pragma once

#include "formats/json.h"
#include "formats/json_out.h"
#include "fuzz/checks.h"

namespace epsmith {

// kind, where, report, op, variant, message and, where it has one, slice, as members of
// the object being written; every one written, empty or not, so a reader never guesses.
void writeFindingFields(JsonWriter& w, const CheckOutcome& o);
// The same members back into `o` (its check and status are the caller's); a missing one
// fails at its JSON path.
void readFindingFields(const JsonAt& j, CheckOutcome& o);

}  // namespace epsmith
