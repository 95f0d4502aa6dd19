// The comparator: torch.isclose's rule per element, evaluated in int64, double or complex
// double over the logical (row-major) order of each tensor; the first difference sets the verdict.
#include "oracle/compare.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/scalar_tensor.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "formats/scalar_format.h"
#include "oracle/strided.h"

namespace epsmith {

std::string RunError::str() const {
  std::string out;
  auto append = [&out](const std::string& part) {
    if (part.empty()) return;
    if (!out.empty()) out += ": ";
    out += part;
  };
  append(node.empty() ? "" : "node %" + node);
  append(op);
  append(message.empty() ? (out.empty() ? "error without a message" : "") : message);
  return out;
}

std::string_view verdictKindName(VerdictKind k) {
  switch (k) {
    case VerdictKind::Match: return "match";
    case VerdictKind::ValueMismatch: return "value-mismatch";
    case VerdictKind::ShapeMismatch: return "shape-mismatch";
    case VerdictKind::DtypeMismatch: return "dtype-mismatch";
    case VerdictKind::ExceptionInOne: return "exception-in-one";
    case VerdictKind::DifferentExceptions: return "different-exceptions";
  }
  return "unknown";
}

// torch/testing/_comparison.py's _DTYPE_PRECISIONS; every other dtype compares exactly.
Tolerance defaultTolerance(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Half:
    case ScalarType::ComplexHalf: return {1e-3, 1e-5};
    case ScalarType::BFloat16: return {1.6e-2, 1e-5};
    case ScalarType::Float:
    case ScalarType::ComplexFloat: return {1.3e-6, 1e-5};
    case ScalarType::Double:
    case ScalarType::ComplexDouble: return {1e-7, 1e-7};
    default: return {0, 0};
  }
}

// Note [Values compared at the precision they were computed in]
Tolerance toleranceAfter(const ComputedIn& c) {
  const double n = std::clamp(c.roundings, 1, kMostRoundingsTolerated);
  const Tolerance one = defaultTolerance(c.dtype);
  return {one.rtol * n, one.atol * n};
}

namespace {

ScalarType irDtype(at::ScalarType t) {
  switch (t) {
    case at::kByte: return ScalarType::Byte;
    case at::kChar: return ScalarType::Char;
    case at::kShort: return ScalarType::Short;
    case at::kInt: return ScalarType::Int;
    case at::kLong: return ScalarType::Long;
    case at::kHalf: return ScalarType::Half;
    case at::kFloat: return ScalarType::Float;
    case at::kDouble: return ScalarType::Double;
    case at::kComplexHalf: return ScalarType::ComplexHalf;
    case at::kComplexFloat: return ScalarType::ComplexFloat;
    case at::kComplexDouble: return ScalarType::ComplexDouble;
    case at::kBool: return ScalarType::Bool;
    case at::kBFloat16: return ScalarType::BFloat16;
    default: return ScalarType::Unknown;  // quantized types
  }
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string indexText(int64_t flat, at::IntArrayRef sizes) {
  std::vector<int64_t> idx(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    idx[d] = flat % sizes[d];
    flat /= sizes[d];
  }
  std::string out = "[";
  for (size_t d = 0; d < idx.size(); ++d) out += (d ? ", " : "") + std::to_string(idx[d]);
  return out + "]";
}

std::string dtypeName(at::ScalarType t) {
  ScalarType ir = irDtype(t);
  return ir == ScalarType::Unknown ? std::string(c10::toString(t)) : std::string(shortName(ir));
}

std::string tensorType(const at::Tensor& t) {
  std::string out = dtypeName(t.scalar_type()) + "[";
  for (size_t d = 0; d < t.sizes().size(); ++d) {
    out += (d ? ", " : "") + std::to_string(t.sizes()[d]);
  }
  return out + "]";
}

// A tensor as the element loops read it: CPU, dense, materialized conj/neg bits, row-major.
at::Tensor plain(at::Tensor t) {
  if (!t.device().is_cpu()) t = t.cpu();
  if (t.layout() != at::kStrided) t = t.to_dense();
  if (t.is_quantized()) t = t.dequantize();
  // The flags are read here: resolving a tensor without them is still two dispatcher calls.
  if (t.is_conj()) t = t.resolve_conj();
  if (t.is_neg()) t = t.resolve_neg();
  return t.contiguous();
}

// A bool element read as the byte it is: a bool tensor may hold any byte (a uint8 tensor
// viewed as bool, a kernel's uninitialized result), and loading one that is not 0 or 1 as
// a C++ bool is undefined. Any byte but 0 reads as true, as converting the byte to bool does.
struct BoolByte {
  uint8_t byte;
  explicit operator int64_t() const { return byte != 0; }
};
static_assert(sizeof(BoolByte) == sizeof(bool));

// Element domains: the wide type a dtype's values are compared in, and torch.isclose's pieces.
struct IntegralDomain {
  using T = int64_t;
  static constexpr at::ScalarType kWide = at::kLong;
  // Calls f(S()) with the C++ type S of a dtype of this domain's, if it is one.
  template <typename F>
  static void forElementType(at::ScalarType t, F&& f) {
    switch (t) {
      case at::kBool: return f(BoolByte());
      case at::kByte: return f(uint8_t());
      case at::kChar: return f(int8_t());
      case at::kShort: return f(int16_t());
      case at::kInt: return f(int32_t());
      case at::kLong: return f(int64_t());
      default: return;
    }
  }
  static bool isNan(T) { return false; }
  static double magnitude(T b) { return std::fabs(static_cast<double>(b)); }
  static double absError(T a, T b) {  // exact: doubles cannot tell 2^53 from 2^53 + 1
    auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    return static_cast<double>(a > b ? ua - ub : ub - ua);
  }
};
struct RealDomain {
  using T = double;
  static constexpr at::ScalarType kWide = at::kDouble;
  template <typename F>
  static void forElementType(at::ScalarType t, F&& f) {
    switch (t) {
      case at::kHalf: return f(at::Half());
      case at::kBFloat16: return f(at::BFloat16());
      case at::kFloat: return f(float());
      case at::kDouble: return f(double());
      default: return;
    }
  }
  static bool isNan(T v) { return std::isnan(v); }
  static double magnitude(T b) { return std::fabs(b); }
  static double absError(T a, T b) { return std::fabs(a - b); }
};
struct ComplexDomain {
  using T = c10::complex<double>;
  static constexpr at::ScalarType kWide = at::kComplexDouble;
  template <typename F>
  static void forElementType(at::ScalarType t, F&& f) {
    switch (t) {
      case at::kComplexFloat: return f(c10::complex<float>());
      case at::kComplexDouble: return f(c10::complex<double>());
      default: return;
    }
  }
  static bool isNan(T v) { return std::isnan(v.real()) || std::isnan(v.imag()); }
  static double magnitude(T b) { return std::hypot(b.real(), b.imag()); }
  static double absError(T a, T b) { return std::hypot(a.real() - b.real(), a.imag() - b.imag()); }
};

struct Mismatches {
  int64_t count = 0;
  int64_t first = -1;
  double max_abs = 0;
  int64_t max_abs_at = -1;
  double max_rel = 0;
  int64_t max_rel_at = -1;

  // NaN errors (NaN against a number) are the largest: once seen, they stay.
  static bool larger(double err, double max) { return !std::isnan(max) && !(err <= max); }
  void add(int64_t i, double abs_err, double rel_err) {
    if (count++ == 0) first = i;
    if (max_abs_at < 0 || larger(abs_err, max_abs)) max_abs = abs_err, max_abs_at = i;
    if (max_rel_at < 0 || larger(rel_err, max_rel)) max_rel = rel_err, max_rel_at = i;
  }
};

// torch.isclose(actual, expected): a == b, or both NaN under equal_nan, or a finite
// |a - b| <= atol + rtol * |b|. Infinities therefore match only the same infinity.
template <typename D>
Mismatches findMismatches(const at::Tensor& expected, const at::Tensor& actual, Tolerance tol, bool equal_nan) {
  at::Tensor e = expected.to(D::kWide).contiguous();
  at::Tensor a = actual.to(D::kWide).contiguous();
  const auto* pe = e.template data_ptr<typename D::T>();
  const auto* pa = a.template data_ptr<typename D::T>();
  Mismatches m;
  for (int64_t i = 0, n = e.numel(); i < n; ++i) {
    if (pa[i] == pe[i]) continue;
    if (equal_nan && D::isNan(pa[i]) && D::isNan(pe[i])) continue;
    double err = D::absError(pa[i], pe[i]);
    double mag = D::magnitude(pe[i]);
    if (std::isfinite(err) && err <= tol.atol + tol.rtol * mag) continue;
    m.add(i, err, mag == 0 ? (err == 0 ? 0 : INFINITY) : err / mag);
  }
  return m;
}

// Note [Results compared in place]
// Most results are small CPU tensors that agree. Widening both to int64, double or complex
// double and making them contiguous (as findMismatches does, for the report's sake) costs
// up to four dispatched copies per pair; reading each element where it lies and widening
// it on the way gives the same values in the same order. So a pair whose memory can be
// read as it is (CPU, strided, not quantized, no conjugate or negative bit pending, holding
// data) is first compared in place; only a pair that differs takes the copying path, which
// writes the report.
bool readableInPlace(const at::Tensor& t) {
  return t.device().is_cpu() && t.layout() == at::kStrided && !t.is_quantized() && !t.is_conj() && !t.is_neg() &&
         t.has_storage() && t.storage().data() != nullptr;
}

// Whether `expected` and `actual` (same dtype and sizes, both readableInPlace) agree
// under findMismatches' rule; nullopt for a dtype this path does not read.
template <typename D>
std::optional<bool> elementsAgreeInPlace(const at::Tensor& expected, const at::Tensor& actual, Tolerance tol,
                                         bool equal_nan) {
  std::optional<bool> agree;
  auto walk = [&](auto tag) {
    using S = decltype(tag);
    const S* pe = static_cast<const S*>(expected.data_ptr());
    const S* pa = static_cast<const S*>(actual.data_ptr());
    agree = forEachElementOffset<2>(
        expected.sizes(), {expected.strides(), actual.strides()}, [&](const std::array<int64_t, 2>& at) {
          const auto e = static_cast<typename D::T>(pe[at[0]]), a = static_cast<typename D::T>(pa[at[1]]);
          if (a == e || (equal_nan && D::isNan(a) && D::isNan(e))) return true;
          const double err = D::absError(a, e);
          return std::isfinite(err) && err <= tol.atol + tol.rtol * D::magnitude(e);
        });
  };
  D::forElementType(expected.scalar_type(), walk);  // none for ComplexHalf: the copying path
  return agree;
}

// One element of a plain tensor, in the text form's notation.
std::string element(const at::Tensor& t, int64_t i) {
  const auto* base = static_cast<const uint8_t*>(t.data_ptr());
  return formatElement(irDtype(t.scalar_type()), base + i * t.element_size());
}

std::string excerpt(const at::Tensor& t) {
  constexpr int64_t kExcerpt = 8;
  std::string out = "[";
  for (int64_t i = 0, n = std::min(t.numel(), kExcerpt); i < n; ++i) {
    out += (i ? ", " : "") + element(t, i);
  }
  if (t.numel() > kExcerpt) out += ", ...";
  return out + "]";
}

struct Difference {
  VerdictKind kind;
  std::string where;
  std::string report;
  std::string message;
};

std::string describe(const c10::IValue& v) {
  if (v.isTensor()) return "tensor " + tensorType(v.toTensor());
  if (v.isNone()) return "None";
  if (v.isInt()) return "int " + std::to_string(v.toInt());
  if (v.isDouble()) return "float " + formatFloat(v.toDouble());
  if (v.isBool()) return std::string("bool ") + (v.toBool() ? "True" : "False");
  if (v.isComplexDouble()) {
    auto c = v.toComplexDouble();
    return "complex(" + formatFloat(c.real()) + ", " + formatFloat(c.imag()) + ")";
  }
  if (v.isString()) return "str " + quote(v.toStringRef());
  if (v.isTuple()) return "tuple of " + std::to_string(v.toTupleRef().elements().size());
  if (v.isList()) return "list of " + std::to_string(v.toListRef().size());
  return v.tagKind();
}

// Walks two successful results and collects every difference, in output-then-input order.
class Comparison {
 public:
  explicit Comparison(const CompareOptions& options) : options_(options) {}

  void outputs(const std::vector<c10::IValue>& expected, const std::vector<c10::IValue>& actual) {
    if (expected.size() != actual.size()) {
      add(VerdictKind::ShapeMismatch, "outputs",
          "output count mismatch: expected " + plural(expected.size(), "output") + ", actual " +
              std::to_string(actual.size()));
    }
    for (size_t i = 0; i < std::min(expected.size(), actual.size()); ++i) {
      value("output " + std::to_string(i), expected[i], actual[i]);
    }
  }

  void inputs(const std::vector<std::pair<std::string, at::Tensor>>& expected,
              const std::vector<std::pair<std::string, at::Tensor>>& actual) {
    for (const auto& [name, e] : expected) {
      auto it =
          std::find_if(actual.begin(), actual.end(), [&name = name](const auto& entry) { return entry.first == name; });
      if (it == actual.end()) {
        add(VerdictKind::ShapeMismatch, "input " + name, "input " + name + " missing in actual");
      } else {
        tensor("input " + name, e, it->second);
      }
    }
    for (const auto& entry : actual) {  // a few inputs each: a scan is cheaper than a set
      const bool seen =
          std::any_of(expected.begin(), expected.end(), [&](const auto& e) { return e.first == entry.first; });
      if (!seen) {
        add(VerdictKind::ShapeMismatch, "input " + entry.first, "input " + entry.first + " missing in expected");
      }
    }
  }

  Verdict verdict(size_t outputs, size_t inputs) const {
    if (diffs_.empty()) {
      return {VerdictKind::Match, "",
              "match: " + plural(outputs, "output") + " and " + plural(inputs, "input") + " agree", "", ""};
    }
    Verdict v{diffs_[0].kind, diffs_[0].where, diffs_[0].report, "", diffs_[0].message};
    if (diffs_.size() > 1) {
      v.report += "\nalso differ:";
      for (size_t i = 1; i < diffs_.size(); ++i) {
        v.report += (i > 1 ? ", " : " ") + diffs_[i].where + " (" + std::string(verdictKindName(diffs_[i].kind)) + ")";
      }
    }
    return v;
  }

 private:
  static std::string plural(size_t n, const std::string& noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
  }

  // `message` defaults to the kind's name: what differs, without where or by how much.
  void add(VerdictKind kind, std::string where, std::string report, std::string message = "") {
    if (message.empty()) message = std::string(verdictKindName(kind));
    diffs_.push_back({kind, std::move(where), std::move(report), std::move(message)});
  }

  void value(const std::string& where, const c10::IValue& e, const c10::IValue& a) {
    auto kindMismatch = [&] {
      add(VerdictKind::DtypeMismatch, where,
          "dtype mismatch at " + where + ": expected " + describe(e) + ", actual " + describe(a));
    };
    if (e.isTensor() != a.isTensor() || e.tagKind() != a.tagKind()) return kindMismatch();
    if (e.isTensor()) return tensor(where, e.toTensor(), a.toTensor());
    if (e.isNone()) return;
    if (e.isString()) {
      if (e.toStringRef() != a.toStringRef()) {
        add(VerdictKind::ValueMismatch, where,
            "value mismatch at " + where + ": expected " + describe(e) + ", actual " + describe(a),
            "value mismatch (not a tensor)");
      }
      return;
    }
    if (e.isTuple() || e.isList()) {
      auto es = e.isTuple() ? e.toTupleRef().elements() : e.toListRef();
      auto as = a.isTuple() ? a.toTupleRef().elements() : a.toListRef();
      if (es.size() != as.size()) {
        add(VerdictKind::ShapeMismatch, where,
            "shape mismatch at " + where + ": expected " + describe(e) + ", actual " + describe(a),
            "shape mismatch (not a tensor)");
        return;
      }
      for (size_t i = 0; i < es.size(); ++i) {
        value(where + "[" + std::to_string(i) + "]", es[i], as[i]);
      }
      return;
    }
    if (e.isInt() || e.isDouble() || e.isBool() || e.isComplexDouble()) {
      // A Python number compares like a 0-dim tensor of its widest dtype.
      scalar(where, e, a);
      return;
    }
    add(VerdictKind::DtypeMismatch, where,
        "cannot compare " + describe(e) + " at " + where + " (unsupported output kind)");
  }

  Tolerance toleranceFor(at::ScalarType t) const { return options_.tolerance.value_or(defaultTolerance(irDtype(t))); }

  // Note [Values compared at the precision they were computed in]: the tolerance of the
  // dtype the value at `where` was computed from, where that is looser than its own.
  std::optional<Tolerance> computedTolerance(const std::string& where, const at::Tensor& e) const {
    if (options_.tolerance || !options_.computed_in || !(e.is_floating_point() || e.is_complex())) return std::nullopt;
    const std::optional<ComputedIn> from = options_.computed_in(where);
    if (!from) return std::nullopt;
    const Tolerance own = toleranceFor(e.scalar_type()), theirs = toleranceAfter(*from);
    if (theirs.rtol <= own.rtol && theirs.atol <= own.atol) return std::nullopt;
    return Tolerance{std::max(own.rtol, theirs.rtol), std::max(own.atol, theirs.atol)};
  }

  // Note [Results compared in place]
  std::optional<bool> agreeInPlace(const at::Tensor& e, const at::Tensor& a) const {
    Tolerance tol = toleranceFor(e.scalar_type());
    if (e.is_complex()) return elementsAgreeInPlace<ComplexDomain>(e, a, tol, options_.equal_nan);
    if (e.is_floating_point()) return elementsAgreeInPlace<RealDomain>(e, a, tol, options_.equal_nan);
    return elementsAgreeInPlace<IntegralDomain>(e, a, tol, options_.equal_nan);
  }

  Mismatches mismatches(const at::Tensor& e, const at::Tensor& a) const {
    return mismatchesAt(e, a, toleranceFor(e.scalar_type()));
  }

  Mismatches mismatchesAt(const at::Tensor& e, const at::Tensor& a, const Tolerance& tol) const {
    if (e.is_complex()) return findMismatches<ComplexDomain>(e, a, tol, options_.equal_nan);
    if (e.is_floating_point()) return findMismatches<RealDomain>(e, a, tol, options_.equal_nan);
    return findMismatches<IntegralDomain>(e, a, tol, options_.equal_nan);
  }

  // Note [Identical bytes agree]
  // Most comparisons are of results that agree to the bit (the same kernels on the same
  // values): those are settled by comparing their bytes, without widening both tensors to
  // int64, double or complex first. Equal bits are equal values, and within any
  // tolerance, except NaN where NaN is not to equal itself; that case, and every pair whose
  // bits differ (0.0 and -0.0 included), takes the element-wise rule.
  // Only tensors with memory of their own qualify: a wrapper (LibTorch's functionalization
  // hands some back) has a storage with no data, which the element-wise path reports.
  bool sameBytes(const at::Tensor& e, const at::Tensor& a) const {
    if (!options_.equal_nan && (e.is_floating_point() || e.is_complex())) return false;
    if (!e.is_contiguous() || !a.is_contiguous() || e.numel() != a.numel() || e.numel() == 0) return false;
    auto holdsData = [](const at::Tensor& t) { return t.has_storage() && t.storage().data() != nullptr; };
    return holdsData(e) && holdsData(a) && std::memcmp(e.data_ptr(), a.data_ptr(), e.nbytes()) == 0;
  }

  std::string toleranceText(at::ScalarType t) const {
    Tolerance tol = toleranceFor(t);
    if (tol.rtol == 0 && tol.atol == 0) return "exact";
    return "rtol " + fmt(tol.rtol) + ", atol " + fmt(tol.atol);
  }

  static at::Tensor wrap(const c10::IValue& v) {
    c10::Scalar s = v.toScalar();
    return at::scalar_tensor(s, at::TensorOptions().dtype(s.type()));  // i64, f64, b8, c128
  }

  void scalar(const std::string& where, const c10::IValue& e, const c10::IValue& a) {
    at::Tensor et = wrap(e);
    Mismatches m = mismatches(et, wrap(a));
    if (m.count == 0) return;
    add(VerdictKind::ValueMismatch, where,
        "value mismatch at " + where + ": expected " + describe(e) + ", actual " + describe(a) + " (abs error " +
            fmt(m.max_abs) + ", rel error " + fmt(m.max_rel) + "; " + toleranceText(et.scalar_type()) + ")",
        "value mismatch (not a tensor)");
  }

  void tensor(const std::string& where, const at::Tensor& expected, const at::Tensor& actual) {
    if (expected.scalar_type() != actual.scalar_type()) {
      add(VerdictKind::DtypeMismatch, where,
          "dtype mismatch at " + where + ": expected " + tensorType(expected) + ", actual " + tensorType(actual),
          "dtype mismatch (" + dtypeName(expected.scalar_type()) + " expected, " + dtypeName(actual.scalar_type()) +
              " actual)");
      return;
    }
    if (expected.sizes() != actual.sizes()) {
      add(VerdictKind::ShapeMismatch, where,
          "shape mismatch at " + where + ": expected " + tensorType(expected) + ", actual " + tensorType(actual),
          "shape mismatch (" + dtypeName(expected.scalar_type()) + ")");
      return;
    }
    if (readableInPlace(expected) && readableInPlace(actual)) {
      if (sameBytes(expected, actual)) return;
      if (agreeInPlace(expected, actual).value_or(false)) return;
    }
    at::Tensor e = plain(expected), a = plain(actual);
    if (sameBytes(e, a)) return;
    Mismatches m = mismatches(e, a);
    if (m.count == 0) return;
    if (auto looser = computedTolerance(where, e); looser && mismatchesAt(e, a, *looser).count == 0) return;
    auto index = [&](int64_t i) { return indexText(i, e.sizes()); };
    std::string r = "value mismatch at " + where + " (" + tensorType(e) + ", " + toleranceText(e.scalar_type()) +
                    "): " + std::to_string(m.count) + " of " + std::to_string(e.numel()) + " elements differ\n";
    r += "  max abs error: " + fmt(m.max_abs) + " at " + index(m.max_abs_at) + "\n";
    r += "  max rel error: " + fmt(m.max_rel) + " at " + index(m.max_rel_at) + "\n";
    r += "  first difference at " + index(m.first) + ": expected " + element(e, m.first) + ", actual " +
         element(a, m.first) + "\n";
    r += "  expected: " + excerpt(e) + "\n";
    r += "  actual:   " + excerpt(a);
    add(VerdictKind::ValueMismatch, where, std::move(r), "value mismatch (" + dtypeName(e.scalar_type()) + ")");
  }

  const CompareOptions& options_;
  std::vector<Difference> diffs_;
};

Verdict compareErrors(const RunResult& expected, const RunResult& actual, const CompareOptions& options) {
  if (expected.error && actual.error) {
    const RunError& e = *expected.error;
    const RunError& a = *actual.error;
    const bool agree =
        options.same_node_raising_agrees ? e.node == a.node && e.op == a.op : e.op == a.op && e.message == a.message;
    if (agree) {
      return {VerdictKind::Match, "", "match: both raised " + expected.error->str(), "", ""};
    }
    return {VerdictKind::DifferentExceptions, "",
            "different exceptions:\n  expected: " + expected.error->str() + "\n  actual:   " + actual.error->str(),
            e.op, a.message};
  }
  bool in_expected = expected.error.has_value();
  const RunResult& raised = in_expected ? expected : actual;
  const RunResult& completed = in_expected ? actual : expected;
  return {VerdictKind::ExceptionInOne, "",
          std::string("exception in ") + (in_expected ? "expected" : "actual") + " only: " + raised.error->str() +
              "\n  " + (in_expected ? "actual" : "expected") + " completed with " +
              std::to_string(completed.outputs.size()) + " output(s)",
          raised.error->op, (in_expected ? "in expected only: " : "") + raised.error->message};
}

}  // namespace

Verdict compareResults(const RunResult& expected, const RunResult& actual, const CompareOptions& options) {
  if (!expected.ok() || !actual.ok()) return compareErrors(expected, actual, options);
  Comparison c(options);
  c.outputs(expected.outputs, actual.outputs);
  c.inputs(expected.final_inputs, actual.final_inputs);
  return c.verdict(expected.outputs.size(), expected.final_inputs.size());
}

}  // namespace epsmith
