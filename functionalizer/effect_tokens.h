// Calls of ops with effects threaded on a token, as run_decompositions writes them
// (Note [Ops with effects] in ops/op_roles.cpp): a pre-pass of the functionalizer.
#pragma once

#include <optional>

#include "ir/diagnostic.h"
#include "ir/program.h"

namespace epsmith::functionalizer {

// Whether `p`'s graph calls an op with effects.
bool callsAnOpWithEffects(const ExportedProgram& p);

// Each such call of `p` becomes higher_order.with_effects(token, op, *args) and a getitem of
// the token it returns, threaded from a new token input to a new token output, each first
// in the signature. An error naming the call where export would write no such program: a
// program with tokens of its own, an op with effects that returns a value or takes keyword
// arguments.
std::optional<Diagnostic> threadEffectTokens(ExportedProgram& p);

}  // namespace epsmith::functionalizer
