// The module call graph of a generated program: what torch.export records of the calls
// into the module and its preserved submodules. Internal to generators/.
#pragma once

#include <cstdint>
#include <vector>

#include "generators/random_source.h"
#include "ir/program.h"

namespace epsmith {

// Adds the root entry ("": the specs of `p`'s user inputs and of `outputs`, no names) and, in `submodule_percent`
// of programs, a submodule entry "block" from one user input to one of `outputs`, as
// torch.export records a preserved submodule call. (Intermediate values as boundaries:
// the functionalizer renames only inputs and user outputs in the module call graph,
// docs/functionalizer.md.)
void addModuleCallGraph(ExportedProgram& p, const std::vector<Node*>& outputs, uint32_t submodule_percent,
                        RandomSource& random);

// Note [Module trees of generated programs]: in `module_tree_percent` of programs, moves
// each parameter and buffer of `p` into a submodule drawn from a small tree, renaming its
// target, placeholder and state entry as torch.export names a submodule's state; gives each
// call the nn_module_stack of the deepest module whose state it reads; and adds a module
// call graph entry, without a signature, for each submodule. Drawn after everything else,
// so the graph is the one made without it.
void addModuleTree(ExportedProgram& p, uint32_t module_tree_percent, RandomSource& random);

}  // namespace epsmith
