// Result dtypes by meta execution; see dtype_probe.h.
#include "functionalizer/dtype_probe.h"

#include <ATen/TensorOperators.h>
#include <ATen/autocast_mode.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/grad_mode.h>
#include <ATen/native/TypeProperties.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/eq.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/full_like.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/masked_select.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/remainder.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros_like.h>

#include <c10/util/FunctionRef.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "formats/text_format.h"
#include "oracle/probe_support.h"
#include "functionalizer/view_steps.h"
#include "ops/op_registry.h"
#include "oracle/aten_bridge.h"
#include "oracle/compare.h"
#include "oracle/interpreter.h"
#include "oracle/libtorch_compat.h"

namespace epsmith {

using probe_detail::cacheKey;
using probe_detail::concreteMeta;
using probe_detail::distance;
using probe_detail::kMaxCachedProbes;
using probe_detail::ProbeCache;
using probe_detail::ProbeFill;
using probe_detail::probeValues;
using probe_detail::smallConcreteInputs;
using probe_detail::withReadSizesAtTheExample;

namespace {

// Elements a probe's placeholder storage holds past the tensor's own: an as_strided or
// as_strided_copy call addresses the storage, which in eager may reach past the tensor it
// is called on (as_strided_copy.out at offset 4 of an i32[4] of stride 2 raised on a storage
// of just its elements, the probe gave up, and the functional result went uncast).
constexpr int64_t kStorageSlack = 4096;

// The CPU fill that makes every floating-point stack of square matrices identities (the
// rest ones): zeros and ones are singular, and a factorization refuses them (cholesky of
// f32 into an f64 out: with no dtype for the functional result, its cast was left out, a
// 1.13 campaign's D1 case).
constexpr int kIdentityFill = 2;

at::Tensor identitiesOr1(at::Tensor t) {
  const bool square = t.dim() >= 2 && t.size(-1) == t.size(-2);
  if (!square || !(t.is_floating_point() || t.is_complex())) return t.fill_(1);
  t.zero_();
  t.diagonal(0, -2, -1).fill_(1);
  return t;
}

at::Tensor placeholderTensor(const TensorMeta& m, c10::Device device, int fill) {
  std::vector<int64_t> sizes, strides;
  for (const auto& s : m.sizes) sizes.push_back(s.atHint());
  for (const auto& s : m.strides) strides.push_back(s.atHint());
  const auto options = at::TensorOptions().dtype(toAten(m.dtype)).device(device);
  if (strides.size() != sizes.size()) return at::empty(sizes, options);
  int64_t extent = 1;  // elements the tensor spans from its first
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) extent = 0;
    if (strides[d] < 0) return at::empty_strided(sizes, strides, options);  // as_strided refuses; let LibTorch say so
    if (extent > 0) extent += (sizes[d] - 1) * strides[d];
  }
  // A tensor spread over a huge extent (a select of stride 1e8) keeps a storage of its own
  // elements' span, untouched between them, as empty_strided makes it.
  if (extent > (int64_t{1} << 16)) {
    at::Tensor t = at::empty_strided(sizes, strides, options);
    if (device.is_cpu()) fill == kIdentityFill ? identitiesOr1(t) : t.fill_(fill);
    return t;
  }
  at::Tensor storage = at::empty({extent + kStorageSlack}, options);
  if (device.is_cpu()) storage.fill_(fill == kIdentityFill ? 0 : fill);
  at::Tensor t = storage.as_strided(sizes, strides, 0);
  if (device.is_cpu() && fill == kIdentityFill) identitiesOr1(t);
  return t;
}

}  // namespace

namespace {

// Runs `call` alone on tensors of its inputs' metadata on `device` (meta first; for kernels
// without a meta implementation, small CPU tensors of the same shapes, all `fill`).
// `*no_meta_kernel`, where given, says whether a meta run was refused for want of a Meta
// kernel; `*declined`, whether the call was not run at all (metadata symbolic without hints or
// too large to run on CPU): an answer that says nothing of the call's form.
std::optional<std::vector<ProbedReturn>> runAlone(const Node& call, c10::Device device, int fill = 0,
                                                  bool* no_meta_kernel = nullptr, bool* declined = nullptr) {
  int64_t elements = 0;
  bool ok = true;
  call.forEachInput([&](const Node* n) {
    const TensorMeta* m = n->meta.val.tensor();
    if (!m || !concreteMeta(*m)) {
      ok = false;
      return;
    }
    int64_t numel = 1;
    for (const auto& s : m->sizes) {
      const int64_t size = s.atHint();
      if (size < 0 || (size > 0 && numel > (int64_t{1} << 40) / size)) {
        ok = false;  // nonsense metadata: nothing to probe
        return;
      }
      numel *= size;
    }
    elements += numel;
  });
  if (!ok || (device.is_cpu() && elements > (1 << 16))) {
    if (declined) *declined = true;
    return std::nullopt;
  }
  try {
    auto outcome = runSingleCall(
        call, [&](const Node* n) -> c10::IValue { return placeholderTensor(*n->meta.val.tensor(), device, fill); });
    if (no_meta_kernel && outcome.error) {
      *no_meta_kernel = outcome.error->message.find("with arguments from the 'Meta' backend") != std::string::npos;
    }
    if (outcome.error || outcome.outputs.empty()) return std::nullopt;
    std::vector<ProbedReturn> returns;
    auto add = [&](const at::Tensor& t) {
      returns.push_back({fromAten(t.scalar_type()), std::vector<int64_t>(t.sizes().begin(), t.sizes().end())});
    };
    const c10::IValue& v = outcome.outputs[0];
    if (v.isTensor()) {
      add(v.toTensor());
    } else if (v.isTuple()) {
      for (const auto& e : v.toTupleRef().elements()) {
        if (!e.isTensor()) return std::nullopt;
        add(e.toTensor());
      }
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorVector()) add(t);
    } else {
      return std::nullopt;
    }
    return returns;
  } catch (const std::exception&) {
    return std::nullopt;  // placeholder tensors that cannot be made (bad strides)
  }
}

}  // namespace

namespace {

std::optional<std::vector<ProbedReturn>> probe(const Node& given, bool with_sizes) {
  Graph scratch;  // Note [Read sizes in probes]
  const Node* read = withReadSizesAtTheExample(given, scratch);
  if (!read) return std::nullopt;
  const Node& call = *read;
  static ProbeCache<std::optional<std::vector<ProbedReturn>>> cache;
  static std::mutex mu;                                   // for no_meta_kernel
  static std::unordered_set<std::string> no_meta_kernel;  // Note [Ops without meta kernels]
  bool probeable = call.target.kind() == Target::Kind::Aten;
  // Note [Probes under the program's autocast] (functionalize.cpp): CPU autocast casts CPU
  // tensors only, so a call under it is probed on the CPU, and its answers kept apart.
  const bool autocast = at::autocast::is_autocast_enabled(c10::DeviceType::CPU);
  const std::string under =
      autocast ? std::string("|autocast ") + c10::toString(at::autocast::get_autocast_dtype(c10::DeviceType::CPU)) : "";
  const std::string key = (with_sizes ? "S" : "D") + cacheKey(call, with_sizes, &probeable) + under;
  if (!probeable) return std::nullopt;
  if (auto known = cache.find(key)) return *known;
  // Note [Ops without meta kernels]
  // Many kernels have no C++ meta implementation (nan_to_num.out, which nan_to_num_ and
  // nan_to_num call, hardtanh and logical_xor.out in 1.13; abs.out in 2.13, whose meta
  // kernels for such ops are registered from Python, absent in epsmith's process), and the dispatcher's refusal is dear:
  // its message lists every dispatch key of the op and what each computes to (some 300 000
  // instructions) before the exception unwinds, and the probe then runs on CPU anyway. So a
  // call whose meta run was refused that way is remembered by its op, argument dtypes and
  // literals (what picks the kernels a composite op goes through; not sizes), and later
  // probes of that form go to CPU first, trying meta only where CPU fails too: the same
  // answers, wherever a kernel's meta and CPU forms agree on dtypes and sizes.
  const std::string form = with_sizes ? cacheKey(call, false, &probeable) : key.substr(1);
  const bool skip_meta = autocast || [&] {
    std::lock_guard<std::mutex> lock(mu);
    return no_meta_kernel.count(form) > 0;
  }();
  // On CPU, zeros first (a valid index into any dimension), then ones: an integer division
  // or remainder by a zero tensor raises (remainder.Scalar_Tensor has no meta kernel); then
  // identity matrices, which factorizations take.
  std::optional<std::vector<ProbedReturn>> returns;
  bool refused_for_meta = false, declined = false;
  if (!skip_meta) returns = runAlone(call, c10::Device(c10::kMeta), 0, &refused_for_meta, &declined);
  if (!returns) returns = runAlone(call, c10::Device(c10::kCPU), 0, nullptr, &declined);
  if (!returns) returns = runAlone(call, c10::Device(c10::kCPU), 1, nullptr, &declined);
  if (!returns) returns = runAlone(call, c10::Device(c10::kCPU), kIdentityFill, nullptr, &declined);
  if (!returns && skip_meta && !autocast) returns = runAlone(call, c10::Device(c10::kMeta), 0, nullptr, &declined);
  if (refused_for_meta) {
    std::lock_guard<std::mutex> lock(mu);
    if (no_meta_kernel.size() >= kMaxCachedProbes) no_meta_kernel.clear();
    no_meta_kernel.insert(form);
  }
  // Not run (too large, symbolic without hints): no answer to keep (Note [Probe answers are the key's alone]).
  if (!returns && declined) return returns;
  cache.keep(key, returns);
  return returns;
}

}  // namespace

std::optional<std::vector<ScalarType>> probeReturnDtypes(const Node& call) {
  auto returns = probe(call, false);
  if (!returns) return std::nullopt;
  std::vector<ScalarType> dtypes;
  for (const auto& r : *returns) dtypes.push_back(r.dtype);
  return dtypes;
}

std::optional<std::vector<ProbedReturn>> probeReturns(const Node& call) { return probe(call, true); }

namespace {

// Whether the call, run on probe values, shrank a written tensor in place and left a byte
// past its new elements other than the pattern it was filled with; nullopt where it raised.
std::optional<bool> changesPastShrunkOut(const Node& out_call) {
  const OpInfo& op = *out_call.target.op();
  std::unordered_map<const Node*, at::Tensor> values;
  out_call.forEachInput([&](const Node* n) {
    if (!values.count(n)) values.emplace(n, probeValues(*n->meta.val.tensor()));
  });
  struct Out {
    at::Tensor tensor;
    const void* data;
    size_t nbytes;
  };
  std::vector<Out> outs;
  for (size_t i = 0; i < op.arguments.size(); ++i) {
    const Argument* a = op.arguments[i].is_write ? schemaArgument(out_call, op, i) : nullptr;
    const auto* t = a ? a->get<arg::Tensor>() : nullptr;
    if (!t || !values.count(t->node)) continue;
    at::Tensor& v = values[t->node];
    v = v.detach().clone();
    std::memset(v.data_ptr(), v.scalar_type() == at::kBool ? 0x01 : 0xA5, v.nbytes());
    outs.push_back({v, v.data_ptr(), v.nbytes()});
  }
  auto eager = runSingleCall(out_call, [&](const Node* n) -> c10::IValue { return values.at(n); });
  if (eager.error) return std::nullopt;
  for (const Out& o : outs) {
    if (o.tensor.storage().data() != o.data || o.tensor.nbytes() >= o.nbytes) continue;
    const uint8_t fill = o.tensor.scalar_type() == at::kBool ? 0x01 : 0xA5;
    const auto* bytes = static_cast<const uint8_t*>(o.data);
    for (size_t b = o.tensor.nbytes(); b < o.nbytes; ++b) {
      if (bytes[b] != fill) return true;
    }
  }
  return false;
}

}  // namespace

bool probeWritesPastShrunkOut(const Node& given) {
  Graph scratch;  // Note [Read sizes in probes]
  const Node* read = withReadSizesAtTheExample(given, scratch);
  if (!read) return false;
  const Node& out_call = *read;
  static ProbeCache<bool> cache;
  bool probeable = out_call.target.kind() == Target::Kind::Aten && smallConcreteInputs(out_call);
  const std::string key = probeable ? cacheKey(out_call, true, &probeable) : "";
  if (!probeable) return false;
  if (auto known = cache.find(key)) return *known;
  std::optional<bool> writes;
  try {
    const at::NoGradGuard no_grad;
    writes = changesPastShrunkOut(out_call);
  } catch (const std::exception&) {
    writes = std::nullopt;
  }
  if (!writes) return false;  // raised on the probe values: nothing learned
  cache.keep(key, *writes);
  return *writes;
}

}  // namespace epsmith
