// What the probes share: their cache keys, the values they run calls on and how far two
// answers are apart; see probe_support.h.
#include "oracle/probe_support.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/eq.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/masked_select.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/remainder.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros_like.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "formats/text_format.h"
#include "ir/tensor_geometry.h"
#include "oracle/aten_bridge.h"
#include "oracle/compare.h"

namespace epsmith {

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
// Note [Read sizes in probes]
// A probe runs a call alone, each input node a tensor of its metadata; a size a program
// reads as a value (`sym_int(%sym_size_int)` among a call's SymInt arguments) has no tensor
// to come from. It is the value of its node at the example (its meta's int, or the hint of
// its SymInt), which is where the probe's tensors stand too (concreteMeta), so the probe
// runs the call with that value written in; its key then holds the value, as any literal's.
// Left out, the probes declined such calls, and the functionalizer took the written
// tensor's dtype for an out= call's result (fft_irfftn.out of f32 into f64, with its size
// read from an input: a D1 dtype mismatch of a default campaign).
namespace {

std::optional<int64_t> valueAtTheExample(const Node& n) {
  if (const int64_t* i = n.meta.val.get<int64_t>()) return *i;
  const auto* s = n.meta.val.get<Val::SymInt>();
  if (!s || !s->expr.hint || !std::holds_alternative<int64_t>(*s->expr.hint)) return std::nullopt;
  return std::get<int64_t>(*s->expr.hint);
}

// `a` with its read sizes written in; false where one has no value at the example.
bool readSizesWrittenIn(Argument& a) {
  bool known = true;
  auto entry = [&](arg::SymScalar<int64_t>& e) {
    if (e.isLiteral()) return;
    const auto v = valueAtTheExample(*e.node);
    known = known && v.has_value();
    e = {nullptr, v.value_or(0)};
  };
  if (auto* s = a.get<arg::SymInt>()) entry(s->value);
  if (auto* l = a.get<arg::SymIntList>()) {
    for (auto& e : l->values) entry(e);
  }
  return known;
}

bool readsASize(const Argument& a) {
  bool reads = false;
  if (a.kind() == ArgKind::SymInt || a.kind() == ArgKind::SymIntList) a.forEachNode([&](const Node*) { reads = true; });
  return reads;
}

}  // namespace

const Node* withReadSizesAtTheExample(const Node& call, Graph& scratch) {
  const bool reads =
      std::any_of(call.args.begin(), call.args.end(), readsASize) ||
      std::any_of(call.kwargs.begin(), call.kwargs.end(), [](const auto& kv) { return readsASize(kv.second); });
  if (!reads) return &call;
  Node* n = scratch.append(OpKind::CallFunction, call.name());
  n->target = call.target;
  n->args = call.args;
  n->kwargs = call.kwargs;
  n->meta = call.meta;
  bool known = true;
  for (auto& a : n->args) known = readSizesWrittenIn(a) && known;
  for (auto& [name, a] : n->kwargs) known = readSizesWrittenIn(a) && known;
  return known ? n : nullptr;
}

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
      for (const auto& size : m->sizes) key += size.hasIntHint() ? std::to_string(size.atHint()) + "," : "?,";
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
      case ArgKind::IntList:
      case ArgKind::SymIntList:
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

namespace probe_detail {

bool concreteMeta(const TensorMeta& m) {
  for (const auto& s : m.sizes)
    if (!s.hasIntHint()) return false;
  for (const auto& s : m.strides)
    if (!s.hasIntHint()) return false;
  return true;
}

}  // namespace probe_detail

namespace probe_detail {

bool smallConcreteInputs(const Node& call) {
  int64_t elements = 0;
  bool ok = true;
  call.forEachInput([&](const Node* n) {
    const TensorMeta* m = n->meta.val.tensor();
    if (!m || !concreteMeta(*m) || isComplex(m->dtype))
      ok = false;
    else
      elements += std::max<int64_t>(1, numelOf(*m));
  });
  return ok && elements <= (1 << 16);
}

}  // namespace probe_detail

namespace probe_detail {

double wideScale(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Long: return 8589934592.0;  // 2^33
    case ScalarType::Int: return 1048576.0;      // 2^20
    case ScalarType::Short: return 16.0;
    case ScalarType::Byte: return 8.0;  // of r alone, not r - 14: unsigned
    default: return 0.0;                // i8 is too narrow to add anything
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
    sizes.push_back(s.atHint());
    numel *= s.atHint();
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

}  // namespace epsmith
