// The core ops of a minimized finding, each op the failure does not need by name replaced by
// its class (Note [Ops a failure does not depend on]).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "generators/op_catalog.h"
#include "ir/program.h"

namespace epsmith {

// Note [Ops a failure does not depend on]
// A minimized program keeps the ops its failure needs, but not each of them by name: a
// write by any unary in-place op (tan_, exp_, sign_) through a moveaxis view fails LibTorch's
// C++ functionalization alike, and a root cause keyed by name would be filed once per op.
// So each ATen op of the minimized program, a grad region's, a branch's or a loop body's
// calls included, is tried at every call of it:
//   - a functional op, replaced by a clone of an input holding the value it made (the
//     minimizer's cut-to-input cannot drop an op whose result must be a tensor the program
//     made, not an input): where the failure still shows, only the value mattered, and the
//     op is left out of the key (not tried where a subgraph calls it);
//   - replaced by up to two others of its shape (the same argument and return kinds,
//     defaults and alias annotations, the same role and view family,
//     Note [View inverses]): where the failure shows with one of them, the op's name is not part of
//     the root cause, and the key names its class ("*op" for a functional, in-place or out=
//     op, "*view:permute" for a view) instead.
// An op kept by name is one the failure needs: a wrong lowering of add_.Tensor fails with
// add_ and not with sub_, so it stays `add`. Three runs per op at most; not tried where each
// run would need a child of its own (a crash, Note [Minimizing in forked steps]).
class OpShapes {
 public:
  explicit OpShapes(const OpCatalog& catalog);  // the ops the catalog can generate, by shape
  // Up to `n` ops of `op`'s shape, other than `op`'s own core name, in registry order from
  // the one after it.
  std::vector<const OpInfo*> neighbors(const OpInfo& op, size_t n) const;

 private:
  std::map<std::string, std::vector<const OpInfo*>> by_shape_;
};

// `fails(candidate, replaced, by)`: whether the candidate, `replaced` swapped for `by` at each
// of its calls, still fails as the minimized program does. `runs` counts the tries.
using FailsWith = std::function<bool(const ExportedProgram& candidate, const OpInfo& replaced, const OpInfo& by)>;
struct GeneralizedOps {
  std::vector<std::string> ops;      // the key's: core names and classes, sorted and distinct
  std::vector<std::string> classed;  // the core names of the ops `ops` names by class
};
GeneralizedOps generalizedOps(const ExportedProgram& p, const OpShapes& shapes, const FailsWith& fails, int* runs);

// An op's class in a root cause: "*op", "*view:permute", "*metadata-mutation".
std::string opClass(const OpInfo& op);

}  // namespace epsmith
