// Result dtypes by meta execution; see dtype_probe.h.
#include "functionalizer/dtype_probe.h"

#include <ATen/TensorOperators.h>
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
#include "functionalizer/probe_support.h"
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

namespace probe_detail {

// Type promotion depends on each tensor's dtype and on whether it is 0-dim (or a wrapped
// number), and on the literal arguments (a float scalar, a dtype= keyword, rounding_mode),
// never on sizes: the key without sizes holds exactly those; with sizes, for answers that
// depend on them too (Note [Probe answers are the key's alone]).
//
// Note [Probe answers are the key's alone]
// A cached answer serves every later call of its key, in whatever case a worker runs next.
// One that depended on more than the key would make a case's functional program depend on
// the cases the worker ran before it (the same seed giving another program, a minimizer
// keeping a program that fails only after another): so an answer is cached only when it
// was settled on what the key holds. Calls too large or too symbolic to run, and runs that
// raise for the probe's values alone (an index out of range), are not cached; the out=
// form probe, whose answer can depend on sizes (a mean over one element is that element in
// any dtype), is keyed by sizes.
std::string cacheKey(const Node& call, bool with_sizes, bool* probeable) {
  std::string key = call.target.textName();
  auto tensorKey = [&](const Node* n) {
    const TensorMeta* m = n ? n->meta.val.tensor() : nullptr;
    if (!m) {
      *probeable = false;
      return;
    }
    key += shortName(m->dtype);
    key += m->sizes.empty() ? "z" : "t";
    if (m->requires_grad) key += 'g';  // autograd refuses some forms (probeValues)
    if (with_sizes) {
      for (const auto& size : m->sizes) key += size.isConcrete() ? std::to_string(size.concrete()) + "," : "?,";
    }
  };
  auto one = [&](const Argument& a) {
    key += '|';
    switch (a.kind()) {
      case ArgKind::Tensor: tensorKey(a.get<arg::Tensor>()->node); break;
      case ArgKind::OptionalTensor:
        if (const Node* n = a.get<arg::OptionalTensor>()->node) tensorKey(n);
        break;
      case ArgKind::TensorList:
        for (const Node* n : a.get<arg::TensorList>()->nodes) tensorKey(n);
        break;
      case ArgKind::OptionalTensorList:
        for (const Node* n : a.get<arg::OptionalTensorList>()->nodes) {
          if (n) tensorKey(n);
          key += ',';
        }
        break;
      case ArgKind::IntList: case ArgKind::SymIntList:
        if (with_sizes) key += formatArgument(a);  // sizes never decide a dtype, but a shape
        break;
      default: {
        bool symbolic = false;
        a.forEachNode([&](const Node*) { symbolic = true; });
        if (symbolic) *probeable = false;
        key += formatArgument(a);
      }
    }
  };
  for (const auto& a : call.args) one(a);
  for (const auto& [name, a] : call.kwargs) {
    key += name;
    one(a);
  }
  return key;
}

}  // namespace probe_detail

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
  for (const auto& s : m.sizes) sizes.push_back(s.concrete());
  for (const auto& s : m.strides) strides.push_back(s.concrete());
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

namespace probe_detail {

bool concreteMeta(const TensorMeta& m) {
  for (const auto& s : m.sizes) if (!s.isConcrete()) return false;
  for (const auto& s : m.strides) if (!s.isConcrete()) return false;
  return true;
}

}  // namespace probe_detail

namespace {

// Runs `call` alone on tensors of its inputs' metadata on `device` (meta first; for kernels
// without a meta implementation, small CPU tensors of the same shapes, all `fill`).
// `*no_meta_kernel`, where given, says whether a meta run was refused for want of a Meta
// kernel; `*declined`, whether the call was not run at all (metadata that is symbolic or
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
      const int64_t size = s.concrete();
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
    auto outcome = runSingleCall(call, [&](const Node* n) -> c10::IValue {
      return placeholderTensor(*n->meta.val.tensor(), device, fill);
    });
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

bool probe_detail::smallConcreteInputs(const Node& call) {
  int64_t elements = 0;
  bool ok = true;
  call.forEachInput([&](const Node* n) {
    const TensorMeta* m = n->meta.val.tensor();
    if (!m || !concreteMeta(*m) || isComplex(m->dtype)) ok = false;
    else elements += std::max<int64_t>(1, functionalizer::numelOf(*m));
  });
  return ok && elements <= (1 << 16);
}

namespace {

std::optional<std::vector<ProbedReturn>> probe(const Node& call, bool with_sizes) {
  static ProbeCache<std::optional<std::vector<ProbedReturn>>> cache;
  static std::mutex mu;  // for no_meta_kernel
  static std::unordered_set<std::string> no_meta_kernel;  // Note [Ops without meta kernels]
  bool probeable = call.target.kind() == Target::Kind::Aten;
  const std::string key = (with_sizes ? "S" : "D") + cacheKey(call, with_sizes, &probeable);
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
  const bool skip_meta = [&] {
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
  if (!returns && skip_meta) returns = runAlone(call, c10::Device(c10::kMeta), 0, nullptr, &declined);
  if (refused_for_meta) {
    std::lock_guard<std::mutex> lock(mu);
    if (no_meta_kernel.size() >= kMaxCachedProbes) no_meta_kernel.clear();
    no_meta_kernel.insert(form);
  }
  // Not run (too large, symbolic): no answer to keep (Note [Probe answers are the key's alone]).
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

namespace probe_detail {

double wideScale(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Long: return 8589934592.0;  // 2^33
    case ScalarType::Int: return 1048576.0;      // 2^20
    case ScalarType::Short: return 16.0;
    case ScalarType::Byte: return 8.0;           // of r alone, not r - 14: unsigned
    default: return 0.0;                         // i8 is too narrow to add anything
  }
}

// A CPU tensor of `m`'s sizes and dtype holding assorted values: fractional, of both signs
// (whole numbers for integer dtypes, alternating for bool); requiring grad where `m` does,
// for probeAutogradRefuses (under autograd a functional form can raise where the out= call
// does not: `sum` given dtype=bool of an f64 input that requires grad trips an internal
// assert in 1.13 and raises in 2.13, while eager's sum.out writes the bool result).
//
// The second set (`Close`) holds values near 1 that differ in their last bits of an f32:
// none is a bf16 or f16 number, and reductions of them cancel, so a kernel that rounds its
// inputs to `out`'s dtype first and one that rounds only its result disagree on them where
// they agree on the first set (Note [out= calls that compute in another dtype]).
//
// The third (`Wide`) holds odd integers of large magnitude for the integer dtypes: a
// kernel that computes in the input's integer dtype and one that converts to `out`'s
// floating dtype first agree on small integers, but not where a product wraps in the
// integer dtype (1.13's prod.out of i64 into f32, a product in i64 cast) and overflows to
// inf in the floating one, or where a sum passes what the floating dtype holds exactly.
//
// The fourth (`Odd`) holds small odd integers of both signs for the integer dtypes, and
// every element true for bool: the first two sets hold zeros there (their fractions
// truncated; bool's a pattern of one true in three), and the third a 3 beside numbers a
// million times larger, so a norm of negative order is 0 or 3 on them, and one of a bool
// tensor of three elements 1, which every dtype holds. 1.13's norm.dtype_out of an i32 x
// asked for bf16 into an f32 out computes in f32, and on those sets the bf16 norm cast
// agreed (a 1.13 campaign's D1 case); of a b8[3, 1] asked for f16, likewise (another).
at::Tensor probeValues(const TensorMeta& m, ProbeFill fill) {
  std::vector<int64_t> sizes;
  int64_t numel = 1;
  for (const auto& s : m.sizes) {
    sizes.push_back(s.concrete());
    numel *= s.concrete();
  }
  at::Tensor i = at::arange(numel, at::TensorOptions().dtype(at::kDouble));
  at::Tensor r = at::remainder(i * 7919, 29);
  at::Tensor v = fill == ProbeFill::Close ? (r - 14) * 0.0123 + 1.001234567 : (r - 14) * 0.29 + 0.07;
  if (fill == ProbeFill::Wide && wideScale(m.dtype) > 0) {
    const at::Tensor odd = at::remainder(i, 3) * 2 + 1;
    v = (m.dtype == ScalarType::Byte ? r : r - 14) * wideScale(m.dtype) + odd;
  }
  if (fill == ProbeFill::Odd && !isFloatingPoint(m.dtype) && !isComplex(m.dtype)) {
    v = (m.dtype == ScalarType::Byte ? r : r - 14) * 2 + 1;  // at most 57 in magnitude: i8 holds it
  }
  if (m.dtype == ScalarType::Bool) v = fill == ProbeFill::Odd ? at::ones_like(i) : at::remainder(i, 3) == 0;
  at::Tensor t = v.reshape(sizes).to(toAten(m.dtype));
  if (m.requires_grad && (t.is_floating_point() || t.is_complex())) t.requires_grad_(true);
  return t;
}

namespace {

// Whether a NaN of `candidate` has other bits than eager's at the same place. NaNs are
// equal values, but a dtype view of the result shows their bits, so a form that makes
// eager's is the closer (var.out of an empty f16 input into f32 computes in f32; var in
// f16 cast afterwards makes a NaN of other bits, which a 2.13 campaign's D1 case read
// through view.dtype as bool).
bool nanBitsDiffer(const at::Tensor& eager, const at::Tensor& candidate, const at::Tensor& both_nan) {
  if (!both_nan.any().item<bool>()) return false;
  const at::ScalarType bits = eager.element_size() == 8   ? at::kLong
                              : eager.element_size() == 4 ? at::kInt
                              : eager.element_size() == 2 ? at::kShort
                                                          : at::kChar;
  const at::Tensor e = eager.contiguous().view(bits), c = candidate.contiguous().view(bits);
  return !at::equal(e.masked_select(both_nan), c.masked_select(both_nan));
}

}  // namespace

// Element by element in order: an out= kernel that resized `out` may have copied a result
// of the same element count but another shape into it (huber_loss.out given a reduction it
// does not know), which the pass writes in `out`'s shape.
// How far `candidate` is from what eager wrote, in units of the tolerance: at most 1 where
// they agree, floating-point values within D1's tolerance for their dtype where that is the
// tighter than the probe's own (f64: a form that computes in f32 must not pass), other
// values exactly; infinite where they do not.
double distance(const at::Tensor& eager, const at::Tensor& candidate) {
  constexpr double kApart = std::numeric_limits<double>::infinity();
  if (eager.numel() != candidate.numel()) return kApart;
  const at::Tensor c = candidate.reshape(eager.sizes()).to(eager.scalar_type());
  if (!eager.is_floating_point()) return at::equal(eager, c) ? 0 : kApart;
  if (eager.numel() == 0) return 0;
  const Tolerance d1 = defaultTolerance(fromAten(eager.scalar_type()));
  const double rtol = std::min(1e-6, d1.rtol), atol = std::min(1e-7, d1.atol);
  const at::Tensor e = eager.to(at::kDouble), a = c.to(at::kDouble);
  const at::Tensor both_nan = at::isnan(e) & at::isnan(a);
  const at::Tensor apart = (e - a).abs() / (atol + rtol * a.abs());
  const at::Tensor same = at::eq(e, a) | both_nan;  // equal infinities, and NaNs
  const double worst = at::where(same, at::zeros_like(apart), apart).max().item<double>();
  if (std::isnan(worst)) return kApart;
  return std::max(worst, nanBitsDiffer(eager, c, both_nan) ? 0.5 : 0.0);
}

}  // namespace probe_detail

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

bool probeWritesPastShrunkOut(const Node& out_call) {
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
