// In-place and out= calls that read what they write; see alias_probe.h.
#include "oracle/alias_probe.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/grad_mode.h>
#include <ATen/ops/alias.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/zeros_like.h>

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "oracle/probe_support.h"
#include "ir/tensor_geometry.h"
#include "ops/call_args.h"
#include "ops/op_roles.h"
#include "oracle/aten_bridge.h"
#include "oracle/interpreter.h"

namespace epsmith {

using probe_detail::cacheKey;
using probe_detail::concreteMeta;
using probe_detail::distance;
using probe_detail::ProbeCache;
using probe_detail::probeValues;

namespace {

// The tensor node bound to argument `i` of `call`; null where none is.
const Node* tensorAt(const Node& call, const OpInfo& op, int i) {
  const Argument* a = i >= 0 ? schemaArgument(call, op, static_cast<size_t>(i)) : nullptr;
  const auto* t = a ? a->get<arg::Tensor>() : nullptr;
  return t ? t->node : nullptr;
}

// The values a probe round binds: assorted ones
// (Note [Probe answers are the key's alone]); round 1 with bool tensors mostly true, so
// that a masked kernel fills elements its source then reads; round 2 with integer tensors
// zero, a valid index anywhere, but for the tensor written, whose zeros would read alike in
// any order (index_put_ of an i32 tensor accumulating values that alias it: a 1.13
// campaign's D1 and D2 case).
at::Tensor roundValue(const TensorMeta& m, int round, bool written) {
  at::Tensor t = probeValues(m).detach();
  if (round == 1 && t.scalar_type() == at::kBool) t = t.logical_not();
  if (round == 2 && !written && !t.is_floating_point() && !t.is_complex()) t = at::zeros_like(t);
  return t;
}

// What `call` (or, `functional` given, its functional form) leaves in the tensor it writes,
// every node in `shared` bound to one copy of `values`' written value, each other input to
// a copy of its own; nullopt where it raises. The copy has the strides the written node's
// metadata gives, and the other shared nodes are views of it, as in eager: a kernel's
// overlap test (index_put_'s) refuses a dense self that its values alias, and lets a
// strided one through, whose accumulation then follows the kernel's order (a 1.13
// campaign's D1 and D2 case, which a dense probe value took for a refusal).
std::optional<at::Tensor> runAliased(const Node& call, const OpInfo* functional, const std::vector<const Node*>& shared,
                                     const std::unordered_map<const Node*, at::Tensor>& values) {
  const at::Tensor& value = values.at(shared[0]);
  const TensorMeta& meta = *shared[0]->meta.val.tensor();
  std::vector<int64_t> strides;
  for (const auto& s : meta.strides) strides.push_back(s.atHint());
  const at::Tensor self = strides.size() == static_cast<size_t>(value.dim())
                              ? at::empty_strided(value.sizes(), strides, value.options()).copy_(value)
                              : cloneOf(value);
  std::unordered_map<const Node*, at::Tensor> bound;
  auto value_of = [&](const Node* n) -> c10::IValue {
    if (n == shared[0]) return self;
    if (std::find(shared.begin(), shared.end(), n) != shared.end()) return self.alias();
    auto it = bound.find(n);
    return it != bound.end() ? it->second : bound.emplace(n, cloneOf(values.at(n))).first->second;
  };
  Graph scratch;
  const OpRoleInfo& role = opRole(*call.target.op());
  const std::vector<int> dropped = role.role == OpRole::Out ? role.written : std::vector<int>{};
  const Node& run = functional ? *scratchFunctionalCall(scratch, call, *functional, dropped) : call;
  const auto outcome = runSingleCall(run, value_of);
  if (outcome.error) return std::nullopt;
  if (!functional) return self;
  if (outcome.outputs.empty() || !outcome.outputs[0].isTensor()) return std::nullopt;
  return outcome.outputs[0].toTensor();
}

}  // namespace

ReadsOfAWrite readsOfAWrite(const Node& call, const OpInfo& op, int written,
                            const std::function<ArgumentPlace(const Node*)>& placeOf) {
  ReadsOfAWrite reads;
  const Node* self = tensorAt(call, op, written);
  const ArgumentPlace at = self ? placeOf(self) : ArgumentPlace{};
  if (!at.storage || !at.meta) return reads;
  for (size_t i = 0; i < op.arguments.size() && !reads.other_layout; ++i) {
    const Node* t = static_cast<int>(i) == written ? nullptr : tensorAt(call, op, static_cast<int>(i));
    const ArgumentPlace place = t ? placeOf(t) : ArgumentPlace{};
    if (!place.meta || place.storage != at.storage) continue;
    if (*place.meta == *at.meta) {
      reads.aliased.push_back(static_cast<int>(i));
    } else if (mayShareBytes(*place.meta, *at.meta) && place.certain && at.certain) {
      reads.other_layout = t;
    }
  }
  return reads;
}

std::optional<bool> probeAliasedWriteAgrees(const Node& call, const std::vector<int>& aliased) {
  static ProbeCache<bool> cache;
  if (call.target.kind() != Target::Kind::Aten) return std::nullopt;
  const OpInfo& op = *call.target.op();
  const OpRoleInfo& role = opRole(op);
  if ((role.role != OpRole::InPlace && role.role != OpRole::Out) || !role.functional || role.written.size() != 1) {
    return std::nullopt;
  }
  const Node* self = tensorAt(call, op, role.written[0]);
  std::vector<const Node*> shared{self};
  std::string key;
  for (int i : aliased) {
    shared.push_back(tensorAt(call, op, i));
    key += "|" + std::to_string(i);
  }
  bool probeable = std::none_of(shared.begin(), shared.end(), [](const Node* n) { return n == nullptr; });
  int64_t elements = 0;
  call.forEachInput([&](const Node* n) {
    const TensorMeta* m = n->meta.val.tensor();
    if (!m || !concreteMeta(*m)) probeable = false;
    if (probeable) elements += numelOf(*m);
  });
  if (!probeable || elements > (1 << 16)) return std::nullopt;
  // The written copy takes the strides of self's metadata (runAliased): they are part of the
  // question, and what it spans is allocated.
  const TensorMeta& self_meta = *self->meta.val.tensor();
  int64_t span = 1;
  key += "|strides";
  for (size_t d = 0; d < self_meta.sizes.size(); ++d) {
    const int64_t size = self_meta.sizes[d].atHint(), stride = self_meta.strides[d].atHint();
    span += std::max<int64_t>(size - 1, 0) * stride;
    key += " " + std::to_string(stride);
  }
  if (span > (1 << 16)) return std::nullopt;
  key = cacheKey(call, true, &probeable) + key;
  if (!probeable) return std::nullopt;
  if (auto known = cache.find(key)) return *known;
  const at::AutoGradMode no_grad(false);
  std::optional<bool> agrees;
  try {
    for (int round = 0; round < 3 && agrees != false; ++round) {
      std::unordered_map<const Node*, at::Tensor> values;
      call.forEachInput([&](const Node* n) {
        if (!values.count(n)) values.emplace(n, roundValue(*n->meta.val.tensor(), round, n == self));
      });
      const auto written = runAliased(call, nullptr, shared, values);
      const auto computed = runAliased(call, role.functional, shared, values);
      if (written && computed) agrees = distance(*written, *computed) <= 1;
    }
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (agrees) cache.keep(key, *agrees);
  return agrees;
}

}  // namespace epsmith
