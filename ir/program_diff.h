// Structural comparison of two programs: what a round trip through a file format must give
// back. Nodes are matched by position and referenced by name, storages compared by their
// bytes and by which tensors share them, floats by value and sign (NaN equals NaN).
#pragma once

#include <string>

#include "ir/program.h"

namespace epsmith {

// "" when `a` and `b` are structurally equal, else the first difference, naming its place
// ("graph '': node add: arg 1 %x vs %y", "state L__self___weight: storage contents differ").
std::string programDiff(const ExportedProgram& a, const ExportedProgram& b);

// Whether two nodes (of two programs) agree as programDiff compares nodes: name, op,
// target, attribute path, arguments (the nodes they read by name) and metadata.
bool nodesAgree(const Node& a, const Node& b);

}  // namespace epsmith
