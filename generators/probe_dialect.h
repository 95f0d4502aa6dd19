// The dialect the dialect-op and dialect-graph corruptions (corruptions.h) switch a program
// to: ATEN's rules, plus it refuses aten::alias_copy and graphs that return one value twice,
// so the verifier's checks of a dialect's own op set and own graph rules can be exercised.
#pragma once

#include <string_view>

#include "ir/program.h"

namespace epsmith {

std::string_view probeDialectName();
// Registers the dialect (on first use) and makes it `p`'s only verifier.
void useProbeDialect(ExportedProgram& p);
// Whether the dialect refuses `target`'s op (aten::alias_copy, which the generators can
// emit too).
bool probeRefuses(const Target& target);

}  // namespace epsmith
