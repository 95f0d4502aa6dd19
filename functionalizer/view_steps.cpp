// Replaying and inverting view steps; see view_steps.h and Note [View inverses] in
// ops/op_roles.cpp.
#include "functionalizer/view_steps.h"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "functionalizer/planted_faults.h"

namespace epsmith::functionalizer {
namespace {

const OpInfo& op(std::string_view name) {
  const OpInfo* info = findOpByName(name);
  if (!info) throw std::logic_error("the dispatcher lacks " + std::string(name));
  return *info;
}

int64_t wrapDim(int64_t d, int64_t rank) { return d < 0 ? d + std::max<int64_t>(rank, 1) : d; }

// Output dim i of the view is input dim perm[i].
std::optional<std::vector<int64_t>> permutation(const ViewStep& s, int64_t rank) {
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  std::iota(perm.begin(), perm.end(), 0);
  const std::string& name = s.op->qualified_name;
  auto swap = [&](int64_t a, int64_t b) -> bool {
    if (rank == 0) return true;  // a 0-d tensor transposes with dims 0/-1: nothing moves
    a = wrapDim(a, rank);
    b = wrapDim(b, rank);
    if (a < 0 || b < 0 || a >= rank || b >= rank) return false;
    std::swap(perm[a], perm[b]);
    return true;
  };
  if (name == "aten::permute") {
    auto dims = intListArgument(*s.node, *s.op, 1);
    if (!dims || static_cast<int64_t>(dims->size()) != rank) return std::nullopt;
    for (size_t i = 0; i < dims->size(); ++i) perm[i] = wrapDim((*dims)[i], rank);
    return perm;
  }
  if (name == "aten::transpose" || name == "aten::swapaxes" || name == "aten::swapdims") {
    auto a = intArgument(*s.node, *s.op, 1, std::nullopt), b = intArgument(*s.node, *s.op, 2, std::nullopt);
    if (!a || !b || !swap(*a, *b)) return std::nullopt;
    return perm;
  }
  if (name == "aten::t") {
    if (rank == 2) swap(0, 1);
    return perm;
  }
  if (name == "aten::numpy_T") {
    std::reverse(perm.begin(), perm.end());
    return perm;
  }
  if (name == "aten::adjoint" || name == "aten::mT" || name == "aten::mH" || name == "aten::matrix_H") {
    if (rank < 2) return std::nullopt;
    swap(rank - 2, rank - 1);
    return perm;
  }
  if (name == "aten::movedim" || name == "aten::moveaxis") {
    std::vector<int64_t> from, to;
    if (s.op->overload == "int") {
      auto a = intArgument(*s.node, *s.op, 1, std::nullopt), b = intArgument(*s.node, *s.op, 2, std::nullopt);
      if (!a || !b) return std::nullopt;
      from = {*a};
      to = {*b};
    } else {
      auto a = intListArgument(*s.node, *s.op, 1), b = intListArgument(*s.node, *s.op, 2);
      if (!a || !b || a->size() != b->size()) return std::nullopt;
      from = *a;
      to = *b;
    }
    std::vector<int64_t> result(static_cast<size_t>(rank), -1);
    std::vector<bool> used(static_cast<size_t>(rank), false);
    for (size_t k = 0; k < from.size(); ++k) {
      int64_t f = wrapDim(from[k], rank), d = wrapDim(to[k], rank);
      if (f < 0 || d < 0 || f >= rank || d >= rank) return std::nullopt;
      result[d] = f;
      used[f] = true;
    }
    int64_t next = 0;
    for (auto& r : result) {
      if (r >= 0) continue;
      while (used[next]) ++next;
      r = next++;
    }
    return result;
  }
  return std::nullopt;
}

Argument argumentOr(const Node& n, const OpInfo& o, size_t i, Argument fallback) {
  const Argument* a = schemaArgument(n, o, i);
  return a ? *a : fallback;
}

// The schema index of the argument named `name` (as_strided and as_strided_copy take their
// geometry from index 1, as_strided_scatter from 2: src comes first); past the arguments
// when there is none.
size_t argumentIndex(const OpInfo& o, std::string_view name) {
  const int i = o.argumentIndex(name);
  return i < 0 ? o.arguments.size() : static_cast<size_t>(i);
}

// as_strided's storage_offset, explicit (Note [as_strided views hang off the storage root]):
// None, or left out, means the offset of the tensor it is called on (its argument's meta);
// replayed from the storage root, it would mean the root's offset instead. nullopt when
// that offset is symbolic.
std::optional<Argument> explicitStorageOffset(const Node& n, const OpInfo& o) {
  Argument a = argumentOr(n, o, argumentIndex(o, "storage_offset"), arg::None{});
  if (a.kind() != ArgKind::None) return a;
  const Argument* self = schemaArgument(n, o, 0);
  const auto* t = self ? self->get<arg::Tensor>() : nullptr;
  const TensorMeta* m = t && t->node ? t->node->meta.val.tensor() : nullptr;
  if (!m || !m->storage_offset.isConcrete()) return std::nullopt;
  return Argument(arg::Int{m->storage_offset.concrete()});
}

bool literalOnly(const Argument& a) {
  bool literal = true;
  a.forEachNode([&](const Node*) { literal = false; });
  return literal;
}

}  // namespace

// Note [Views replayed by their sizes]
// view_as, expand_as and reshape_as read only the other tensor's sizes, and those as they
// were when the view was taken: a metadata mutation of the other tensor since (swapdims_,
// squeeze_) must not reshape a replayed view. And view and view_as become reshape: on a
// storage that was written, the base is a value the graph computed (a scatter, a permute
// back from a written transpose), whose strides need not be eager's, and view refuses sizes
// those strides cannot express. A functional graph has no aliasing to keep, so reshape gives
// the same values.
const OpInfo* sizedForm(const OpInfo& view_op) {
  static const std::pair<const char*, const char*> kSizedForms[] = {{"aten::view_as", "aten::reshape"},
                                                                    {"aten::view", "aten::reshape"},
                                                                    {"aten::expand_as", "aten::expand"},
                                                                    {"aten::reshape_as", "aten::reshape"}};
  if (!view_op.overload.empty()) return nullptr;  // view.dtype
  for (const auto& [as_form, sized] : kSizedForms) {
    if (view_op.qualified_name == as_form) return &op(sized);
  }
  return nullptr;
}

bool pinStorageOffset(const Node& n, const OpInfo& o, std::vector<Argument>& args,
                      std::vector<std::pair<std::string, Argument>>& kwargs) {
  auto offset = explicitStorageOffset(n, o);
  if (!offset) return false;
  for (auto& [name, a] : kwargs) {
    if (name == "storage_offset") {
      a = *offset;
      return true;
    }
  }
  const size_t at = argumentIndex(o, "storage_offset");
  if (args.size() > at)
    args[at] = *offset;
  else if (args.size() == at)
    args.push_back(*offset);
  else
    kwargs.emplace_back("storage_offset", *offset);
  return true;
}

// A bool tensor's copy keeps only whether each byte is 0 (LibTorch's copy kernels load
// bools as bools; 1.13 and 2.13), and eager's tensor keeps its bytes, which a dtype view
// reads (a bool view of a float, viewed back). So a bool value is copied as the uint8 it
// is bytewise and viewed as bool again.
Node* contiguousCopy(Emitter& e, Node* value, const TensorMeta& meta) {
  const std::vector<std::pair<std::string, Argument>> contiguous{
      {"memory_format", arg::MemFormat{MemoryFormat::Contiguous}}};
  if (meta.dtype != ScalarType::Bool) return e.call(op("aten::clone"), {arg::Tensor{value}}, meta, contiguous);
  TensorMeta bytes = meta;
  bytes.dtype = ScalarType::Byte;
  Node* as_bytes = e.call(op("aten::view.dtype"), {arg::Tensor{value}, arg::Dtype{ScalarType::Byte}}, bytes);
  Node* copy = e.call(op("aten::clone"), {arg::Tensor{as_bytes}}, bytes, contiguous);
  return e.call(op("aten::view.dtype"), {arg::Tensor{copy}, arg::Dtype{ScalarType::Bool}}, meta);
}

TensorMeta contiguousMeta(const TensorMeta& m) {
  auto sizes = concreteSizes(m);
  if (!sizes) return m;
  TensorMeta c = m;
  const TensorMeta dense = TensorMeta::contiguous(m.dtype, *sizes);
  c.strides = dense.strides;
  c.storage_offset = dense.storage_offset;
  return c;
}

Node* laidOutForDtypeView(Emitter& e, Node* value, const TensorMeta& meta) {
  auto sizes = concreteSizes(meta);
  std::vector<int64_t> strides;
  for (const auto& st : meta.strides) {
    if (st.isConcrete()) strides.push_back(st.concrete());
  }
  if (sizes && strides.size() == sizes->size() && numelOf(meta) == 0) {
    TensorMeta at = meta;
    at.storage_offset = SymIntValue(int64_t{0});
    return e.call(op("aten::as_strided"),
                  {arg::Tensor{value}, arg::IntList{*sizes}, arg::IntList{strides}, arg::Int{0}}, at);
  }
  return contiguousCopy(e, value, contiguousMeta(meta));
}

bool standsForStorage(const TensorMeta& root) {
  return root.storage_offset.isConcrete() && root.storage_offset.concrete() == 0 && isContiguous(root);
}

bool addressesOnlyItsRoot(const Node& n, const OpInfo& o, const TensorMeta& root) {
  return standsForStorage(root) && asStridedWithin(n, o, root);
}

std::optional<std::pair<int64_t, int64_t>> tensorSplitBounds(const Node& split, size_t k, const TensorMeta& base,
                                                             int64_t dim) {
  const OpInfo* o = split.target.op();
  // tensor_split.indices and the `array` forms of hsplit, vsplit and dsplit (which call it)
  const bool by_indices = o && ((o->qualified_name == "aten::tensor_split" && o->overload == "indices") ||
                                ((o->qualified_name == "aten::hsplit" || o->qualified_name == "aten::vsplit" ||
                                  o->qualified_name == "aten::dsplit") &&
                                 o->overload == "array"));
  if (!by_indices) return std::nullopt;
  auto indices = intListArgument(split, *o, 1);
  if (!indices || k > indices->size() || static_cast<size_t>(dim) >= base.sizes.size()) return std::nullopt;
  if (!base.sizes[static_cast<size_t>(dim)].isConcrete()) {
    // slice wraps and clamps them at run time, at whatever size the base has
    const int64_t start = k == 0 ? 0 : (*indices)[k - 1];
    const int64_t end = k == indices->size() ? std::numeric_limits<int64_t>::max() : (*indices)[k];
    return std::make_pair(start, end);
  }
  const int64_t size = base.sizes[static_cast<size_t>(dim)].concrete();
  auto clamp = [size](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + size : i, 0, size); };
  const int64_t start = k == 0 ? 0 : clamp((*indices)[k - 1]);
  const int64_t end = k == indices->size() ? size : clamp((*indices)[k]);
  return std::make_pair(start, std::max(start, end));
}

bool asStridedWithin(const Node& n, const OpInfo& o, const TensorMeta& root) {
  auto sizes = intListArgument(n, o, argumentIndex(o, "size"));
  auto strides = intListArgument(n, o, argumentIndex(o, "stride"));
  auto offset = explicitStorageOffset(n, o);
  const int64_t* start = offset ? (offset->get<arg::Int>() ? &offset->get<arg::Int>()->value : nullptr) : nullptr;
  if (!sizes || !strides || !start || sizes->size() != strides->size() || *start < 0) return false;
  int64_t last = *start;
  for (size_t d = 0; d < sizes->size(); ++d) {
    if ((*sizes)[d] == 0) return true;  // no element at all
    if ((*strides)[d] < 0) return false;
    last += ((*sizes)[d] - 1) * (*strides)[d];
  }
  return last < numelOf(root);
}

Node* replayView(Emitter& e, const ViewStep& step, Node* base, const TensorMeta& meta, const Resolve& resolve) {
  switch (step.kind) {
    case ViewStep::Kind::Slice:
      return e.call(op("aten::slice.Tensor"),
                    {arg::Tensor{base}, arg::Int{step.dim}, arg::Int{step.start}, arg::Int{step.end}}, meta);
    case ViewStep::Kind::Select:
      return e.call(op("aten::select.int"), {arg::Tensor{base}, arg::Int{step.dim}, arg::Int{step.start}}, meta);
    case ViewStep::Kind::Restride:
      return e.call(op("aten::as_strided"),
                    {arg::Tensor{base}, arg::IntList{step.sizes}, arg::IntList{step.strides}, arg::Int{step.start}},
                    meta);
    case ViewStep::Kind::Op: break;
  }
  if (const OpInfo* sized = sizedForm(*step.op)) {
    if (auto sizes = concreteSizes(meta)) return e.call(*sized, {arg::Tensor{base}, arg::IntList{*sizes}}, meta);
  }
  std::vector<Argument> args = step.node->args;
  auto kwargs = step.node->kwargs;
  if (step.family == ViewFamily::AsStrided) pinStorageOffset(*step.node, *step.op, args, kwargs);
  const Resolve then = [&](const Node* n) {
    for (const auto& [source, value] : step.read_then) {
      if (source == n) return value;
    }
    return resolve(n);
  };
  setSelf(args, kwargs, base, then);
  return e.call(*step.op, std::move(args), meta, std::move(kwargs));
}

void setSelf(std::vector<Argument>& args, std::vector<std::pair<std::string, Argument>>& kwargs, Node* self,
             const Resolve& resolve) {
  bool self_set = false;
  for (auto& [name, a] : kwargs) {
    if (name == "self") {
      a = arg::Tensor{self};
      self_set = true;
    } else {
      a.forEachNodeRef([&](Node*& n) { n = resolve(n); });
    }
  }
  for (size_t i = self_set ? 0 : 1; i < args.size(); ++i) args[i].forEachNodeRef([&](Node*& n) { n = resolve(n); });
  if (!self_set) {
    if (args.empty()) args.emplace_back();
    args[0] = arg::Tensor{self};
  }
}

namespace {

// A reshape's inverse: `src` reshaped to the base's sizes, read off the base at run time
// (aten::size.int) where they are symbolic.
Node* reshapeBack(Emitter& e, Node* base, const TensorMeta& base_meta, Node* src, const Val& val) {
  if (auto sizes = concreteSizes(base_meta))
    return e.call(op("aten::reshape"), {arg::Tensor{src}, arg::IntList{*sizes}}, val);
  arg::SymIntList shape;
  for (size_t d = 0; d < base_meta.sizes.size(); ++d) {
    const SymIntValue& size = base_meta.sizes[d];
    arg::SymScalar<int64_t> s;
    if (size.isConcrete()) {
      s.literal = size.concrete();
    } else {
      s.node = e.call(op("aten::size.int"), {arg::Tensor{base}, arg::Int{static_cast<int64_t>(d)}},
                      Val::SymInt{size.expr()});
    }
    shape.values.push_back(s);
  }
  return e.call(op("aten::reshape"), {arg::Tensor{src}, shape}, val);
}

// Note [Expands that overlap nothing]
// An expand (broadcast_to, expand_as) repeats an element wherever it takes a size-1
// dimension to a larger size, and a write through such a view is undefined in eager (the
// kernel's order decides which element lands). An expand that only keeps the base's sizes,
// or adds leading dimensions of size 1 (broadcast_to(y, y.shape), expand_as a tensor of the
// same shape), repeats nothing: every element of the view is one of the base's, at the
// same place in row-major order. Its inverse is the written value reshaped to the base's
// sizes. Such an expand is what a module writes when it broadcasts a tensor that already
// has the shape; PyTorch's own decomposition of the write turns inf and NaN elements into
// NaN (`functionalization-expand-inverse-rounds`), which is why the pass must get it right
// rather than refuse it.
std::optional<Node*> expandOfDistinctElementsBack(Emitter& e, const ViewStep& step, const TensorMeta& base_meta,
                                                  Node* src, const Val& val) {
  const TensorMeta* view = step.node ? step.node->meta.val.tensor() : nullptr;
  if (!view) return std::nullopt;
  auto view_sizes = concreteSizes(*view);
  auto base_sizes = concreteSizes(base_meta);
  if (!view_sizes || !base_sizes || view_sizes->size() < base_sizes->size()) return std::nullopt;
  const size_t added = view_sizes->size() - base_sizes->size();
  for (size_t d = 0; d < view_sizes->size(); ++d) {
    const int64_t was = d < added ? 1 : (*base_sizes)[d - added];
    if ((*view_sizes)[d] != was) return std::nullopt;  // a repeated element (or an empty view)
  }
  return e.call(op("aten::reshape"), {arg::Tensor{src}, arg::IntList{*base_sizes}}, val);
}

// The step's three int arguments after self (unfold's dimension, size and step, narrow's
// dim, start and length), where all are literal.
std::optional<std::array<int64_t, 3>> threeLiteralInts(const ViewStep& step) {
  auto a = intArgument(*step.node, *step.op, 1, std::nullopt), b = intArgument(*step.node, *step.op, 2, std::nullopt),
       c = intArgument(*step.node, *step.op, 3, std::nullopt);
  if (!a || !b || !c) return std::nullopt;
  return std::array<int64_t, 3>{*a, *b, *c};
}

// An unfold's inverse: its windows, which do not overlap, as an as_strided view of a
// contiguous copy of the base, scattered into. Fails (why, with no place) where it has none.
Expected<Node*> unfoldBack(Emitter& e, const ViewStep& step, Node* base, const TensorMeta& base_meta, Node* src) {
  const int64_t rank = static_cast<int64_t>(base_meta.sizes.size());
  const auto args = threeLiteralInts(step);
  auto sizes = concreteSizes(base_meta);
  if (!args || !sizes || rank == 0) return Diagnostic{"", "its arguments are not literal"};
  const auto [dim, size, stp] = *args;
  if (stp < size) return Diagnostic{"", "its windows overlap (step < size), so eager leaves the write undefined"};
  const int64_t d = wrapDim(dim, rank);
  if (d < 0 || d >= rank || size <= 0 || stp <= 0 || (*sizes)[d] < size) {
    return Diagnostic{"", "its arguments do not fit the base"};
  }
  std::vector<int64_t> strides(sizes->size(), 1);
  for (size_t i = sizes->size(); i-- > 1;) strides[i - 1] = strides[i] * std::max<int64_t>((*sizes)[i], 1);
  std::vector<int64_t> view_sizes = *sizes, view_strides = strides;
  view_sizes[d] = ((*sizes)[d] - size) / stp + 1;
  view_strides[d] = strides[d] * stp;
  view_sizes.push_back(size);
  view_strides.push_back(strides[d]);
  TensorMeta contiguous = base_meta;
  contiguous.strides.assign(strides.begin(), strides.end());
  Node* dense = e.call(op("aten::clone"), {arg::Tensor{base}}, contiguous,
                       {{"memory_format", arg::MemFormat{MemoryFormat::Contiguous}}});
  return e.call(
      op("aten::as_strided_scatter"),
      {arg::Tensor{dense}, arg::Tensor{src}, arg::IntList{view_sizes}, arg::IntList{view_strides}, arg::Int{0}},
      contiguous);
}

// Steps the pass made itself (an element of a split or unbind, a tensor an
// out= call shrank) carry their geometry in the step, not in a source node.
std::optional<Node*> invertRecorded(Emitter& e, const ViewStep& step, Node* base, const Val& val, Node* src) {
  switch (step.kind) {
    case ViewStep::Kind::Slice:
      return e.call(op("aten::slice_scatter"),
                    {arg::Tensor{base}, arg::Tensor{src}, arg::Int{step.dim}, arg::Int{step.start}, arg::Int{step.end}},
                    val);
    case ViewStep::Kind::Restride:
      return e.call(op("aten::as_strided_scatter"),
                    {arg::Tensor{base}, arg::Tensor{src}, arg::IntList{step.sizes}, arg::IntList{step.strides},
                     arg::Int{step.start}},
                    val);
    case ViewStep::Kind::Select:
      return e.call(op("aten::select_scatter"),
                    {arg::Tensor{base}, arg::Tensor{src}, arg::Int{step.dim}, arg::Int{step.start}}, val);
    default: return std::nullopt;
  }
}

Expected<Node*> cannotInvert(const OpInfo& o, const std::string& why) {
  return Diagnostic{"", "cannot carry a write through " + o.name() + " back to its base: " + why};
}

Expected<Node*> permuteBack(Emitter& e, const ViewStep& step, int64_t rank, const Val& val, Node* src) {
  auto perm = permutation(step, rank);
  if (!perm) return cannotInvert(*step.op, "its dims are not literal");
  std::vector<int64_t> inverse(perm->size());
  bool identity = true;
  for (size_t i = 0; i < perm->size(); ++i) {
    inverse[static_cast<size_t>((*perm)[i])] = static_cast<int64_t>(i);
    identity = identity && (*perm)[i] == static_cast<int64_t>(i);
  }
  if (identity) return src;
  return e.call(op("aten::permute"), {arg::Tensor{src}, arg::IntList{inverse}}, val);
}

// A scatter whose geometry is copied from the view node: only literal geometry
// can be carried, since the scatter's meta is computed from numbers.
Expected<Node*> literalScatter(Emitter& e, const OpInfo& o, const char* scatter, std::vector<Argument> args,
                               const Val& val, const char* why) {
  for (const auto& a : args) {
    if (a.kind() != ArgKind::Tensor && !literalOnly(a)) return cannotInvert(o, why);
  }
  return e.call(op(scatter), std::move(args), val);
}

Expected<Node*> narrowBack(Emitter& e, const ViewStep& step, Node* base, const TensorMeta& base_meta, Node* src) {
  const OpInfo& o = *step.op;
  const int64_t rank = static_cast<int64_t>(base_meta.sizes.size());
  const auto args = threeLiteralInts(step);
  auto sizes = concreteSizes(base_meta);
  if (!args || !sizes) return cannotInvert(o, "its arguments are not literal");
  const auto [dim, start, length] = *args;
  const int64_t d = wrapDim(dim, rank);
  if (d < 0 || d >= rank) return cannotInvert(o, "dim out of range");
  const int64_t s = start < 0 ? start + (*sizes)[d] : start;
  return e.call(op("aten::slice_scatter"),
                {arg::Tensor{base}, arg::Tensor{src}, arg::Int{d}, arg::Int{s}, arg::Int{s + length}}, Val{base_meta});
}

}  // namespace

Expected<Node*> invertView(Emitter& e, const ViewStep& step, Node* base, const TensorMeta& base_meta, Node* src) {
  const Val val = base_meta;
  if (auto recorded = invertRecorded(e, step, base, val, src)) return *recorded;
  const Node& n = *step.node;
  const OpInfo& o = *step.op;
  switch (step.family) {
    case ViewFamily::Identity: return src;
    case ViewFamily::Reshape: return reshapeBack(e, base, base_meta, src, val);
    case ViewFamily::Permute: return permuteBack(e, step, static_cast<int64_t>(base_meta.sizes.size()), val, src);
    case ViewFamily::Slice:
      return literalScatter(
          e, o, "aten::slice_scatter",
          {arg::Tensor{base}, arg::Tensor{src}, argumentOr(n, o, 1, arg::Int{0}), argumentOr(n, o, 2, arg::None{}),
           argumentOr(n, o, 3, arg::None{}), argumentOr(n, o, 4, arg::Int{1})},
          val, "its bounds are symbolic");
    case ViewFamily::Narrow: return narrowBack(e, step, base, base_meta, src);
    case ViewFamily::Select: {
      const Argument* index = schemaArgument(n, o, 2);
      if (!index || !literalOnly(*index)) return cannotInvert(o, "its index is not literal");
      return e.call(op("aten::select_scatter"),
                    {arg::Tensor{base}, arg::Tensor{src}, argumentOr(n, o, 1, arg::Int{0}), *index}, val);
    }
    case ViewFamily::Diagonal:
      if (faultPlanted(PlantedFault::DiagonalWriteLost)) return base;  // Note [Planted functionalizer faults]
      return e.call(op("aten::diagonal_scatter"),
                    {arg::Tensor{base}, arg::Tensor{src}, argumentOr(n, o, 1, arg::Int{0}),
                     argumentOr(n, o, 2, arg::Int{0}), argumentOr(n, o, 3, arg::Int{1})},
                    val);
    case ViewFamily::AsStrided: {
      auto offset = explicitStorageOffset(n, o);
      if (!offset) return cannotInvert(o, "its storage offset is symbolic");
      return literalScatter(e, o, "aten::as_strided_scatter",
                            {arg::Tensor{base}, arg::Tensor{src}, argumentOr(n, o, 1, arg::None{}),
                             argumentOr(n, o, 2, arg::None{}), *offset},
                            val, "its geometry is symbolic");
    }
    case ViewFamily::Unfold: {
      auto back = unfoldBack(e, step, base, base_meta, src);
      if (!back) return cannotInvert(o, back.error().message);
      return back;
    }
    case ViewFamily::Expand:
      if (auto back = expandOfDistinctElementsBack(e, step, base_meta, src, val)) return *back;
      return cannotInvert(o, "its elements overlap in memory, so eager leaves the write undefined");
    default: return cannotInvert(o, "epsmith knows no functional inverse for it");
  }
}

}  // namespace epsmith::functionalizer
