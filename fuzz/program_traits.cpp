// Program traits: what a minimized program does that a known bug needs besides its ops and
// message (Note [Program traits] in root_cause.h); see root_cause.h.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "fuzz/aliases.h"
#include "fuzz/root_cause.h"
#include "ir/grad_mode.h"
#include "ir/grad_regions.h"
#include "ir/subgraphs.h"
#include "ir/tensor_geometry.h"
#include "ops/call_args.h"
#include "ops/op_aliases.h"
#include "ops/op_registry.h"
#include "ops/op_roles.h"

namespace epsmith {
namespace {

// An in-place metadata mutation that applies a view changing sizes or strides (squeeze_,
// transpose_, as_strided_), as opposed to resize_ and set_, whose sizes come from
// elsewhere, and detach_, which changes none.
bool isViewApplyingMetadataMutation(const Node& n) {
  if (!n.atenOp()) return false;
  const OpRoleInfo& role = opRole(*n.target.op());
  return role.role == OpRole::MetadataMutation && role.view != ViewFamily::None && role.view != ViewFamily::Identity;
}

// The sizes a call's `k`-th result has, from its meta.val; null where it records none.
const SymIntList* resultSizes(const Node& n, size_t k) {
  if (const TensorMeta* t = n.meta.val.tensor()) return k == 0 ? &t->sizes : nullptr;
  if (const auto* list = std::get_if<Val::List>(&n.meta.val.variant()); list && k < list->size()) {
    if (const TensorMeta* t = (*list)[k].tensor()) return &t->sizes;
  }
  return nullptr;
}

// `t` and the in-place calls on it, or on what one of them returned, in graph order: one
// tensor under several names (sinc_ of an out is the out; unsqueeze_ of it too, resized).
std::vector<const Node*> inPlaceChain(const Graph& g, const Node& t) {
  std::vector<const Node*> chain{&t};
  for (const Node& u : g.nodes()) {
    const OpInfo* op = u.atenOp();
    const OpRole role = op ? opRole(*op).role : OpRole::Unsupported;
    if (role != OpRole::InPlace && role != OpRole::MetadataMutation) continue;
    if (std::find(chain.begin(), chain.end(), boundTensor(u, *op, 0)) != chain.end()) chain.push_back(&u);
  }
  return chain;
}

// The metadata of `w` when `r` runs: what the last in-place call on it before r left (an
// unsqueeze_ changes its sizes), else its own.
const TensorMeta* metaBefore(const Graph& g, const Node& w, const Node& r, const std::map<const Node*, size_t>& order) {
  const TensorMeta* now = w.meta.val.tensor();
  for (const Node* c : inPlaceChain(g, w)) {
    if (order.at(c) >= order.at(&r)) break;
    if (const TensorMeta* m = c->meta.val.tensor()) now = m;
  }
  return now;
}

// Whether a call changes the sizes of a tensor it writes and `then(r, w)` holds of the call
// r and the tensor w. Out= calls, resize_ and set_ resize; `in_place_views` adds the
// metadata mutations that apply a view (transpose_), which change sizes without a resize.
template <typename F>
bool anyResize(const Graph& g, bool in_place_views, F&& then) {
  const auto order = nodeOrder(g);
  for (const Node& r : g.nodes()) {
    if (!r.atenOp()) continue;
    const OpRoleInfo& role = opRole(*r.target.op());
    const bool resizes =
        role.role == OpRole::Out || (in_place_views && (role.role == OpRole::Unsupported ||
                                                        (role.role == OpRole::MetadataMutation && !role.functional)));
    if (!resizes) continue;
    for (size_t k = 0; k < role.return_alias.size(); ++k) {
      const Node* w = role.return_alias[k] < 0 ? nullptr : boundTensor(r, *r.target.op(), role.return_alias[k]);
      const TensorMeta* before = w ? metaBefore(g, *w, r, order) : nullptr;
      const SymIntList* after = resultSizes(r, k);
      if (before && after && before->sizes != *after && then(r, *w)) return true;
    }
  }
  return false;
}

// Whether a view made before `r`, other than `w`, shares w's storage (`owner`) and is
// read after r (`order`).
bool viewReadAfterResize(const Graph& g, const Node& r, const Node& w, const std::map<const Node*, const Node*>& owner,
                         const std::map<const Node*, size_t>& order) {
  for (const Node& v : g.nodes()) {
    if (order.at(&v) >= order.at(&r)) break;
    if (&v == &w || !isViewTensor(v) || owner.at(&v) != owner.at(&w)) continue;
    for (const Node* u : g.users(&v)) {
      if (order.at(u) > order.at(&r)) return true;
    }
  }
  return false;
}

// Whether an ATen call `c` before `r` of which `is(c)` holds, whose self shares `w`'s
// storage, has `then(c)` hold too.
template <typename Is, typename Then>
bool anyEarlierCallOnStorage(const Graph& g, const Node& r, const Node& w,
                             const std::map<const Node*, const Node*>& owner,
                             const std::map<const Node*, size_t>& order, Is&& is, Then&& then) {
  for (const Node& c : g.nodes()) {
    if (order.at(&c) >= order.at(&r)) break;
    if (!c.atenOp() || !is(c)) continue;
    const Node* self = boundTensor(c, *c.target.op(), 0);
    if (self && owner.at(self) == owner.at(&w) && then(c)) return true;
  }
  return false;
}

// Note [Program traits]: "resizes-a-viewed-tensor".
bool resizesAViewedTensor(const Graph& g) {
  const auto owner = storageOwners(g);
  const auto order = nodeOrder(g);
  return anyResize(g, true, [&](const Node& r, const Node& w) {
    return isViewTensor(w) || viewReadAfterResize(g, r, w, owner, order);
  });
}

// Note [Program traits]: "resizes-after-set": out= calls only, into a tensor an earlier
// set_ pointed at its source's storage, the source read after the out= call.
bool resizesAfterSet(const Graph& g) {
  const auto owner = storageOwners(g);
  const auto order = nodeOrder(g);
  auto isSet = [](const Node& s) { return coreOpName(s.target.textName()) == "set"; };
  return anyResize(g, false, [&](const Node& r, const Node& w) {
    return anyEarlierCallOnStorage(g, r, w, owner, order, isSet, [&](const Node& s) {
      const Node* source = boundTensor(s, *s.target.op(), 1);
      if (!source) return false;
      const auto& users = g.users(source);
      return std::any_of(users.begin(), users.end(), [&](const Node* u) { return order.at(u) > order.at(&r); });
    });
  });
}

// The tensor an in-place call's result names, followed back through in-place calls to the
// value that first held it (cos_(m) is m).
const Node& inPlaceRoot(const Node& t) {
  const Node* at = &t;
  while (const OpInfo* op = at->atenOp()) {
    const OpRole role = opRole(*op).role;
    const Node* self = boundTensor(*at, *op, 0);
    if ((role != OpRole::InPlace && role != OpRole::MetadataMutation) || !self) break;
    at = self;
  }
  return *at;
}

// Note [Program traits]: "composite-reads-an-out-resize": out= calls only, a
// CompositeImplicitAutograd op reading the out or the call's result afterwards.
bool compositeReadsAnOutResize(const Graph& g) {
  const auto order = nodeOrder(g);
  return anyResize(g, false, [&](const Node& r, const Node& w) {
    auto composite = [&](const Node* u) {
      return order.at(u) > order.at(&r) && u->atenOp() && u->atenOp()->composite_implicit;
    };
    // The out, the call's result, and every name of them that in-place calls give (sinc_ of
    // the out is the out: moveaxis of it meets the same stale sizes; an out that cos_(m)
    // returned is m).
    std::vector<const Node*> aliases = inPlaceChain(g, r);
    for (const Node* a : inPlaceChain(g, inPlaceRoot(w))) aliases.push_back(a);
    return std::any_of(aliases.begin(), aliases.end(), [&](const Node* a) {
      const auto& users = g.users(a);
      return std::any_of(users.begin(), users.end(), composite);
    });
  });
}

// Note [Program traits]: "resizes-an-input": an out= call, resize_, set_ or in-place view
// changing the sizes of a graph input or of a view of one.
bool resizesAnInput(const Graph& g) {
  const auto owner = storageOwners(g);
  auto ofAnInput = [&](const Node* t) { return t && owner.at(t)->op() == OpKind::Placeholder; };
  for (const Node& m : g.nodes()) {
    if (isViewApplyingMetadataMutation(m) && ofAnInput(boundTensor(m, *m.target.op(), 0))) return true;
  }
  return anyResize(g, true, [&](const Node&, const Node& w) { return ofAnInput(&w); });
}

// Note [Program traits]: "resizes-an-out-that-requires-grad".
bool resizesAnOutThatRequiresGrad(const Graph& g) {
  return anyResize(g, false, [](const Node&, const Node& w) {
    const TensorMeta* m = w.meta.val.tensor();
    return m && m->requires_grad;
  });
}

// Note [Program traits]: "resizes-after-a-metadata-mutation": out= calls only, into a
// tensor whose storage an earlier in-place metadata mutation that applies a view
// (unsqueeze_, transpose_) changed.
bool resizesAfterAMetadataMutation(const Graph& g) {
  const auto owner = storageOwners(g);
  const auto order = nodeOrder(g);
  return anyResize(g, false, [&](const Node& r, const Node& w) {
    return anyEarlierCallOnStorage(g, r, w, owner, order, isViewApplyingMetadataMutation,
                                   [](const Node&) { return true; });
  });
}

// Note [Program traits]: "writes-a-view-copy-out": an out= call whose functional form is
// the copying form of a view op (squeeze_copy.out, alias_copy.out, view_copy.out).
bool writesAViewCopyOut(const Graph& g) {
  for (const Node& n : g.nodes()) {
    if (!n.atenOp()) continue;
    const OpRoleInfo& role = opRole(*n.target.op());
    const auto copied = role.role == OpRole::Out && role.functional ? copiedOpName(*role.functional) : std::nullopt;
    const OpInfo* view = copied ? findOp(*copied, role.functional->overload) : nullptr;
    if (view && (opRole(*view).role == OpRole::View || opRole(*view).role == OpRole::MaybeView)) return true;
  }
  return false;
}

// Note [Program traits]: "sets-from-a-source-with-an-offset".
bool setsFromASourceWithAnOffset(const Graph& g) {
  for (const Node& n : g.nodes()) {
    if (!n.atenOp()) continue;
    if (coreOpName(n.target.textName()) != "set" || n.target.op()->overload != "source_Tensor_storage_offset") continue;
    const Node* source = boundTensor(n, *n.target.op(), 1);
    const TensorMeta* m = source ? source->meta.val.tensor() : nullptr;
    if (m && (!m->storage_offset.isConcrete() || m->storage_offset.concrete() != 0)) return true;
  }
  return false;
}

// A set_ (or the functional set) whose source tensor has another dtype than its self.
bool setsAnotherDtype(const Graph& g) {
  for (const Node& n : g.nodes()) {
    if (!n.atenOp()) continue;
    if (coreOpName(n.target.textName()) != "set") continue;
    const Node* self = boundTensor(n, *n.target.op(), 0);
    const Node* source = boundTensor(n, *n.target.op(), 1);
    const TensorMeta* a = self ? self->meta.val.tensor() : nullptr;
    const TensorMeta* b = source ? source->meta.val.tensor() : nullptr;
    if (a && b && a->dtype != b->dtype) return true;
  }
  return false;
}

// Note [Program traits]: "reshape-copies-a-written-tensor".
bool reshapeCopiesAWrittenTensor(const Graph& g) {
  const auto owner = storageOwners(g);
  const auto order = nodeOrder(g);
  auto inPlace = [](const Node& c) { return opRole(*c.target.op()).role == OpRole::InPlace; };
  for (const Node& n : g.nodes()) {
    if (!n.atenOp()) continue;
    const OpInfo& op = *n.target.op();
    const OpRoleInfo& role = opRole(op);
    if (role.role != OpRole::MaybeView ||
        (role.view != ViewFamily::Reshape && op.qualified_name != "aten::contiguous")) {
      continue;
    }
    const Node* in = boundTensor(n, op, 0);
    const TensorMeta* from = in ? in->meta.val.tensor() : nullptr;
    if (!from || !n.meta.val.tensor() || maybeViewAliases(n, op, *from)) continue;  // eager views
    if (anyEarlierCallOnStorage(g, n, *in, owner, order, inPlace, [](const Node&) { return true; })) return true;
  }
  return false;
}

// Note [Program traits]: "views-as-another-dtype".
bool viewsAsAnotherDtype(const Graph& g) {
  return std::any_of(g.nodes().begin(), g.nodes().end(), [](const Node& n) {
    if (!n.atenOp()) return false;
    const std::string name = coreOpName(n.target.textName());
    return (name == "view" || name == "view_copy") && n.target.op()->overload.rfind("dtype", 0) == 0;
  });
}

// Note [Program traits]: "resizes-a-strided-view-to-its-sizes".
bool resizesAStridedViewToItsSizes(const Graph& g) {
  return std::any_of(g.nodes().begin(), g.nodes().end(), [](const Node& n) {
    const OpInfo* op = n.atenOp();
    if (!op || op->qualified_name != "aten::resize_") return false;
    const Node* self = boundTensor(n, *op, 0);
    const TensorMeta* before = self ? self->meta.val.tensor() : nullptr;
    const TensorMeta* after = n.meta.val.tensor();
    return before && after && before->sizes == after->sizes && isViewTensor(*self) && !isContiguous(*before);
  });
}

// Note [Program traits]: "detaches-a-view".
bool detachesAView(const Graph& g) {
  return std::any_of(g.nodes().begin(), g.nodes().end(), [](const Node& n) {
    if (!n.atenOp()) return false;
    if (coreOpName(n.target.textName()) != "detach") return false;
    const Node* self = boundTensor(n, *n.target.op(), 0);
    return self && (isViewTensor(*self) || isHiddenAlias(*self));
  });
}

// Note [Program traits]: "mutates-metadata-in-place".
bool mutatesMetadataInPlace(const Graph& g) {
  return std::any_of(g.nodes().begin(), g.nodes().end(), isViewApplyingMetadataMutation);
}

// Note [Program traits]: "writes-a-parameter-under-no-grad".
bool writesAParameterUnderNoGrad(const ExportedProgram& p) {
  const OrderedMap parameters = p.signature.inputsToParameters();
  const auto owners = storageOwners(p.graph());
  bool grad = true;
  for (const Node& n : p.graph().nodes()) {
    if (auto mode = gradModeSet(n)) grad = *mode;
    const OpRole role = n.atenOp() ? opRole(*n.target.op()).role : OpRole::Functional;
    if (grad || (role != OpRole::InPlace && role != OpRole::Out && role != OpRole::MetadataMutation)) continue;
    const int written = aliasedArgument(n, 0);
    const Node* t = written < 0 ? nullptr : boundTensor(n, *n.target.op(), written);
    const auto owner = t ? owners.find(t) : owners.end();
    if (owner != owners.end() && lookup(parameters, owner->second->name())) return true;
  }
  return false;
}

// Whether dimension `d` of `m` holds one element at several positions: a stride of 0 and
// more than one element (an expand's, a stride-0 input's).
bool repeatsAlong(const TensorMeta& m, size_t d) {
  if (d >= m.sizes.size() || d >= m.strides.size()) return false;
  const SymIntValue &size = m.sizes[d], &stride = m.strides[d];
  return stride.isConcrete() && stride.concrete() == 0 && (!size.isConcrete() || size.concrete() > 1);
}

// Whether any dimension of `m` does.
bool overlapsItself(const TensorMeta* m) {
  for (size_t d = 0; m && d < m->sizes.size(); ++d) {
    if (repeatsAlong(*m, d)) return true;
  }
  return false;
}

// Note [Program traits]: "reduces-along-a-stride-0-dimension".
bool reducesAlongAStride0Dimension(const Graph& g) {
  for (const Node& n : g.nodes()) {
    const OpInfo* op = n.atenOp();
    if (!op || op->arguments.empty() || op->arguments[0].name != "self") continue;
    for (size_t i = 1; i < op->arguments.size(); ++i) {
      if (op->arguments[i].name != "dim" || op->arguments[i].type != ParamType::Int) continue;
      const Node* self = boundTensor(n, *op, 0);
      const TensorMeta* m = self ? self->meta.val.tensor() : nullptr;
      const auto dim = intArgument(n, *op, i, std::nullopt);
      if (!m || !dim || m->sizes.empty()) continue;
      const int64_t rank = static_cast<int64_t>(m->sizes.size());
      const int64_t d = *dim < 0 ? *dim + rank : *dim;
      if (d >= 0 && d < rank && repeatsAlong(*m, static_cast<size_t>(d))) return true;
    }
  }
  return false;
}

// Note [Program traits]: "writes-an-input-whose-elements-overlap".
bool writesAnInputWhoseElementsOverlap(const Graph& g) {
  const auto owners = storageOwners(g);
  for (const Node& n : g.nodes()) {
    const OpRole role = n.atenOp() ? opRole(*n.target.op()).role : OpRole::Functional;
    if (role != OpRole::InPlace && role != OpRole::Out) continue;
    const int written = aliasedArgument(n, 0);
    const Node* t = written < 0 ? nullptr : boundTensor(n, *n.target.op(), written);
    const auto owner = t ? owners.find(t) : owners.end();
    if (owner == owners.end() || owner->second->op() != OpKind::Placeholder) continue;
    if (overlapsItself(owner->second->meta.val.tensor())) return true;
  }
  return false;
}

// Note [Program traits]: "submodule-entry-names-an-output".
bool submoduleEntryNamesAnOutput(const ExportedProgram& p) {
  return std::any_of(p.module_call_graph.begin(), p.module_call_graph.end(), [&](const ModuleCallEntry& entry) {
    if (entry.fqn.empty() || !entry.signature) return false;
    const auto& outs = entry.signature->outputs;
    return std::any_of(outs.begin(), outs.end(),
                       [&](const SpecArg& a) { return a.hasNodeName() && p.graph().find(a.name); });
  });
}

// Note [Program traits]: "returns-an-empty-tensor-list".
bool returnsAnEmptyTensorList(const Graph& g) {
  return std::any_of(g.nodes().begin(), g.nodes().end(), [](const Node& n) {
    const auto* list = n.atenOp() ? n.meta.val.list() : nullptr;
    return list && list->empty();
  });
}

// Whether graph trait `trait` holds of `g` or of a subgraph in it: a grad region's or a
// branch's calls are the program's too. (Traits that read the signature's inputs, as
// resizes-an-input, read the program's graph alone, its grad regions laid out inline.)
bool inAnyGraph(const Graph& g, bool (*trait)(const Graph&)) {
  bool holds = false;
  forEachGraph(g, [&](const Graph& each) { holds = holds || trait(each); });
  return holds;
}

}  // namespace

namespace {

// Note [Program traits]: "writes-inside-an-autocast-region".
bool writesInsideAnAutocastRegion(const Graph& g) {
  for (const Node& n : g.nodes()) {
    const Graph* body = autocastRegionBody(g, n);
    if (!body) continue;
    for (const Node& s : body->nodes()) {
      if (s.atenOp() && s.atenOp()->is_mutable) return true;
    }
  }
  return false;
}

}  // namespace

// Note [Program traits]: "nests-a-higher-order-op".
bool nestsAHigherOrderOp(const Graph& g) {
  for (const auto& [path, attr] : g.attributes()) {
    if (!attr.subgraph) continue;
    for (const Node& n : attr.subgraph->nodes()) {
      if (n.target.kind() == Target::Kind::HigherOrder) return true;
    }
  }
  return false;
}

namespace {

// `p` with its grad regions laid out inline between bare `_set_grad_enabled` calls, as older
// exports wrote them, and its autocast regions between bare _enter_autocast/_exit_autocast
// calls: the traits that follow a write back to a graph input or a parameter, or read the
// grad mode a call runs under, then see a region's calls where they run (a region's
// placeholder is no graph input). `p` itself where it has no region, or one that cannot be
// laid out (a nested higher-order op).
const ExportedProgram& withRegionsInline(const ExportedProgram& p, std::optional<ExportedProgram>& copy) {
  Graph& graph = const_cast<Graph&>(p.graph());
  if (gradRegionsOf(graph, /*grad_enabled=*/true).empty() && autocastRegionsOf(graph).empty()) return p;
  copy.emplace(p.clone());
  for (const auto& [hop, around] : gradRegionsOf(copy->graph(), /*grad_enabled=*/true)) {
    if (inlineGradRegion(copy->graph(), hop, around)) return p;
  }
  for (Node* hop : autocastRegionsOf(copy->graph())) {
    if (inlineAutocastRegion(copy->graph(), hop, /*keep_autocast=*/true)) return p;
  }
  return *copy;
}

}  // namespace

std::vector<std::string> programTraits(const ExportedProgram& original) {
  std::optional<ExportedProgram> copy;
  const ExportedProgram& p = withRegionsInline(original, copy);
  std::vector<std::string> traits;
  if (inAnyGraph(p.graph(), resizesAViewedTensor)) traits.emplace_back("resizes-a-viewed-tensor");
  if (writesAnUndeclaredAlias(p)) traits.emplace_back("writes-an-undeclared-alias");
  if (inAnyGraph(p.graph(), setsAnotherDtype)) traits.emplace_back("sets-another-dtype");
  if (inAnyGraph(p.graph(), writesAViewCopyOut)) traits.emplace_back("writes-a-view-copy-out");
  if (inAnyGraph(p.graph(), setsFromASourceWithAnOffset)) traits.emplace_back("sets-from-a-source-with-an-offset");
  if (inAnyGraph(p.graph(), mutatesMetadataInPlace)) traits.emplace_back("mutates-metadata-in-place");
  if (writesThroughAnUnfoldWithGaps(p)) traits.emplace_back("writes-through-an-unfold-with-gaps");
  if (writesThroughAnExpand(p)) traits.emplace_back("writes-through-an-expand");
  if (writesThroughABoolView(p)) traits.emplace_back("writes-through-a-bool-view");
  if (inAnyGraph(p.graph(), resizesAfterSet)) traits.emplace_back("resizes-after-set");
  if (inAnyGraph(p.graph(), compositeReadsAnOutResize)) traits.emplace_back("composite-reads-an-out-resize");
  if (resizesAnInput(p.graph())) traits.emplace_back("resizes-an-input");
  if (inAnyGraph(p.graph(), resizesAfterAMetadataMutation)) traits.emplace_back("resizes-after-a-metadata-mutation");
  if (requiresGradOfAFactoryView(p)) traits.emplace_back("requires-grad-of-a-factory-view");
  if (inAnyGraph(p.graph(), viewsAsAnotherDtype)) traits.emplace_back("views-as-another-dtype");
  if (inAnyGraph(p.graph(), detachesAView)) traits.emplace_back("detaches-a-view");
  if (inAnyGraph(p.graph(), reshapeCopiesAWrittenTensor)) traits.emplace_back("reshape-copies-a-written-tensor");
  if (writesUnderAStridedReshape(p)) traits.emplace_back("writes-under-a-strided-reshape");
  if (inAnyGraph(p.graph(), resizesAStridedViewToItsSizes)) traits.emplace_back("resizes-a-strided-view-to-its-sizes");
  if (!p.signature.inputTokens().empty()) traits.emplace_back("takes-an-effect-token");
  if (inAnyGraph(p.graph(), returnsAnEmptyTensorList)) traits.emplace_back("returns-an-empty-tensor-list");
  if (addressesAWrittenStridedTensor(p)) traits.emplace_back("addresses-a-written-strided-tensor");
  if (writesAParameterUnderNoGrad(p)) traits.emplace_back("writes-a-parameter-under-no-grad");
  // The module call graph names the region's getitems, and nesting is the regions' own.
  if (submoduleEntryNamesAnOutput(original)) traits.emplace_back("submodule-entry-names-an-output");
  if (nestsAHigherOrderOp(original.graph())) traits.emplace_back("nests-a-higher-order-op");
  if (inAnyGraph(p.graph(), resizesAnOutThatRequiresGrad)) traits.emplace_back("resizes-an-out-that-requires-grad");
  if (writesAnInputWhoseElementsOverlap(p.graph())) traits.emplace_back("writes-an-input-whose-elements-overlap");
  if (inAnyGraph(p.graph(), reducesAlongAStride0Dimension)) traits.emplace_back("reduces-along-a-stride-0-dimension");
  // Laid out inline, a region's writes are no longer inside it.
  if (inAnyGraph(original.graph(), writesInsideAnAutocastRegion))
    traits.emplace_back("writes-inside-an-autocast-region");
  return traits;
}

}  // namespace epsmith
