// Writes through views and reads of views after their base changed: every case is checked
// against eager on inputs whose values are all distinct, so a write that lands on the wrong
// elements, or a view that misses an update, shows up as a mismatch.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "oracle/program_io.h"
#include "ops/op_registry.h"

#include "formats/text_format.h"
#include "tests/functionalizer/support.h"

namespace epsmith {
namespace {

using test::functionalAgreesWithEager;
using test::functionalAgreesWithEagerWhereItRuns;
using test::onX;
using test::outputKinds;
using test::program;
using test::rejection;
using test::targets;

TEST(FunctionalizeViews, WriteThroughView) {
  auto f = functionalAgreesWithEager(onX(R"(  %view: f32[3, 8] = aten::view(%x, [3, 8])
  %add_: f32[3, 8] = aten::add_.Scalar(%view, 1)
  %out: f32[4, 6] = aten::mul.Scalar(%x, 2)
  return (%out)
)"));
  EXPECT_EQ(outputKinds(f), "user_input_mutation x, user_output");
  EXPECT_EQ(targets(f), "aten::view aten::add.Scalar aten::reshape aten::mul.Scalar");
}

TEST(FunctionalizeViews, WriteThroughSelect) {
  auto f = functionalAgreesWithEager(onX(R"(  %select: f32[6] = aten::select.int(%x, 0, 1)
  %mul_: f32[6] = aten::mul_.Scalar(%select, 10)
  %out: f32[4, 6] = aten::clone(%x)
  return (%out)
)"));
  EXPECT_EQ(targets(f), "aten::select.int aten::mul.Scalar aten::select_scatter aten::clone");
}

TEST(FunctionalizeViews, WriteThroughDiagonalAndTranspose) {
  functionalAgreesWithEager(onX(R"(  %t: f32[6, 4]<stride=[1, 6]> = aten::t(%x)
  %diagonal: f32[4]<stride=[7]> = aten::diagonal(%t, 1)
  %zero_: f32[4]<stride=[7]> = aten::zero_(%diagonal)
  %transpose: f32[6, 4]<stride=[1, 6]> = aten::transpose.int(%x, 0, 1)
  %fill_: f32[6, 4]<stride=[1, 6]> = aten::fill_.Scalar(%transpose, 3)
  %out: f32[4, 6] = aten::clone(%x)
  return (%out)
)"));
}

TEST(FunctionalizeViews, WriteThroughPermuteOfA3dInput) {
  functionalAgreesWithEager(onX(R"(  %permute: f32[4, 2, 3]<stride=[1, 12, 4]> = aten::permute(%x, [2, 0, 1])
  %slice: f32[4, 2, 2]<stride=[1, 12, 8]> = aten::slice.Tensor(%permute, 2, 0, 3, 2)
  %add_: f32[4, 2, 2]<stride=[1, 12, 8]> = aten::add_.Scalar(%slice, 100)
  %out: f32[2, 3, 4] = aten::clone(%x)
  return (%out)
)",
                                "f32[2, 3, 4]"));
}

TEST(FunctionalizeViews, SlicesWithStepsAndChainedViews) {
  auto f = functionalAgreesWithEager(onX(R"(  %slice: f32[2, 6]<stride=[12, 1]> = aten::slice.Tensor(%x, 0, 0, 4, 2)
  %slice_1: f32[2, 2]<stride=[12, 3]> = aten::slice.Tensor(%slice, 1, 1, 6, 3)
  %t: f32[2, 2]<stride=[3, 12], offset=1> = aten::t(%slice_1)
  %unsqueeze: f32[1, 2, 2]<stride=[4, 3, 12], offset=1> = aten::unsqueeze(%t, 0)
  %sub_: f32[1, 2, 2]<stride=[4, 3, 12], offset=1> = aten::sub_.Scalar(%unsqueeze, 7)
  %narrow: f32[4, 2]<stride=[6, 1], offset=3> = aten::narrow(%x, 1, -3, 2)
  %mul_: f32[4, 2]<stride=[6, 1], offset=3> = aten::mul_.Scalar(%narrow, -1)
  %out: f32[4, 6] = aten::clone(%x)
  return (%out)
)"));
  EXPECT_EQ(outputKinds(f), "user_input_mutation x, user_output");
}

TEST(FunctionalizeViews, MutationOfANonContiguousInput) {
  // x is a transposed, offset view into a larger storage.
  auto p = onX(R"(  %add_: f32[4, 3]<stride=[1, 5], offset=2> = aten::add_.Scalar(%x, 1)
  %select: f32[3]<stride=[5], offset=3> = aten::select.int(%x, 0, 1)
  %mul_: f32[3]<stride=[5], offset=3> = aten::mul_.Scalar(%select, 3)
  %out: f32[4, 3] = aten::mul.Scalar(%x, 2)
  return (%out)
)",
               "f32[4, 3]<stride=[1, 5], offset=2>");
  EXPECT_EQ(p.example_inputs[0].tensor.strides, (std::vector<int64_t>{1, 5}));
  functionalAgreesWithEager(p);
}

TEST(FunctionalizeViews, ViewTakenBeforeAndReadAfterAMutationOfItsBase) {
  auto f = functionalAgreesWithEager(onX(R"(  %row: f32[6] = aten::select.int(%x, 0, 2)
  %col: f32[4]<stride=[6]> = aten::select.int(%x, 1, 5)
  %add_: f32[4, 6] = aten::add_.Scalar(%x, 1)
  %mul_: f32[4]<stride=[6]> = aten::mul_.Scalar(%col, 2)
  %sum: f32[] = aten::sum(%row)
  %out: f32[6] = aten::add.Tensor(%row, %sum)
  return (%out)
)"));
  // %row is replayed from the updated base before it is read; the views taken before the
  // writes are read by nothing afterwards and are dropped.
  EXPECT_EQ(targets(f),
            "aten::add.Scalar aten::select.int aten::mul.Scalar aten::select_scatter aten::select.int "
            "aten::sum aten::add.Tensor");
}

// view_as, expand_as and reshape_as take the other tensor's sizes when they run; replayed
// after that tensor's metadata changed (swapdims_, unsqueeze_), they must keep those sizes
// (campaign D1 cases: the replay read the other tensor's new shape).
TEST(FunctionalizeViews, SizesTakenFromAnotherTensorAreTheSizesItHadThen) {
  auto f = functionalAgreesWithEager(onX(R"(  %shape: f32[4, 6] = aten::clone(%x)
  %row: f32[1, 6] = aten::mean.dim(%x, [0], True)
  %v: f32[4, 6] = aten::view_as(%x, %shape)
  %r: f32[4, 6] = aten::reshape_as(%x, %shape)
  %e: f32[4, 6]<stride=[0, 1]> = aten::expand_as(%row, %shape)
  %swapdims_: f32[6, 4]<stride=[1, 6]> = aten::swapdims_(%shape, 0, 1)
  %add_: f32[4, 6] = aten::add_.Scalar(%x, 1)
  %mul_: f32[1, 6] = aten::mul_.Scalar(%row, 3)
  %a: f32[4, 6] = aten::add.Tensor(%v, %r)
  %out: f32[4, 6] = aten::add.Tensor(%a, %e)
  return (%out)
)"));
  EXPECT_NE(targets(f).find("aten::expand "), std::string::npos) << targets(f);
}

// Note [Expands that overlap nothing]: a write through broadcast_to to the tensor's own
// shape, or through an expand that adds a leading dimension of size 1, reaches every element
// of the base once, inf and NaN elements as they are (%x holds both); an expand that
// repeats an element stays refused.
TEST(FunctionalizeViews, AWriteThroughAnExpandThatRepeatsNothingReachesItsBase) {
  ExportedProgram p = onX(R"(  %b: f32[4, 6] = aten::broadcast_to(%x, [4, 6])
  %abs_: f32[4, 6] = aten::abs_(%b)
  %e: f32[1, 4, 6]<stride=[24, 6, 1]> = aten::expand(%x, [1, 4, 6])
  %mul_: f32[1, 4, 6]<stride=[24, 6, 1]> = aten::mul_.Scalar(%e, 0.5)
  %out: f32[4, 6] = aten::exp(%x)
  return (%out)
)");
  float* data = reinterpret_cast<float*>(p.example_inputs[0].tensor.storage->bytes.data());
  data[1] = std::numeric_limits<float>::infinity();
  data[2] = -std::numeric_limits<float>::infinity();
  data[3] = std::numeric_limits<float>::quiet_NaN();
  const ExportedProgram f = functionalAgreesWithEager(p);
  EXPECT_NE(targets(f).find("aten::abs aten::reshape"), std::string::npos) << targets(f);

  const std::string why = rejection(onX(R"(  %row: f32[1, 6] = aten::mean.dim(%x, [0], True)
  %e: f32[4, 6]<stride=[0, 1]> = aten::expand(%row, [4, 6])
  %abs_: f32[4, 6]<stride=[0, 1]> = aten::abs_(%e)
  %out: f32[4, 6] = aten::exp(%row)
  return (%out)
)"));
  EXPECT_NE(why.find("its elements overlap in memory"), std::string::npos) << why;
}

// A write through mT leaves the base's functional value a permute of a contiguous copy:
// strides eager's base never had, which view refuses for these sizes (a campaign's D1 case).
TEST(FunctionalizeViews, AViewOfABaseWrittenThroughATransposeIsTakenWhateverItsStrides) {
  auto f = functionalAgreesWithEager(onX(R"(  %mean: f32[] = aten::mean(%x)
  %mT: f32[6, 4]<stride=[1, 6]> = aten::mT(%x)
  %copy_: f32[6, 4]<stride=[1, 6]> = aten::copy_(%mT, %mean)
  %out: f32[24] = aten::view(%x, [24])
  return (%out)
)",
                                         "f32[4, 6]"));
  EXPECT_NE(targets(f).find("aten::reshape"), std::string::npos) << targets(f);
}

// The same of a symbolic base: its sizes cannot be spelled as a list of ints, so the view
// becomes reshape with the view's own arguments (a campaign's D1 case raised in view).
TEST(FunctionalizeViews, ASymbolicViewOfABaseWrittenThroughATransposeIsAReshape) {
  auto f = functionalAgreesWithEager(test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[sym("s0", hint=2), 3] = placeholder
  %mean: f32[] = aten::mean(%x)
  %mT: f32[3, sym("s0", hint=2)]<stride=[1, 3]> = aten::mT(%x)
  %copy_: f32[3, sym("s0", hint=2)]<stride=[1, 3]> = aten::copy_(%mT, %mean)
  %out: f32[sym("3*s0", hint=6)] = aten::view(%x, [-1])
  return (%out)
}
signature {
  input user_input %x
  output user_output %out
}
range_constraints {
  "s0" = [2, null]
}
storages {
  $0: f32[6] = [-2.0, 0.5, 0.0, 3.0, -0.25, 1.0]
}
example_inputs {
  $0 f32[2, 3]
}
)"));
  EXPECT_NE(targets(f).find("aten::reshape"), std::string::npos) << targets(f);
}

TEST(FunctionalizeViews, ViewsOfViewsAfterTheBaseWasMutated) {
  functionalAgreesWithEager(program(R"(graph {
  %x: f32[4, 6] = placeholder
  %clone: f32[4, 6] = aten::clone(%x)
  %view: f32[24] = aten::view(%clone, [24])
  %slice: f32[12]<stride=[2]> = aten::slice.Tensor(%view, 0, 0, 24, 2)
  %zero_: f32[4, 6] = aten::zero_(%clone)
  %slice_1: f32[6]<stride=[4]> = aten::slice.Tensor(%slice, 0, 0, 12, 2)
  %add_: f32[6]<stride=[4]> = aten::add_.Scalar(%slice_1, 5)
  %mul: f32[12]<stride=[2]> = aten::mul.Scalar(%slice, 3)
  %out: f32[4, 6] = aten::add.Tensor(%clone, %x)
  return (%out, %mul)
}
signature {
  input user_input %x
  output user_output %out
  output user_output %mul
})"));
}

TEST(FunctionalizeViews, OutputsThatAliasInputsAndIntermediates) {
  functionalAgreesWithEager(program(R"(graph {
  %x: f32[4, 6] = placeholder
  %view: f32[6, 4] = aten::view(%x, [6, 4])
  %clone: f32[4, 6] = aten::clone(%x)
  %t: f32[6, 4]<stride=[1, 6]> = aten::t(%clone)
  %add_: f32[4, 6] = aten::add_.Scalar(%clone, 1)
  return (%view, %t, %clone)
}
signature {
  input user_input %x
  output user_output %view
  output user_output %t
  output user_output %clone
})"));
}

TEST(FunctionalizeViews, ReshapeAliasesOnlyWhenItCanView) {
  // reshape of a contiguous tensor is a view: the later write reaches it. reshape of a
  // transposed one copies: the later write does not. contiguous() of a contiguous tensor
  // is the tensor itself.
  functionalAgreesWithEager(program(R"(graph {
  %x: f32[4, 6] = placeholder
  %reshape: f32[24] = aten::reshape(%x, [24])
  %t: f32[6, 4]<stride=[1, 6]> = aten::t(%x)
  %reshape_1: f32[24] = aten::reshape(%t, [24])
  %contiguous: f32[4, 6] = aten::contiguous(%x)
  %add_: f32[4, 6] = aten::add_.Scalar(%x, 1)
  %out: f32[24] = aten::sub.Tensor(%reshape, %reshape_1)
  return (%out, %contiguous)
}
signature {
  input user_input %x
  output user_output %out
  output user_output %contiguous
})"));
}

// Note [Views in another tensor's geometry]: slice_inverse (2.x) is refused by name.
TEST(FunctionalizeViews, SliceInverseIsRefused) {
  if (!findOpByName("aten::slice_inverse")) GTEST_SKIP() << "this LibTorch has no aten::slice_inverse";
  const std::string why = rejection(onX(R"(  %slice: f32[2]<offset=1> = aten::slice.Tensor(%x, 0, 1, 3)
  %slice_inverse: f32[4] = aten::slice_inverse(%slice, %x, 0, 1, 3)
  %out: f32[4] = aten::mul.Scalar(%slice_inverse, 2)
  return (%out)
)",
                                        "f32[4]"));
  EXPECT_NE(why.find("%slice_inverse: aten::slice_inverse views its self's storage in another tensor's geometry"),
            std::string::npos)
      << why;
}

// Note [How ravel aliases]: LibTorch 1.13's ravel is contiguous().view(-1), so ravel of a
// non-contiguous view copies even where one stride walks its elements (reshape would
// view): the later write to the base does not reach it. Of a contiguous tensor it is a
// view, which the write reaches. (A campaign's D1 case: the first read the write.)
TEST(FunctionalizeViews, RavelAliasesOnlyAContiguousInput) {
  functionalAgreesWithEager(program(R"(graph {
  %x: f32[1, 1, 3, 2] = placeholder
  %linalg_diagonal: f32[1, 3, 1]<stride=[6, 2, 7], offset=1> = aten::linalg_diagonal(%x, offset=1, dim1=-3)
  %ravel: f32[3] = aten::ravel(%linalg_diagonal)
  %ravel_1: f32[6] = aten::ravel(%x)
  %elu_: f32[1, 1, 3, 2] = aten::elu_(%x)
  return (%ravel, %ravel_1)
}
signature {
  input user_input %x
  output user_output %ravel
  output user_output %ravel_1
})"));
}

// Note [dtype views of computed values]: a view to a dtype of another element size needs a
// last stride of 1, which the values a graph computes for 0-element tensors need not have.
TEST(FunctionalizeViews, DtypeViewsOfWrittenTensorsReadAContiguousCopy) {
  functionalAgreesWithEagerWhereItRuns(
      onX(R"(  %triu_indices: i64[2, 0] = aten::triu_indices(0, 0, 0, layout=None, pin_memory=False)
  %swapdims_: i64[0, 2]<stride=[1, 1]> = aten::swapdims_(%triu_indices, 1, 0)
  %relu_: i64[0, 2]<stride=[1, 1]> = aten::relu_(%swapdims_)
  %t: i64[2, 0] = aten::t(%relu_)
  %view: bf16[2, 0]<stride=[4, 1]> = aten::view.dtype(%t, torch.bfloat16)
  %out: f32[4, 6] = aten::mul.Scalar(%x, 2)
  return (%out)
)"));
  // Of no element at all, in eager's strides: a contiguous [1, 0] has a first stride of 1,
  // which a view from f32 to f64 refuses, where eager's unsqueeze_ left 0.
  functionalAgreesWithEagerWhereItRuns(
      onX(R"(  %hamming_window: f32[0] = aten::hamming_window.periodic_alpha(0, True, 0.0, layout=None, device=None)
  %sub_: f32[0] = aten::sub_.Scalar(%hamming_window, 0)
  %unsqueeze_: f32[1, 0]<stride=[0, 1]> = aten::unsqueeze_(%sub_, 0)
  %view: f64[1, 0]<stride=[0, 1]> = aten::view.dtype(%hamming_window, torch.float64)
  %out: f32[4, 6] = aten::mul.Scalar(%x, 2)
  return (%out)
)"));
  functionalAgreesWithEagerWhereItRuns(onX(R"(  %divide_: f32[0, 1] = aten::divide_.Scalar(%x, 0)
  %view_copy: b8[0, 4] = aten::view_copy.dtype(%x, torch.bool)
  %out: b8[0, 4] = aten::logical_not(%view_copy)
  return (%out)
)",
                                           "f32[0, 1]"));
  // Its out= form reads the same way (a 2.13 campaign's D1 case: less_ of an f32[0, 1];
  // 1.13's kernel refuses to resize the out).
  functionalAgreesWithEagerWhereItRuns(onX(R"(  %less_: f32[0, 1] = aten::less_.Scalar(%x, 0.0)
  %o: f16[0] = aten::kaiser_window.periodic(0, True, dtype=torch.float16, layout=None, pin_memory=False)
  %view_copy: f16[0, 2] = aten::view_copy.dtype_out(%x, torch.float16, out=%o)
  %out: f16[0, 2] = aten::neg(%view_copy)
  return (%out)
)",
                                           "f32[0, 1]"));
  // Of a value computed from a written one: log2 follows the strides of the functional
  // tril, which are not those of eager's tril_ of a column-major input (a campaign's case).
  functionalAgreesWithEagerWhereItRuns(onX(R"(  %mH: f32[3, 6] = aten::mH(%x)
  %tril_: f32[6, 3]<stride=[1, 6]> = aten::tril_(%x, 0)
  %log2: f32[3, 6] = aten::log2(%mH)
  %view: b8[3, 24] = aten::view.dtype(%log2, torch.bool)
  %out: b8[3, 24] = aten::logical_not(%view)
  return (%out)
)",
                                           "f32[6, 3]<stride=[1, 6]>"));
  // A bool view of a written tensor read back as f32: the contiguous copy keeps the bytes,
  // which a copy of a bool tensor does not (it keeps whether each byte is 0; the
  // functionalizer target's case, through f16).
  functionalAgreesWithEager(onX(R"(  %bytes: b8[4, 24] = aten::view.dtype(%x, torch.bool)
  %t: f32[6, 4]<stride=[1, 6]> = aten::t(%x)
  %mul_: f32[6, 4]<stride=[1, 6]> = aten::mul_.Scalar(%t, 3)
  %back: f32[4, 6] = aten::view.dtype(%bytes, torch.float32)
  %out: f32[4, 6] = aten::add.Scalar(%back, 1)
  return (%out)
)"));
  // as_strided of such a value addresses eager's layout, read off a contiguous copy.
  functionalAgreesWithEagerWhereItRuns(onX(R"(  %t: f32[3, 6] = aten::t(%x)
  %tril_: f32[6, 3]<stride=[1, 6]> = aten::tril_(%x, 0)
  %log2: f32[3, 6] = aten::log2(%t)
  %a: f32[2] = aten::as_strided(%log2, [2], [1], 0)
  %out: f32[2] = aten::mul.Scalar(%a, 2)
  return (%out)
)",
                                           "f32[6, 3]<stride=[1, 6]>"));
  // Through a tuple result: sort of a 0-element tensor eq_ wrote, viewed as f64.
  functionalAgreesWithEagerWhereItRuns(
      onX(R"(  %unfold_copy: f32[1, 3, 0]<stride=[4, 2, 1]> = aten::unfold_copy(%x, 1, 0, 2)
  %eq_: f32[1, 3, 0]<stride=[4, 2, 1]> = aten::eq_.Scalar(%unfold_copy, 0)
  %sort: (f32[1, 3, 0]<stride=[4, 2, 1]>, i64[1, 3, 0]<stride=[4, 2, 1]>) = aten::sort(%unfold_copy)
  %values: f32[1, 3, 0]<stride=[4, 2, 1]> = operator.getitem(%sort, 0)
  %view: f64[1, 3, 0]<stride=[2, 1, 1]> = aten::view.dtype(%values, torch.float64)
  %out: f64[1, 3, 0] = aten::mul.Scalar(%view, 2)
  return (%out)
)",
          "f32[1, 4]"));
  // A value computed from untouched inputs has eager's strides: a dtype view of it stays a
  // view of its storage, which an as_strided after it may address past the view.
  functionalAgreesWithEagerWhereItRuns(onX(R"(  %exp: f32[4, 6] = aten::exp(%x)
  %split: (f32[3, 6], f32[1, 6]<offset=18>) = aten::split_with_sizes(%exp, [3, 1])
  %top: f32[3, 6] = operator.getitem(%split, 0)
  %view: f16[3, 12] = aten::view.dtype(%top, torch.float16)
  %a: f16[3, 12]<offset=1> = aten::as_strided(%view, [3, 12], [12, 1], 1)
  %out: f16[3, 12] = aten::mul.Scalar(%a, 2)
  return (%out)
)"));
}

// A tensor of no element is contiguous whatever its strides: contiguous() returns it
// itself, and a later metadata mutation through the original reaches the result (a
// campaign's case, taken for a copy).
TEST(FunctionalizeViews, ContiguousOfATensorOfNoElementIsTheTensor) {
  functionalAgreesWithEager(onX(R"(  %tanh: f32[2, 0, 2] = aten::tanh(%x)
  %transpose_: f32[2, 0, 2]<stride=[1, 2, 2]> = aten::transpose_(%tanh, -1, 0)
  %out: f32[2, 0, 2]<stride=[1, 2, 2]> = aten::contiguous(%tanh)
  %unsqueeze_: f32[1, 2, 0, 2]<stride=[2, 1, 2, 2]> = aten::unsqueeze_(%transpose_, 0)
  return (%out)
)",
                                "f32[2, 0, 2]"));
}

TEST(FunctionalizeViews, WritesThroughOverlappingViewsAreRefused) {
  std::string why = rejection(onX(R"(  %clone: f32[4, 6] = aten::clone(%x)
  %unfold: f32[4, 3, 4]<stride=[6, 1, 1]> = aten::unfold(%clone, 1, 4, 1)
  %zero_: f32[4, 3, 4]<stride=[6, 1, 1]> = aten::zero_(%unfold)
  %out: f32[4, 6] = aten::neg(%clone)
  return (%out)
)"));
  EXPECT_NE(why.find("%zero_: cannot carry a write through aten::unfold back to its base"), std::string::npos) << why;
}

TEST(FunctionalizeViews, MetadataMutationOfAnIntermediateBecomesAView) {
  auto f = functionalAgreesWithEager(onX(R"(  %clone: f32[4, 6] = aten::clone(%x)
  %transpose_: f32[6, 4]<stride=[1, 6]> = aten::transpose_(%clone, 0, 1)
  %unsqueeze_: f32[1, 6, 4]<stride=[24, 1, 6]> = aten::unsqueeze_(%clone, 0)
  %add_: f32[1, 6, 4]<stride=[24, 1, 6]> = aten::add_.Scalar(%clone, 1)
  %out: f32[1, 6, 4] = aten::mul.Scalar(%clone, 2)
  return (%out)
)"));
  EXPECT_EQ(outputKinds(f), "user_output");
}

TEST(FunctionalizeViews, MetadataMutationOfAnInputIsRejected) {
  std::string why = rejection(onX(R"(  %t_: f32[6, 4]<stride=[1, 6]> = aten::t_(%x)
  %out: f32[6, 4] = aten::clone(%x)
  return (%out)
)"));
  EXPECT_NE(why.find("%t_: Found an input that received a metadata mutation"), std::string::npos) << why;
  // Metadata changes that cancel out are not a metadata mutation.
  functionalAgreesWithEager(onX(R"(  %t_: f32[6, 4]<stride=[1, 6]> = aten::t_(%x)
  %add_: f32[6, 4]<stride=[1, 6]> = aten::add_.Scalar(%x, 1)
  %t__1: f32[4, 6] = aten::t_(%x)
  %out: f32[4, 6] = aten::clone(%x)
  return (%out)
)"));
  std::string resize = rejection(onX(R"(  %resize_: f32[24] = aten::resize_(%x, [24])
  %out: f32[24] = aten::clone(%x)
  return (%out)
)"));
  EXPECT_NE(resize.find("%resize_: Found an input that received a metadata mutation"), std::string::npos) << resize;
  // The input is still the input after an in-place view of it (a 2.13 campaign's D8 case:
  // swapaxes_ of an input, then set_ of it).
  std::string after_t = rejection(onX(R"(  %t_: f32[6, 4]<stride=[1, 6]> = aten::t_(%x)
  %t__1: f32[4, 6] = aten::t_(%x)
  %resize_: f32[24] = aten::resize_(%x, [24])
  %out: f32[24] = aten::clone(%x)
  return (%out)
)"));
  EXPECT_NE(after_t.find("%resize_: Found an input that received a metadata mutation"), std::string::npos) << after_t;
  // An out= call that resizes an input is refused for that before anything else about it
  // (a 2.13 campaign's D8 case: isin's 0-d result into a 1-d input, which no functional
  // result of another element count could fill).
  std::string out_resize = rejection(program(R"(graph {
  %x: f32[4] = placeholder
  %b: b8[5] = placeholder
  %isin: b8[] = aten::isin.Scalar_Tensor_out(0.5, %x, assume_unique=False, out=%b)
  %out: f32[4] = aten::clone(%x)
  return (%out)
}
signature {
  input user_input %x
  input user_input %b
  output user_output %out
})"));
  EXPECT_NE(out_resize.find("%isin: Found an input that received a metadata mutation (input 'b' resized by out=)"),
            std::string::npos)
      << out_resize;
}

TEST(FunctionalizeViews, WriteThroughAViewOfASymbolicShape) {
  // x's first dim is symbolic: carrying the write back reads it off the base at run time.
  auto p = test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[sym("s0", hint=4), 6] = placeholder
  %view: f32[sym("6*s0", hint=24)] = aten::view(%x, [-1])
  %add_: f32[sym("6*s0", hint=24)] = aten::add_.Scalar(%view, 1)
  %out: f32[sym("s0", hint=4), 6] = aten::mul.Scalar(%x, 2)
  return (%out)
}
signature {
  input user_input %x
  output user_output %out
}
storages {
  $0: f32[24] = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0]
}
example_inputs {
  $0 f32[4, 6]
}
)");
  auto f = functionalAgreesWithEager(p);
  EXPECT_EQ(targets(f), "aten::view aten::add.Scalar aten::size.int aten::reshape aten::mul.Scalar");
  EXPECT_EQ(outputKinds(f), "user_input_mutation x, user_output");
}

// Note [Layouts decided at the example]: reshape_as of a contiguous input of a symbolic
// size is a view there, as at every size of a range from 2, so a write through it reaches
// the input (a campaign's D1 case read it as a copy and left the input unwritten).
TEST(FunctionalizeViews, AReshapeOfASymbolicContiguousInputIsAView) {
  auto p = test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[2, sym("s0", hint=3)]<stride=[sym("s0", hint=3), 1]> = placeholder
  %reshape_as: f32[2, sym("s0", hint=3)]<stride=[sym("s0", hint=3), 1]> = aten::reshape_as(%x, %x)
  %sgn_: f32[2, sym("s0", hint=3)]<stride=[sym("s0", hint=3), 1]> = aten::sgn_(%reshape_as)
  return (%sgn_)
}
signature {
  input user_input %x
  output user_output %sgn_
}
range_constraints {
  "s0" = [2, null]
}
storages {
  $0: f32[6] = [-2.0, 0.5, 0.0, 3.0, -0.25, 1.0]
}
example_inputs {
  $0 f32[2, 3]
}
)");
  auto f = functionalAgreesWithEager(p);
  EXPECT_EQ(outputKinds(f), "user_input_mutation x, user_output");
}

// An out= call that shrinks a symbolic tensor keeps its storage
// (Note [Layouts decided at the example]): a view taken before sees the result's one
// element and the rest as it was (a campaign's D1 case took the storage for a new one and
// left the view unwritten).
TEST(FunctionalizeViews, AnOutThatShrinksASymbolicTensorKeepsItsStorage) {
  auto p = test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[2, sym("s0", hint=3)]<stride=[sym("s0", hint=3), 1]> = placeholder
  %s: f32[] = placeholder
  %t: f32[2, sym("s0", hint=3)]<stride=[sym("s0", hint=3), 1]> = aten::mul.Scalar(%x, 2)
  %flat: f32[sym("2*s0", hint=6)] = aten::ravel(%t)
  %ge: f32[] = aten::ge.Scalar_out(%s, -0.5, out=%t)
  %out: f32[sym("2*s0", hint=6)] = aten::mul.Scalar(%flat, 1)
  return (%ge, %out)
}
signature {
  input user_input %x
  input user_input %s
  output user_output %ge
  output user_output %out
}
range_constraints {
  "s0" = [2, null]
}
storages {
  $0: f32[6] = [-2.0, 0.5, 0.0, 3.0, -0.25, 1.0]
  $1: f32[1] = [1.5]
}
example_inputs {
  $0 f32[2, 3]
  $1 f32[]
}
)");
  functionalAgreesWithEager(p);
}

// Note [View arguments read when the view is taken]: narrow's start is the input %x, which a
// write through a view of it changes after the narrow was taken; the narrow is replayed
// after that write (its base changed) with the start it had, 1, not 2 (a campaign's D1 case:
// the replay started out of range).
TEST(FunctionalizeViews, AReplayedViewReadsItsTensorArgumentsAsTheyWereThen) {
  auto p = test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: i64[] = placeholder
  %y: i64[3] = placeholder
  %flat: i64[1] = aten::flatten.using_ints(%x, 0)
  %row: i64[1] = aten::narrow.Tensor(%y, 0, %x, 1)
  %add_: i64[1] = aten::add_.Scalar(%flat, 1)
  %mul_: i64[3] = aten::mul_.Scalar(%y, 3)
  %out: i64[1] = aten::mul.Scalar(%row, 2)
  return (%out)
}
signature {
  input user_input %x
  input user_input %y
  output user_output %out
}
storages {
  $0: i64[1] = [1]
  $1: i64[3] = [5, 6, 7]
}
example_inputs {
  $0 i64[]
  $1 i64[3]
}
)");
  auto f = functionalAgreesWithEager(p);
  EXPECT_EQ(outputKinds(f), "user_input_mutation x, user_input_mutation y, user_output");
}

TEST(FunctionalizeViews, FunctionalizingTwiceEqualsOnce) {
  auto p = onX(R"(  %select: f32[6] = aten::select.int(%x, 0, 1)
  %mul_: f32[6] = aten::mul_.Scalar(%select, 10)
  %view: f32[24] = aten::view(%x, [24])
  %out: f32[24] = aten::add.Scalar(%view, 1)
  return (%out)
)");
  auto once = functionalAgreesWithEager(p);
  auto twice = functionalize(once);
  ASSERT_TRUE(twice.ok()) << twice.error().str();
  EXPECT_EQ(printProgramText(twice.value()), printProgramText(once));
}

TEST(FunctionalizeViews, AnAtenProgramComesBackUnchanged) {
  auto p = test::parse(R"(program {
  verifiers ["ATEN"]
}
graph {
  %b_n: f32[3] = placeholder
  %x: f32[3] = placeholder
  %add: f32[3] = aten::add.Tensor(%b_n, %x)
  %t: f32[3] = aten::alias(%x)
  %mul: f32[3] = aten::mul.Tensor(%add, %t)
  return (%add, %mul)
}
signature {
  input buffer %b_n -> "n" persistent=True
  input user_input %x
  output buffer_mutation %add -> "n"
  output user_output %mul
}
)");
  test::fillState(p);
  auto f = functionalize(p);
  ASSERT_TRUE(f.ok()) << f.error().str();
  EXPECT_EQ(printProgramText(f.value()), printProgramText(p));
}

}  // namespace
}  // namespace epsmith
