// out= calls: each program runs eagerly and, functionalized, through the exported calling
// convention; outputs and final inputs must agree. The functional form of an out= call, the
// write into `out` (cast, broadcast, resized), what the dtype probe and the autograd probe
// tell (functionalizer/dtype_probe.h), and the out= calls that are refused.
#include <gtest/gtest.h>

#include "functionalizer/dtype_probe.h"
#include "oracle/aten_bridge.h"
#include "tests/functionalizer/support.h"

namespace epsmith {
namespace {

using test::functionalAgreesWithEager;
using test::outputKinds;
using test::program;
using test::rejection;
using test::targets;

// Note [out= calls autograd lets through]: eager runs these out= calls on inputs that
// require grad (no history is recorded), while their functional forms under autograd raise
// (1.13's isDifferentiableType assert for an integer or bool result; a weight that requires
// grad). A campaign found each. The functional form reads those inputs through detach, and
// only where autograd refuses it: eq.Tensor_out's functional form runs as it is.
TEST(Functionalize, OutCallsAutogradRefusesReadDetachedInputs) {
  auto p = program(R"(graph {
  %p_w: f32[3]<requires_grad=True> = placeholder
  %p_s: f64[]<requires_grad=True> = placeholder
  %flags: b8[3] = placeholder
  %x: f32[3] = placeholder
  %buf: f32[] = placeholder
  %sel: f32[3] = placeholder
  %loss: f32[3] = placeholder
  %same: b8[3] = placeholder
  %prod: f32[] = aten::prod.out(%p_w, dtype=torch.int64, out=%buf)
  %select_scatter: f32[3] = aten::select_scatter.out(%flags, %p_s, 0, 1, out=%sel)
  %bce: f32[3] = aten::binary_cross_entropy_with_logits.out(%x, %x, %p_w, None, 0, out=%loss)
  %eq: b8[3] = aten::eq.Tensor_out(%x, %p_w, out=%same)
  return (%x)
}
signature {
  input parameter %p_w -> "w"
  input parameter %p_s -> "s"
  input user_input %flags
  input user_input %x
  input user_input %buf
  input user_input %sel
  input user_input %loss
  input user_input %same
  output user_output %x
})");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  auto f = functionalAgreesWithEager(p);
  EXPECT_EQ(targets(f),
            "aten::detach aten::prod aten::_to_copy aten::detach aten::select_scatter aten::_to_copy aten::detach "
            "aten::binary_cross_entropy_with_logits aten::eq.Tensor");
  // Integer and bool results carry no requires_grad in the functional graph's metadata.
  for (const Node& n : f.graph().nodes()) {
    const TensorMeta* m = n.meta.val.tensor();
    if (m && !isFloatingPoint(m->dtype)) {
      EXPECT_FALSE(m->requires_grad) << n.name();
    }
  }
}

TEST(Functionalize, OutOfPlaceIntoAnInputAndIntoAnIntermediate) {
  auto p = program(R"(graph {
  %x: f32[2, 2] = placeholder
  %y: f32[2, 2] = placeholder
  %add: f32[2, 2] = aten::add.out(%x, %y, out=%x)
  %empty: f32[2, 2] = aten::clone(%y)
  %mm: f32[2, 2] = aten::mm.out(%x, %y, out=%empty)
  %sum: f32[] = aten::sum(%empty)
  return (%mm, %sum)
}
signature {
  input user_input %x
  input user_input %y
  output user_output %mm
  output user_output %sum
})");
  auto f = functionalAgreesWithEager(p);
  EXPECT_EQ(outputKinds(f), "user_input_mutation x, user_output, user_output");
  EXPECT_EQ(targets(f), "aten::add.Tensor aten::clone aten::mm aten::sum");
}

TEST(Functionalize, OutOfPlaceThatShrinksKeepsTheStorageViewsSee) {
  // abs.out resizes %clone from [3] to []: eager keeps the storage, so the view taken
  // before sees the result in its first element (found by the generator).
  auto p = program(R"(graph {
  %x: f32[3] = placeholder
  %y: f32[] = placeholder
  %clone: f32[3] = aten::clone(%x)
  %view: f32[3] = aten::view(%clone, [3])
  %abs: f32[] = aten::abs.out(%y, out=%clone)
  %mul: f32[3] = aten::mul.Scalar(%view, 2)
  %add_: f32[] = aten::add_.Scalar(%clone, 10)
  return (%mul, %abs, %view)
}
signature {
  input user_input %x
  input user_input %y
  output user_output %mul
  output user_output %abs
  output user_output %view
})");
  functionalAgreesWithEager(p);
}

// Note [out= kernels that write past the result they shrink to]: huber_loss.out with a
// reduction writes the elementwise loss into all of `out` before it shrinks it to 0-d, so
// the view taken before sees the loss past the first element (0 here: input and target are
// one tensor), not what the storage held (a 2.13 campaign's D1 case; 1.13's kernel does
// the same). Refused; the same
// program with sum.out, which writes only the result, still functionalizes.
TEST(Functionalize, OutCallsThatWritePastTheResultTheyShrinkToAreRefused) {
  const std::string graph = R"(graph {
  %x: f32[1, 2] = placeholder
  %lgamma: f32[1, 2] = aten::lgamma(%x)
  %ravel: f32[2] = aten::ravel(%lgamma)
  %loss: f32[] = aten::OP(%x, %x, out=%lgamma)
  return (%ravel)
}
signature {
  input user_input %x
  output user_output %ravel
})";
  auto with = [&](const std::string& op, const std::string& args) {
    std::string g = graph;
    g.replace(g.find("OP(%x, %x"), 9, op + "(" + args);
    return g;
  };
  // Refused where this LibTorch's kernel writes past the result; where it does not, the
  // functional program must agree with eager as any other does.
  const ExportedProgram huber = program(with("huber_loss.out", "%x, %x"));
  if (auto refused = functionalize(huber); !refused.ok()) {
    EXPECT_NE(refused.error().str().find("%loss: out= shrinks its tensor in place after writing past the result"),
              std::string::npos)
        << refused.error().str();
  } else {
    functionalAgreesWithEager(huber);
  }
  functionalAgreesWithEager(program(with("sum.IntList_out", "%x, [0, 1]")));
}

// A permuted out= tensor that keeps its element count is restrided in place by eager, and a
// view taken of it earlier sees the result in the new order: refused, not left stale (a
// campaign's D1 case returned the view's old values).
TEST(Functionalize, OutOfPlaceRestridingUnderALiveViewIsRefused) {
  std::string why = rejection(program(R"(graph {
  %x: f32[2, 2, 1] = placeholder
  %t: f32[1, 2, 2]<stride=[1, 1, 2]> = aten::permute(%x, [2, 1, 0])
  %entr: f32[1, 2, 2]<stride=[1, 1, 2]> = aten::special_entr(%t)
  %view: f32[1, 2, 2]<stride=[1, 1, 2]> = aten::transpose.int(%entr, 0, 0)
  %ndtr: f32[2, 2, 1] = aten::special_ndtr.out(%x, out=%entr)
  return (%view)
}
signature {
  input user_input %x
  output user_output %view
})"));
  EXPECT_NE(why.find("%ndtr: out= restrides in place a tensor that is not contiguous"), std::string::npos) << why;
}

TEST(Functionalize, OutOfPlaceWithSeveralOutputs) {
  auto p = program(R"(graph {
  %x: f32[2, 3] = placeholder
  %values: f32[2] = placeholder
  %indices: i64[2] = placeholder
  %max: (f32[2], i64[2]) = aten::max.dim_max(%x, 1, max=%values, max_values=%indices)
  %v: f32[2] = operator.getitem(%max, 0)
  %i: i64[2] = operator.getitem(%max, 1)
  %add: f32[2] = aten::add.Tensor(%v, %values)
  return (%add, %i)
}
signature {
  input user_input %x
  input user_input %values
  input user_input %indices
  output user_output %add
  output user_output %i
})");
  auto f = functionalAgreesWithEager(p);
  EXPECT_EQ(outputKinds(f), "user_input_mutation values, user_input_mutation indices, user_output, user_output");
}

TEST(Functionalize, FactoryOutOfPlaceMakesTheOutDtype) {
  auto p = program(R"(graph {
  %x: i32[2, 3] = placeholder
  %ones_out: i32[2, 3] = aten::ones.out([2, 3], out=%x)
  %arange: i32[2, 3] = aten::mul.Scalar(%x, 7)
  return (%arange)
}
signature {
  input user_input %x
  output user_output %arange
})");
  auto f = functionalAgreesWithEager(p);
  EXPECT_EQ(targets(f), "aten::ones aten::mul.Scalar");
  ASSERT_NE(f.graph().find("ones"), nullptr);
  EXPECT_EQ(formatNode(*f.graph().find("ones")), "%ones: i32[2, 3] = aten::ones([2, 3], dtype=torch.int32)");
}

// arange.out and linspace.out resize `out` only when the element count differs; with the
// count right they fill `out` in its own shape, in order (a campaign's D1 cases: the graph
// broadcast-copied the 1-d result into `out` and raised).
TEST(Functionalize, FactoryOutOfPlaceFillsAnOutOfTheSameCountInItsShape) {
  auto p = program(R"(graph {
  %x: f32[] = placeholder
  %y: f32[2, 3] = placeholder
  %arange: f32[] = aten::arange.out(1, out=%x)
  %linspace: f32[2, 3] = aten::linspace.out(0.0, 1.0, 6, out=%y)
  %mul: f32[2, 3] = aten::mul.Tensor(%y, %x)
  return (%mul)
}
signature {
  input user_input %x
  input user_input %y
  output user_output %mul
})");
  auto f = functionalAgreesWithEager(p);
  EXPECT_EQ(targets(f), "aten::arange aten::reshape aten::linspace aten::reshape aten::mul.Tensor");
}

// remainder.Scalar_Tensor has no meta kernel, and on CPU zeros an integer remainder by zero
// raises: the dtype probe must still learn that the functional call returns i64, so the
// graph casts it to the out= tensor's f32 as eager does (a campaign's D1 case).
TEST(Functionalize, OutOfPlaceCastsToTheOutDtypeWhenOnlyARealRunTells) {
  auto p = program(R"(graph {
  %out: f32[] = placeholder
  %b: b8[] = aten::ones([], dtype=torch.bool)
  %remainder: f32[] = aten::remainder.Scalar_Tensor_out(0, %b, out=%out)
  return (%remainder)
}
signature {
  input user_input %out
  output user_output %remainder
})");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  auto f = functionalAgreesWithEager(p);
  EXPECT_EQ(targets(f), "aten::ones aten::remainder.Scalar_Tensor aten::_to_copy");
}

// Note [out= calls that compute in another dtype]: sum.out of f32 into i64 sums and casts
// the sum, cumsum.out converts each element first, and prod.out into bf16 must not ask for
// a bf16 product (no CPU kernel); the functional forms do as eager does (campaign D1 cases:
// -4 for -5, and a raise).
TEST(Functionalize, OutOfPlaceIntoAnotherDtypeConvertsWhereEagerDoes) {
  auto p = program(R"(graph {
  %x: f32[2, 3] = placeholder
  %s: i64[] = placeholder
  %q: bf16[] = placeholder
  %c: i64[2, 3] = placeholder
  %frac: f32[2, 3] = aten::mul.Scalar(%x, 0.75)
  %sum: i64[] = aten::sum.out(%frac, out=%s)
  %prod: bf16[] = aten::prod.out(%frac, out=%q)
  %cumsum: i64[2, 3] = aten::cumsum.out(%frac, 1, out=%c)
  %out: f32[2, 3] = aten::mul.Scalar(%x, 2)
  return (%out)
}
signature {
  input user_input %x
  input user_input %s
  input user_input %q
  input user_input %c
  output user_output %out
})");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  auto f = functionalAgreesWithEager(p);
  EXPECT_EQ(targets(f),
            "aten::mul.Scalar aten::sum aten::_to_copy aten::prod aten::_to_copy aten::cumsum aten::mul.Scalar");
}

// std.correction_out of f32 into bf16 rounds its inputs to bf16 first; on the probe's first
// values a form that rounds only the result wrote the same. logsumexp.out of f32 into f64
// sums in f64, which a form computing in f32 misses by more than D1's f64 tolerance though
// within the probe's own. Campaign D1 cases, with their values
// (Note [out= calls that compute in another dtype]).
TEST(Functionalize, OutOfPlaceIntoAnotherDtypeIsToldApartOnCloseValues) {
  auto p = test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[2] = placeholder
  %q: bf16[] = placeholder
  %b: f32[6] = placeholder
  %d: f64[] = placeholder
  %std: bf16[] = aten::std.correction_out(%x, [0], correction=-1, keepdim=False, out=%q)
  %lse: f64[] = aten::logsumexp.out(%b, [0], out=%d)
  return (%std, %lse)
}
signature {
  input user_input %x
  input user_input %q
  input user_input %b
  input user_input %d
  output user_output %std
  output user_output %lse
}
storages {
  $0: f32[2] = [0.9868164, 0.9638672]
  $1: bf16[1] = [1.5]
  $2: f32[6] = [0.0, 6.0, -3.0, -2.0, -6.0, -3.0]
  $3: f64[1] = [0.5]
}
example_inputs {
  $0 f32[2]
  $1 bf16[]
  $2 f32[6]
  $3 f64[]
}
)");
  auto f = functionalAgreesWithEager(p);
  EXPECT_EQ(targets(f), "aten::_to_copy aten::std.correction aten::_to_copy aten::logsumexp");
}

// logsumexp.out of bf16 into f32 takes the exponentials in bf16 and sums them in f32: no
// functional form writes that, and the call is refused rather than computed otherwise (a
// campaign's D1 case).
TEST(Functionalize, AnOutCallThatConvertsMidComputationIsRefused) {
  auto p = program(R"(graph {
  %x: bf16[2] = placeholder
  %o: f32[1] = placeholder
  %lse: f32[1] = aten::logsumexp.out(%x, [0], True, out=%o)
  return (%lse)
}
signature {
  input user_input %x
  input user_input %o
  output user_output %lse
})");
  std::string why = rejection(p);
  EXPECT_NE(why.find("%lse: no functional form of aten::logsumexp.out writes what it writes"), std::string::npos) << why;
}

// The same, where unsqueeze_ changed the input's sizes after its meta.val was recorded: the
// probe must size its values as the input is when the out= call runs, or the call raises on
// them, no form is probed, and a default form computes otherwise (a campaign's D1 case).
TEST(Functionalize, TheFormProbeSeesAnInputsCurrentSizes) {
  auto p = program(R"(graph {
  %o: f32[] = placeholder
  %w: f16[2] = aten::bartlett_window(2, dtype=torch.float16, layout=None)
  %unsqueeze_: f16[1, 2] = aten::unsqueeze_(%w, 0)
  %lse: f32[] = aten::logsumexp.out(%w, [0, 1], False, out=%o)
  return (%lse)
}
signature {
  input user_input %o
  output user_output %lse
})");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);  // 1.13 has no f16 exp on CPU
  auto f = functionalize(p);
  if (!f.ok()) {
    EXPECT_NE(f.error().str().find("%lse: no functional form of aten::logsumexp.out"), std::string::npos) << f.error().str();
  } else {
    functionalAgreesWithEager(p);
  }
}

// `sum` given dtype=bool of an f64 input that requires grad trips an internal assert in
// LibTorch 1.13 (autograd's isDifferentiableType), while eager's sum.out writes the bool:
// the functional program once raised (a campaign D1 case). The form probe compares values
// only; the autograd probe sees the refusal, and the input is read through detach
// (Note [out= calls autograd lets through]).
TEST(Functionalize, OutOfPlaceIntoAnotherDtypeProbesWithGrad) {
  auto p = program(R"(graph {
  %w: f64[5, 3]<requires_grad=True> = placeholder
  %flags: b8[5, 3] = aten::logical_not(%w)
  %sum: b8[] = aten::sum.out(%w, out=%flags)
  return (%w)
}
signature {
  input user_input %w
  output user_output %w
})");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  auto f = functionalAgreesWithEager(p);
  EXPECT_EQ(targets(f), "aten::logical_not aten::detach aten::sum aten::as_strided_scatter");
}

// binary_cross_entropy.out with no reduction writes through a squeezed view of `out` and
// resizes that view, not `out`: `out` keeps its sizes though the result cannot broadcast
// into it. What eager left in `out` is not something the graph can say: refused, not a copy
// that raises where eager did not.
// binary_cross_entropy.out of `t` (of metadata `t_meta`) and itself, with `more` arguments,
// into a 0-d user input.
ExportedProgram crossEntropyInto0d(const std::string& t_meta, const std::string& more) {
  return program(R"(graph {
  %x: f32[] = placeholder
  %t: )" + t_meta + R"( = placeholder
  %bce: f32[] = aten::binary_cross_entropy.out(%t, %t)" + more + R"(, out=%x)
  return (%bce)
}
signature {
  input user_input %x
  input user_input %t
  output user_output %bce
})");
}

TEST(Functionalize, AnOutThatKeepsItsSizesButCannotHoldTheResultIsRefused) {
  std::string why = rejection(crossEntropyInto0d("f32[2]", ", None, 0"));
  EXPECT_NE(why.find("%bce: out= tensor f32[] keeps its sizes, but the functional result [2]"), std::string::npos) << why;
}

// binary_cross_entropy.out of empty inputs with the mean reduction leaves `out` as it was
// on 2.13, where the functional form gives NaN, the mean of nothing (a campaign's D1 and D2
// case): the out= form probe also runs for calls with empty inputs, finds no form that
// writes what eager writes, and the call is refused; where a LibTorch's kernel writes NaN,
// the functional program must agree with eager as any other does.
TEST(Functionalize, OutCallsOfEmptyInputsThatKeepTheirOutAreRefused) {
  // multilabel_margin_loss.out of an empty batch leaves `out` unwritten too, and its
  // functional form returns fresh memory, often zero: the probe's out is not zeros.
  const ExportedProgram multilabel = program(R"(graph {
  %x: f32[] = placeholder
  %t: f32[0, 8] = placeholder
  %l: i64[0, 8] = placeholder
  %loss: f32[] = aten::multilabel_margin_loss.out(%t, %l, out=%x)
  return (%loss)
}
signature {
  input user_input %x
  input user_input %t
  input user_input %l
  output user_output %loss
})");
  if (auto refused = functionalize(multilabel); !refused.ok()) {
    EXPECT_NE(refused.error().str().find("from empty inputs"), std::string::npos) << refused.error().str();
  } else {
    functionalAgreesWithEager(multilabel);
  }
  const ExportedProgram p = crossEntropyInto0d("f32[1, 0]", "");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  if (auto refused = functionalize(p); !refused.ok()) {
    EXPECT_NE(refused.error().str().find("%bce: no functional form of aten::binary_cross_entropy.out writes what it "
                                         "writes into its out= tensor from empty inputs"),
              std::string::npos)
        << refused.error().str();
  } else {
    functionalAgreesWithEager(p);
  }
}

// huber_loss.out computes in the out tensor's dtype, where the functional huber_loss makes
// its loss in the input's and refuses to cast the f32 loss into a bool or i64 one: every
// input is cast first. Given a reduction it does not know, huber_loss.out resizes `out` to
// [] and copies in the unreduced loss of one element, which the functional program gives
// in `out`'s new shape. Campaigns found each.
TEST(Functionalize, OutCallsThatConvertEveryInputOrResizeToAnotherShape) {
  auto f = functionalAgreesWithEager(program(R"(graph {
  %flag: b8[] = placeholder
  %n: i64[3] = placeholder
  %t: f32[3] = placeholder
  %a: f32[1, 1, 1] = placeholder
  %o1: f32[3] = placeholder
  %o2: f32[3] = placeholder
  %h1: f32[3] = aten::huber_loss.out(%flag, %t, 0, out=%o1)
  %h2: f32[3] = aten::huber_loss.out(%n, %t, 0, out=%o2)
  %o3: f32[1, 1, 1] = aten::floor(%a)
  %h3: f32[] = aten::huber_loss.out(%a, %a, 4, out=%o3)
  return (%h1, %h2, %h3)
}
signature {
  input user_input %flag
  input user_input %n
  input user_input %t
  input user_input %a
  input user_input %o1
  input user_input %o2
  output user_output %h1
  output user_output %h2
  output user_output %h3
})"));
  EXPECT_EQ(targets(f), "aten::_to_copy aten::huber_loss aten::_to_copy aten::huber_loss aten::floor aten::huber_loss aten::reshape "
            "aten::as_strided_scatter");
}

// An out= tensor reshaped in place keeps eager's layout: tan.out of a permuted input lays
// the resized `out` out like the input, and a view of `out` taken before reads the storage
// in that order. And given a reduction it does not know, huber_loss.out of an i64 input
// grows an empty `out` to the broadcast [1], then leaves the one-element loss in it resized
// to []. Campaigns found both.
TEST(Functionalize, OutTensorsResizedInPlaceKeepEagersLayout) {
  functionalAgreesWithEager(program(R"(graph {
  %x: f32[1, 1, 3, 3] = placeholder
  %n: i64[] = placeholder
  %w: f32[1] = placeholder
  %numpy_T: f32[3, 3, 1, 1]<stride=[1, 3, 9, 9]> = aten::numpy_T(%x)
  %round: f32[1, 1, 3, 3] = aten::round(%x)
  %swapaxes: f32[1, 1, 3, 3] = aten::swapaxes(%round, 0, 0)
  %tan: f32[3, 3, 1, 1]<stride=[1, 3, 9, 9]> = aten::tan.out(%numpy_T, out=%round)
  %out: f32[1, 1, 3, 3] = aten::mul.Scalar(%swapaxes, 1)
  %window: f32[0] = aten::hann_window(0)
  %huber: f32[] = aten::huber_loss.out(%n, %w, -2, out=%window)
  return (%out, %huber)
}
signature {
  input user_input %x
  input user_input %n
  input user_input %w
  output user_output %out
  output user_output %huber
})"));
}

// The dtype probe runs a call on placeholders of its inputs' metadata: as_strided_copy.out
// at offset 4 of an i32[4] of stride 2 reads past the tensor's elements, which the
// placeholder must have for the probe to say the result is i32 (cast into the f32 `out`).
TEST(Functionalize, OutCallsReadingPastTheirInputAreStillProbed) {
  auto p = program(R"(graph {
  %x: i32[8] = placeholder
  %o: f32[4] = placeholder
  %every_other: i32[4]<stride=[2]> = aten::slice.Tensor(%x, 0, 0, 8, 2)
  %a: f32[4] = aten::as_strided_copy.out(%every_other, [4], [1], 4, out=%o)
  return (%o)
}
signature {
  input user_input %x
  input user_input %o
  output user_output %o
})");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  auto f = functionalAgreesWithEager(p);
  EXPECT_EQ(targets(f), "aten::slice.Tensor aten::as_strided_copy aten::_to_copy");
}

// Two more forms eager's out= kernels take
// (Note [out= calls that compute in another dtype]): huber_loss.out of an i32 and an f32 input into a bf16 `out` computes in f32 and
// casts the loss (casting the inputs to bf16 rounds them first); norm.dtype_out asked for
// bf16 into an f32 `out` computes in f32. Campaigns found both.
TEST(Functionalize, OutCallsThatComputeInTheInputsDtypeOrIgnoreTheirDtype) {
  auto p = program(R"(graph {
  %n: i32[3] = placeholder
  %w: f32[3] = placeholder
  %o: bf16[3] = placeholder
  %x: f32[1, 3] = placeholder
  %o2: f32[] = placeholder
  %huber: bf16[3] = aten::huber_loss.out(%n, %w, 0, out=%o)
  %norm: f32[] = aten::norm.dtype_out(%x, 2, [0, 1], False, dtype=torch.bfloat16, out=%o2)
  return (%huber, %norm)
}
signature {
  input user_input %n
  input user_input %w
  input user_input %o
  input user_input %x
  input user_input %o2
  output user_output %huber
  output user_output %norm
})");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  auto f = functionalAgreesWithEager(p);
  EXPECT_EQ(targets(f), "aten::_to_copy aten::huber_loss aten::_to_copy aten::norm.ScalarOpt_dim_dtype");
}

// An out= call of empty tensors writes nothing the probe can compare, but its form must
// still run: huber_loss.out of an empty i64 input and an f32 target into an f32 `out`,
// whose functional form keeps the i64 input's dtype and refuses to cast the loss into it
// unless every input is cast first (a 2.13 campaign's D1 case).
TEST(Functionalize, OutCallsOfEmptyTensorsGetAFormThatRuns) {
  auto p = program(R"(graph {
  %n: i64[0, 1, 1, 1] = placeholder
  %w: f32[0, 1, 1, 1] = placeholder
  %o: f32[0, 1, 1, 1] = placeholder
  %huber: f32[0, 1, 1, 1] = aten::huber_loss.out(%n, %w, 0, out=%o)
  return (%huber)
}
signature {
  input user_input %n
  input user_input %w
  input user_input %o
  output user_output %huber
})");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  functionalAgreesWithEager(p);
}

// var.out of an empty f16 input into f32 computes in f32: a NaN whose bits a dtype view
// shows. var in f16 cast afterwards is NaN too, of other bits; the probe prefers the form
// that makes eager's (a 2.13 campaign's D1 case read them as bool).
TEST(Functionalize, OutCallsGetTheFormThatMakesEagersNaNBits) {
  auto p = program(R"(graph {
  %e: f16[0] = placeholder
  %o: f32[1] = placeholder
  %var: f32[1] = aten::var.out(%e, [0], False, True, out=%o)
  %bits: b8[4] = aten::view.dtype(%o, torch.bool)
  return (%bits)
}
signature {
  input user_input %e
  input user_input %o
  output user_output %bits
})");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  functionalAgreesWithEager(p);
}

// Note [Probe answers are the key's alone]: the out= form probe ran on inputs of at most
// 4 096 elements; a larger call of the same op and dtypes got no answer, which was cached
// and then served to a small one (a campaign's case failed or not by the cases its worker
// had run before). A small call finds its form whatever came first, and a call of 6 400
// elements is probed too.
TEST(Functionalize, ProbeAnswersDoNotDependOnEarlierCalls) {
  auto huber = [](const std::string& size) {
    return program(R"(graph {
  %n: i32[)" + size + R"(] = placeholder
  %w: f32[)" + size + R"(] = placeholder
  %o: f32[)" + size + R"(] = placeholder
  %h: f32[)" + size + R"(] = aten::huber_loss.out(%n, %w, 0, out=%o)
  return (%h)
}
signature {
  input user_input %n
  input user_input %w
  input user_input %o
  output user_output %h
})");
  };
  functionalAgreesWithEager(huber("80, 80"));
  functionalAgreesWithEager(huber("3"));
}

// The autograd probe's assorted values can make a call raise for themselves (an index of -3
// into a dim of 2): it tries integer inputs as zeros before it says nothing. index_fill.out
// into bool of a value that requires grad was left undetached on a dim of 2, and the
// functional program tripped autograd's assert (found by review).
TEST(Functionalize, AutogradProbeValuesDoNotDecide) {
  functionalAgreesWithEager(program(R"(graph {
  %p_v: f32[]<requires_grad=True> = placeholder
  %flags: b8[2] = placeholder
  %idx: i64[1] = aten::zeros([1], dtype=torch.int64)
  %o: b8[2] = placeholder
  %r: b8[2] = aten::index_fill.int_Tensor_out(%flags, 0, %idx, %p_v, out=%o)
  return (%r)
}
signature {
  input parameter %p_v -> "v"
  input user_input %flags
  input user_input %o
  output user_output %r
})"));
}

// A tensor an out= call shrinks in place is restrided over its storage: after copy_ of a
// transposed source, the functional value of `o` need not have eager's strides, so the
// restride reads and writes a contiguous copy of it, as as_strided does (found by review:
// a row view of `o` read the sum's elements in the wrong places).
TEST(Functionalize, ARestrideOfAWrittenStorageReadsItContiguously) {
  // x is f64, so copy_ casts (copy, which keeps the transposed source's strides).
  functionalAgreesWithEager(program(R"(graph {
  %x: f64[3, 3] = placeholder
  %y: f32[2, 3] = placeholder
  %t: f64[3, 3]<stride=[1, 3]> = aten::t(%x)
  %o: f32[3, 3] = aten::zeros([3, 3])
  %c: f32[3, 3] = aten::copy_(%o, %t)
  %v: f32[3] = aten::select.int(%o, 0, 1)
  %s: f32[3] = aten::sum.IntList_out(%y, [0], False, out=%o)
  %w: f32[3] = aten::mul.Scalar(%v, 1)
  return (%w, %s)
}
signature {
  input user_input %x
  input user_input %y
  output user_output %w
  output user_output %s
})"));
}

// as_strided_copy.out addresses its self's storage as as_strided_copy does: after
// subtract.out shrank `x` in place to one element, offset 1 is still x's old second element
// (a campaign's case read the written value alone, and raised). A storage that out= resized
// to one of its own is not the one eager kept: an as_strided past the result is refused.
TEST(Functionalize, StridedReadsOfAStorageThatOutResized) {
  functionalAgreesWithEager(program(R"(graph {
  %x: f32[1, 1, 2] = placeholder
  %s: f32[] = placeholder
  %o: f32[1] = placeholder
  %c: f32[1, 1, 2] = aten::floor(%x)
  %sub: f32[] = aten::subtract.out(%s, %s, out=%c)
  %a: f32[1] = aten::as_strided_copy.out(%c, [1], [0], 1, out=%o)
  return (%a)
}
signature {
  input user_input %x
  input user_input %s
  input user_input %o
  output user_output %a
})"));
  std::string why = rejection(program(R"(graph {
  %x: f32[1, 6, 5, 4]<stride=[1, 1, 6, 30]> = placeholder
  %w: f32[1, 1] = placeholder
  %le: b8[1, 6, 5, 4]<stride=[1, 1, 6, 30]> = aten::le.Scalar(%x, 0)
  %zero: b8[1, 1] = aten::zero.out(%w, out=%le)
  %a: b8[1, 1, 1]<stride=[0, 0, 0], offset=1> = aten::as_strided(%le, [1, 1, 1], [0, 0, 0], 1)
  %out: b8[1, 1, 1] = aten::logical_not(%a)
  return (%out)
}
signature {
  input user_input %x
  input user_input %w
  output user_output %out
})"));
  EXPECT_NE(why.find("%a: as_strided of a storage that was written"), std::string::npos) << why;
}

// Note [Ops without meta kernels]: nan_to_num_ and hardtanh have no Meta kernel in 1.13, so
// their first probe is refused on meta and answered on CPU, and later probes of the same
// form go to CPU at once. Every answer, first or later, is the op's own on real tensors.
TEST(DtypeProbe, OpsWithoutAMetaKernelAreAnsweredTheSameOnEveryProbe) {
  for (const char* dtype : {"f32", "f64", "i64"}) {
    for (const char* sizes : {"[2, 3]", "[4]", "[0, 5]", "[3, 1, 2]"}) {
      const std::string meta = std::string(dtype) + sizes;
      ExportedProgram p = program("graph {\n  %x: " + meta + " = placeholder\n  %nan_to_num: " + meta +
                                  " = aten::nan_to_num(%x)\n  %hardtanh: " + meta +
                                  " = aten::hardtanh(%x)\n  return (%nan_to_num, %hardtanh)\n}\n"
                                  "signature {\n  input user_input %x\n  output user_output %nan_to_num\n"
                                  "  output user_output %hardtanh\n}\n");
      for (const char* name : {"nan_to_num", "hardtanh"}) {
        SCOPED_TRACE(std::string(name) + " of " + meta);
        const Node* call = p.graph().find(name);
        ASSERT_NE(call, nullptr);
        const RunResult eager = runProgram(p, RunOptions(RunMode::Eager));
        const bool raises = eager.error.has_value();
        for (int time = 0; time < 2; ++time) {
          auto returns = probeReturns(*call);
          if (raises) {  // hardtanh of an integer tensor: no CPU kernel either
            EXPECT_FALSE(returns.has_value());
            continue;
          }
          ASSERT_TRUE(returns.has_value());
          ASSERT_EQ(returns->size(), 1u);
          const at::Tensor out = eager.outputs.at(std::string(name) == "nan_to_num" ? 0 : 1).toTensor();
          EXPECT_EQ((*returns)[0].dtype, fromAten(out.scalar_type()));
          EXPECT_EQ((*returns)[0].sizes, std::vector<int64_t>(out.sizes().begin(), out.sizes().end()));
        }
      }
    }
  }
}

}  // namespace
}  // namespace epsmith
