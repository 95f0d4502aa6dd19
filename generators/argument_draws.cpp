// Drawing a call's arguments; see argument_draws.h.
//
// Note [Arguments from names]
// The schema gives each argument's kind; its name says what values make sense: `dim` is a
// dimension of the first tensor argument, `size`/`shape` a shape with the same number of
// elements (the tensor's own, permuted, flattened, or with a 1 inserted), `dims`/`perm` a
// permutation, `index`/`start`/`end`/`length` a position along a dimension, `reduction` one
// of at::Reduction's three values (kernels take any other without a word and part ways: of
// an empty input, soft_margin_loss.out with reduction 3 leaves `out` as it was and the
// functional soft_margin_loss returns uninitialized memory). Everything else draws small
// values; a candidate that does not run is dropped, so these are only odds.
#include "generators/argument_draws.h"

#include <ATen/MemoryOverlap.h>

#include <algorithm>
#include <numeric>

namespace epsmith {

namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

}  // namespace

const Live& ArgumentDraws::anyTensor() { return pool_[random_.below(pool_.size())]; }

// The first tensor argument (dims and shapes follow it): the higher-ranked of two draws
// half the time, since many ops want a matrix or more (t, mT, dsplit, diagonal).
const Live& ArgumentDraws::firstTensor() {
  const Live& a = anyTensor();
  if (!random_.chance(50)) return a;
  const Live& b = anyTensor();
  return b.value.dim() > a.value.dim() ? b : a;
}

// A tensor that may be written: no element shared by two indices (eager leaves writes to
// those undefined, docs/design.md).
const Live* ArgumentDraws::writableTensor(bool metadata) {
  for (int tries = 0; tries < 8; ++tries) {
    const Live& l = anyTensor();
    // Export refuses metadata mutations of inputs; the programs that may call what the
    // functionalizer refuses make them, for D8 (Note [Refusals export makes]), but not of
    // an input that requires grad, which eager refuses.
    if (metadata && l.input && (!may_call_refused_ || l.value.requires_grad())) continue;
    if (readOnly(l.value)) continue;
    if (at::has_internal_overlap(l.value) == at::MemOverlap::No) return &l;
  }
  return nullptr;
}

// Constants, and state drawn immutable, are never written, nor any view of them.
bool ArgumentDraws::readOnly(const at::Tensor& t) const {
  for (const auto& r : read_only_) {
    if (t.is_alias_of(r)) return true;
  }
  return false;
}

const Live& ArgumentDraws::likeTensor(const at::Tensor* ref) {
  if (ref && random_.chance(60)) {
    std::vector<const Live*> same;
    for (const auto& l : pool_) {
      if (l.value.sizes() == ref->sizes()) same.push_back(&l);
    }
    if (!same.empty()) return *same[random_.below(same.size())];
  }
  return anyTensor();
}

// `infer`: the op accepts -1 for "the rest" (view, reshape, expand).
std::vector<int64_t> ArgumentDraws::shapeLike(const at::Tensor& ref, bool infer) {
  std::vector<int64_t> sizes(ref.sizes().begin(), ref.sizes().end());
  switch (random_.below(4)) {
    case 0:
      if (infer) return {-1};
      return {ref.numel()};
    case 1: std::reverse(sizes.begin(), sizes.end()); return sizes;
    case 2: sizes.insert(sizes.begin() + static_cast<int64_t>(random_.below(sizes.size() + 1)), 1); return sizes;
    default: return sizes;
  }
}

// Note [Arguments from names] (above)
std::optional<Argument> ArgumentDraws::argumentFor(const OpInfo& op, const ParamInfo& p, const at::Tensor* ref,
                                                   bool self, bool metadata) {
  const int64_t rank = ref ? ref->dim() : 0;
  auto dimIn = [&] { return rank == 0 ? random_.range(-1, 0) : random_.range(-rank, rank - 1); };
  auto posIn = [&] {
    if (!ref || rank == 0) return random_.range(0, 2);
    const int64_t size = ref->size(random_.below(static_cast<uint64_t>(rank)));
    return random_.range(0, std::max<int64_t>(size - 1, 0));
  };
  switch (p.type) {
    case ParamType::Tensor: {
      if (p.optional && random_.chance(40)) return Argument(arg::None{});
      const Live* l = self ? writableTensor(metadata) : ref ? &likeTensor(ref) : first_ ? first_ : &firstTensor();
      if (!l) return std::nullopt;
      return Argument(arg::Tensor{l->node});
    }
    case ParamType::TensorList: {
      arg::TensorList list;
      const int64_t n = random_.range(1, 3);
      for (int64_t i = 0; i < n; ++i) list.nodes.push_back(likeTensor(ref).node);
      return Argument(list);
    }
    case ParamType::OptionalTensorList: {
      arg::OptionalTensorList list;
      std::vector<const Live*> indices;
      for (const auto& l : pool_) {
        if (l.value.scalar_type() == at::kLong || l.value.scalar_type() == at::kBool) indices.push_back(&l);
      }
      list.nodes.push_back(indices.empty() ? nullptr : indices[random_.below(indices.size())]->node);
      if (!list.nodes[0]) return std::nullopt;
      return Argument(list);
    }
    case ParamType::Int:
    case ParamType::SymInt: {
      if (contains(p.name, "dim") || contains(p.name, "axis") || p.name == "source" || p.name == "destination") {
        return Argument(arg::Int{dimIn()});
      }
      if (contains(p.name, "chunk") || contains(p.name, "section"))
        return Argument(arg::Int{std::max<int64_t>(posIn(), 1)});
      if (p.name == "reduction") return Argument(arg::Int{random_.range(0, 2)});  // at::Reduction
      // GridSampler's interpolation and padding modes, embedding_bag's mode: enums of
      // three that grid_sampler_2d does not check (mode -1 returns uninitialized memory).
      if (p.name == "mode" || contains(p.name, "_mode")) return Argument(arg::Int{random_.range(0, 2)});
      if (contains(p.name, "index") || contains(p.name, "start") || contains(p.name, "end") ||
          contains(p.name, "length") || contains(p.name, "size") || contains(p.name, "step")) {
        return Argument(arg::Int{std::max<int64_t>(posIn(), p.name == "step" ? 1 : 0)});
      }
      return Argument(arg::Int{random_.range(-2, 4)});
    }
    case ParamType::IntList:
    case ParamType::SymIntList: {
      std::vector<int64_t> values;
      if (p.name == "stride" && !last_list_.empty()) {
        // as_strided's strides: as many as the sizes just drawn, contiguous for them.
        values.assign(last_list_.size(), 1);
        for (size_t i = values.size() - 1; i > 0; --i) values[i - 1] = values[i] * std::max<int64_t>(last_list_[i], 1);
      } else if (ref && p.name == "split_sizes" && rank > 0) {
        // Pieces that add up to the size of dimension 0 (split's default dim).
        for (int64_t left = ref->size(0); left > 0;) {
          values.push_back(random_.range(1, left));
          left -= values.back();
        }
        if (values.empty()) values.push_back(0);
      } else if (ref && (contains(p.name, "size") || contains(p.name, "shape"))) {
        const std::string_view local = op.localName();
        const bool infer = local.find("view") != std::string_view::npos ||
                           local.find("reshape") != std::string_view::npos ||
                           local.find("expand") != std::string_view::npos || p.name == "shape";
        values = shapeLike(*ref, infer);
      } else if (contains(p.name, "dim") || contains(p.name, "perm") || p.name == "source" || p.name == "destination") {
        values.resize(static_cast<size_t>(rank));
        std::iota(values.begin(), values.end(), 0);
        for (size_t i = values.size(); i > 1; --i) std::swap(values[i - 1], values[random_.below(i)]);
        // movedim's source and destination: as many dims each.
        if (p.name == "destination") values.resize(std::min(values.size(), last_list_.size()));
        if ((p.name == "dim" || p.name == "source") && !values.empty()) values.resize(1 + random_.below(values.size()));
      } else {
        const int64_t n = p.fixed_list_size > 0 ? p.fixed_list_size : random_.range(1, 3);
        for (int64_t i = 0; i < n; ++i) values.push_back(random_.range(0, 3));
      }
      last_list_ = values;
      return Argument(arg::IntList{values});
    }
    case ParamType::Float: return Argument(arg::Float{static_cast<double>(random_.range(-4, 4)) * 0.5});
    case ParamType::Bool:
      if (p.name == "pin_memory") return Argument(arg::Bool{false});  // needs CUDA
      return Argument(arg::Bool{random_.chance(50)});
    case ParamType::Scalar:
      if (random_.chance(50)) return Argument(arg::Int{random_.range(-3, 3)});
      return Argument(arg::Float{static_cast<double>(random_.range(-6, 6)) * 0.5});
    case ParamType::ScalarType: return Argument(arg::Dtype{config_.dtypes[random_.below(config_.dtypes.size())]});
    default:
      if (p.optional) return Argument(arg::None{});
      return std::nullopt;
  }
}

}  // namespace epsmith
