// What the generator keeps of a candidate's result: the integer-range check and the
// same-result test read strided tensors element by element, and must say what LibTorch's
// own ops say of the same tensors (aminmax; eq with NaN equal to NaN).
#include <ATen/ops/aminmax.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/block_diag.h>
#include <ATen/ops/cartesian_prod.h>
#include <ATen/ops/kron.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/full.h>
#include <ATen/ops/index_put.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/isfinite.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/linalg_inv_ex.h>
#include <ATen/ops/masked_select.h>
#include <ATen/ops/triu.h>
#include <ATen/ops/zeros_like.h>
#include <ATen/ops/zeros.h>
#include <c10/util/accumulate.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "generators/result_values.h"
#include "ir/graph.h"
#include "ops/op_registry.h"
#include "oracle/libtorch_compat.h"
#include "oracle/values.h"

namespace epsmith {
namespace {

// Views of assorted layouts over `base`: itself, transposed, a strided slice, expanded,
// offset into its storage.
std::vector<at::Tensor> layoutsOf(const at::Tensor& base) {
  std::vector<at::Tensor> out{base,
                              base.t(),
                              base.slice(1, 0, base.size(1), 2),
                              base[1].expand({3, base.size(1)}),
                              base.narrow(0, 1, 2),
                              base.flatten().narrow(0, 3, 5)};
  return out;
}

TEST(ResultValues, IntegerRangeIsReadAsAminmaxReadsIt) {
  for (auto dtype : {at::kLong, at::kInt, at::kShort, at::kChar, at::kByte}) {
    at::Tensor base = at::arange(24, at::TensorOptions().dtype(dtype)).reshape({4, 6});
    if (dtype == at::kLong || dtype == at::kInt) base[2][5] = (1 << 20) + 1;
    for (const at::Tensor& t : layoutsOf(base)) {
      auto [lo, hi] = at::aminmax(t);
      const bool expected = lo.item<int64_t>() >= -(1 << 20) && hi.item<int64_t>() <= (1 << 20);
      EXPECT_EQ(smallIntegers(t), expected) << t.sizes() << " " << t.strides();
    }
  }
  EXPECT_TRUE(smallIntegers(at::zeros({0, 3}, at::kLong)));
  EXPECT_FALSE(smallIntegers(at::full({}, -(1 << 20) - 1, at::kLong)));
}

// A list of tensors is a value a program holds up to 256 of them (a tensor_split by a
// computed count made 14 400 pieces, each a node); past that, as past 2^16 elements, none.
TEST(ResultValues, ListsOfTooManyTensorsAreNoValue) {
  auto list = [](size_t n) { return c10::IValue(std::vector<at::Tensor>(n, at::zeros({1}))); };
  Val val;
  EXPECT_TRUE(valOf(list(256), &val));
  EXPECT_EQ(std::get<Val::List>(val.variant()).size(), 256u);
  EXPECT_FALSE(valOf(list(257), &val));
  EXPECT_FALSE(valOf(c10::IValue(at::zeros({(1 << 16) + 1})), &val));
}

// Note [Results that grow as a product of their inputs]: the size the generator computes
// before running cartesian_prod, kron or block_diag says "past the cap" exactly where the
// result LibTorch makes has more than 2^16 elements (cartesian_prod of k tensors: k
// columns; block_diag of 1-d inputs: one row each), on inputs small enough to run.
TEST(ResultValues, ResultsThatGrowAsAProductAreSizedBeforeTheyRun) {
  Graph g;
  std::vector<at::Tensor> values;
  std::vector<Node*> nodes;
  for (int64_t n : {40, 41, 50, 60, 2, 300}) {
    nodes.push_back(g.append(OpKind::Placeholder, "x" + std::to_string(n)));
    values.push_back(at::zeros({n}));
  }
  auto valueOf = [&](const Node* n) -> const at::Tensor* {
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i] == n) return &values[i];
    }
    return nullptr;
  };
  const OpInfo* cartesian = findOp("aten::cartesian_prod", "");
  ASSERT_NE(cartesian, nullptr);
  for (const std::vector<size_t>& pick : std::vector<std::vector<size_t>>{{0, 1}, {0, 1, 4}, {2, 3}, {2, 3, 4}, {5}}) {
    std::vector<Node*> list;
    std::vector<at::Tensor> tensors;
    for (size_t i : pick) {
      list.push_back(nodes[i]);
      tensors.push_back(values[i]);
    }
    const bool past = at::cartesian_prod(tensors).numel() > (1 << 16);
    EXPECT_EQ(growsPastTheValueCap(*cartesian, {arg::TensorList{list}}, {}, valueOf), past) << pick.size();
  }
  const OpInfo* kron = findOp("aten::kron", "");
  ASSERT_NE(kron, nullptr);
  for (auto [a, b] : std::vector<std::pair<size_t, size_t>>{{0, 1}, {5, 5}, {4, 5}}) {
    const bool past = at::kron(values[a], values[b]).numel() > (1 << 16);
    EXPECT_EQ(growsPastTheValueCap(*kron, {arg::Tensor{nodes[a]}, arg::Tensor{nodes[b]}}, {}, valueOf), past);
  }
  const OpInfo* block_diag = findOp("aten::block_diag", "");
  ASSERT_NE(block_diag, nullptr);
  for (const std::vector<size_t>& pick :
       std::vector<std::vector<size_t>>{{5, 5, 5}, {3, 2}, {0, 1, 2}, std::vector<size_t>(15, 5)}) {
    std::vector<Node*> list;
    std::vector<at::Tensor> tensors;
    for (size_t i : pick) {
      list.push_back(nodes[i]);
      tensors.push_back(values[i]);
    }
    const bool past = at::block_diag(tensors).numel() > (1 << 16);
    EXPECT_EQ(growsPastTheValueCap(*block_diag, {arg::TensorList{list}}, {}, valueOf), past) << pick.size();
  }
  // isin's work, not its result, grows as the product: 300 x 300 elements compare 90 000
  // pairs, under 2^24; past it only with a larger test set.
  const OpInfo* isin = findOp("aten::isin", "Tensor_Tensor");
  ASSERT_NE(isin, nullptr);
  EXPECT_FALSE(growsPastTheValueCap(*isin, {arg::Tensor{nodes[5]}, arg::Tensor{nodes[5]}}, {}, valueOf));
  nodes.push_back(g.append(OpKind::Placeholder, "big"));
  values.push_back(at::zeros({60000}));
  EXPECT_TRUE(growsPastTheValueCap(*isin, {arg::Tensor{nodes[5]}, arg::Tensor{nodes.back()}}, {}, valueOf));
}

// Note [Storage a program does not hold]: of an op's result the program holds its own
// elements, so an as_strided (or its copy, or as_strided_scatter) past them is not made,
// whatever storage the kernel allocated; of an input it holds the whole storage. The
// offset is the tensor's own where the call gives none.
TEST(ResultValues, AsStridedAddressesOnlyWhatTheProgramHolds) {
  Graph g;
  Node* w = g.append(OpKind::Placeholder, "w");
  Node* s = g.append(OpKind::Placeholder, "s");
  const at::Tensor window = at::zeros({4}).narrow(0, 1, 2), src = at::zeros({2});
  auto valueOf = [&](const Node* n) -> const at::Tensor* { return n == w ? &window : n == s ? &src : nullptr; };
  auto own = [](const at::Tensor&) { return std::pair<int64_t, int64_t>{1, 3}; };
  auto whole = [](const at::Tensor&) { return std::pair<int64_t, int64_t>{0, 4}; };
  const OpInfo* as_strided = findOp("aten::as_strided", "");
  const OpInfo* copy = findOp("aten::as_strided_copy", "");
  const OpInfo* scatter = findOp("aten::as_strided_scatter", "");
  const OpInfo* neg = findOp("aten::neg", "");
  ASSERT_TRUE(as_strided && copy && scatter && neg);
  auto call = [&](std::vector<int64_t> size, std::vector<int64_t> stride, std::optional<int64_t> offset) {
    std::vector<Argument> args{arg::Tensor{w}, arg::IntList{std::move(size)}, arg::IntList{std::move(stride)}};
    if (offset) args.emplace_back(arg::Int{*offset});
    return args;
  };
  EXPECT_TRUE(addressesPastWhatItHolds(*as_strided, call({2}, {1}, 2), {}, valueOf, own));
  EXPECT_FALSE(addressesPastWhatItHolds(*as_strided, call({2}, {1}, 2), {}, valueOf, whole));
  EXPECT_FALSE(addressesPastWhatItHolds(*as_strided, call({2}, {1}, std::nullopt), {}, valueOf, own));
  EXPECT_TRUE(addressesPastWhatItHolds(*as_strided, call({2}, {1}, 0), {}, valueOf, own));
  EXPECT_FALSE(addressesPastWhatItHolds(*as_strided, call({0}, {1}, 3), {}, valueOf, own));
  EXPECT_TRUE(addressesPastWhatItHolds(*copy, call({2, 1}, {1, 1}, 2), {}, valueOf, own));
  std::vector<Argument> scattered = call({2}, {1}, 2);
  scattered.insert(scattered.begin() + 1, arg::Tensor{s});
  EXPECT_TRUE(addressesPastWhatItHolds(*scatter, scattered, {}, valueOf, own));
  EXPECT_FALSE(addressesPastWhatItHolds(*neg, {arg::Tensor{w}}, {}, valueOf, own));
}

// Note [Products that meet a zero and overflow]: prod and cumprod of an f16 tensor whose
// factors multiply past f32's range and also hold a zero, or shrink past its least
// subnormal, are not made; where the product can only grow, or only shrink, or of
// integers, or by another op, they are.
TEST(ResultValues, ProductsOfAZeroAndAnOverflowAreSeen) {
  Graph g;
  Node* x = g.append(OpKind::Placeholder, "x");
  at::Tensor value;
  auto valueOf = [&](const Node* n) -> const at::Tensor* { return n == x ? &value : nullptr; };
  const OpInfo* prod = findOp("aten::prod", "");
  const OpInfo* cumprod = findOp("aten::cumprod", "");
  const OpInfo* sum = findOp("aten::sum", "");
  ASSERT_TRUE(prod && cumprod && sum);
  auto said = [&](const OpInfo& op, std::vector<double> v, at::ScalarType dtype) {
    value = at::tensor(v, at::kDouble).to(dtype);
    std::vector<Argument> args{arg::Tensor{x}};
    if (&op == cumprod) args.emplace_back(arg::Int{0});
    return multipliesZeroByAnOverflow(op, args, valueOf);
  };
  std::vector<double> huge(20, 60000.0);  // 60000^20 is past f32's range
  auto with = [&](std::vector<double> v, std::vector<double> more) {
    v.insert(v.end(), more.begin(), more.end());
    return v;
  };
  EXPECT_TRUE(said(*prod, with(huge, {0}), at::kHalf));
  EXPECT_TRUE(said(*cumprod, with(huge, {0}), at::kHalf));
  EXPECT_TRUE(said(*prod, with(huge, std::vector<double>(20, 1e-4)), at::kHalf));  // 1e-80
  EXPECT_FALSE(said(*prod, huge, at::kHalf));
  EXPECT_FALSE(said(*prod, {300, 0, -300}, at::kHalf));
  EXPECT_FALSE(said(*prod, with(huge, {0}), at::kDouble));
  EXPECT_FALSE(said(*prod, {300, 0, -300}, at::kInt));
  EXPECT_FALSE(said(*sum, {300, 0, -300}, at::kHalf));
}

// A tensor of elements on a storage whose memory was never allocated (LibTorch 1.13's set_
// made one while a campaign generated a program; reading it raised and ended the process)
// is no value.
TEST(ResultValues, ATensorWithoutItsMemoryIsNoValue) {
  c10::Storage unallocated(c10::Storage::use_byte_size_t(), 12, at::DataPtr(nullptr, at::Device(at::kCPU)),
                           /*allocator=*/nullptr, /*resizable=*/false);
  at::Tensor t = at::empty({0}, at::kInt).set_(unallocated, 0, {3}, {1});
  ASSERT_EQ(t.numel(), 3);
  Val val;
  EXPECT_FALSE(valOf(c10::IValue(t), &val));
  EXPECT_TRUE(valOf(c10::IValue(at::zeros({3}, at::kInt)), &val));
}

// Note [Tensors past their storage]: what 1.13's set_ of a source of another dtype leaves,
// made here by resizing the tensor's metadata alone, on any release.
TEST(ResultValues, ATensorPastItsStorageIsSeen) {
  const at::Tensor base = at::arange(12, at::kFloat).reshape({3, 4});
  for (const at::Tensor& view : layoutsOf(base)) EXPECT_FALSE(reachesPastItsStorage(view)) << view.sizes();
  EXPECT_FALSE(reachesPastItsStorage(at::empty({0}, at::kFloat)));
  at::Tensor past = at::empty({3}, at::kFloat);
  past.unsafeGetTensorImpl()->set_sizes_contiguous({4});  // 16 bytes on a storage of 12
  EXPECT_TRUE(reachesPastItsStorage(past));
  at::Tensor offset = base.flatten().narrow(0, 11, 1);
  EXPECT_FALSE(reachesPastItsStorage(offset));
  offset.unsafeGetTensorImpl()->set_sizes_contiguous({2});
  EXPECT_TRUE(reachesPastItsStorage(offset));
  EXPECT_TRUE(reachesPastItsStorage(c10::ivalue::Tuple::create({base, past})));
  EXPECT_TRUE(reachesPastItsStorage(c10::IValue(c10::List<at::Tensor>({base, past}))));
  EXPECT_FALSE(reachesPastItsStorage(c10::ivalue::Tuple::create({base, base.t()})));
}

TEST(ResultValues, FinitenessIsReadAsIsfiniteReadsIt) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (auto dtype : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16}) {
    for (double bad : {inf, -inf, nan}) {
      // [2][5] lies inside some of the views and outside others (the strided slice, the
      // expanded row, the narrowed rows): only what a view shows counts.
      at::Tensor base = at::arange(24, at::kDouble).reshape({4, 6});
      base[2][5] = bad;
      base = base.to(dtype);
      for (const at::Tensor& t : layoutsOf(base)) {
        EXPECT_EQ(allFinite(t), at::isfinite(t).all().item<bool>()) << dtype << " " << t.sizes() << " " << t.strides();
      }
      EXPECT_FALSE(allFinite(base));
      EXPECT_FALSE(allFinite(base[2][5]));  // a 0-dim view
    }
    EXPECT_TRUE(allFinite(at::zeros({0, 3}, dtype)));
    EXPECT_TRUE(allFinite(at::full({}, 1e4, dtype)));
  }
  EXPECT_TRUE(allFinite(at::full({2}, 7, at::kLong)));  // integers are always finite
}

// Note [Factorizations of singular matrices]: what LAPACK makes of a singular matrix is
// not generated, what it makes of an invertible one is, and other ops' infs are no matter.
TEST(ResultValues, FactorizationsIntoNonFiniteValuesAreSeen) {
  const OpInfo* inv = findOp("aten::linalg_inv_ex", "");
  const OpInfo* sin = findOp("aten::sin", "");
  ASSERT_NE(inv, nullptr);
  ASSERT_NE(sin, nullptr);
  const at::Tensor singular = at::full({2, 3, 3}, 2.0).transpose(-2, -1);
  const at::Tensor invertible = at::eye(3).mul(2.0).expand({2, 3, 3});
  for (const at::Tensor& m : {singular, invertible}) {
    const auto [inverse, info] = at::linalg_inv_ex(m);
    const bool non_finite = !at::isfinite(inverse).all().item<bool>();
    EXPECT_EQ(factorizesIntoNonFinite(*inv, c10::ivalue::Tuple::create({inverse, info})), non_finite) << m;
  }
  EXPECT_TRUE(factorizesIntoNonFinite(
      *inv, c10::ivalue::Tuple::create(
                {at::full({2, 2}, std::numeric_limits<double>::infinity()), at::zeros({}, at::kInt)})));
  EXPECT_FALSE(factorizesIntoNonFinite(*sin, at::full({2}, std::numeric_limits<double>::infinity())));
}

// Note [A NaN's sign and payload]: the sign signbit and copysign read, and the bits
// view.dtype reads, of a tensor holding a NaN are not generated; the same calls on tensors
// without one, and copysign's self (whose sign it replaces), are.
TEST(ResultValues, ReadsOfANaNsBitsAreSeen) {
  Graph g;
  Node* a = g.append(OpKind::Placeholder, "a");
  Node* b = g.append(OpKind::Placeholder, "b");
  Node* i = g.append(OpKind::Placeholder, "i");
  at::Tensor with_nan = at::arange(6, at::kFloat).reshape({2, 3}).t();
  with_nan[1][1] = std::numeric_limits<float>::quiet_NaN();
  const at::Tensor finite = at::arange(6, at::kFloat), integers = at::arange(6, at::kShort);
  auto valueOf = [&](const Node* n) -> const at::Tensor* { return n == a ? &with_nan : n == b ? &finite : &integers; };
  ASSERT_TRUE(holdsANaN(with_nan));
  ASSERT_FALSE(holdsANaN(finite));
  ASSERT_FALSE(holdsANaN(integers));
  const OpInfo* signbit = findOp("aten::signbit", "");
  const OpInfo* copysign = findOp("aten::copysign", "Tensor");
  const OpInfo* view = findOp("aten::view", "dtype");
  ASSERT_NE(signbit, nullptr);
  ASSERT_NE(copysign, nullptr);
  ASSERT_NE(view, nullptr);
  EXPECT_TRUE(viewsAsAnotherDtype(*view));
  EXPECT_FALSE(viewsAsAnotherDtype(*signbit));
  EXPECT_TRUE(readsANaNsBits(*signbit, {arg::Tensor{a}}, {}, valueOf));
  EXPECT_FALSE(readsANaNsBits(*signbit, {arg::Tensor{b}}, {}, valueOf));
  EXPECT_TRUE(readsANaNsBits(*copysign, {arg::Tensor{b}, arg::Tensor{a}}, {}, valueOf));
  EXPECT_FALSE(readsANaNsBits(*copysign, {arg::Tensor{a}, arg::Tensor{b}}, {}, valueOf));
  EXPECT_TRUE(readsANaNsBits(*view, {arg::Tensor{a}, arg::Dtype{ScalarType::Int}}, {}, valueOf));
  EXPECT_FALSE(readsANaNsBits(*view, {arg::Tensor{b}, arg::Dtype{ScalarType::Int}}, {}, valueOf));
  EXPECT_FALSE(readsANaNsBits(*view, {arg::Tensor{i}, arg::Dtype{ScalarType::Half}}, {}, valueOf));
}

// The same Note: a floating view of an integer tensor may hold the NaNs its bits gave;
// a write that leaves a NaN of other bits there (a new one, or the same NaN negated) is
// seen, one that keeps them or writes numbers is not.
TEST(ResultValues, NewNaNsInAFloatingViewAreSeen) {
  const at::Tensor ints = at::tensor(std::vector<int32_t>{0x7fc00001, 0, 1065353216, 5}, at::kInt);
  const at::Tensor view = ints.view(at::kFloat), before = view.clone();  // NaN, 0, 1, a subnormal
  ASSERT_TRUE(holdsANaN(before));
  EXPECT_FALSE(holdsANewNaN(view, before));
  at::Tensor kept = before.clone();
  kept[1] = 2.0;
  EXPECT_FALSE(holdsANewNaN(kept, before));
  at::Tensor added = before.clone();
  added[2] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(holdsANewNaN(added, before));
  EXPECT_TRUE(holdsANewNaN(before.neg(), before));
  const at::Tensor strided = at::zeros({4, 2}, at::kFloat).t();
  at::Tensor written = strided.clone();
  written[1][3] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(holdsANewNaN(written, strided));
}

// Note [Bools of other bytes]: the f16 1.0 written through a view of a bool tensor leaves
// the byte 0x3c there, which is seen; bools of 0 and 1, and other dtypes, are not.
TEST(ResultValues, BoolsOfOtherBytesAreSeen) {
  at::Tensor bools = at::tensor({0, 1}, at::kInt).to(at::kBool);
  EXPECT_FALSE(holdsBoolsOfOtherBytes(bools));
  bools.view(at::kHalf).fill_(1.0);
  EXPECT_TRUE(holdsBoolsOfOtherBytes(bools));
  EXPECT_TRUE(holdsBoolsOfOtherBytes(bools.t()));
  EXPECT_FALSE(holdsBoolsOfOtherBytes(at::full({2}, 60, at::kByte)));
  EXPECT_FALSE(holdsBoolsOfOtherBytes(at::empty({0}, at::kBool)));
  EXPECT_TRUE(holdsBoolsOfOtherBytes(at::full({2}, 60, at::kByte).view(at::kBool)));
}

// Note [The sign of a zero that min or max chose]: clamp_max, minimum and clamp of
// operands that meet +0 and -0 at one position (broadcast, or a scalar bound) are not
// made; zeros of one sign, zeros at other positions, integers, and max.dim are.
TEST(ResultValues, MinAndMaxOfZerosOfBothSignsAreSeen) {
  Graph g;
  Node* a = g.append(OpKind::Placeholder, "a");
  Node* b = g.append(OpKind::Placeholder, "b");
  at::Tensor left, right;
  auto valueOf = [&](const Node* n) -> const at::Tensor* { return n == a ? &left : n == b ? &right : nullptr; };
  const OpInfo* clamp_max = findOp("aten::clamp_max", "Tensor");
  const OpInfo* clamp_max_scalar = findOp("aten::clamp_max_", "");
  const OpInfo* minimum = findOp("aten::minimum", "");
  const OpInfo* clamp = findOp("aten::clamp", "Tensor");
  const OpInfo* max_dim = findOp("aten::max", "dim");
  ASSERT_TRUE(clamp_max && clamp_max_scalar && minimum && clamp && max_dim);
  auto said = [&](const OpInfo& op, std::vector<double> l, std::vector<double> r) {
    left = at::tensor(l, at::kDouble).to(at::kFloat).reshape({-1, 1}).expand({-1, 2}).t();  // [2, n], strided
    right = at::tensor(r, at::kDouble).to(at::kFloat);
    return choosesBetweenSignedZeros(op, {arg::Tensor{a}, arg::Tensor{b}}, {}, valueOf);
  };
  EXPECT_TRUE(said(*clamp_max, {1, 0, 2}, {5, -0.0, 5}));
  EXPECT_TRUE(said(*minimum, {1, -0.0, 2}, {5, 0, 5}));
  EXPECT_FALSE(said(*clamp_max, {1, 0, 2}, {5, 0, 5}));
  EXPECT_FALSE(said(*clamp_max, {-0.0, 1, 0}, {5, -0.0, 5}));
  EXPECT_FALSE(said(*clamp_max, {0, 0}, {-0.0, -0.0, -0.0}));  // no broadcast: the call raises
  left = at::zeros({3}, at::kInt);
  right = at::full({3}, -0.0, at::kFloat);
  EXPECT_TRUE(choosesBetweenSignedZeros(*minimum, {arg::Tensor{a}, arg::Tensor{b}}, {}, valueOf));
  EXPECT_FALSE(choosesBetweenSignedZeros(*minimum, {arg::Tensor{a}, arg::Tensor{a}}, {}, valueOf));
  EXPECT_TRUE(choosesBetweenSignedZeros(*clamp_max_scalar, {arg::Tensor{a}, arg::Float{-0.0}}, {}, valueOf));
  EXPECT_FALSE(choosesBetweenSignedZeros(*clamp_max_scalar, {arg::Tensor{a}, arg::Float{0.0}}, {}, valueOf));
  // clamp's bound, by keyword.
  right = at::full({3}, -0.0, at::kFloat);
  const std::vector<std::pair<std::string, Argument>> bound{{"min", arg::OptionalTensor{b}}};
  left = at::zeros({3}, at::kFloat);
  EXPECT_TRUE(choosesBetweenSignedZeros(*clamp, {arg::Tensor{a}}, bound, valueOf));
  left = at::full({3}, -1.0, at::kFloat);
  EXPECT_FALSE(choosesBetweenSignedZeros(*clamp, {arg::Tensor{a}}, bound, valueOf));
  EXPECT_FALSE(choosesBetweenSignedZeros(*max_dim, {arg::Tensor{b}, arg::Int{0}}, {}, valueOf));
}

// Note [Kernels that write by the written tensor's layout]: index_put_ into a transposed
// self is asked, and said to write by layout exactly where its run into a contiguous copy
// differs: with repeated indices the row written last is the walk's (a 1.13 campaign's D1
// case), with distinct ones the two agree.
TEST(ResultValues, InPlaceWritesByLayoutAreSeen) {
  const OpInfo* index_put = findOp("aten::index_put_", "");
  ASSERT_NE(index_put, nullptr);
  const at::Tensor base = at::arange(35, at::kLong).reshape({7, 5}).t();  // [5, 7], transposed
  const at::Tensor values = at::arange(35, at::kLong).reshape({5, 7}).neg();
  for (const std::vector<int64_t>& rows : {std::vector<int64_t>{0, 0, 1, 1, 0}, std::vector<int64_t>{4, 2, 0, 1, 3}}) {
    auto run = [&](const at::Tensor& self) {
      at::Tensor t = self.clone(at::MemoryFormat::Preserve);
      c10::List<c10::optional<at::Tensor>> indices;
      indices.push_back(at::tensor(rows, at::kLong));
      t.index_put_(indices, values);
      return t;
    };
    const at::Tensor strided = run(base);
    const at::Tensor contiguous = run(base.contiguous());
    ASSERT_FALSE(strided.is_contiguous());
    const bool said = writesByLayout(*index_put, {strided}, [&] { return std::vector<at::Tensor>{contiguous}; });
    EXPECT_EQ(said, !at::equal(strided, contiguous)) << rows[0];
    if (rows[0] == 4) {
      EXPECT_FALSE(said);
    }
  }
  // Where the contiguous run raised, the call writes by layout.
  EXPECT_TRUE(writesByLayout(*index_put, {base}, [] { return std::optional<std::vector<at::Tensor>>(); }));
  // A functional op is not asked.
  const OpInfo* sin = findOp("aten::sin", "");
  ASSERT_NE(sin, nullptr);
  EXPECT_FALSE(writesByLayout(*sin, {base}, [] { return std::optional<std::vector<at::Tensor>>(); }));
}

// A size-1 dimension of stride 2 is contiguous by ATen's test, not by the strides a fresh
// tensor has; empty dimensions count as one, as ATen's contiguous strides count them.
TEST(ResultValues, ContiguousStridesAreReadLiterally) {
  const at::Tensor base = at::arange(12, at::kFloat).reshape({3, 4});
  EXPECT_TRUE(hasContiguousStrides(base));
  EXPECT_FALSE(hasContiguousStrides(base.t()));
  const at::Tensor odd = at::empty({2}).as_strided({1}, {2});
  ASSERT_TRUE(odd.is_contiguous());
  EXPECT_FALSE(hasContiguousStrides(odd));
  EXPECT_TRUE(hasContiguousStrides(at::empty({2, 0, 3})));
  EXPECT_TRUE(hasContiguousStrides(at::empty({})));
}

TEST(ResultValues, SameResultComparesElementsWithNanEqualToNan) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (auto dtype : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16, at::kLong, at::kBool}) {
    at::Tensor a = at::arange(24, at::kDouble).reshape({4, 6});
    if (at::isFloatingType(dtype)) a[1][3] = nan;
    a = a.to(dtype);
    for (const at::Tensor& t : layoutsOf(a)) {
      Interpreter::Outcome same, same_strided;
      same.outputs.push_back(t.contiguous().clone());
      EXPECT_TRUE(sameResult(t, same)) << dtype << " " << t.strides();
      if (t.dim() == 2) {  // the same values laid out column-major: b walked by its own strides
        same_strided.outputs.push_back(t.t().contiguous().t());
        EXPECT_TRUE(sameResult(t, same_strided)) << dtype << " " << t.strides();
      }
      at::Tensor changed = t.contiguous().clone();
      changed.view(-1)[0] = changed.view(-1)[0].item<double>() == 0 ? 1 : 0;
      Interpreter::Outcome other;
      other.outputs.push_back(changed);
      EXPECT_FALSE(sameResult(t, other)) << dtype << " " << t.strides();
    }
  }
  Interpreter::Outcome zero;
  zero.outputs.push_back(at::zeros({2}));
  EXPECT_TRUE(sameResult(at::full({2}, -0.0), zero));  // -0.0 == 0.0, as eq says
}

// An empty tensor may hold no data at all: comparing two is "the same", with nothing read
// (UBSan caught a memcmp of null pointers here for a dtype compared by its bytes, under
// the functionalizer target).
TEST(ResultValues, EmptyResultsOfEveryDtypeAreTheSame) {
  int compared = 0;
  for (int i = 0; i < static_cast<int>(c10::ScalarType::NumOptions); ++i) {
    const auto dtype = static_cast<c10::ScalarType>(i);
    const bool by_bytes = compat::laterDtype(dtype).has_value();
    if (!by_bytes && dtype != at::kFloat && dtype != at::kLong && dtype != at::kBool) continue;
    at::Tensor empty;
    try {
      empty = at::empty({0, 3}, at::TensorOptions().dtype(dtype));
    } catch (const c10::Error&) {
      continue;  // a dtype this LibTorch cannot make a CPU tensor of
    }
    Interpreter::Outcome other;
    other.outputs.push_back(at::empty({0, 3}, at::TensorOptions().dtype(dtype)));
    EXPECT_TRUE(sameResult(empty, other)) << dtype;
    ++compared;
  }
  EXPECT_GE(compared, 3);
}

// Runs triu.out into an out of `sizes` and `strides` (a permutation of a dense layout)
// inside a buffer big enough for a walk of stride(-3) over every batch; whether the out got
// triu's values and nothing outside it changed.
bool triuOutIsRight(at::IntArrayRef sizes, at::IntArrayRef strides) {
  const int64_t numel = c10::multiply_integers(sizes), batches = numel / (sizes.end()[-1] * sizes.end()[-2]);
  at::Tensor buffer = at::full({numel + batches * strides.end()[-3]}, -7.0);
  at::Tensor out = buffer.as_strided(sizes, strides);
  at::Tensor footprint = at::zeros_like(buffer);
  footprint.as_strided(sizes, strides).fill_(1);
  const at::Tensor self = at::arange(numel, at::kFloat).add_(1).reshape(sizes);
  at::triu_out(out, self, 1);
  return at::equal(out, at::triu(self, 1)) &&
         at::equal(buffer.masked_select(footprint.eq(0)), at::full({buffer.numel() - numel}, -7.0));
}

// Every layout the generator lets triu.out write is written right by the LibTorch at hand,
// and where its probe says this LibTorch misplaces the writes, some other layout really is
// written wrong (the probe is no false alarm).
TEST(ResultValues, TriangularOutsTheGeneratorMakesAreWrittenRight) {
  std::vector<int64_t> order{0, 1, 2, 3};
  int allowed = 0, refused_and_wrong = 0;
  do {
    const at::Tensor out = at::empty({2, 3, 4, 5}).permute(order);
    const bool right = triuOutIsRight(out.sizes(), out.strides());
    if (batchesFlattenToStride(out) || !triangularOutsMisplaced()) {
      ++allowed;
      EXPECT_TRUE(right) << out.sizes() << " " << out.strides();
    } else {
      refused_and_wrong += right ? 0 : 1;
    }
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_GE(allowed, 4);
  if (triangularOutsMisplaced()) {
    EXPECT_GT(refused_and_wrong, 0);
  }
  EXPECT_TRUE(batchesFlattenToStride(at::empty({2, 3, 4, 5}).transpose(2, 3)));
  EXPECT_TRUE(batchesFlattenToStride(at::empty({1, 3, 4, 5}).as_strided({1, 3, 4, 5}, {7, 20, 5, 1})));
  // stride(-3) is the walk's step even where its dimension has size 1.
  EXPECT_FALSE(batchesFlattenToStride(at::empty({1, 3, 4, 5}).transpose(0, 1)));
  EXPECT_FALSE(batchesFlattenToStride(at::empty({2, 3, 4, 5}).transpose(0, 1)));
  EXPECT_TRUE(batchesFlattenToStride(at::empty({3, 4, 5}).permute({2, 0, 1})));  // one batch dim
}

}  // namespace
}  // namespace epsmith
