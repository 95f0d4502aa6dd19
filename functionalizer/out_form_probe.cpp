// The out= form probe (dtype_probe.h): which functional form writes what eager's out= kernel
// writes into an out tensor of another dtype, found by running both on probe values.
#include "functionalizer/dtype_probe.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/grad_mode.h>
#include <ATen/native/TypeProperties.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/full_like.h>
#include <ATen/ops/ones_like.h>

#include <c10/util/FunctionRef.h>

#include <cmath>
#include <limits>

#include "oracle/probe_support.h"
#include "functionalizer/view_steps.h"
#include "ops/op_registry.h"
#include "oracle/aten_bridge.h"
#include "oracle/interpreter.h"

namespace epsmith {

using probe_detail::cacheKey;
using probe_detail::distance;
using probe_detail::ProbeCache;
using probe_detail::ProbeFill;
using probe_detail::probeValues;
using probe_detail::smallConcreteInputs;
using probe_detail::withReadSizesAtTheExample;
std::optional<ScalarType> commonInputDtype(const Node& call, const std::string& out_name) {
  const OpInfo* op = call.target.op();
  const int out_at = op ? op->argumentIndex(out_name) : -1;
  const Node* out = nullptr;
  if (out_at >= 0) {
    if (const Argument* a = schemaArgument(call, *op, static_cast<size_t>(out_at))) {
      if (const auto* t = a->get<arg::Tensor>()) out = t->node;
    }
  }
  at::native::ResultTypeState state;
  bool any = false;
  call.forEachInput([&](const Node* n) {
    const TensorMeta* m = n->meta.val.tensor();
    if (!m || n == out) return;
    // Only the dtype and whether it has dimensions count: a meta tensor of that rank.
    const std::vector<int64_t> sizes(m->sizes.size(), 1);
    state = at::native::update_result_type_state(
        at::empty(sizes, at::TensorOptions().dtype(toAten(m->dtype)).device(at::kMeta)), state);
    any = true;
  });
  if (!any) return std::nullopt;
  return fromAten(at::native::result_type(state));
}

bool replaceDtypeArgument(Node& call, const OpInfo& op, ScalarType dtype) {
  const int at = op.argumentIndex("dtype");
  if (at < 0) return false;
  if (static_cast<size_t>(at) < call.args.size()) {
    if (!call.args[static_cast<size_t>(at)].get<arg::Dtype>()) return false;
    call.args[static_cast<size_t>(at)] = arg::Dtype{dtype};
    return true;
  }
  for (auto& [name, a] : call.kwargs) {
    if (name == "dtype" && a.get<arg::Dtype>()) {
      a = arg::Dtype{dtype};
      return true;
    }
  }
  return false;
}

namespace {

// The out= call's out tensor, where every input has a concrete, real meta and the call is
// small enough to run; null otherwise.
const Node* probeableOut(const Node& out_call, int out_at, const std::string& out_name) {
  if (!smallConcreteInputs(out_call)) return nullptr;
  const Node* out = nullptr;
  if (static_cast<size_t>(out_at) < out_call.args.size()) {
    if (const auto* t = out_call.args[static_cast<size_t>(out_at)].get<arg::Tensor>()) out = t->node;
  }
  for (const auto& [name, a] : out_call.kwargs) {
    if (name == out_name) {
      if (const auto* t = a.get<arg::Tensor>()) out = t->node;
    }
  }
  return out;
}

struct ProbeSet {
  std::unordered_map<const Node*, at::Tensor> values;
  at::Tensor want;  // what eager's out= call wrote
};

// Which form of the functional call writes what eager's out= call wrote on every set: the
// dtype argument, a cast of the result, of the inputs, to their common dtype, or the dtype
// argument replaced; Unmatched when no candidate does.
OutForm matchingForm(const Node& out_call, const OpInfo& functional, const std::string& out_name, int out_at,
                     const TensorMeta& out_meta, const std::vector<ProbeSet>& sets) {
  // The functional call: out_call's arguments but the out tensor, in a graph of its own.
  Graph scratch;
  Node* f = scratchFunctionalCall(scratch, out_call, functional, {out_at});
  const at::ScalarType out_dtype = toAten(out_meta.dtype);
  const std::optional<ScalarType> common = commonInputDtype(out_call, out_name);
  auto runOn = [&](OutForm form, const ProbeSet& set) -> std::optional<at::Tensor> {
    auto r = runSingleCall(*f, [&](const Node* n) -> c10::IValue {
      at::Tensor t = cloneOf(set.values.at(n));
      if (t.scalar_type() != out_dtype &&
          ((form == OutForm::CastInputs && t.is_floating_point() && isFloatingPoint(out_meta.dtype)) ||
           form == OutForm::CastEveryInput)) {
        t = t.to(out_dtype);
      }
      if (form == OutForm::CastToCommon && common && t.scalar_type() != toAten(*common)) t = t.to(toAten(*common));
      return t;
    });
    if (r.error || r.outputs.empty() || !r.outputs[0].isTensor()) return std::nullopt;
    return r.outputs[0].toTensor();
  };
  // The candidate's distance from eager: the farthest over the sets
  // (Note [out= calls that compute in another dtype]).
  auto distanceOf = [&](OutForm form) {
    double worst = 0;
    for (const ProbeSet& set : sets) {
      auto r = runOn(form, set);
      worst = std::max(worst, r ? distance(set.want, *r) : std::numeric_limits<double>::infinity());
    }
    return worst;
  };
  // The closest candidate within the tolerance, the first of equals: two forms may both
  // pass (logsumexp.out of f32 into f64 computed in f32 or in f64), and the one that computes
  // as eager does is the closer. None is closer than an exact one: the rest are not run.
  OutForm best = OutForm::Unmatched;
  double best_distance = 1;
  auto exact = [&] { return best != OutForm::Unmatched && best_distance == 0; };
  auto consider = [&](OutForm form) {
    const double d = distanceOf(form);
    if (d <= best_distance && (best == OutForm::Unmatched || d < best_distance)) {
      best = form;
      best_distance = d;
    }
  };
  const int dtype_at = functional.argumentIndex("dtype");
  const bool dtype_argument = dtype_at >= 0 &&
                              functional.arguments[static_cast<size_t>(dtype_at)].type == ParamType::ScalarType &&
                              !schemaArgument(*f, functional, static_cast<size_t>(dtype_at));
  if (dtype_argument) {
    f->kwargs.emplace_back("dtype", arg::Dtype{out_meta.dtype});
    consider(OutForm::DtypeArgument);
    f->kwargs.pop_back();
  }
  for (OutForm form : {OutForm::CastResult, OutForm::CastInputs, OutForm::CastEveryInput, OutForm::CastToCommon}) {
    if (exact()) return best;
    if (form != OutForm::CastToCommon || common) consider(form);
  }
  if (!exact() && replaceDtypeArgument(*f, functional, out_meta.dtype)) consider(OutForm::OutDtype);
  return best;
}

struct ProbeAnswer {
  std::optional<OutForm> form;
  bool settled = false;  // the candidates were compared on values (Note [Probe answers are the key's alone])
};

// The set `first` with each input (not `out`) that `refill` takes given `fill` of it, and
// eager's answer on it; nullopt where `refill` takes no input, or eager raises on the set.
std::optional<ProbeSet> refilledSet(const Node& out_call, const Node* out, const ProbeSet& first,
                                    c10::function_ref<bool(ScalarType)> refill,
                                    c10::function_ref<at::Tensor(const at::Tensor&)> fill) {
  ProbeSet set;
  bool any = false;
  for (const auto& [n, v] : first.values) {
    const bool refilled = n != out && refill(n->meta.val.tensor()->dtype);
    any = any || refilled;
    set.values.emplace(n, refilled && v.numel() > 0 ? fill(v) : v);
  }
  if (!any) return std::nullopt;
  auto eager = runSingleCall(out_call, [&](const Node* n) -> c10::IValue { return cloneOf(set.values.at(n)); });
  if (eager.error || eager.outputs.empty() || !eager.outputs[0].isTensor()) return std::nullopt;
  set.want = eager.outputs[0].toTensor();
  return set;
}

bool isFloating(ScalarType dtype) {
  return dtype == ScalarType::Half || dtype == ScalarType::BFloat16 || dtype == ScalarType::Float ||
         dtype == ScalarType::Double;
}

// Where `out` is f16, bf16 or bool, the sets that part a kernel computing in the out's
// dtype from one computing in the input's and casting; on the assorted sets the two agree
// (sums within an ulp of each other, products true alike), where on real inputs they do not.
// - Swamped: floating-point inputs of ones after one large element, which a sum kept in the
//   out's dtype cannot grow past (256 + 1 is 256 in bf16). 1.13's
//   `norm.dtype_out(x, dtype=f32, out=bf16)` of an f32 or a bf16 x accumulates in bf16, 344
//   where the f32 norm cast is 352 (a 1.13 campaign's D1 case).
// - Underflowed, for an f16 out: f32 and f64 inputs of 2^-25, which f16 rounds to zero
//   while their sum or norm is an f16 number. 1.13's `norm.out(x, 0.5, out=f16)` of an f32
//   x computes in f16: 57 470 where the f32 norm cast is 57 184 (a 1.13 campaign's D1
//   case), which the swamped set did not part.
// - Subnormal, for an f16 out: f32 and f64 inputs of 5e-5, an f16 subnormal whose square
//   underflows f16 and whose negative powers overflow it, while a norm of them is an f16
//   number. 1.13's `norm.out(x, -2.5, out=f16)` of an f32 x is 0 (inf to the -0.4th), where
//   the f32 norm cast is 4e-5 (a 1.13 campaign's D1 case); of 2^-25 both are 0.
// - Vanishing, for a bool out: floating-point inputs each true, whose product underflows to
//   zero in their own dtype (2^-80 in f32). 1.13's prod.out(x, out=b8) of an f32 x
//   multiplies in f32 and casts, so inf times 0 is NaN, true, where prod(dtype=bool) is
//   false (a 1.13 campaign's D1 case).
std::vector<ProbeSet> narrowOutSets(const Node& out_call, const Node* out, const ProbeSet& first) {
  std::vector<ProbeSet> sets;
  const ScalarType out_dtype = out->meta.val.tensor()->dtype;
  if (out_dtype == ScalarType::Bool) {
    auto vanishing = refilledSet(out_call, out, first, isFloating, [](const at::Tensor& v) {
      const int exponent = v.scalar_type() == at::kHalf ? -13 : v.scalar_type() == at::kDouble ? -540 : -80;
      return at::full_like(v, std::ldexp(1.0, exponent));  // its square is below the dtype's least subnormal
    });
    if (vanishing) sets.push_back(std::move(*vanishing));
    return sets;
  }
  if (out_dtype != ScalarType::Half && out_dtype != ScalarType::BFloat16) return sets;
  const double large = out_dtype == ScalarType::Half ? 2048 : 256;  // 2^(significand bits + 1)
  auto swamped = refilledSet(out_call, out, first, isFloating, [&](const at::Tensor& v) {
    at::Tensor t = at::ones_like(v);
    t.view(-1)[0].fill_(large);
    return t;
  });
  if (swamped) sets.push_back(std::move(*swamped));
  if (out_dtype != ScalarType::Half) return sets;
  auto wide = [](ScalarType dtype) { return dtype == ScalarType::Float || dtype == ScalarType::Double; };
  auto underflowed = refilledSet(out_call, out, first, wide,
                                 [](const at::Tensor& v) { return at::full_like(v, std::ldexp(1.0, -25)); });
  if (underflowed) sets.push_back(std::move(*underflowed));
  auto subnormal = refilledSet(out_call, out, first, wide, [](const at::Tensor& v) { return at::full_like(v, 5e-5); });
  if (subnormal) sets.push_back(std::move(*subnormal));
  return sets;
}

// Runs the out= call and the candidates on probe values.
ProbeAnswer probeOnValues(const Node& out_call, const OpInfo& functional, const std::string& out_name) {
  const int out_at = out_call.target.op()->argumentIndex(out_name);
  if (out_at < 0) return {};
  const Node* out = probeableOut(out_call, out_at, out_name);
  if (!out) return {};
  bool wide_input = false, integral_input = false;  // an input the Wide set, the Odd set fills
  out_call.forEachInput([&](const Node* n) {
    const ScalarType dtype = n->meta.val.tensor()->dtype;
    wide_input = wide_input || (n != out && probe_detail::wideScale(dtype) > 0);
    integral_input = integral_input || (n != out && !isFloatingPoint(dtype) && !isComplex(dtype));
  });
  std::vector<ProbeSet> sets;
  for (ProbeFill fill : {ProbeFill::Assorted, ProbeFill::Close, ProbeFill::Wide, ProbeFill::Odd}) {
    if ((fill == ProbeFill::Wide && !wide_input) || (fill == ProbeFill::Odd && !integral_input)) continue;
    ProbeSet set;
    out_call.forEachInput([&](const Node* n) {
      if (!set.values.count(n)) set.values.emplace(n, probeValues(*n->meta.val.tensor(), fill));
    });
    // Not zeros: a kernel that leaves `out` as it was (multilabel_margin_loss.out of an
    // empty batch) must not pass for a functional form whose result is fresh memory, which
    // is often zero; 7 is rarely what such memory holds.
    set.values[out] = at::full_like(set.values[out], 7);
    auto eager = runSingleCall(out_call, [&](const Node* n) -> c10::IValue { return cloneOf(set.values.at(n)); });
    // The first set decides whether the call can be probed at all; the others only where
    // eager runs on them too.
    if (eager.error || eager.outputs.empty() || !eager.outputs[0].isTensor()) {
      if (fill != ProbeFill::Assorted) continue;
      return {};
    }
    // An empty result tells the candidates apart only by whether they run: the first that
    // does is the form (the default one raises for huber_loss.out of an empty i64 input
    // into an f32 `out`: its functional result takes the input's dtype).
    set.want = eager.outputs[0].toTensor();
    sets.push_back(std::move(set));
  }
  for (ProbeSet& set : narrowOutSets(out_call, out, sets.front())) sets.push_back(std::move(set));
  return {matchingForm(out_call, functional, out_name, out_at, *out->meta.val.tensor(), sets), true};
}

}  // namespace

std::optional<OutForm> probeOutForm(const Node& given, const OpInfo& functional, const std::string& out_name) {
  Graph scratch;  // Note [Read sizes in probes]
  const Node* read = withReadSizesAtTheExample(given, scratch);
  if (!read) return std::nullopt;
  const Node& out_call = *read;
  static ProbeCache<std::optional<OutForm>> cache;
  bool probeable = out_call.target.kind() == Target::Kind::Aten;
  // Where a kernel converts depends on the op, the dtypes and the literals; but which
  // candidate writes what eager writes on the probe's values can depend on the sizes too
  // (a mean over one element is that element in any dtype; over thirty, f16 and f32 sums
  // part), so sizes are part of the key (Note [Probe answers are the key's alone]).
  const std::string key = cacheKey(out_call, true, &probeable);
  if (!probeable) return std::nullopt;
  if (auto known = cache.find(key)) return *known;
  ProbeAnswer answer;
  try {  // a kernel reports what it refuses by throwing
    // Values only: an out= call raises under autograd on inputs that require grad (a
    // program calls it under no_grad), and whether autograd lets a functional form through
    // is probeAutogradRefuses's to say.
    const at::NoGradGuard no_grad;
    answer = probeOnValues(out_call, functional, out_name);
  } catch (const std::exception&) {
    answer = {};
  }
  if (answer.settled) cache.keep(key, answer.form);
  return answer.form;
}

}  // namespace epsmith
