// out= calls: each program runs eagerly and, functionalized, through the exported calling
// convention; outputs and final inputs must agree. The functional form of an out= call, the
// write into `out` (cast, broadcast, resized), and the out= calls that are refused; what
// the dtype and autograd probes tell is out_form_test.cpp's.
#include <gtest/gtest.h>

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

// 1.13's masked_fill takes a float mask of 0s and 1s only, which the probe's assorted
// values are not: it runs the call again on zeros, those that required grad still
// requiring it, and sees the bool result's isDifferentiableType assert (a 1.13 campaign's
// D1 case; 2.13 refuses a float mask eagerly).
TEST(Functionalize, OutCallAutogradProbeTriesZeros) {
  auto p = program(R"(graph {
  %p_m: bf16[]<requires_grad=True> = placeholder
  %p_v: bf16[]<requires_grad=True> = placeholder
  %flags: b8[] = placeholder
  %o: f32[] = placeholder
  %masked_fill: f32[] = aten::masked_fill.Tensor_out(%flags, %p_m, %p_v, out=%o)
  return (%flags)
}
signature {
  input parameter %p_m -> "m"
  input parameter %p_v -> "v"
  input user_input %flags
  input user_input %o
  output user_output %flags
})");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  auto f = functionalAgreesWithEager(p);
  EXPECT_NE(targets(f).find("aten::detach aten::detach aten::masked_fill.Tensor"), std::string::npos) << targets(f);
}

// The autograd probe asks about the inputs as the call reads them: after `unsqueeze_`, %t
// is the [1] that the weight's [1] matches (as it was made, a [] that bce refuses with or
// without grad, which told the probe nothing: a 1.13 campaign's D1 case).
TEST(Functionalize, OutCallAutogradProbeSeesMetadataMutations) {
  auto p = program(R"(graph {
  %p_w: f32[]<requires_grad=True> = placeholder
  %fill: f32[] = placeholder
  %w: f32[1]<requires_grad=True> = aten::view(%p_w, [-1])
  %t: f32[] = aten::exp2(%fill)
  %unsqueeze_: f32[1] = aten::unsqueeze_(%t, 0)
  %bce: f32[] = aten::binary_cross_entropy_with_logits.out(%w, %t, %w, None, out=%fill)
  return (%t)
}
signature {
  input parameter %p_w -> "w"
  input user_input %fill
  output user_output %t
})");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  auto f = functionalAgreesWithEager(p);
  EXPECT_EQ(targets(f), "aten::view aten::exp2 aten::detach aten::unsqueeze aten::binary_cross_entropy_with_logits");
}

// Note [In-place calls that read what they write]: linalg_solve_triangular.out into its own
// triangle overwrites the triangle while it solves with it (a 1.13 campaign's minimizer
// made it of a D1 case), so it is refused; add.out into an argument reads each element
// before it writes it, and is functionalized.
TEST(Functionalize, OutCallsThatReadWhatTheyWriteAreRefused) {
  auto p = [](const std::string& call) {
    return program(R"(graph {
  %a: f32[4, 4] = placeholder
  %b: f32[4, 4] = placeholder
  %c: f32[4, 4] = )" +
                   call + R"(
  return (%a)
}
signature {
  input user_input %a
  input user_input %b
  output user_output %a
})");
  };
  const std::string why = rejection(p("aten::linalg_solve_triangular.out(%a, %a, upper=True, left=False, out=%a)"));
  EXPECT_NE(why.find("%c: it reads the tensor it writes as 'self'"), std::string::npos) << why;
  auto f = functionalAgreesWithEager(p("aten::add.out(%a, %b, out=%a)"));
  EXPECT_EQ(targets(f), "aten::add.Tensor");
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

// log_sigmoid_forward.output's CPU kernel lays its buffer out anew (resize_as_ with a
// contiguous memory format), so eager writes a transposed buffer's storage in row-major
// order, which the node's meta.val records as contiguous strides: refused, where a
// functional program would write it through the transpose. Two outs of one storage are
// refused too: which write lands is the kernel's order.
TEST(Functionalize, OutCallsThatLayOutTheirOutAnewOrShareOneAreRefused) {
  const std::string signature = R"(
signature {
  input user_input %x
  input buffer %b -> "b" persistent=True
  output user_output %out
})";
  std::string why = rejection(program(R"(graph {
  %x: f32[3, 2] = placeholder
  %b: f32[2, 3] = placeholder
  %o: f32[3, 2] = aten::neg(%x)
  %t: f32[3, 2]<stride=[1, 3]> = aten::t(%b)
  %lsf: (f32[3, 2], f32[3, 2]) = aten::log_sigmoid_forward.output(%x, output=%o, buffer=%t)
  %out: f32[3, 2] = operator.getitem(%lsf, 0)
  return (%out)
})" + signature));
  EXPECT_NE(why.find("%lsf: out= lays its tensor out anew, keeping its sizes (f32[3, 2]<stride=[1, 3]> to f32[3, 2])"),
            std::string::npos)
      << why;
  why = rejection(program(R"(graph {
  %x: f32[3, 2] = placeholder
  %b: f32[2, 3] = placeholder
  %o: f32[3, 2] = aten::neg(%x)
  %lsf: (f32[3, 2], f32[3, 2]) = aten::log_sigmoid_forward.output(%x, output=%o, buffer=%o)
  %out: f32[3, 2] = operator.getitem(%lsf, 0)
  return (%out)
})" + signature));
  EXPECT_NE(why.find("%lsf: out= writes two outs that share a storage"), std::string::npos) << why;
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

// binary_cross_entropy.out of `t` (of metadata `t_meta`) and itself, with `more` arguments,
// into a 0-d user input.
ExportedProgram crossEntropyInto0d(const std::string& t_meta, const std::string& more) {
  return program(R"(graph {
  %x: f32[] = placeholder
  %t: )" + t_meta +
                 R"( = placeholder
  %bce: f32[] = aten::binary_cross_entropy.out(%t, %t)" +
                 more + R"(, out=%x)
  return (%bce)
}
signature {
  input user_input %x
  input user_input %t
  output user_output %bce
})");
}

// binary_cross_entropy.out with no reduction writes through a squeezed view of `out` and
// resizes that view, not `out`: `out` keeps its sizes though the result cannot broadcast
// into it. What eager left in `out` is not something the graph can say: refused, not a copy
// that raises where eager did not.
TEST(Functionalize, AnOutThatKeepsItsSizesButCannotHoldTheResultIsRefused) {
  std::string why = rejection(crossEntropyInto0d("f32[2]", ", None, 0"));
  EXPECT_NE(why.find("%bce: out= tensor f32[] keeps its sizes, but the functional result [2]"), std::string::npos)
      << why;
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
  EXPECT_EQ(
      targets(f),
      "aten::_to_copy aten::huber_loss aten::_to_copy aten::huber_loss aten::floor aten::huber_loss aten::reshape "
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

}  // namespace
}  // namespace epsmith
