// Internal to the functionalizer: one step of a view chain (base → view), replayed on a new
// base value, and inverted to carry a write through the view back to its base.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "functionalizer/emitter.h"
#include "ir/diagnostic.h"
#include "ir/graph.h"
#include "ir/tensor_geometry.h"
#include "ops/call_args.h"
#include "ops/op_roles.h"

namespace epsmith::functionalizer {

struct ViewStep {
  enum class Kind : uint8_t {
    Op,        // call `op` with the source node's arguments, `self` replaced by the base
    Slice,     // slice.Tensor(base, dim, start, end): one element of a split
    Select,    // select.int(base, dim, start): one element of an unbind
    Restride,  // as_strided(base, sizes, strides, start): a tensor an out= call shrank in place
  };
  Kind kind = Kind::Op;
  const OpInfo* op = nullptr;  // Op: the view op (for a metadata mutation, its view form)
  const Node* node = nullptr;  // Op: the source node whose arguments the step reuses
  ViewFamily family = ViewFamily::None;
  int64_t dim = 0, start = 0, end = 0;
  std::vector<int64_t> sizes, strides;  // Restride
  // Op: what the source node's tensor arguments besides self were when the view was taken
  // (Note [View arguments read when the view is taken]).
  std::vector<std::pair<const Node*, Node*>> read_then;

  static ViewStep ofOp(const OpInfo* op, const Node* node, ViewFamily family) {
    ViewStep s;
    s.op = op;
    s.node = node;
    s.family = family;
    return s;
  }
};

// Maps a source-graph node to its current value in the graph being built.
using Resolve = std::function<Node*(const Node*)>;

// The op that takes `view_op`'s view from the view's sizes alone (view, view_as,
// reshape_as → reshape; expand_as → expand), or nullptr
// (Note [Views replayed by their sizes]).
const OpInfo* sizedForm(const OpInfo& view_op);

// Makes the storage_offset of `n`, a call of as_strided `o` (or of its _copy or _scatter
// form, whose arguments the schema names alike), explicit in `args` and
// `kwargs` (a copy of its arguments): None means the offset of the tensor it is called on,
// which a view hung off the storage root is not
// (Note [as_strided views hang off the storage root]). False, changing nothing, when that offset is symbolic.
bool pinStorageOffset(const Node& n, const OpInfo& o, std::vector<Argument>& args,
                      std::vector<std::pair<std::string, Argument>>& kwargs);

// Whether every element the as_strided call `n` (of `o`, or its _copy or _scatter form) addresses lies
// within `root`, a tensor that starts its storage densely at offset 0: false when its
// geometry is symbolic or it reaches past the root's elements (its storage may hold more;
// a value the graph computes for the root does not).
bool asStridedWithin(const Node& n, const OpInfo& o, const TensorMeta& root);

// A contiguous copy of `value`, whose metadata (contiguous) is `meta`.
Node* contiguousCopy(Emitter& e, Node* value, const TensorMeta& meta);
// `m` with the strides and offset of a contiguous tensor of its sizes (unchanged when a size
// is symbolic).
TensorMeta contiguousMeta(const TensorMeta& m);
// `value` in strides a dtype view of eager's `meta` accepts
// (Note [dtype views of computed values]): a contiguous copy, or, with no element to copy, an as_strided in the very
// strides eager had (0-element sizes make a contiguous stride of 1 that view.dtype may
// refuse where eager's was 0).
Node* laidOutForDtypeView(Emitter& e, Node* value, const TensorMeta& meta);

// Whether a storage root lets as_strided address it after a write
// (Note [as_strided views hang off the storage root]): contiguous from offset 0.
bool standsForStorage(const TensorMeta& root);
// standsForStorage, and the as_strided call `n` (of `o`) stays within the root's elements.
bool addressesOnlyItsRoot(const Node& n, const OpInfo& o, const TensorMeta& root);

// Element k of tensor_split.indices `split` (or of hsplit, vsplit or dsplit's `array` form)
// is base[indices[k-1]:indices[k]] along `dim`,
// with slice's wrapping and clamping: with indices out of order an element need not start
// where the one before it ended ([1, 0] makes [0:1], [1:1] and [0:]), and an element of a
// dim of stride 0 has no offset to tell. Clamped where the dim's size is concrete, as
// given where it is symbolic (an end past the base for the last element). nullopt for the
// other splits.
std::optional<std::pair<int64_t, int64_t>> tensorSplitBounds(const Node& split, size_t k, const TensorMeta& base,
                                                             int64_t dim);

// Makes `self` the self argument of a call's `args` and `kwargs` (the first positional one,
// or the keyword "self") and resolves every other node they name.
void setSelf(std::vector<Argument>& args, std::vector<std::pair<std::string, Argument>>& kwargs, Node* self,
             const Resolve& resolve);

// Emits the view of `base` that `step` takes; `meta` is the view's metadata; views with a
// sizedForm are taken with it.
Node* replayView(Emitter& e, const ViewStep& step, Node* base, const TensorMeta& meta, const Resolve& resolve);

// Emits the new value of `base` after `src` was written into the view `step` takes of it.
// `base_meta` is the base's metadata. Fails (with no place: the caller knows the writer)
// when the view has no inverse.
Expected<Node*> invertView(Emitter& e, const ViewStep& step, Node* base, const TensorMeta& base_meta, Node* src);

}  // namespace epsmith::functionalizer
