// Grad and autocast regions as torch.export writes them (wrap_with_set_grad_enabled and
// wrap_with_autocast over a subgraph), laid out inline before the pass functionalizes a
// program that writes inside one
// (Note [Grad regions inlined before functionalization]).
#pragma once

#include <optional>
#include <string>

#include "ir/diagnostic.h"
#include "ir/program.h"

namespace epsmith::functionalizer {

// Why the pass cannot carry `body`, a higher-order op's subgraph, through whole: it writes,
// takes a view, returns an operand (the pass takes a higher-order op's results for fresh
// tensors, so one that aliases an operand would carry a later write back to it unseen), or
// calls what the pass refuses anywhere (an op that may return an undeclared alias, one whose
// schema hides a write) or reads in eager's layout (as_strided_copy, view_copy.dtype).
// nullopt where it can. The reason reads after "subgraph NAME ".
std::optional<std::string> whyNotCarriedWhole(const Graph& body);

// Whether `p` holds a grad or autocast region whose subgraph the pass cannot carry whole
// (whyNotCarriedWhole).
bool hasRegionToInline(const ExportedProgram& p);

// Lays every such region of `p` out inline: a grad region as `_set_grad_enabled(enabled)`,
// the subgraph's calls on the operands, `_set_grad_enabled` back to the mode before; an
// autocast region as inlineAutocastRegion does; the region's getitems replaced by what the
// subgraph returns. `grad_enabled`: the mode `p` is called under. A region it cannot lay
// out (a nested higher-order op, a result read other than by a getitem) is an error naming
// its node.
std::optional<Diagnostic> inlineRegions(ExportedProgram& p, bool grad_enabled);

}  // namespace epsmith::functionalizer
