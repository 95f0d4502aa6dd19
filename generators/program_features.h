// What a generated program is made of beyond its ATen calls: the features of the programs
// users export that the generator draws (Note [Program features]).
#pragma once

#include <array>
#include <string_view>

#include "ir/program.h"

namespace epsmith {

// Note [Program features]
// A program has a feature where some graph of it, its subgraphs included, holds it:
//   "grad-region": a wrap_with_set_grad_enabled call, as export writes `with torch.no_grad()`;
//   "no-grad-calls": a bare _set_grad_enabled call (the form older exports wrote);
//   "autocast-region": a wrap_with_autocast call, as export writes `with torch.autocast()`;
//   "cond": a cond call; "nested-cond": a cond inside a subgraph;
//   "while-loop": a while_loop call; "map": a map_impl call; "scan": a scan call;
//   "symbolic-size": an input with a symbolic size;
//   "size-read": a node whose value is a SymInt, a size read as a value (sym_size and
//   arithmetic on it: Note [Sizes read as values]);
//   "module-tree": a module call graph entry other than the root's;
//   "effect": a call of an op with effects (_print), which export threads tokens through.
// `epsmith generate --stats` counts the programs with each, and a campaign's report counts
// its root causes by the features of their minimized programs. The minimizer takes out a
// region, a branch, a loop, a bare grad-mode call or a print where the finding survives,
// so those a minimized program keeps are ones its finding needs; it keeps a module tree
// whole and rebuilds metadata at the example's sizes, so "module-tree" counts what the
// programs were, and "symbolic-size" only findings whose minimization kept the symbol.
inline constexpr std::array<std::string_view, 12> kProgramFeatures = {
    "grad-region", "no-grad-calls", "autocast-region", "cond",      "nested-cond", "while-loop",
    "map",         "scan",          "symbolic-size",   "size-read", "module-tree", "effect"};

// Whether `p` has each of kProgramFeatures, in that order.
std::array<bool, kProgramFeatures.size()> programFeatures(const ExportedProgram& p);

}  // namespace epsmith
