// The functionalization pass (pass.h), its view ops: each takes a new record over the one
// it views, or reads a copy where eager's view would address a value the graph computed.
#include "functionalizer/pass.h"

#include <limits>
#include <tuple>

namespace epsmith::functionalizer {

bool Pass::returnsAlias(const Node& n, const OpInfo& op) {
  return maybeViewAliases(n, op, *object(selfArgument(n), &n)->rec->meta);
}

void Pass::view(const Node& n, const OpRoleInfo& role) {
  const OpInfo& op = *n.target.op();
  Obj* self = object(selfArgument(n), &n);
  Rec* parent = self->rec;
  if (role.view == ViewFamily::AsStrided && n.meta.val.tensor()) {
    asStrided(n, op, parent, slot(n));
    return;
  }
  Node* c = readsAContiguousCopy(n, parent) ? copyOnContiguousSelf(n, *parent) : copyRemapped(n);
  const TensorMeta* shape = n.meta.val.tensor();
  const OpInfo* sized = functionalizer::sizedForm(op);
  if (sized && parent->storage->stridesAreTheGraphs() && shape && !c->args.empty()) {
    // A view of a storage that was written is taken on a value the graph computed, whose
    // strides view may refuse (Note [Views replayed by their sizes]).
    if (auto sizes = concreteSizes(*shape)) {
      c->target = Target::aten(sized);
      c->args.resize(1);
      c->args.push_back(arg::IntList{*sizes});
      c->kwargs.clear();
    } else if (op.qualified_name == "aten::view" || op.qualified_name == "aten::view_as") {
      // Symbolic sizes: the same arguments (sizes with a -1, the other tensor's value at
      // this point of the graph) mean the same to reshape, which takes any strides.
      c->target = Target::aten(findOp(op.qualified_name == "aten::view" ? "aten::reshape" : "aten::reshape_as", ""));
    }
  }
  Mapped& m = slot(n);
  if (role.returns_self && n.meta.val.tensor()) {
    // The same tensor object (Note [Maybe-aliasing ops]): `c` is its current value.
    m.tensor = self;
    remember(m, c);
    return;
  }
  if (const TensorMeta* t = n.meta.val.tensor()) {
    ViewStep step = viewStep(&op, n, role.view);
    Obj& o = objs_.emplace_back();
    o.rec = child(parent, step, *t, c);
    m.tensor = &o;
    remember(m, c);
    return;
  }
  m.node = c;
  if (role.view == ViewFamily::SplitList || role.view == ViewFamily::UnbindList) {
    m.list_base = parent;
    m.list_gen = parent->storage->gen;
    m.list_family = role.view;
    m.list_dim = listDim(n, op, static_cast<int64_t>(parent->meta->sizes.size()));
  } else if (n.meta.val.list()) {
    // Its elements would be taken as tensors of their own, and a later write to the base
    // would not reach them.
    fail(&n, "a view op returning a list whose elements the functionalizer cannot replay from their base");
  }
}

// Note [as_strided views hang off the storage root]
// as_strided's offset and strides address the storage, not the tensor it is called on.
// After a write, a view's functional value is a fresh tensor with a storage of its own,
// where those offsets mean something else; and as_strided_scatter clones the tensor it
// writes into, dropping its offset. So an as_strided view's record hangs off the storage's
// root: it is replayed from, and written back through, the root's current value, with its
// storage offset spelled out (left out, it means the offset of the tensor it was called
// on, not the root's). Before any write, the node reads its own argument, a view of the
// storage itself (so an already functional program comes back unchanged). After one, the
// root's value is a tensor the graph computed, starting at offset 0 in strides of the
// kernel's choosing (triu of a column-major input is row-major), so it is read through a
// contiguous copy; that addresses the same elements as eager only when the root is
// contiguous from offset 0 and the view stays within the root's elements. Other roots, and
// views reaching past the root into the rest of its storage, are refused once a write
// makes them matter. as_strided_copy reads the same way. A value computed from a written
// one has strides of the graph's choosing too, and its storage counts as written here.
// The root's current value as as_strided may address it: once written, the root's value
// is a tensor the graph computed, whose strides need not be the root's, so it is read
// through a contiguous copy (the root is contiguous).
Node* Pass::rootForAsStrided(Rec* root) {
  Node* value = sync(root);
  return root->storage->stridesAreTheGraphs() ? functionalizer::contiguousCopy(emit_, value, *root->meta) : value;
}

bool Pass::isAsStridedStep(const Rec& r) {
  return r.step.family == ViewFamily::AsStrided && r.step.kind == ViewStep::Kind::Op;
}

// An as_strided view, or the restride of a tensor an out= call shrank in place: both name
// storage offsets, which a value in strides of the graph's choosing does not have, so they
// read and write a contiguous copy of such a base (its root, contiguous from offset 0).
bool Pass::addressesStorage(const Rec& r) { return isAsStridedStep(r) || r.step.kind == ViewStep::Kind::Restride; }

void Pass::requireStorageRoot(const Rec& r, const Node* blame) {
  if (!isAsStridedStep(r)) return;
  // The view's dtype is the one its input had; a view of the root as another dtype (made
  // before the storage was written) would be replayed on the root's.
  if (r.meta->dtype != r.parent->meta->dtype) fail(blame, "as_strided" + std::string(kOtherDtypeRefusal));
  if (!r.parent->parent && functionalizer::addressesOnlyItsRoot(*r.step.node, *r.step.op, *r.parent->meta)) return;
  fail(blame, "as_strided" + std::string(kStorageRootRefusal));
}

// Note [dtype views of computed values]
// view.dtype to a dtype of another element size reinterprets the bytes along the last
// dim, which needs that dim's stride to be 1 (and divisible sizes and strides elsewhere).
// Eager's tensor has the strides eager gave it; once its storage was written, the
// functional value is one the graph computed, in strides of the kernel's choosing (a
// 0-element relu of a permuted tensor, a divide_ of an f32[0, 1], came back with a last
// stride of 2 and 0). So do tensors computed from such values, and from those in turn:
// elementwise kernels follow their inputs' strides (log2 of an mH of a column-major input
// that tril_ wrote came back with a last stride of 3, where eager's was 1); the storages of
// such tensors are marked (AliasStorage::from_written) and treated as written ones are,
// here and by as_strided (Note [as_strided views hang off the storage root]). Row by row
// the bytes are the same in a contiguous copy, so such a view, and view_copy.dtype, read
// one; a 0-element one has no bytes, and reads an as_strided of the value in eager's
// strides instead. Values computed from untouched inputs have eager's strides, and a
// dtype view of them stays a view of their storage (an as_strided after it may reach past
// it, as in eager).
bool Pass::readsAContiguousCopy(const Node& n, const Rec* self) {
  const TensorMeta* in = self ? self->meta : nullptr;
  const TensorMeta* out = n.meta.val.tensor();
  const AliasStorage* s = self ? self->storage : nullptr;
  return in && out && s->stridesAreTheGraphs() && elementSize(in->dtype) != elementSize(out->dtype) &&
         (n.target.op()->overload == "dtype" || n.target.op()->overload == "dtype_out");
}

Node* Pass::copyOnContiguousSelf(const Node& n, Rec& self) {
  return copyWithSelf(n, n.args, n.kwargs, functionalizer::laidOutForDtypeView(emit_, sync(&self), *self.meta));
}

// The self that view_copy.dtype, or its out= form, reads at `n`: a copy laid out as eager's
// tensor where readsAContiguousCopy says so; null where it reads its self as it is.
Node* Pass::laidOutSelfOfDtypeCopy(const Node& n) {
  const Node* self = selfArgument(n);
  Rec* rec = self && self->meta.val.tensor() ? object(self, &n)->rec : nullptr;
  if (!rec || !readsAContiguousCopy(n, rec)) return nullptr;
  return functionalizer::laidOutForDtypeView(emit_, sync(rec), *rec->meta);
}

// as_strided_copy addresses the storage as as_strided does: once the storage was written,
// it reads the root's value with its offset spelled out, which only a root that stands
// for its storage allows. Its out= form reads the same way (asStridedCopyBase).
void Pass::asStridedCopy(const Node& n, const OpInfo& op) {
  Node* base = asStridedCopyBase(n, op);
  bind(n, base ? copyOnBase(n, op, base) : copyRemapped(n));
}

Node* Pass::asStridedCopyBase(const Node& n, const OpInfo& op) {
  Obj* self = object(selfArgument(n), &n);
  Rec* root = self->rec;
  while (root->parent) root = root->parent;
  if (!root->storage->stridesAreTheGraphs()) return nullptr;
  if (!functionalizer::addressesOnlyItsRoot(n, op, *root->meta))
    fail(&n, "as_strided_copy" + std::string(kStorageRootRefusal));
  if (self->rec->meta->dtype != root->meta->dtype) fail(&n, "as_strided_copy" + std::string(kOtherDtypeRefusal));
  return rootForAsStrided(root);
}

void Pass::asStrided(const Node& n, const OpInfo& op, Rec* parent, Mapped& m) {
  Rec* root = parent;
  while (root->parent) root = root->parent;
  if (root != parent) {
    std::vector<Argument> args = n.args;
    auto kwargs = n.kwargs;
    if (!functionalizer::pinStorageOffset(n, op, args, kwargs)) {
      fail(&n,
           "as_strided of a view, with a symbolic storage offset: its replay from the storage root "
           "cannot say where it starts");
    }
  }
  // Before any write, the argument is a view of the storage itself; after one, values are
  // tensors the graph computed, read through the root laid out as it is.
  Node* c = nullptr;
  if (!root->storage->stridesAreTheGraphs()) {
    c = copyRemapped(n);
  } else {
    if (!functionalizer::addressesOnlyItsRoot(n, op, *root->meta))
      fail(&n, "as_strided" + std::string(kStorageRootRefusal));
    if (parent->meta->dtype != root->meta->dtype) fail(&n, "as_strided" + std::string(kOtherDtypeRefusal));
    c = copyOnBase(n, op, rootForAsStrided(root));
  }
  Obj& o = objs_.emplace_back();
  o.rec = child(root, ViewStep::ofOp(&op, &n, ViewFamily::AsStrided), *n.meta.val.tensor(), c);
  m.tensor = &o;
  remember(m, c);
}

// Note [as_strided_scatter clones its self's storage]
// as_strided_scatter(self, src, size, stride, offset) clones self's whole storage (2.x's
// clone_preserve_strides; 1.13's clone of a dense self is sized to its elements), writes
// src through as_strided(size, stride, offset) of that clone and returns the clone in
// self's geometry. Its offsets address self's storage, as as_strided's do
// (Note [as_strided views hang off the storage root]), and elements it writes outside self's are
// not seen but must lie in the storage. Before any write, self is a view of the storage
// itself and the call reads it unchanged. After one, self's value is a tensor the graph
// computed, holding just its elements, in strides of the kernel's choosing: the call reads a
// contiguous copy of it, which addresses what eager addresses only when self is its
// storage's root, contiguous from offset 0, and the scatter stays within its elements.
// Anything else is refused.
Node* Pass::asStridedScatterSelf(const Node& n, const OpInfo& op) {
  Rec* self = object(selfArgument(n), &n)->rec;
  if (!self->storage->stridesAreTheGraphs()) return nullptr;
  if (self->parent || !functionalizer::addressesOnlyItsRoot(n, op, *self->meta)) {
    fail(&n, "as_strided_scatter" + std::string(kStorageRootRefusal));
  }
  return rootForAsStrided(self);
}

// A copy of the as_strided call `n` on `base`, its storage offset spelled out.
Node* Pass::copyOnBase(const Node& n, const OpInfo& op, Node* base) {
  std::vector<Argument> args = n.args;
  auto kwargs = n.kwargs;
  if (!functionalizer::pinStorageOffset(n, op, args, kwargs)) fail(&n, "its storage offset is symbolic");
  return copyWithSelf(n, std::move(args), std::move(kwargs), base);
}

// A copy of `n` (arguments `args` and `kwargs`) reading `self_value` as its self.
Node* Pass::copyWithSelf(const Node& n, std::vector<Argument> args,
                         std::vector<std::pair<std::string, Argument>> kwargs, Node* self_value) {
  functionalizer::setSelf(args, kwargs, self_value, resolver_);
  return emit_.copy(n, std::move(args), std::move(kwargs));
}

int64_t Pass::listDim(const Node& n, const OpInfo& op, int64_t rank) {
  const std::string& name = op.qualified_name;
  std::optional<int64_t> d;
  if (name == "aten::hsplit")
    d = rank == 1 ? 0 : 1;
  else if (name == "aten::vsplit")
    d = 0;
  else if (name == "aten::dsplit")
    d = 2;
  else if (name == "aten::unbind")
    d = intArgument(n, op, 1, 0);
  else
    d = intArgument(n, op, 2, 0);
  if (!d) fail(&n, "its dim is not a literal");
  return *d < 0 ? *d + rank : *d;
}

// Where a split's element k lies along the split dim of the list's base, as a slice.
// slice.Tensor wraps and clamps its start and end as tensor_split does its indices, and
// an end past the base is its size: so literal indices, and an end past everything for
// the last element, say where the element lies at every size of a symbolic base.
ViewStep Pass::splitElementStep(const Node& n, const Node& src, const Mapped& m, size_t k) {
  ViewStep step;
  step.kind = ViewStep::Kind::Slice;
  step.dim = m.list_dim;
  const TensorMeta& base = *m.list_base->meta;
  const auto d = static_cast<size_t>(step.dim);
  if (auto bounds = functionalizer::tensorSplitBounds(src, k, base, step.dim)) {
    std::tie(step.start, step.end) = *bounds;
    return step;
  }
  const auto* list = src.meta.val.list();
  if (!list || k >= list->size()) fail(&n, "the split's meta.val does not list its elements");
  for (size_t i = 0; i <= k; ++i) {
    const TensorMeta* e = (*list)[i].tensor();
    if (!e || d >= e->sizes.size()) fail(&n, "the split's elements have missing sizes");
    const SymIntValue& size = e->sizes[d];
    if (i < k && !size.isConcrete()) fail(&n, "an element before it has a symbolic size along the split dim");
    if (i < k) {
      step.start += size.concrete();
    } else if (size.isConcrete()) {
      step.end = step.start + size.concrete();
    } else if (k + 1 == list->size()) {
      step.end = std::numeric_limits<int64_t>::max();  // to the base's end, at every size
    } else {
      fail(&n, "its size along the split dim is symbolic and it is not the last element");
    }
  }
  // tensor_split with indices out of order makes elements that do not follow one
  // another: the element's offset into the base says where it starts. Read at the
  // example where a later dim is symbolic (a stride of s0): the split dim's size is
  // concrete here, so the start is the same at every size.
  const TensorMeta* e = n.meta.val.tensor();  // the element as its getitem records it
  if (d < base.strides.size() && base.strides[d].hasIntHint() && base.strides[d].atHint() > 0 &&
      e->storage_offset.hasIntHint() && base.storage_offset.hasIntHint() && d < e->sizes.size() &&
      e->sizes[d].isConcrete() && e->sizes[d].concrete() > 0) {
    const int64_t stride = base.strides[d].atHint();
    const int64_t delta = e->storage_offset.atHint() - base.storage_offset.atHint();
    if (delta >= 0 && delta % stride == 0) {
      step.start = delta / stride;
      step.end = step.start + e->sizes[d].concrete();
    }
  }
  // Where neither the indices (a tensor of them) nor the offset (a stride of 0, an
  // element empty along the dim) says where an element starts, every start that keeps
  // it inside the base addresses the same memory: the sizes before it may not add up
  // to one (tensor_split at [-2, -1, 0] of 5 makes pieces of 3, 1, 0 and 5).
  if (d < base.sizes.size() && base.sizes[d].isConcrete() && step.end > base.sizes[d].concrete()) {
    step.start -= step.end - base.sizes[d].concrete();
    step.end = base.sizes[d].concrete();
  }
  return step;
}

void Pass::getitem(const Node& n) {
  const Node* src = nullptr;
  if (!n.args.empty()) {
    if (const auto* t = n.args[0].get<arg::Tensor>()) src = t->node;
  }
  const auto* index = n.args.size() > 1 ? n.args[1].get<arg::Int>() : nullptr;
  Mapped* found = src ? entry(src) : nullptr;
  if (!found || !index) {
    bind(n, copyRemapped(n));
    return;
  }
  Mapped& m = *found;
  const auto k = static_cast<size_t>(index->value);
  if (!m.elements.empty()) {
    if (k >= m.elements.size()) fail(&n, "getitem index out of range");
    slot(n).tensor = m.elements[k];
    return;
  }
  if (!m.list_base || !n.meta.val.tensor()) {
    bind(n, copyRemapped(n));
    return;
  }
  // An element of a split or unbind: a slice or select of the list's base.
  ViewStep step;
  step.dim = m.list_dim;
  if (m.list_family == ViewFamily::UnbindList) {
    step.kind = ViewStep::Kind::Select;
    step.start = index->value;
  } else {
    step = splitElementStep(n, *src, m, k);
  }
  const bool current = m.list_gen == m.list_base->storage->gen;
  Node* value = current ? copyRemapped(n) : nullptr;  // stale: replayed when read
  Obj& o = objs_.emplace_back();
  o.rec = child(m.list_base, step, *n.meta.val.tensor(), value);
  slot(n).tensor = &o;
}

}  // namespace epsmith::functionalizer
