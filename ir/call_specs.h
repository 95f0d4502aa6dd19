// The pytree specs of a module call whose arguments and results are flat tuples of tensors,
// as torch.export writes them into a module call graph entry (torch/utils/_pytree.py's
// JSON form, protocol 1): what generated programs use, and what a program keeps when the
// minimizer changes how many user inputs or outputs it has.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

namespace epsmith {

class ExportedProgram;

// ((leaf, ...), {}) with `leaves` positional leaves and no keyword arguments.
std::string flatInSpec(size_t leaves);
// (leaf, ...) with `leaves` leaves.
std::string flatOutSpec(size_t leaves);

// How many user inputs and user outputs `p`'s signature lists.
std::pair<size_t, size_t> userInputOutputCounts(const ExportedProgram& p);

// Sets the root entry's ("") specs to flat tuples of `p`'s user inputs and user outputs,
// where it has a root entry with a signature; ep.module() flattens its arguments and
// unflattens its results by them, so they must count what the signature lists.
void flattenRootCallSpecs(ExportedProgram& p);

}  // namespace epsmith
