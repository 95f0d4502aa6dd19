// Which tensors of a program share memory (Note [Writes eager leaves undefined]).
#include "fuzz/aliases.h"

#include <algorithm>
#include <map>
#include <set>

#include "formats/text_format.h"
#include "oracle/alias_probe.h"
#include "ir/tensor_geometry.h"
#include "ops/call_args.h"
#include "ops/op_registry.h"
#include "ops/op_roles.h"

namespace epsmith {
namespace {

bool isGetItem(const Node& n) {
  return n.op() == OpKind::CallFunction && n.target.kind() == Target::Kind::Builtin &&
         n.target.builtinOp() == BuiltinOp::GetItem;
}

// The call that made `n`'s tensor: `n`, or the call whose list a getitem `n` takes an
// element of; null where that list is no node.
const Node* madeBy(const Node& n) {
  if (!isGetItem(n)) return &n;
  const auto* list = n.args.empty() ? nullptr : n.args[0].get<arg::Tensor>();
  return list ? list->node : nullptr;
}

}  // namespace

const Node* boundTensor(const Node& n, const OpInfo& op, int index) {
  const Argument* a = index < 0 ? nullptr : schemaArgument(n, op, static_cast<size_t>(index));
  const auto* t = a ? a->get<arg::Tensor>() : nullptr;
  return t ? t->node : nullptr;
}

int aliasedArgument(const Node& n, size_t k) {
  if (!n.atenOp()) return -1;
  const std::vector<int>& alias = opRole(*n.target.op()).return_alias;
  if (k < alias.size()) return alias[k];
  return alias.size() == 1 ? alias[0] : -1;
}

bool isViewResult(const Node& n) {
  const Node* from = madeBy(n);
  if (!from || !from->atenOp()) return false;
  const OpRole role = opRole(*from->atenOp()).role;
  return role == OpRole::View || role == OpRole::MaybeView;
}

bool isViewTensor(const Node& n) {
  for (const Node* t = &n; t;) {
    if (isViewResult(*t)) return true;
    if (!t->atenOp()) return false;
    const OpRole role = opRole(*t->target.op()).role;
    if (role != OpRole::InPlace && role != OpRole::Out) return false;
    t = boundTensor(*t, *t->target.op(), aliasedArgument(*t, 0));
  }
  return false;
}

std::map<const Node*, const Node*> storageOwners(const Graph& g) {
  std::map<const Node*, const Node*> owner;
  auto ownerOf = [&](const Node* n) {
    auto it = owner.find(n);
    return it == owner.end() ? n : it->second;
  };
  for (const Node& n : g.nodes()) {
    owner[&n] = &n;
    const Node* call = &n;
    size_t k = 0;
    if (isGetItem(n)) {
      const auto* t = n.args.size() > 1 ? n.args[0].get<arg::Tensor>() : nullptr;
      const auto* i = n.args.size() > 1 ? n.args[1].get<arg::Int>() : nullptr;
      if (!t || !i) continue;
      call = t->node;
      k = static_cast<size_t>(i->value);
    }
    const int aliased = aliasedArgument(*call, k);
    if (aliased < 0) continue;
    if (const Node* a = boundTensor(*call, *call->target.op(), aliased)) owner[&n] = ownerOf(a);
  }
  return owner;
}

std::map<const Node*, size_t> nodeOrder(const Graph& g) {
  std::map<const Node*, size_t> order;
  for (const Node& n : g.nodes()) order.emplace(&n, order.size());
  return order;
}

namespace {

// The tensors a write into `w` lands in: `w`, and each tensor it is a view of, to the owner.
template <typename F>
void forEachViewedBy(const Node* w, F&& f) {
  for (int depth = 0; w && depth < 64; ++depth) {
    f(*w);
    if (!isViewResult(*w)) return;
    const Node* call = w;
    size_t k = 0;
    if (isGetItem(*w)) {
      const auto* t = w->args[0].get<arg::Tensor>();
      const auto* i = w->args.size() > 1 ? w->args[1].get<arg::Int>() : nullptr;
      call = t ? t->node : nullptr;
      k = i ? static_cast<size_t>(i->value) : 0;
      if (!call) return;
    }
    const int a = aliasedArgument(*call, k);
    const Node* in = a < 0 ? nullptr : boundTensor(*call, *call->target.op(), a);
    // reshape, contiguous, to: a copy where the layout cannot be viewed, as for an
    // expanded tensor's; a view where the metadata says so, as the functionalizer decides
    // (Note [Maybe-aliasing ops]: reshape_as of a piece of an expanded input to its own
    // sizes views it, and a write through it lands in the input).
    if (opRole(*call->target.op()).role == OpRole::MaybeView) {
      const TensorMeta* from = in ? in->meta.val.tensor() : nullptr;
      if (!from || !maybeViewAliases(*w, *call->target.op(), *from)) return;
    }
    w = in;
  }
}

// Calls f(n, t) for each tensor t that a write of call n lands in.
template <typename F>
void forEachWrite(const ExportedProgram& p, F&& f) {
  for (const Node& n : p.graph().nodes()) {
    if (!n.atenOp()) continue;
    const OpInfo& op = *n.target.op();
    for (int written : opRole(op).written) {
      forEachViewedBy(boundTensor(n, op, written), [&](const Node& t) { f(n, t); });
    }
  }
}

// Whether `m`'s result, or an element of it, is read after `w`.
bool readAfter(const Graph& g, const Node& m, const Node& w, const std::map<const Node*, size_t>& order) {
  for (const Node* u : g.users(&m)) {
    if (order.at(u) > order.at(&w)) return true;
    if (!isGetItem(*u)) continue;
    for (const Node* v : g.users(u)) {
      if (order.at(v) > order.at(&w)) return true;
    }
  }
  return false;
}

// Whether a call of `op` may return an alias of an argument that no schema declares: an op
// that hides one (OpRoleInfo::hides_alias), or an out= form of one, whose out LibTorch's
// functionalization gives its namesake's result (conj_physical.out of an expanded real
// tensor: the out takes the input's stride-0 layout; epsmith's functionalizer computes it
// with _conj_physical, Note [Irregular functional variants]).
bool hidesAnAlias(const OpInfo& op) {
  if (opRole(op).hides_alias) return true;
  const std::string& overload = op.overload;
  const bool out_form =
      overload == "out" || (overload.size() > 4 && overload.compare(overload.size() - 4, 4, "_out") == 0);
  if (!out_form) return false;
  // The functional variant (set.source_Tensor for set.source_Tensor_out, which makes the
  // out= form unsupported too), or the namesake where that is irregular (conj_physical for
  // conj_physical.out).
  const OpInfo* functional = functionalVariant(op);
  const OpInfo* namesake = findOp(op.qualified_name, "");
  return (functional && opRole(*functional).hides_alias) || (namesake && opRole(*namesake).hides_alias);
}

}  // namespace

bool isHiddenAlias(const Node& t) {
  const Node* made = madeBy(t);
  return made && made->atenOp() && hidesAnAlias(*made->atenOp());
}

namespace {

// Whether `m`'s result, an element of it, or what an op that hides an alias made of one is
// read after `w`: unsafe_chunk of an element of atleast_2d of x, read after a write into x,
// reads x through two hidden aliases (a 2.13 campaign's D2 case).
bool readAfterThroughHiddenAliases(const Graph& g, const Node& m, const Node& w,
                                   const std::map<const Node*, size_t>& order) {
  std::vector<const Node*> made{&m};
  for (size_t k = 0; k < made.size() && made.size() < 64; ++k) {
    if (readAfter(g, *made[k], w, order)) return true;
    auto follow = [&](const Node* v) {
      if (v->atenOp() && hidesAnAlias(*v->atenOp()) && order.at(v) < order.at(&w)) made.push_back(v);
    };
    for (const Node* u : g.users(made[k])) {
      if (!isGetItem(*u)) {
        follow(u);
        continue;
      }
      for (const Node* v : g.users(u)) follow(v);
    }
  }
  return false;
}

// Whether a call writes the storage of an argument of an op whose schema hides an alias,
// which that op read before the write and whose result is read after it.
bool writesUnderAnUndeclaredAlias(const ExportedProgram& p) {
  const Graph& g = p.graph();
  const auto order = nodeOrder(g);
  const auto owner = storageOwners(g);
  bool found = false;
  forEachWrite(p, [&](const Node& w, const Node& t) {
    for (const Node& m : g.nodes()) {
      if (found || order.at(&m) >= order.at(&w)) return;
      if (!m.atenOp()) continue;
      if (!hidesAnAlias(*m.target.op())) continue;
      bool takes = false;
      m.forEachInput([&](const Node* i) { takes = takes || owner.at(i) == owner.at(&t); });
      found = takes && readAfterThroughHiddenAliases(g, m, w, order);
    }
  });
  return found;
}

}  // namespace

bool writesAnUndeclaredAlias(const ExportedProgram& p) {
  if (writesUnderAnUndeclaredAlias(p)) return true;
  const Graph& g = p.graph();
  const auto order = nodeOrder(g);
  const auto owner = storageOwners(g);
  // Whether an out= call of an op that hides an alias wrote `t`'s storage before `w`:
  // a write through its `out` argument rather than its result.
  auto outWrittenBefore = [&](const Node& w, const Node& t) {
    for (const Node& m : g.nodes()) {
      if (order.at(&m) >= order.at(&w)) return false;
      if (!m.atenOp() || !hidesAnAlias(*m.atenOp())) continue;
      const int out = m.target.op()->argumentIndex("out");
      const Node* o = out < 0 ? nullptr : boundTensor(m, *m.target.op(), out);
      if (o && owner.at(o) == owner.at(&t)) return true;
    }
    return false;
  };
  bool found = false;
  forEachWrite(p, [&](const Node& w, const Node& t) { found = found || isHiddenAlias(t) || outWrittenBefore(w, t); });
  return found;
}

namespace {

// Whether `p` writes through a view made by an ATen call of which `made(call)` holds.
template <typename F>
bool writesThroughAViewThat(const ExportedProgram& p, F&& made) {
  bool found = false;
  forEachWrite(p, [&](const Node&, const Node& t) { found = found || (t.atenOp() && made(t)); });
  return found;
}

// Whether the unfold call `t` leaves elements of its input's dimension uncovered.
bool unfoldLeavesGaps(const Node& t) {
  const OpInfo& op = *t.target.op();
  const Node* self = boundTensor(t, op, 0);
  const TensorMeta* m = self ? self->meta.val.tensor() : nullptr;
  const Argument* dim = schemaArgument(t, op, 1);
  const Argument* size = schemaArgument(t, op, 2);
  const Argument* step = schemaArgument(t, op, 3);
  const auto* d = dim ? dim->get<arg::Int>() : nullptr;
  const auto* s = size ? size->get<arg::Int>() : nullptr;
  const auto* k = step ? step->get<arg::Int>() : nullptr;
  if (!m || !d || !s || !k || k->value <= 0) return false;
  const int64_t rank = static_cast<int64_t>(m->sizes.size());
  const int64_t axis = rank == 0 ? 0 : (d->value % rank + rank) % rank;
  if (rank > 0 && !m->sizes[axis].isConcrete()) return false;
  const int64_t n = rank == 0 ? 1 : m->sizes[axis].concrete();
  if (n == 0 || s->value > n) return false;
  if (s->value == 0) return true;
  const int64_t windows = (n - s->value) / k->value + 1;
  return (k->value > s->value && windows > 1) || (windows - 1) * k->value + s->value < n;
}

}  // namespace

bool writesThroughAnExpand(const ExportedProgram& p) {
  return writesThroughAViewThat(p, [](const Node& t) { return opRole(*t.target.op()).view == ViewFamily::Expand; });
}

bool writesThroughAnUnfoldWithGaps(const ExportedProgram& p) {
  return writesThroughAViewThat(
      p, [](const Node& t) { return opRole(*t.target.op()).view == ViewFamily::Unfold && unfoldLeavesGaps(t); });
}

namespace {

// Whether functionalization holds a tensor of this layout otherwise once it is written: its
// functional value is contiguous from its own storage's start.
bool laidOutAnewWhenWritten(const TensorMeta& m) {
  return !isContiguous(m) || !m.storage_offset.isConcrete() || m.storage_offset.concrete() != 0;
}

}  // namespace

bool addressesAWrittenStridedTensor(const ExportedProgram& p) {
  const auto owners = storageOwners(p.graph());
  std::set<const Node*> written;  // storages some call writes
  forEachWrite(p, [&](const Node&, const Node& t) { written.insert(owners.at(&t)); });
  for (const Node& n : p.graph().nodes()) {
    const OpInfo* op = n.atenOp();
    if (!op) continue;
    const std::string_view name = op->localName();
    if (name != "as_strided" && name != "as_strided_copy" && name != "as_strided_scatter") continue;
    const Node* self = boundTensor(n, *op, 0);
    const TensorMeta* m = self ? self->meta.val.tensor() : nullptr;
    if (m && laidOutAnewWhenWritten(*m) && written.count(owners.at(self))) return true;
  }
  return false;
}

// Whether the call `n` writes a tensor whose strides are not contiguous.
bool writesAStridedTensor(const Node& n) {
  const OpInfo& op = *n.target.op();
  for (int written : opRole(op).written) {
    const Node* self = boundTensor(n, op, written);
    const TensorMeta* m = self ? self->meta.val.tensor() : nullptr;
    if (m && !isContiguous(*m)) return true;
  }
  return false;
}

bool writesUnderAStridedReshape(const ExportedProgram& p) {
  const Graph& g = p.graph();
  std::vector<const Node*> reshapes;  // eager's views
  for (const Node& t : g.nodes()) {
    const OpInfo* op = t.atenOp();
    const Node* self = op ? boundTensor(t, *op, 0) : nullptr;
    const TensorMeta* in = self ? self->meta.val.tensor() : nullptr;
    if (!in || !t.meta.val.tensor()) continue;
    const OpRoleInfo& role = opRole(*op);
    if (op->qualified_name == "aten::_reshape_alias" ||
        (role.role == OpRole::MaybeView && role.view == ViewFamily::Reshape && maybeViewAliases(t, *op, *in))) {
      reshapes.push_back(&t);
    }
  }
  if (reshapes.empty()) return false;
  const auto owner = storageOwners(g);
  const auto order = nodeOrder(g);
  bool found = false;
  forEachWrite(p, [&](const Node& n, const Node& w) {
    for (const Node* t : reshapes) {
      const bool same = owner.at(&w) == owner.at(t);
      if (!isContiguous(*t->meta.val.tensor())) {
        // A strided view, written through or regenerated after a write into its storage.
        found = found || &w == t || (same && (order.at(t) > order.at(&n) || readAfter(g, *t, n, order)));
      } else {
        // A contiguous one made after a write through a strided view of its storage, which
        // lays the functional value out in that view's order (mvlgamma.out into x.mH, then
        // x.reshape_as(y) reads x transposed: a 1.13 campaign's D2 case), or written through
        // by such a write (tril_ of flatten(x).mT: a 1.13 campaign's D2 case).
        const TensorMeta* through = w.meta.val.tensor();
        found = found || (same && order.at(t) > order.at(&n) && through && !isContiguous(*through));
        found = found || (&w == t && writesAStridedTensor(n));
      }
    }
  });
  return found;
}

bool writesThroughABoolView(const ExportedProgram& p) {
  return writesThroughAViewThat(p, [](const Node& t) {
    if (t.target.op()->qualified_name != "aten::view" || t.target.op()->overload != "dtype") return false;
    const Node* self = boundTensor(t, *t.target.op(), 0);
    const TensorMeta* from = self ? self->meta.val.tensor() : nullptr;
    const TensorMeta* to = t.meta.val.tensor();
    return from && to && to->dtype == ScalarType::Bool && from->dtype != ScalarType::Bool;
  });
}

// Note [Factories eager returns as views]
// A periodic window (hann_window, hamming_window, blackman_window, bartlett_window,
// kaiser_window) of two or more elements is, in eager, a narrow of a window one element
// longer, although its schema returns a fresh tensor (LibTorch 2.13, by `_is_view()` on
// every factory the generators call; no other factory is a view there). requires_grad_ of
// it makes a leaf that is itself a view, and autograd's check of an in-place write through
// a view of it asks whether that view's base, the longer window, requires grad: it does
// not, and eager writes. LibTorch's functionalization makes the window a fresh tensor, and
// the same write raises "a view of a leaf Variable that requires grad".
bool requiresGradOfAFactoryView(const ExportedProgram& p) {
  static const std::set<std::string> kWindows = {"aten::hann_window", "aten::hamming_window", "aten::blackman_window",
                                                 "aten::bartlett_window", "aten::kaiser_window"};
  const auto owners = storageOwners(p.graph());
  auto isViewInEager = [&](const Node* made) {
    if (!made || !made->atenOp()) return false;
    const OpInfo& op = *made->target.op();
    if (!kWindows.count(op.qualified_name)) return false;
    const Argument* length = schemaArgument(*made, op, 0);
    const Argument* periodic = schemaArgument(*made, op, 1);
    const auto* n = length ? length->get<arg::Int>() : nullptr;
    const auto* b = periodic ? periodic->get<arg::Bool>() : nullptr;
    return n && n->value >= 2 && (!b || b->value);
  };
  for (const Node& n : p.graph().nodes()) {
    if (!n.atenOp()) continue;
    if (n.target.op()->qualified_name != "aten::requires_grad_") continue;
    const Node* self = boundTensor(n, *n.target.op(), 0);
    const auto owner = self ? owners.find(self) : owners.end();
    if (owner != owners.end() && isViewInEager(owner->second)) return true;
  }
  return false;
}

namespace {

// Whether two elements of a view of `sizes` and non-negative `strides` share an offset,
// counted exactly (ATen's has_internal_overlap answers only where a stride is 0).
bool offsetsRepeat(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  int64_t numel = 1, last = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return false;
    if (strides[d] < 0) return false;  // as_strided refuses it
    numel *= sizes[d];
    last += (sizes[d] - 1) * strides[d];
    if (numel > (1 << 20) || last > (1 << 24)) return false;  // not generated; not counted
  }
  std::vector<bool> seen(static_cast<size_t>(last + 1));
  std::vector<int64_t> index(sizes.size(), 0);
  for (int64_t k = 0; k < numel; ++k) {
    int64_t offset = 0;
    for (size_t d = 0; d < sizes.size(); ++d) offset += index[d] * strides[d];
    if (seen[static_cast<size_t>(offset)]) return true;
    seen[static_cast<size_t>(offset)] = true;
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
  return false;
}

// Why an as_strided_scatter of `p` scatters into a view of its output whose elements share
// memory (strides [1, 1, 1, 1]); nullopt where none does.
std::optional<std::string> scattersIntoAnOverlap(const ExportedProgram& p) {
  for (const Node& n : p.graph().nodes()) {
    if (!n.atenOp()) continue;
    const OpInfo& op = *n.target.op();
    if (op.qualified_name != "aten::as_strided_scatter") continue;
    auto sizes = intListArgument(n, op, 2);
    auto strides = intListArgument(n, op, 3);
    if (!sizes || !strides || sizes->size() != strides->size()) continue;
    if (!offsetsRepeat(*sizes, *strides)) continue;
    std::string listed;
    for (int64_t v : *strides) listed += (listed.empty() ? "" : ", ") + std::to_string(v);
    return "%" + n.name() + " scatters into a view of strides [" + listed +
           "] whose elements share memory: eager leaves the write undefined";
  }
  return std::nullopt;
}

// Whether `n`'s result certainly shares the memory of the tensor storageOwners gives it:
// every maybe-view on the way a view by the metadata, as epsmith's functionalizer decides
// it (Note [Maybe-aliasing ops]).
bool certainlyAliases(const Node* n) {
  for (;;) {
    const Node* call = n;
    size_t k = 0;
    if (isGetItem(*n)) {
      const auto* t = n->args.size() > 1 ? n->args[0].get<arg::Tensor>() : nullptr;
      const auto* i = n->args.size() > 1 ? n->args[1].get<arg::Int>() : nullptr;
      if (!t || !i) return true;
      call = t->node;
      k = static_cast<size_t>(i->value);
    }
    const int a = aliasedArgument(*call, k);
    const Node* in = a < 0 ? nullptr : boundTensor(*call, *call->target.op(), a);
    if (!in) return true;
    const OpRoleInfo& role = opRole(*call->target.op());
    const TensorMeta* from = in->meta.val.tensor();
    if (role.role == OpRole::MaybeView && !(from && maybeViewAliases(*n, *call->target.op(), *from))) {
      return false;
    }
    n = in;
  }
}

// The index of an argument of `n` that is not written and is `self` itself, the tensor
// the call writes (a view of it is another tensor, and keeps its sizes); -1 where none is.
int readAsAnotherArgument(const Node& n, const OpInfo& op, const OpRoleInfo& role, const Node& self) {
  for (size_t i = 0; i < op.arguments.size(); ++i) {
    if (std::find(role.written.begin(), role.written.end(), static_cast<int>(i)) != role.written.end()) continue;
    if (boundTensor(n, op, static_cast<int>(i)) == &self) return static_cast<int>(i);
  }
  return -1;
}

// An out that shares its storage with another out of `n` (log_sigmoid_forward.output(x,
// output=x, buffer=x), which a minimizer makes): null where none does.
const Node* anotherOutSharing(const Node& n, const OpInfo& op, const OpRoleInfo& role,
                              const std::map<const Node*, const Node*>& owners) {
  std::set<const Node*> seen;
  for (int w : role.written) {
    const Node* out = boundTensor(n, op, w);
    if (out && !seen.insert(owners.at(out)).second) return out;
  }
  return nullptr;
}

// Why an in-place or out= call of `p` reads the tensor it writes where eager's answer
// depends on its kernel's order (Note [In-place calls that read what they write]); nullopt
// where none does.
std::optional<std::string> readsWhatItWrites(const ExportedProgram& p) {
  const auto owners = storageOwners(p.graph());
  std::set<const Node*> reshaped;  // storages whose metadata a call changed
  for (const Node& n : p.graph().nodes()) {
    if (!n.atenOp()) continue;
    const OpInfo& op = *n.target.op();
    const OpRoleInfo& role = opRole(op);
    const Node* self = role.written.empty() ? nullptr : boundTensor(n, op, role.written[0]);
    const TensorMeta* self_meta = self ? self->meta.val.tensor() : nullptr;
    if (!self_meta) continue;
    const TensorMeta* after = n.meta.val.tensor();
    const bool resizes = after && after->sizes != self_meta->sizes;
    if (resizes && role.role == OpRole::Out && !reshaped.count(owners.at(self)) &&
        (numelOf(*self_meta) > 0 || numelOf(*after) > 0)) {
      if (const int read = readAsAnotherArgument(n, op, role, *self); read >= 0) {
        return "%" + n.name() + " resizes the %" + self->name() + " it also reads as '" +
               op.arguments[static_cast<size_t>(read)].name + "': eager's answer depends on its kernel's order";
      }
    }
    if (role.role == OpRole::MetadataMutation || resizes) {
      reshaped.insert(owners.at(self));
      continue;
    }
    if (role.role == OpRole::Out && role.written.size() > 1) {
      if (const Node* other = anotherOutSharing(n, op, role, owners)) {
        return "%" + n.name() + " writes %" + other->name() +
               " as two of its outs: eager's answer depends on its "
               "kernel's order";
      }
    }
    if ((role.role != OpRole::InPlace && role.role != OpRole::Out) || role.written.size() != 1) continue;
    if (reshaped.count(owners.at(self))) continue;
    const ReadsOfAWrite reads = readsOfAWrite(n, op, role.written[0], [&](const Node* t) {
      return ArgumentPlace{owners.at(t), t->meta.val.tensor(), certainlyAliases(t)};
    });
    if (reads.other_layout) {
      return "%" + n.name() + " reads %" + reads.other_layout->name() + ", which shares memory with the %" +
             self->name() + " it writes in another layout: eager's answer depends on its kernel's order";
    }
    if (!reads.aliased.empty() && probeAliasedWriteAgrees(n, reads.aliased) == false) {
      return "%" + n.name() + " reads the %" + self->name() + " it writes as '" +
             op.arguments[static_cast<size_t>(reads.aliased[0])].name +
             "': eager's answer depends on its kernel's order";
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> writeEagerLeavesUndefined(const ExportedProgram& p) {
  std::optional<std::string> why;
  forEachWrite(p, [&](const Node& n, const Node& t) {
    const TensorMeta* m = t.meta.val.tensor();
    if (why || !m || !overlapsItself(*m)) return;
    why = "%" + n.name() + " writes into %" + t.name() + " (" + formatTensorMeta(*m) +
          "), whose elements share memory: eager leaves the write undefined";
  });
  if (!why) why = scattersIntoAnOverlap(p);
  return why ? why : readsWhatItWrites(p);
}

}  // namespace epsmith
