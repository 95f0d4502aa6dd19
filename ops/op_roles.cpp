// Schema-driven op roles for the functionalizer; see op_roles.h.
#include "ops/op_roles.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/zeros.h>

#include "ir/tensor_geometry.h"
#include "ops/call_args.h"

#include <mutex>
#include <string_view>
#include <unordered_map>

namespace epsmith {
namespace {

// Note [View inverses]
// A schema says *that* a return aliases an argument (`Tensor(a) self -> Tensor(a)`), not
// *how* its elements map onto the base's, so the way a write through a view is carried back
// to the base is written here once, per family. Order-preserving reshapes go back with a
// reshape to the base's sizes, permutations with the inverse permutation, and the rest with
// the scatter ops LibTorch provides for exactly this (slice_scatter, select_scatter,
// diagonal_scatter, as_strided_scatter). Multi-output views (split, chunk, unbind, ...)
// are handled per element, as the slice or select each element is. Views whose elements
// overlap (expand, unfold with step < size) have no inverse: eager leaves writes to them
// undefined. Views we can replay but not invert (view.dtype, real/imag, sparse and named
// tensor views) are refused on write with the op named.
//
// Note [Maybe-aliasing ops]
// reshape, flatten, ravel, contiguous and to() carry `Tensor(a)` returns but alias their
// input only sometimes (a view when the strides allow it, a copy otherwise). The schema
// cannot say which; the functionalizer decides per node from the input's metadata
// (pass_views.cpp, Pass::returnsAlias).
//
// Some of them (contiguous, to, lift_fresh, resolve_conj, ...) return the very tensor they
// were given, not a new view: a later metadata mutation through the result (transpose_)
// changes the argument too, so the pass gives both one identity.
//
// Note [Irregular functional variants]
// Functional variants are found by name (add_ → add, __iand__ → __and__, the out= overload's
// own base name) and checked against the argument lists. The pairs that do not follow the
// naming rule are listed here: the random in-place ops whose functional forms LibTorch names
// `*_functional` or differently; and conj_physical_ and conj_physical.out, whose namesake
// `conj_physical` returns a real input itself (an alias its schema does not declare, so a
// write-back of the value into that input copied a tensor onto its own memory), while
// `_conj_physical` always makes a new tensor (the functionalizer drops conj_physical_ of a
// real tensor, eager's no-op, for which `_conj_physical` may have no kernel).
struct ViewRow {
  std::string_view name;      // qualified name
  std::string_view overload;  // "*": every overload
  ViewFamily family;
  bool maybe = false;         // Note [Maybe-aliasing ops]
  bool returns_self = false;  // returns the very tensor it was given, not a new view of it
};
constexpr ViewRow kViewRows[] = {
    {"aten::view", "", ViewFamily::Reshape},
    {"aten::view_as", "", ViewFamily::Reshape},
    {"aten::_unsafe_view", "", ViewFamily::Reshape},
    {"aten::_reshape_alias", "", ViewFamily::Reshape},
    {"aten::unflatten", "int", ViewFamily::Reshape},
    {"aten::squeeze", "", ViewFamily::Reshape},
    {"aten::squeeze", "dim", ViewFamily::Reshape},
    {"aten::squeeze", "dims", ViewFamily::Reshape},  // 2.x
    {"aten::unsqueeze", "", ViewFamily::Reshape},
    {"aten::reshape", "", ViewFamily::Reshape, true},
    {"aten::reshape_as", "", ViewFamily::Reshape, true},
    {"aten::flatten", "using_ints", ViewFamily::Reshape, true},
    {"aten::ravel", "", ViewFamily::Reshape, true},
    {"aten::alias", "", ViewFamily::Identity},
    {"aten::rename", "", ViewFamily::Identity},  // names only: the same elements
    {"aten::detach", "", ViewFamily::Identity},
    {"aten::lift_fresh", "", ViewFamily::Identity, false, true},
    {"aten::conj", "", ViewFamily::Identity, false, true},
    {"aten::_conj", "", ViewFamily::Identity},
    {"aten::resolve_conj", "", ViewFamily::Identity, false, true},
    {"aten::resolve_neg", "", ViewFamily::Identity, false, true},
    {"aten::positive", "", ViewFamily::Identity, false, true},
    {"aten::contiguous", "", ViewFamily::Identity, true, true},
    {"aten::to", "*", ViewFamily::Identity, true, true},
    {"aten::permute", "", ViewFamily::Permute},
    {"aten::transpose", "int", ViewFamily::Permute},
    {"aten::t", "", ViewFamily::Permute},
    {"aten::swapaxes", "", ViewFamily::Permute},
    {"aten::swapdims", "", ViewFamily::Permute},
    {"aten::movedim", "*", ViewFamily::Permute},
    {"aten::moveaxis", "*", ViewFamily::Permute},
    {"aten::numpy_T", "", ViewFamily::Permute},
    {"aten::adjoint", "", ViewFamily::Permute},
    {"aten::mT", "", ViewFamily::Permute},
    {"aten::mH", "", ViewFamily::Permute},
    {"aten::matrix_H", "", ViewFamily::Permute},
    {"aten::slice", "Tensor", ViewFamily::Slice},
    {"aten::narrow", "", ViewFamily::Narrow},
    {"aten::select", "int", ViewFamily::Select},
    {"aten::diagonal", "", ViewFamily::Diagonal},
    {"aten::as_strided", "", ViewFamily::AsStrided},
    {"aten::unfold", "", ViewFamily::Unfold},
    {"aten::expand", "", ViewFamily::Expand},
    {"aten::expand_as", "", ViewFamily::Expand},
    {"aten::broadcast_to", "", ViewFamily::Expand},
    {"aten::split", "*", ViewFamily::SplitList},
    {"aten::split_with_sizes", "", ViewFamily::SplitList},
    {"aten::chunk", "", ViewFamily::SplitList},
    {"aten::tensor_split", "sections", ViewFamily::SplitList},
    {"aten::tensor_split", "indices", ViewFamily::SplitList},
    {"aten::tensor_split", "tensor_indices_or_sections", ViewFamily::SplitList},
    {"aten::hsplit", "*", ViewFamily::SplitList},
    {"aten::vsplit", "*", ViewFamily::SplitList},
    {"aten::dsplit", "*", ViewFamily::SplitList},
    {"aten::unbind", "int", ViewFamily::UnbindList},
};

// Schemas that hide an alias: `_unsafe_view` shares its input's storage in eager although
// its schema is unannotated (PyTorch uses it only on temporaries).
constexpr std::string_view kUnannotatedViews[] = {"aten::_unsafe_view"};
// The functional `set` overloads return a tensor on `source`'s storage, which their schemas
// do not declare either; an alias of an argument other than `self` is not tracked, so they
// are refused (found by the generator: a later write through the result reached `source`).
// Composite ops that may return their inputs themselves (when they are already of the
// asked shape or dtype; conj_physical of a real tensor; dropout when not training;
// cartesian_prod of one tensor) with nothing in the schema saying so; export decomposes them before
// functionalizing, and the pass refuses them rather than guess (found by the generator).
constexpr std::string_view kUndeclaredOtherAliases[] = {
    "aten::set",
    "aten::lift",
    "aten::atleast_1d",
    "aten::atleast_2d",
    "aten::atleast_3d",
    "aten::type_as",
    "aten::sum_to_size",
    "aten::broadcast_tensors",
    "aten::meshgrid",
    "aten::einsum",
    "aten::unsafe_split",
    "aten::unsafe_split_with_sizes",
    "aten::unsafe_chunk",
    "aten::conj_physical",
    "aten::dropout",
    "aten::alpha_dropout",
    "aten::feature_dropout",
    "aten::feature_alpha_dropout",
    "aten::cartesian_prod",
};

// Note [Views in another tensor's geometry]
// slice_inverse(self, src, ...) (2.x; LibTorch's own functionalization makes it to replay a
// slice backwards) is self.as_strided(src's sizes, strides and offset): a view of self's
// storage that reaches elements outside self, wherever src lay. Replayed in a functional
// program, src's value has strides of the graph's choosing and self's value only self's
// elements, so the replay reads other memory than eager's view; its geometry is not an
// argument the pass could pin as it pins as_strided's. It is refused.
constexpr std::string_view kViewsInAnotherGeometry[] = {"aten::slice_inverse"};

// Note [Irregular functional variants]
constexpr std::pair<std::string_view, std::string_view> kIrregularVariants[] = {
    {"aten::normal_", "aten::normal_functional"},
    {"aten::bernoulli_.float", "aten::bernoulli.p"},
    {"aten::conj_physical_", "aten::_conj_physical"},
    {"aten::conj_physical.out", "aten::_conj_physical"},
};

// Note [Writes schemas do not declare]
// The batch-norm schemas of LibTorch 1.13 and 2.13 do not annotate running_mean/running_var
// as written (2.x's _native_batch_norm_legit does, and needs no row),
// yet with training=True (instance_norm: use_input_stats=True) eager updates them in place.
// The schema cannot say so; the ops are listed here, and the functionalizer refuses them when
// they would write, but for batch_norm (Note [Batch norm's running statistics]).
struct HiddenWrite {
  std::string_view op;
  size_t flag;     // the bool argument that turns the write on
  size_t written;  // the first written argument (running_mean)
};
constexpr HiddenWrite kHiddenWrites[] = {
    {"aten::native_batch_norm", 5, 3},
    {"aten::batch_norm", 5, 3},
    {"aten::_batch_norm_impl_index", 5, 3},
    {"aten::instance_norm", 5, 3},
};

// Ops that change sizes, strides or storage and have no view counterpart.
constexpr std::string_view kMetadataOnly[] = {
    "aten::resize_",
    "aten::resize_as_",
    "aten::set_",
    "aten::_resize_output_",
    "aten::resize_as_sparse_",
    "aten::sparse_resize_",
    "aten::sparse_resize_and_clear_",
};

const ViewRow* findViewRow(const OpInfo& op) {
  for (const auto& row : kViewRows) {
    if (row.name == op.qualified_name && (row.overload == "*" || row.overload == op.overload)) return &row;
  }
  return nullptr;
}

const std::unordered_map<std::string, std::vector<const OpInfo*>>& overloadsByName() {
  static const auto* index = [] {
    auto* m = new std::unordered_map<std::string, std::vector<const OpInfo*>>();
    for (const OpInfo* op : allOps()) (*m)[op->qualified_name].push_back(op);
    return m;
  }();
  return *index;
}

bool sameParam(const ParamInfo& a, const ParamInfo& b) {
  return a.name == b.name && a.type == b.type && a.optional == b.optional && a.kwarg_only == b.kwarg_only;
}

// Whether `candidate` takes `wanted`: the positional arguments in the same order (the first
// may be named differently: `dropout_(self)` vs `dropout(input)`), the keyword-only ones by
// name, and nothing else but defaulted keyword-only arguments. `exact` is set when the
// lists are the same.
bool argumentsMatch(const std::vector<const ParamInfo*>& wanted, const OpInfo& candidate, bool* exact) {
  size_t positional = 0;
  for (const ParamInfo* p : wanted) positional += p->kwarg_only ? 0 : 1;
  if (static_cast<size_t>(candidate.positionalCount()) != positional) return false;
  for (size_t i = 0; i < positional; ++i) {
    const ParamInfo& want = *wanted[i];
    const ParamInfo& have = candidate.arguments[i];
    if (want.type != have.type || want.optional != have.optional || (i > 0 && want.name != have.name)) return false;
  }
  size_t matched = positional;
  for (size_t i = positional; i < wanted.size(); ++i) {
    const int at = candidate.argumentIndex(wanted[i]->name);
    if (at < 0 || !sameParam(*wanted[i], candidate.arguments[static_cast<size_t>(at)])) return false;
    ++matched;
  }
  for (size_t i = positional; i < candidate.arguments.size(); ++i) {
    const ParamInfo& have = candidate.arguments[i];
    bool wanted_here = false;
    for (const ParamInfo* p : wanted) wanted_here = wanted_here || p->name == have.name;
    if (!wanted_here && !have.has_default) return false;
  }
  *exact = matched == candidate.arguments.size();
  for (size_t i = 0; *exact && i < wanted.size(); ++i) *exact = sameParam(*wanted[i], candidate.arguments[i]);
  return true;
}

std::vector<int> writtenArguments(const OpInfo& op) {
  std::vector<int> w;
  for (size_t i = 0; i < op.arguments.size(); ++i) {
    if (op.arguments[i].is_write) w.push_back(static_cast<int>(i));
  }
  return w;
}

bool isOutForm(const OpInfo& op, const std::vector<int>& written) {
  if (written.empty()) return false;
  for (int i : written) {
    if (!op.arguments[i].kwarg_only) return false;
  }
  return true;
}

bool isInPlaceForm(const OpInfo& op, const std::vector<int>& written) {
  return written.size() == 1 && written[0] == 0 && !op.arguments[0].kwarg_only &&
         op.arguments[0].type == ParamType::Tensor;
}

std::vector<int> returnAliases(const OpInfo& op) {
  std::vector<int> result;
  for (const auto& r : op.returns) {
    int found = -1;
    if (!r.alias_set.empty()) {
      for (size_t i = 0; i < op.arguments.size(); ++i) {
        if (op.arguments[i].alias_set == r.alias_set) {
          found = static_cast<int>(i);
          break;
        }
      }
    }
    result.push_back(found);
  }
  return result;
}

OpRoleInfo classify(const OpInfo& op) {
  OpRoleInfo info;
  info.return_alias = returnAliases(op);
  const std::string name = op.name();
  if (!op.is_mutable) {
    for (auto name : kUndeclaredOtherAliases) {
      if (op.qualified_name == name) {
        info.role = OpRole::Unsupported;
        info.reason = "may return an alias of its arguments that its schema does not declare";
        info.hides_alias = true;
        return info;
      }
    }
    for (auto name : kViewsInAnotherGeometry) {
      if (op.qualified_name == name) {
        info.role = OpRole::Unsupported;
        info.reason = "views its self's storage in another tensor's geometry, outside self's elements";
        return info;
      }
    }
    const ViewRow* row = findViewRow(op);
    bool aliases = false;
    for (int a : info.return_alias) aliases = aliases || a >= 0;
    for (auto hidden : kUnannotatedViews) {
      if (op.qualified_name == hidden) {
        aliases = true;
        info.return_alias.assign(op.returns.size(), 0);
      }
    }
    if (!aliases) return info;  // Functional
    info.view = row ? row->family : ViewFamily::Other;
    info.returns_self = row && row->returns_self;
    info.role = row && row->maybe ? OpRole::MaybeView : OpRole::View;
    return info;
  }
  info.written = writtenArguments(op);
  for (auto meta : kMetadataOnly) {
    if (op.qualified_name == meta) {
      info.role = OpRole::MetadataMutation;
      return info;
    }
  }
  const bool in_place = isInPlaceForm(op, info.written);
  if (!in_place && !isOutForm(op, info.written)) {
    info.role = OpRole::Unsupported;
    info.reason = "writes arguments that are neither `self` nor out= arguments";
    return info;
  }
  info.functional = functionalVariant(op);
  if (!info.functional) {
    info.role = OpRole::Unsupported;
    info.reason = "has no functional variant";
    return info;
  }
  const OpRoleInfo& fn = opRole(*info.functional);
  if (fn.role == OpRole::Unsupported) {
    info.role = OpRole::Unsupported;
    info.reason = "its functional variant " + info.functional->name() + " " + fn.reason;
    return info;
  }
  if (in_place && (fn.role == OpRole::View || fn.role == OpRole::MaybeView)) {
    info.role = OpRole::MetadataMutation;
    info.view = fn.view;
    return info;
  }
  info.role = in_place ? OpRole::InPlace : OpRole::Out;
  return info;
}

}  // namespace

std::string_view opRoleName(OpRole r) {
  switch (r) {
    case OpRole::Functional: return "functional";
    case OpRole::View: return "view";
    case OpRole::MaybeView: return "maybe-view";
    case OpRole::InPlace: return "in-place";
    case OpRole::Out: return "out";
    case OpRole::MetadataMutation: return "metadata-mutation";
    case OpRole::Unsupported: return "unsupported";
  }
  return "?";
}

const OpInfo* functionalVariant(const OpInfo& op) {
  const std::string full = op.name();
  for (const auto& [from, to] : kIrregularVariants) {
    if (from == full || from == op.qualified_name) return findOpByName(to);
  }
  const std::vector<int> written = writtenArguments(op);
  const bool in_place = isInPlaceForm(op, written);
  if (!in_place && !isOutForm(op, written)) return nullptr;

  std::string base = op.qualified_name;
  if (in_place) {
    const auto sep = base.find("::");
    std::string_view local = std::string_view(base).substr(sep == std::string::npos ? 0 : sep + 2);
    if (local.size() > 5 && local.substr(0, 3) == "__i" && local.substr(local.size() - 2) == "__") {
      base = base.substr(0, sep + 2) + "__" + std::string(local.substr(3));
    } else if (!base.empty() && base.back() == '_') {
      base.pop_back();
    } else {
      return nullptr;
    }
  }
  std::vector<const ParamInfo*> wanted;
  for (size_t i = 0; i < op.arguments.size(); ++i) {
    if (!in_place && op.arguments[i].is_write) continue;
    wanted.push_back(&op.arguments[i]);
  }
  auto it = overloadsByName().find(base);
  if (it == overloadsByName().end()) return nullptr;
  const OpInfo* best = nullptr;
  int best_score = -1;
  for (const OpInfo* candidate : it->second) {
    if (candidate->is_mutable || candidate == &op) continue;
    if (in_place ? candidate->returns.empty() : candidate->returns.size() != written.size()) continue;
    bool exact = false;
    if (!argumentsMatch(wanted, *candidate, &exact)) continue;
    int score = (exact ? 2 : 0) + (candidate->overload == op.overload ? 1 : 0);
    if (score > best_score) {
      best = candidate;
      best_score = score;
    }
  }
  return best;
}

bool writesItsSchemaHides(const Node& call, const OpInfo& op) {
  for (const auto& h : kHiddenWrites) {
    if (op.qualified_name != h.op) continue;
    const Argument* flag = schemaArgument(call, op, h.flag);
    const Argument* written = schemaArgument(call, op, h.written);
    const auto* on = flag ? flag->get<arg::Bool>() : nullptr;
    if (on && on->value && written && written->kind() != ArgKind::None) return true;
  }
  return false;
}

// Note [Reads of eager's layout]
// as_strided_copy and as_strided_scatter address their self's storage by strides and an
// offset, and view_copy.dtype reads its self's bytes (of another element size, its strides
// decide which): each reads the self's layout as eager made it. A functional value the
// functionalizer computes has a fresh layout, so the pass hands these calls the base eager
// laid out (asStridedCopy, asStridedScatterSelf, laidOutSelfOfDtypeCopy), whether called
// functionally or through their out= forms, and refuses to carry them whole inside a
// higher-order op's subgraph, whose operands are such values.
EagerLayoutRead readsEagerLayout(const OpInfo& op) {
  if (op.qualified_name == "aten::as_strided_copy") return EagerLayoutRead::AsStridedCopy;
  if (op.qualified_name == "aten::as_strided_scatter") return EagerLayoutRead::AsStridedScatter;
  if (op.qualified_name == "aten::view_copy" && op.overload.rfind("dtype", 0) == 0) {
    return EagerLayoutRead::DtypeViewCopy;
  }
  return EagerLayoutRead::None;
}

// Note [Ops with effects]
// Some ops have effects beyond their results (printing, raising on a LAPACK error code) that
// must happen in program order, which a functional program does not keep by itself. torch
// registers them from Python (torch/_higher_order_ops/effects.py, torch 2.13 and 2.14.1:
// `_register_effectful_op("aten::_print", ORDERED)`, and `aten::_linalg_check_errors`), so
// no schema says it; run_decompositions then wraps each call in
// higher_order.with_effects(token, op, *args), threading one token input through them to
// one token output, both first in the signature. Written once here, the ATen ops of that
// list; the functionalizer threads its token through them as export does.
bool hasEffects(const OpInfo& op) {
  return op.qualified_name == "aten::_print" || op.qualified_name == "aten::_linalg_check_errors";
}

const OpRoleInfo& opRole(const OpInfo& op) {
  // The generator asks for every candidate: each thread keeps what it has looked up, so the
  // shared table's lock is taken once per op and thread.
  thread_local PerOpMemo<const OpRoleInfo*> seen;
  return *seen.get(op, [&] {
    static std::mutex mu;
    static std::unordered_map<const OpInfo*, OpRoleInfo> cache;  // node-based: entries never move
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = cache.find(&op);
      if (it != cache.end()) return static_cast<const OpRoleInfo*>(&it->second);
    }
    OpRoleInfo info = classify(op);  // may recurse into opRole for the functional variant
    std::lock_guard<std::mutex> lock(mu);
    return static_cast<const OpRoleInfo*>(&cache.emplace(&op, std::move(info)).first->second);
  });
}

namespace {

// Note [How ravel aliases]
// ravel is reshape(-1) in some LibTorch versions and contiguous().view(-1) in others (1.13's
// is the second): a view of a non-contiguous input whose elements one stride can walk is a
// view in the first and a copy in the second. The schema cannot say which; asking the
// LibTorch at hand once can. The probe: a [1, 3, 1] view with strides [6, 2, 7], which
// reshape(-1) views (stride 2) and which is not contiguous.
bool ravelIsReshape() {
  static const bool reshape = [] {
    at::Tensor base = at::zeros({8});
    at::Tensor strided = base.as_strided({1, 3, 1}, {6, 2, 7}, 1);
    return strided.ravel().is_alias_of(strided);
  }();
  return reshape;
}

}  // namespace

// Note [Maybe-aliasing ops]: decided from the input's metadata.
bool maybeViewAliases(const Node& n, const OpInfo& op, const TensorMeta& in) {
  const TensorMeta* out = n.meta.val.tensor();
  if (!out) return false;
  const std::string& name = op.qualified_name;
  if (name == "aten::contiguous") {
    auto* fmt = schemaArgument(n, op, 1);
    const auto* f = fmt ? fmt->get<arg::MemFormat>() : nullptr;
    if (f && f->value == MemoryFormat::Preserve) return true;
    return (!f || f->value == MemoryFormat::Contiguous) && isContiguous(in);
  }
  if (name == "aten::to") {
    if (out->dtype != in.dtype || !(out->device == in.device)) return false;
    for (const auto& [key, a] : n.kwargs) {
      if (key == "copy" && a.get<arg::Bool>() && a.get<arg::Bool>()->value) return false;
      if (key == "memory_format" && a.kind() == ArgKind::MemoryFormat) {
        auto f = a.get<arg::MemFormat>()->value;
        if (f != MemoryFormat::Preserve && !(f == MemoryFormat::Contiguous && isContiguous(in))) return false;
      }
    }
    for (size_t i = 1; i < n.args.size(); ++i) {  // positional copy= (after non_blocking)
      if (op.arguments.size() > i && op.arguments[i].name == "copy") {
        if (const auto* b = n.args[i].get<arg::Bool>(); b && b->value) return false;
      }
    }
    return true;
  }
  if (name == "aten::ravel" && !ravelIsReshape()) return isContiguous(in);  // Note [How ravel aliases]
  return viewable(in, out->sizes);                                          // reshape, reshape_as, flatten, ravel
}

}  // namespace epsmith
