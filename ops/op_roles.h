// What an ATen overload does to the tensors it is given, read from its schema: functional,
// a view, a view only sometimes, an in-place or out= write with its functional variant, or a
// metadata mutation. The functionalizer dispatches on this and nothing else.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "ops/op_registry.h"

namespace epsmith {

class Node;

enum class OpRole : uint8_t {
  Functional,        // no alias annotation on any return: a fresh result
  View,              // a return aliases an input (Tensor(a)), never written
  MaybeView,         // a view for some inputs, a copy for others (reshape, contiguous, to)
  InPlace,           // writes `self` (and only self) and returns it
  Out,               // writes keyword-only out= arguments and returns them
  MetadataMutation,  // changes self's sizes/strides/storage (transpose_, resize_, set_)
  Unsupported,       // writes we cannot express functionally; `reason` says why
};
std::string_view opRoleName(OpRole r);

// How a write through a view reaches its base (Note [View inverses] in op_roles.cpp).
enum class ViewFamily : uint8_t {
  None,
  Reshape,     // order-preserving reshapes: base = reshape(src, base.sizes)
  Identity,    // alias, detach, ...: base = src
  Permute,     // transpose, permute, t, movedim, ...: base = permute(src, inverse)
  Slice,       // slice.Tensor: slice_scatter
  Narrow,      // narrow: slice_scatter
  Select,      // select.int: select_scatter
  Diagonal,    // diagonal: diagonal_scatter
  AsStrided,   // as_strided: as_strided_scatter
  Unfold,      // unfold with step >= size: as_strided_scatter on a contiguous base
  Expand,      // expand, broadcast_to: elements overlap, writes are undefined
  SplitList,   // split, chunk, tensor_split, hsplit, ...: each element is a slice
  UnbindList,  // unbind: each element is a select
  Other,       // a view we can replay but not write through
};

struct OpRoleInfo {
  OpRole role = OpRole::Functional;
  ViewFamily view = ViewFamily::None;  // View / MaybeView (and MetadataMutation: its view)
  bool returns_self = false;           // View / MaybeView: returns its argument itself
  // InPlace / Out: the functional variant; MetadataMutation: the view op it applies
  // (nullptr for resize_ and set_, which have none).
  const OpInfo* functional = nullptr;
  std::vector<int> written;       // argument indices written (Tensor(a!))
  std::vector<int> return_alias;  // per return: the argument index it aliases, or -1
  std::string reason;             // Unsupported
  // Unsupported because its result may share an argument's storage with nothing in its
  // schema saying so (functional set, unsafe_split, atleast_3d, ...).
  bool hides_alias = false;
};

// Classified once per overload and cached; thread-safe.
const OpRoleInfo& opRole(const OpInfo& op);

// The functional counterpart of a mutable overload by the naming rules of native_functions
// (add_ → add, add.out → add.Tensor, __iand__ → __and__), checked against the argument
// lists; nullptr when there is none. Exposed for `epsmith ops` and the tests.
const OpInfo* functionalVariant(const OpInfo& op);

// Whether this call writes an argument its schema does not mark written
// (Note [Writes schemas do not declare] in op_roles.cpp).
bool writesItsSchemaHides(const Node& call, const OpInfo& op);

// Whether `op` has effects that export orders with a token (Note [Ops with effects] in
// op_roles.cpp).
bool hasEffects(const OpInfo& op);

// The functional ops whose result depends on how eager laid their self out, not only on its
// values (Note [Reads of eager's layout] in op_roles.cpp).
enum class EagerLayoutRead : uint8_t { None, AsStridedCopy, AsStridedScatter, DtypeViewCopy };
EagerLayoutRead readsEagerLayout(const OpInfo& op);

// Whether the maybe-view call `n` of `op` (reshape, flatten, ravel, contiguous, to) returns
// an alias of its input, whose metadata is `in`, rather than a copy
// (Note [Maybe-aliasing ops]).
bool maybeViewAliases(const Node& n, const OpInfo& op, const TensorMeta& in);

}  // namespace epsmith
