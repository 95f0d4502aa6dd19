// The comparator's specification: per-dtype tolerance boundaries, NaN and infinity rules,
// structural differences, scalar outputs, exceptions, and what the report tells a person.
#include <gtest/gtest.h>

#include <ATen/TensorIndexing.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/Context.h>
#include <ATen/ops/_neg_view.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/isclose.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "oracle/aten_bridge.h"
#include "oracle/compare.h"

namespace epsmith {
namespace {

// EXPECT_CONTAINS(report, fragment): the whole report is printed when the fragment is absent.
::testing::AssertionResult contains(const std::string& text, const std::string& fragment) {
  if (text.find(fragment) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "missing \"" << fragment << "\" in:\n" << text;
}
#define EXPECT_CONTAINS(text, fragment) EXPECT_TRUE(contains(text, fragment))

RunResult outputs(std::vector<c10::IValue> values) {
  RunResult r;
  r.outputs = std::move(values);
  return r;
}

RunResult raised(std::string node, std::string op, std::string message) {
  RunResult r;
  r.error = RunError{std::move(node), std::move(op), std::move(message)};
  return r;
}

Verdict compareTensors(const at::Tensor& expected, const at::Tensor& actual, const CompareOptions& options = {}) {
  return compareResults(outputs({expected}), outputs({actual}), options);
}

at::Tensor f32(std::vector<float> v) { return at::tensor(v); }
at::Tensor f64(std::vector<double> v) { return at::tensor(v); }
at::Tensor i64(std::vector<int64_t> v) { return at::tensor(v); }

// One-element tensors of `dtype` holding expected and actual, compared with the defaults.
VerdictKind compareAs(at::ScalarType dtype, double expected, double actual) {
  return compareTensors(at::tensor({expected}).to(dtype), at::tensor({actual}).to(dtype)).kind;
}

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(CompareNames, VerdictKindNames) {
  EXPECT_EQ(verdictKindName(VerdictKind::Match), "match");
  EXPECT_EQ(verdictKindName(VerdictKind::ValueMismatch), "value-mismatch");
  EXPECT_EQ(verdictKindName(VerdictKind::ShapeMismatch), "shape-mismatch");
  EXPECT_EQ(verdictKindName(VerdictKind::DtypeMismatch), "dtype-mismatch");
  EXPECT_EQ(verdictKindName(VerdictKind::ExceptionInOne), "exception-in-one");
  EXPECT_EQ(verdictKindName(VerdictKind::DifferentExceptions), "different-exceptions");
}

TEST(CompareNames, RunErrorStr) {
  EXPECT_EQ((RunError{"add_", "aten::add_.Tensor", "boom"}.str()), "node %add_: aten::add_.Tensor: boom");
  EXPECT_EQ((RunError{"", "aten::add_.Tensor", "boom"}.str()), "aten::add_.Tensor: boom");
  EXPECT_EQ((RunError{"", "", "inputs: bad device"}.str()), "inputs: bad device");
  EXPECT_EQ((RunError{"add_", "aten::add_.Tensor", ""}.str()), "node %add_: aten::add_.Tensor");
  EXPECT_EQ((RunError{}.str()), "error without a message");
}

TEST(CompareTolerance, DefaultsFollowAssertClose) {
  auto is = [](ScalarType t, double rtol, double atol) {
    Tolerance tol = defaultTolerance(t);
    return tol.rtol == rtol && tol.atol == atol;
  };
  EXPECT_TRUE(is(ScalarType::Half, 1e-3, 1e-5));
  EXPECT_TRUE(is(ScalarType::BFloat16, 1.6e-2, 1e-5));
  EXPECT_TRUE(is(ScalarType::Float, 1.3e-6, 1e-5));
  EXPECT_TRUE(is(ScalarType::Double, 1e-7, 1e-7));
  EXPECT_TRUE(is(ScalarType::ComplexHalf, 1e-3, 1e-5));
  EXPECT_TRUE(is(ScalarType::ComplexFloat, 1.3e-6, 1e-5));
  EXPECT_TRUE(is(ScalarType::ComplexDouble, 1e-7, 1e-7));
  EXPECT_TRUE(is(ScalarType::Long, 0, 0));
  EXPECT_TRUE(is(ScalarType::Byte, 0, 0));
  EXPECT_TRUE(is(ScalarType::Bool, 0, 0));
}

// Note [Values compared at the precision they were computed in]: two f64 values two f32
// ulps apart differ at f64's tolerance, and agree where the check says the value was
// computed from f32; a difference past f32's tolerance still differs, and a value computed
// from f64 alone keeps f64's.
TEST(CompareTolerance, AValueIsComparedAtThePrecisionItWasComputedIn) {
  const at::Tensor e = f64({744.7396735432594}), a = f64({744.739569440484});
  EXPECT_EQ(compareTensors(e, a).kind, VerdictKind::ValueMismatch);
  CompareOptions from_f32;
  from_f32.computed_in = [](const std::string& where) -> std::optional<ComputedIn> {
    return where == "output 0" ? std::optional<ComputedIn>(ComputedIn{ScalarType::Float}) : std::nullopt;
  };
  EXPECT_EQ(compareTensors(e, a, from_f32).kind, VerdictKind::Match);
  EXPECT_EQ(compareTensors(e, f64({744.75}), from_f32).kind, VerdictKind::ValueMismatch);
  CompareOptions from_f64;
  from_f64.computed_in = [](const std::string&) { return std::optional<ComputedIn>(ComputedIn{ScalarType::Double}); };
  EXPECT_EQ(compareTensors(e, a, from_f64).kind, VerdictKind::ValueMismatch);
}

// The same Note: two f16 values 1.7e-3 apart (a norm after 1.13's renorm_, two ulps) differ
// after one rounding in f16 and agree after two; a difference of 1.5% still differs after
// any number, which kMostRoundingsTolerated bounds.
TEST(CompareTolerance, AValueRoundedSeveralTimesIsComparedAtItsRoundings) {
  const at::Tensor e = f64({0.5913}).to(at::kHalf), a = f64({0.5903}).to(at::kHalf);
  auto rounded = [](int n) {
    CompareOptions o;
    o.computed_in = [n](const std::string&) { return std::optional<ComputedIn>(ComputedIn{ScalarType::Half, n}); };
    return o;
  };
  EXPECT_EQ(compareTensors(e, a).kind, VerdictKind::ValueMismatch);
  EXPECT_EQ(compareTensors(e, a, rounded(1)).kind, VerdictKind::ValueMismatch);
  EXPECT_EQ(compareTensors(e, a, rounded(2)).kind, VerdictKind::Match);
  EXPECT_EQ(compareTensors(e, f64({0.6}).to(at::kHalf), rounded(16)).kind, VerdictKind::ValueMismatch);
  EXPECT_DOUBLE_EQ(toleranceAfter({ScalarType::Half, 16}).rtol, 4e-3);
  EXPECT_DOUBLE_EQ(toleranceAfter({ScalarType::Half, 0}).rtol, 1e-3);
}

TEST(CompareValues, IdenticalResultsMatch) {
  RunResult r = outputs({f32({1, 2, 3}), i64({4, 5}), c10::IValue(int64_t{7}), c10::IValue()});
  r.final_inputs = {{"buffer:calls", i64({3})}};
  Verdict v = compareResults(r, r);
  EXPECT_EQ(v.kind, VerdictKind::Match) << v.report;
  EXPECT_TRUE(v.match());
  EXPECT_EQ(v.where, "");
  EXPECT_CONTAINS(v.report, ("4 outputs and 1 input agree"));
}

// A bool tensor may hold any byte (here a uint8 tensor viewed as bool, as `view.dtype` makes
// one): 240 is true, read without loading it as a C++ bool (the asan preset's UBSan would
// stop at that; the functionalizer target did).
TEST(CompareValues, BoolBytesOtherThanOneAreTrue) {
  auto bools = [](std::vector<int64_t> bytes) { return at::tensor(bytes).to(at::kByte).view(at::kBool); };
  EXPECT_EQ(compareTensors(bools({240, 0, 1}), bools({1, 0, 7})).kind, VerdictKind::Match);
  EXPECT_EQ(compareTensors(bools({240, 0}), bools({0, 0})).kind, VerdictKind::ValueMismatch);
}

// float32 at 100: allowed error 1e-5 + 1.3e-6 * 100 = 1.4e-4; one ulp is 7.6e-6.
TEST(CompareValues, Float32Boundary) {
  EXPECT_EQ(compareAs(at::kFloat, 100, 100 + 1.3e-4), VerdictKind::Match);  // 1.297e-4 in f32
  EXPECT_EQ(compareAs(at::kFloat, 100, 100 - 1.3e-4), VerdictKind::Match);
  EXPECT_EQ(compareAs(at::kFloat, 100, 100 + 1.5e-4), VerdictKind::ValueMismatch);  // 1.526e-4
  // Near zero only atol counts.
  EXPECT_EQ(compareAs(at::kFloat, 0, 0.9e-5), VerdictKind::Match);
  EXPECT_EQ(compareAs(at::kFloat, 0, 1.1e-5), VerdictKind::ValueMismatch);
}

TEST(CompareValues, Float64Boundary) {
  EXPECT_EQ(compareAs(at::kDouble, 1, 1 + 1e-7), VerdictKind::Match);  // allowed 2e-7
  EXPECT_EQ(compareAs(at::kDouble, 1, 1 + 1.9e-7), VerdictKind::Match);
  EXPECT_EQ(compareAs(at::kDouble, 1, 1 + 2.1e-7), VerdictKind::ValueMismatch);
}

// float16 at 1: one ulp is 9.8e-4, allowed 1.01e-3; bfloat16: one ulp is 7.8e-3, allowed 1.6e-2.
TEST(CompareValues, HalfAndBfloat16AreLooser) {
  EXPECT_EQ(compareAs(at::kHalf, 1, 1 + 0x1p-10), VerdictKind::Match);
  EXPECT_EQ(compareAs(at::kHalf, 1, 1 + 0x1p-9), VerdictKind::ValueMismatch);
  EXPECT_EQ(compareAs(at::kFloat, 1, 1 + 0x1p-10), VerdictKind::ValueMismatch);  // same step

  EXPECT_EQ(compareAs(at::kBFloat16, 1, 1 + 2 * 0x1p-7), VerdictKind::Match);  // 1.5625e-2
  EXPECT_EQ(compareAs(at::kBFloat16, 1, 1 + 3 * 0x1p-7), VerdictKind::ValueMismatch);
  EXPECT_EQ(compareAs(at::kHalf, 1, 1 + 2 * 0x1p-7), VerdictKind::ValueMismatch);
}

TEST(CompareValues, ComplexUsesModulusOfDifference) {
  auto c64 = [](float re, float im) { return at::tensor({c10::complex<float>(re, im)}, at::kComplexFloat); };
  // |(3e-6, 4e-6)| = 5e-6 <= 1e-5 + 1.3e-6 * |1|.
  EXPECT_EQ(compareTensors(c64(1, 0), c64(1 + 3e-6f, 4e-6f)).kind, VerdictKind::Match);
  // |(0, 2e-5)| = 2e-5 is outside, though the real parts agree.
  Verdict v = compareTensors(c64(1, 0), c64(1, 2e-5f));
  EXPECT_EQ(v.kind, VerdictKind::ValueMismatch) << v.report;
  EXPECT_CONTAINS(v.report, ("c64[1]"));
  // NaN in either part makes a complex NaN.
  float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(compareTensors(c64(nan, 0), c64(0, nan)).kind, VerdictKind::Match);
  EXPECT_EQ(compareTensors(c64(nan, 0), c64(0, 0)).kind, VerdictKind::ValueMismatch);
}

TEST(CompareValues, IntegersAndBoolAreExact) {
  EXPECT_EQ(compareTensors(i64({1, 2, 3}), i64({1, 2, 4})).kind, VerdictKind::ValueMismatch);
  EXPECT_EQ(compareTensors(i64({1, 2, 3}), i64({1, 2, 3})).kind, VerdictKind::Match);
  // Beyond 2^53 a comparison in double could not see this difference.
  int64_t big = int64_t{1} << 53;
  EXPECT_EQ(compareTensors(i64({big}), i64({big + 1})).kind, VerdictKind::ValueMismatch);
  EXPECT_EQ(compareAs(at::kByte, 200, 201), VerdictKind::ValueMismatch);
  EXPECT_EQ(compareAs(at::kInt, -5, -5), VerdictKind::Match);

  at::Tensor t = i64({1, 0}).to(at::kBool), f = i64({1, 1}).to(at::kBool);
  Verdict v = compareTensors(t, f);
  EXPECT_EQ(v.kind, VerdictKind::ValueMismatch) << v.report;
  EXPECT_CONTAINS(v.report, ("first difference at [1]: expected False, actual True"));
}

TEST(CompareValues, NanEqualsNanByDefault) {
  EXPECT_EQ(compareTensors(f32({NAN, 1}), f32({NAN, 1})).kind, VerdictKind::Match);
  EXPECT_EQ(compareAs(at::kHalf, kNan, kNan), VerdictKind::Match);

  Verdict v = compareTensors(f32({NAN, 1}), f32({0, 1}));
  EXPECT_EQ(v.kind, VerdictKind::ValueMismatch) << v.report;
  EXPECT_CONTAINS(v.report, ("expected nan, actual 0.0"));
  EXPECT_EQ(compareTensors(f32({0, 1}), f32({NAN, 1})).kind, VerdictKind::ValueMismatch);

  CompareOptions strict;
  strict.equal_nan = false;
  EXPECT_EQ(compareTensors(f32({NAN, 1}), f32({NAN, 1}), strict).kind, VerdictKind::ValueMismatch);
}

// Results with the same bytes are settled without the element-wise rule
// (Note [Identical bytes agree]); results whose bytes differ still get it.
TEST(CompareValues, BytesThatDifferStillCompareByValue) {
  EXPECT_EQ(compareTensors(f32({-0.0, 1}), f32({0.0, 1})).kind, VerdictKind::Match);
  EXPECT_EQ(compareTensors(f64({1.0}), f64({1.0 + 1e-12})).kind, VerdictKind::Match);  // within rtol
  EXPECT_EQ(compareTensors(f32({1, 2, 3}), f32({1, 2, 3.5})).kind, VerdictKind::ValueMismatch);
  at::Tensor t = at::arange(6, at::kLong).reshape({2, 3});
  EXPECT_EQ(compareTensors(t, t.clone()).kind, VerdictKind::Match);
  EXPECT_EQ(compareTensors(t, t.t().contiguous().t()).kind, VerdictKind::Match);  // same values, other strides
}

// A tensor whose storage holds no data (LibTorch's functionalization hands such wrappers
// back) is not compared by its bytes: the comparator raises LibTorch's error, which the
// check reports, instead of reading through a null pointer.
TEST(CompareValues, ATensorWithoutDataRaisesInsteadOfCrashing) {
  at::Tensor t = at::empty({2}, at::kDouble);  // compared as it is, without a widening copy
  t.unsafeGetTensorImpl()->set_storage_keep_dtype(
      c10::Storage(c10::Storage::use_byte_size_t(), 16, at::DataPtr(nullptr, at::kCPU), nullptr, false));
  EXPECT_THROW(compareTensors(t, t), c10::Error);
}

TEST(CompareValues, InfinityMatchesOnlyItself) {
  EXPECT_EQ(compareAs(at::kFloat, kInf, kInf), VerdictKind::Match);
  EXPECT_EQ(compareAs(at::kFloat, -kInf, -kInf), VerdictKind::Match);
  EXPECT_EQ(compareAs(at::kFloat, kInf, -kInf), VerdictKind::ValueMismatch);
  EXPECT_EQ(compareAs(at::kDouble, kInf, 1e308), VerdictKind::ValueMismatch);
  EXPECT_EQ(compareAs(at::kDouble, 1e308, kInf), VerdictKind::ValueMismatch);
  // Even a tolerance of infinity does not make inf close to a number.
  CompareOptions loose;
  loose.tolerance = Tolerance{0, kInf};
  EXPECT_EQ(compareTensors(f64({kInf}), f64({0}), loose).kind, VerdictKind::ValueMismatch);
}

TEST(CompareStructure, DtypeMismatchBeforeValues) {
  Verdict v = compareTensors(f32({1, 2}), f64({1, 2}));
  EXPECT_EQ(v.kind, VerdictKind::DtypeMismatch);
  EXPECT_EQ(v.where, "output 0");
  EXPECT_CONTAINS(v.report, ("expected f32[2], actual f64[2]"));
}

TEST(CompareStructure, ShapeMismatchBeforeValues) {
  Verdict v = compareTensors(at::zeros({2, 3}), at::ones({3, 2}));
  EXPECT_EQ(v.kind, VerdictKind::ShapeMismatch);
  EXPECT_EQ(v.where, "output 0");
  EXPECT_CONTAINS(v.report, ("expected f32[2, 3], actual f32[3, 2]"));
  // Same number of elements, different rank.
  EXPECT_EQ(compareTensors(at::zeros({6}), at::zeros({1, 6})).kind, VerdictKind::ShapeMismatch);
  // A 0-dim tensor is not a one-element tensor.
  EXPECT_EQ(compareTensors(at::scalar_tensor(1.0, at::kDouble), at::ones({1}, at::kDouble)).kind,
            VerdictKind::ShapeMismatch);
}

TEST(CompareStructure, OutputCountMismatch) {
  Verdict v = compareResults(outputs({f32({1})}), outputs({f32({1}), f32({2})}));
  EXPECT_EQ(v.kind, VerdictKind::ShapeMismatch);
  EXPECT_EQ(v.where, "outputs");
  EXPECT_CONTAINS(v.report, ("output count mismatch: expected 1 output, actual 2"));
}

TEST(CompareStructure, NonContiguousComparesByLogicalIndex) {
  at::Tensor base = at::arange(6, at::kFloat).reshape({2, 3});
  at::Tensor transposed = base.t();  // [3, 2], strides [1, 3]
  ASSERT_FALSE(transposed.is_contiguous());
  EXPECT_EQ(compareTensors(transposed, transposed.contiguous()).kind, VerdictKind::Match);

  at::Tensor changed = transposed.contiguous();
  changed.index_put_({2, 1}, 100);
  Verdict v = compareTensors(transposed, changed);
  EXPECT_EQ(v.kind, VerdictKind::ValueMismatch);
  EXPECT_CONTAINS(v.report, ("first difference at [2, 1]: expected 5.0, actual 100.0"));
  EXPECT_CONTAINS(v.report, ("expected: [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]"));

  // Broadcast (stride 0) and sliced views compare by value too.
  at::Tensor expanded = at::tensor({1.0f, 2.0f}).expand({3, 2});
  EXPECT_EQ(compareTensors(expanded, expanded.contiguous()).kind, VerdictKind::Match);
  at::Tensor strided = at::arange(10, at::kLong).slice(0, 1, 10, 3);  // [1, 4, 7]
  EXPECT_EQ(compareTensors(strided, i64({1, 4, 7})).kind, VerdictKind::Match);
  EXPECT_EQ(compareTensors(strided, i64({1, 4, 8})).kind, VerdictKind::ValueMismatch);
}

// Results are compared where they lie, element by element
// (Note [Results compared in place]): whatever the two layouts, the verdict is torch.isclose's over the logical
// elements, widened as the comparator widens them. One element at a time is pushed by
// amounts around each dtype's tolerance, made NaN or infinite, in tensors viewed through
// transposes, strided slices, offsets and broadcasts.
TEST(CompareStructure, LayoutsDoNotChangeTheVerdict) {
  at::manual_seed(7);
  const std::vector<at::ScalarType> dtypes = {at::kHalf,         at::kBFloat16,      at::kFloat, at::kDouble,
                                              at::kComplexFloat, at::kComplexDouble, at::kLong,  at::kInt,
                                              at::kByte,         at::kBool};
  const std::vector<double> pushes = {0, 1e-9, 1e-6, 3e-6, 1e-4, 2e-3, 3e-2, 1, kNan, kNan, kInf};
  auto views = [](const at::Tensor& t) {  // t is [4, 6]
    return std::vector<at::Tensor>{
        t, t.t(), t.slice(1, 1, 6, 2), t.narrow(0, 1, 2), t[2].expand({3, 6}), t.flatten().narrow(0, 5, 7)};
  };
  int matched = 0, differed = 0;
  for (auto dtype : dtypes) {
    const bool floating = at::isFloatingType(dtype) || at::isComplexType(dtype);
    for (size_t p = 0; p < pushes.size(); ++p) {
      at::Tensor expected = (at::randn({4, 6}, at::kDouble) * 3).to(dtype);
      if (!floating) expected = at::randint(0, 2, {4, 6}, at::kLong).to(dtype);
      at::Tensor actual = expected.clone();
      const int64_t at_index = static_cast<int64_t>(p * 5 % 24);
      at::Tensor element = actual.view(-1)[at_index];
      if (floating) {
        element.add_(std::isnan(pushes[p]) || std::isinf(pushes[p]) ? pushes[p]
                                                                    : pushes[p] * (1 + element.abs().item<double>()));
      } else if (pushes[p] >= 1) {
        element.fill_(dtype == at::kBool ? !element.item<bool>() : element.item<int64_t>() + 1);
      }
      if (floating && std::isnan(pushes[p]) && p % 2 == 0) expected.view(-1)[at_index].fill_(kNan);  // NaN in both
      const Tolerance tol = defaultTolerance(fromAten(dtype));
      const auto e_views = views(expected), a_views = views(actual);
      for (size_t v = 0; v < e_views.size(); ++v) {
        const at::ScalarType wide =
            floating ? (at::isComplexType(dtype) ? at::kComplexDouble : at::kDouble) : at::kLong;
        const bool close = at::isclose(a_views[v].to(wide), e_views[v].to(wide), tol.rtol, tol.atol, /*equal_nan=*/true)
                               .all()
                               .item<bool>();
        // The actual side also in another layout of its own: the same values, column-major.
        for (const at::Tensor& a : {a_views[v], a_views[v].t().contiguous().t()}) {
          const VerdictKind kind = compareTensors(e_views[v], a).kind;
          EXPECT_EQ(kind, close ? VerdictKind::Match : VerdictKind::ValueMismatch)
              << dtype << " push " << pushes[p] << " view " << v << " strides " << a.strides();
          (kind == VerdictKind::Match ? matched : differed)++;
        }
      }
    }
  }
  EXPECT_GT(matched, 100);  // both outcomes are exercised
  EXPECT_GT(differed, 100);
}

TEST(CompareStructure, ConjugateAndNegativeViewsCompareByValue) {
  at::Tensor z = at::tensor({c10::complex<double>(1, 2)}, at::kComplexDouble);
  at::Tensor conj = z.conj();  // lazy: only a bit on the tensor
  at::Tensor materialized = at::tensor({c10::complex<double>(1, -2)}, at::kComplexDouble);
  EXPECT_EQ(compareTensors(conj, materialized).kind, VerdictKind::Match);
  EXPECT_EQ(compareTensors(conj, z).kind, VerdictKind::ValueMismatch);
  // A negative view is a bit too (conj of an imaginary view sets it).
  at::Tensor negated = at::_neg_view(at::tensor({1.5, -2.0}, at::kDouble));
  ASSERT_TRUE(negated.is_neg());
  EXPECT_EQ(compareTensors(negated, at::tensor({-1.5, 2.0}, at::kDouble)).kind, VerdictKind::Match);
  EXPECT_EQ(compareTensors(negated, at::tensor({1.5, -2.0}, at::kDouble)).kind, VerdictKind::ValueMismatch);
}

TEST(CompareStructure, ZeroSizeTensors) {
  EXPECT_EQ(compareTensors(at::empty({0, 3}), at::empty({0, 3})).kind, VerdictKind::Match);
  EXPECT_EQ(compareTensors(at::empty({0, 3}), at::empty({3, 0})).kind, VerdictKind::ShapeMismatch);
  EXPECT_EQ(compareTensors(at::empty({0}, at::kLong), at::empty({0})).kind, VerdictKind::DtypeMismatch);
}

TEST(CompareScalars, IntFloatBoolNone) {
  auto cmp = [](c10::IValue e, c10::IValue a) {
    return compareResults(outputs({std::move(e)}), outputs({std::move(a)}));
  };
  EXPECT_EQ(cmp(int64_t{3}, int64_t{3}).kind, VerdictKind::Match);
  Verdict v = cmp(int64_t{3}, int64_t{4});
  EXPECT_EQ(v.kind, VerdictKind::ValueMismatch);
  EXPECT_EQ(v.where, "output 0");
  EXPECT_CONTAINS(v.report, ("expected int 3, actual int 4"));

  EXPECT_EQ(cmp(1.0, 1.0 + 1e-7).kind, VerdictKind::Match);  // float64 tolerance
  v = cmp(1.0, 1.001);
  EXPECT_EQ(v.kind, VerdictKind::ValueMismatch);
  EXPECT_CONTAINS(v.report, ("expected float 1.0, actual float 1.001"));
  EXPECT_EQ(cmp(NAN, NAN).kind, VerdictKind::Match);

  EXPECT_EQ(cmp(true, true).kind, VerdictKind::Match);
  EXPECT_EQ(cmp(true, false).kind, VerdictKind::ValueMismatch);
  EXPECT_EQ(cmp(c10::IValue(), c10::IValue()).kind, VerdictKind::Match);

  v = cmp(c10::IValue(), int64_t{0});
  EXPECT_EQ(v.kind, VerdictKind::DtypeMismatch);
  EXPECT_CONTAINS(v.report, ("expected None, actual int 0"));
  v = cmp(int64_t{1}, 1.0);
  EXPECT_EQ(v.kind, VerdictKind::DtypeMismatch);
  EXPECT_CONTAINS(v.report, ("expected int 1, actual float 1.0"));
  v = cmp(f32({1}), int64_t{1});
  EXPECT_EQ(v.kind, VerdictKind::DtypeMismatch);
  EXPECT_CONTAINS(v.report, ("expected tensor f32[1], actual int 1"));
}

TEST(CompareScalars, ListsCompareElementwise) {
  auto list = [](std::vector<at::Tensor> ts) { return c10::IValue(c10::List<at::Tensor>(ts)); };
  EXPECT_EQ(compareResults(outputs({list({f32({1}), f32({2})})}), outputs({list({f32({1}), f32({2})})})).kind,
            VerdictKind::Match);
  Verdict v = compareResults(outputs({list({f32({1}), f32({2})})}), outputs({list({f32({1}), f32({3})})}));
  EXPECT_EQ(v.kind, VerdictKind::ValueMismatch);
  EXPECT_EQ(v.where, "output 0[1]");
  v = compareResults(outputs({list({f32({1})})}), outputs({list({f32({1}), f32({2})})}));
  EXPECT_EQ(v.kind, VerdictKind::ShapeMismatch);
}

TEST(CompareInputs, MatchedByName) {
  RunResult e = outputs({}), a = outputs({});
  e.final_inputs = {{"buffer:calls", i64({1})}, {"user_input:x", f32({1, 2})}};
  a.final_inputs = {{"user_input:x", f32({1, 2})}, {"buffer:calls", i64({1})}};
  EXPECT_EQ(compareResults(e, a).kind, VerdictKind::Match);

  a.final_inputs[1].second = i64({2});
  Verdict v = compareResults(e, a);
  EXPECT_EQ(v.kind, VerdictKind::ValueMismatch);
  EXPECT_EQ(v.where, "input buffer:calls");
  EXPECT_CONTAINS(v.report, ("value mismatch at input buffer:calls"));
}

TEST(CompareInputs, MissingInputIsStructural) {
  RunResult e = outputs({}), a = outputs({});
  e.final_inputs = {{"buffer:calls", i64({1})}};
  Verdict v = compareResults(e, a);
  EXPECT_EQ(v.kind, VerdictKind::ShapeMismatch);
  EXPECT_EQ(v.where, "input buffer:calls");
  EXPECT_CONTAINS(v.report, ("input buffer:calls missing in actual"));

  v = compareResults(a, e);
  EXPECT_EQ(v.kind, VerdictKind::ShapeMismatch);
  EXPECT_CONTAINS(v.report, ("input buffer:calls missing in expected"));
}

TEST(CompareInputs, OutputsComeFirstAndOthersAreListed) {
  RunResult e = outputs({f32({1})}), a = outputs({f32({2})});
  e.final_inputs = {{"buffer:calls", i64({1})}};
  a.final_inputs = {{"buffer:calls", i64({1, 2})}};
  Verdict v = compareResults(e, a);
  EXPECT_EQ(v.kind, VerdictKind::ValueMismatch);
  EXPECT_EQ(v.where, "output 0");
  EXPECT_CONTAINS(v.report, ("also differ: input buffer:calls (shape-mismatch)"));
}

TEST(CompareExceptions, ExceptionInOne) {
  RunResult ok = outputs({f32({1})});
  RunResult bad = raised("add_", "aten::add_.Tensor", "output with shape [1] doesn't match");

  Verdict v = compareResults(ok, bad);
  EXPECT_EQ(v.kind, VerdictKind::ExceptionInOne);
  EXPECT_EQ(v.where, "");
  EXPECT_CONTAINS(v.report, ("exception in actual only: node %add_: aten::add_.Tensor: "
                             "output with shape [1] doesn't match"));
  EXPECT_CONTAINS(v.report, ("expected completed with 1 output"));

  v = compareResults(bad, ok);
  EXPECT_EQ(v.kind, VerdictKind::ExceptionInOne);
  EXPECT_CONTAINS(v.report, ("exception in expected only: node %add_"));
  EXPECT_CONTAINS(v.report, ("actual completed"));
}

TEST(CompareExceptions, SameExceptionMatchesDifferentDoesNot) {
  RunResult a = raised("add_", "aten::add_.Tensor", "boom");
  RunResult same = raised("add__1", "aten::add_.Tensor", "boom");  // node names may differ
  Verdict v = compareResults(a, same);
  EXPECT_EQ(v.kind, VerdictKind::Match) << v.report;
  EXPECT_CONTAINS(v.report, ("both raised"));

  v = compareResults(a, raised("add_", "aten::add_.Tensor", "bang"));
  EXPECT_EQ(v.kind, VerdictKind::DifferentExceptions);
  EXPECT_CONTAINS(v.report, ("expected: node %add_: aten::add_.Tensor: boom"));
  EXPECT_CONTAINS(v.report, ("actual:   node %add_: aten::add_.Tensor: bang"));

  EXPECT_EQ(compareResults(a, raised("add_", "aten::mul_.Tensor", "boom")).kind, VerdictKind::DifferentExceptions);
}

// Runs of one program on two devices raise through different kernels, which word their
// refusals apart: with same_node_raising_agrees, raising at the same node is agreement
// whatever the messages, and raising at different nodes is not.
TEST(CompareExceptions, RaisingAtTheSameNodeAgreesAcrossDevices) {
  CompareOptions devices;
  devices.same_node_raising_agrees = true;
  RunResult cpu = raised("lt_", "aten::lt_.Scalar", "result type Float can't be cast to the desired output type Long");
  RunResult cuda = raised("lt_", "aten::lt_.Scalar", "result type Float can't be cast (wrapper_CUDA_lt_)");
  EXPECT_EQ(compareResults(cpu, cuda).kind, VerdictKind::DifferentExceptions);
  Verdict v = compareResults(cpu, cuda, devices);
  EXPECT_EQ(v.kind, VerdictKind::Match) << v.report;
  EXPECT_EQ(compareResults(cpu, raised("lt__1", "aten::lt_.Scalar", "same words"), devices).kind,
            VerdictKind::DifferentExceptions);
  EXPECT_EQ(compareResults(cpu, raised("lt_", "aten::gt_.Scalar", "same words"), devices).kind,
            VerdictKind::DifferentExceptions);
}

TEST(CompareReport, ValueMismatchReport) {
  Verdict v = compareTensors(f32({1, 2, 3, 4}).reshape({2, 2}), f32({1, 2.25, 3, 4.5}).reshape({2, 2}));
  ASSERT_EQ(v.kind, VerdictKind::ValueMismatch);
  EXPECT_EQ(v.where, "output 0");
  EXPECT_CONTAINS(v.report, ("value mismatch at output 0 (f32[2, 2], rtol 1.3e-06, atol 1e-05)"));
  EXPECT_CONTAINS(v.report, ("2 of 4 elements differ"));
  EXPECT_CONTAINS(v.report, ("max abs error: 0.5 at [1, 1]"));
  EXPECT_CONTAINS(v.report, ("max rel error: 0.125 at [0, 1]"));
  EXPECT_CONTAINS(v.report, ("first difference at [0, 1]: expected 2.0, actual 2.25"));
  EXPECT_CONTAINS(v.report, ("expected: [1.0, 2.0, 3.0, 4.0]\n"));
  EXPECT_CONTAINS(v.report, ("actual:   [1.0, 2.25, 3.0, 4.5]"));
}

TEST(CompareReport, ExcerptShowsFirstEightElements) {
  at::Tensor e = at::arange(20, at::kLong);
  at::Tensor a = e.clone();
  a.index_put_({19}, 0);
  Verdict v = compareTensors(e, a);
  ASSERT_EQ(v.kind, VerdictKind::ValueMismatch);
  EXPECT_CONTAINS(v.report, ("(i64[20], exact): 1 of 20 elements differ"));
  EXPECT_CONTAINS(v.report, ("first difference at [19]: expected 19, actual 0"));
  EXPECT_CONTAINS(v.report, ("expected: [0, 1, 2, 3, 4, 5, 6, 7, ...]"));
}

TEST(CompareOptions, ToleranceOverride) {
  EXPECT_EQ(compareTensors(f32({1}), f32({1.01f})).kind, VerdictKind::ValueMismatch);
  CompareOptions loose;
  loose.tolerance = Tolerance{0, 0.1};
  EXPECT_EQ(compareTensors(f32({1}), f32({1.01f}), loose).kind, VerdictKind::Match);
  EXPECT_EQ(compareTensors(f32({1}), f32({1.2f}), loose).kind, VerdictKind::ValueMismatch);
  // The override applies to every dtype, as assert_close's rtol/atol do.
  EXPECT_EQ(compareTensors(i64({10}), i64({11}), loose).kind, VerdictKind::ValueMismatch);
  loose.tolerance = Tolerance{0.1, 0};
  EXPECT_EQ(compareTensors(i64({10}), i64({11}), loose).kind, VerdictKind::Match);

  CompareOptions exact;
  exact.tolerance = Tolerance{0, 0};
  Verdict v = compareTensors(f64({1}), f64({1 + 1e-12}), exact);
  EXPECT_EQ(v.kind, VerdictKind::ValueMismatch);
  EXPECT_CONTAINS(v.report, ("exact"));
}

}  // namespace
}  // namespace epsmith
