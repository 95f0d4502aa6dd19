// The functional form of an out= call, as the dtype probe and the autograd probe tell it
// (functionalizer/dtype_probe.h): which form writes what eager writes into an out tensor of
// another dtype, of empty inputs or with NaNs, and that the probes' answers are their
// key's alone. Each program runs eagerly and, functionalized, must agree.
#include <gtest/gtest.h>

#include "functionalizer/dtype_probe.h"
#include "ops/op_registry.h"
#include "oracle/aten_bridge.h"
#include "tests/functionalizer/support.h"

namespace epsmith {
namespace {

using test::functionalAgreesWithEager;
using test::program;
using test::rejection;
using test::targets;

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

// prod.out of i64 into f32 multiplies in i64 and casts the product on 1.13 (2.13 refuses
// the call): on small integers a product in f32 is the same, and only the probe's large
// ones tell the two forms apart (a 1.13 campaign's D1 case: a product that wraps in i64 is
// -inf in f32).
TEST(Functionalize, OutOfPlaceOfIntegersIsToldApartOnLargeValues) {
  auto p = test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: i64[4] = placeholder
  %o: f32[] = placeholder
  %prod: f32[] = aten::prod.out(%x, out=%o)
  return (%prod)
}
signature {
  input user_input %x
  input user_input %o
  output user_output %prod
}
storages {
  $0: i64[4] = [-3000001, 5000003, 7000001, -90000007]
  $1: f32[1] = [0.5]
}
example_inputs {
  $0 i64[4]
  $1 f32[]
}
)");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  functionalAgreesWithEager(p);
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
  EXPECT_NE(why.find("%lse: no functional form of aten::logsumexp.out writes what it writes"), std::string::npos)
      << why;
}

// Note [out= kernels that round in their out mid-way]: logsumexp.out of f32 into f16 rounds
// twice in eager and is refused, whatever the probe's values say (a 2.13 campaign's D1 case:
// 3.609 in eager, 3.607 computed in f32 and cast); into f32 or f64 the probe decides.
TEST(Functionalize, AnOutCallThatRoundsInItsOutMidWayIsRefused) {
  auto p = [](const std::string& out, const std::string& op) {
    return program(R"(graph {
  %x: f32[6, 3] = placeholder
  %o: )" + out + R"([] = placeholder
  %lse: )" + out + R"([] = aten::)" +
                   op + R"((%x, [1, 0], out=%o)
  return (%lse)
}
signature {
  input user_input %x
  input user_input %o
  output user_output %lse
})");
  };
  for (const char* op : {"logsumexp.out", "special_logsumexp.out"}) {
    for (const char* out : {"f16", "bf16"}) {
      const std::string why = rejection(p(out, op));
      EXPECT_NE(why.find("rounds to its out= tensor's dtype mid-way"), std::string::npos)
          << op << " " << out << ": " << why;
    }
  }
  functionalAgreesWithEager(p("f32", "logsumexp.out"));
  functionalAgreesWithEager(p("f64", "logsumexp.out"));
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
    EXPECT_NE(f.error().str().find("%lse: no functional form of aten::logsumexp.out"), std::string::npos)
        << f.error().str();
  } else {
    functionalAgreesWithEager(p);
  }
}

// And the cast of the inputs that a form casting them makes: it too has the sizes the input
// has now. 1.13's norm.dtype_out into an f16 out computes in f16, and the cast of an input
// unsqueeze_ had made [1, 1] was recorded as [1]: the probe of the functional norm over
// dim 1 raised on it, so the result's dtype went unknown and no cast to the out's followed
// (a 1.13 campaign's D1 dtype mismatch, f64 where eager's out is f16).
TEST(Functionalize, ACastInputHasItsCurrentSizes) {
  auto p = program(R"(graph {
  %x0: f16[1] = placeholder
  %b: f32[1] = placeholder
  %atan2: f32[1] = aten::atan2(%b, %b)
  %unsqueeze_: f32[1, 1] = aten::unsqueeze_(%atan2, 0)
  %norm: f16[1] = aten::norm.dtype_out(%atan2, 0, [1], False, dtype=torch.float64, out=%x0)
  return (%norm)
}
signature {
  input user_input %x0
  input user_input %b
  output user_output %norm
})");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);  // 2.x's norm.dtype_out wants an out of its dtype
  functionalAgreesWithEager(p);
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

// The same norm.dtype_out of integer and bool inputs, which 1.13 computes in f32 when
// asked for a narrower dtype into an f32 out (two 1.13 campaigns' D1 cases). The probe's
// assorted and close integers hold a zero, which makes a norm of negative order 0 in any
// dtype, its wide ones a 3 beside millions, a norm of 3, and its bool sets one true in
// three, a norm of 1 for three elements; its small odd integers, all true for bool, part
// the narrow norm cast from the f32 one (2.03125 where eager writes 2.0297265; 1.2597656
// for 2's cube root, 1.2599211). 2.x refuses integer and bool inputs.
TEST(Functionalize, IntegerAndBoolNormsAreProbedOnSmallOddIntegers) {
  auto program = [](const std::string& x, const std::string& order, const std::string& dtype,
                    const std::string& values) {
    return test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: )" + x + R"( = placeholder
  %o: f32[] = placeholder
  %norm: f32[] = aten::norm.dtype_out(%x, )" +
                       order + R"(, [0], False, dtype=torch.)" + dtype + R"(, out=%o)
  return (%norm)
}
signature {
  input user_input %x
  input user_input %o
  output user_output %norm
}
storages {
  $0: )" + values + R"(
  $1: f32[1] = [0.0]
}
example_inputs {
  $0 )" + x + R"(
  $1 f32[]
}
)");
  };
  const ExportedProgram programs[] = {
      program("i32[8]", "-3.0", "bfloat16", "i32[8] = [4, -3, 6, 5, -6, -3, -6, 5]"),
      program("b8[3]", "3", "float16", "b8[3] = [False, True, True]"),
  };
  for (const ExportedProgram& p : programs) {
    EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
    auto f = functionalAgreesWithEager(p);
    EXPECT_EQ(targets(f), "aten::norm.ScalarOpt_dim_dtype");
  }
}

// A functional form whose result dtype no probe value tells: cholesky of zeros or ones
// raises (not positive-definite), and of f32 into an f64 out the result's cast was left
// out (a 1.13 campaign's D1 case). The dtype probe also runs on identity matrices.
TEST(Functionalize, OutCallsOfFactorizationsCastTheirResult) {
  // torch.cholesky, deprecated since 1.9, is gone from LibTorch 2.14.
  if (!findOp("aten::cholesky", "out")) GTEST_SKIP() << "this LibTorch has no aten::cholesky.out";
  const ExportedProgram p = test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[3, 3] = placeholder
  %o: f64[3, 3] = placeholder
  %c: f64[3, 3] = aten::cholesky.out(%x, True, out=%o)
  return (%c)
}
signature {
  input user_input %x
  input user_input %o
  output user_output %c
}
storages {
  $0: f32[9] = [4.0, 1.0, 0.0, 1.0, 3.0, 0.0, 0.0, 0.0, 2.0]
  $1: f64[9] = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
}
example_inputs {
  $0 f32[3, 3]
  $1 f64[3, 3]
}
)");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  auto f = functionalAgreesWithEager(p);
  EXPECT_EQ(targets(f), "aten::cholesky aten::_to_copy");
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
  auto huber =
      [](const std::string& size) {
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

// The same, where the input requires grad only since an in-place call by a tensor that does
// (nextafter_): the probe asks of its inputs as they are at the call, which the input's own
// record did not say (a 1.13 campaign's D1 case with prod.out).
TEST(Functionalize, AnInputMadeToRequireGradInPlaceIsProbedWithGrad) {
  auto p = program(R"(graph {
  %w: f64[]<requires_grad=True> = placeholder
  %x: f64[5, 3] = placeholder
  %flags: b8[5, 3] = aten::logical_not(%x)
  %nextafter_: f64[5, 3]<requires_grad=True> = aten::nextafter_(%x, %w)
  %sum: b8[] = aten::sum.out(%nextafter_, out=%flags)
  return (%sum)
}
signature {
  input user_input %w
  input user_input %x
  output user_output %sum
})");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  auto f = functionalAgreesWithEager(p);
  EXPECT_NE(targets(f).find("aten::detach aten::sum"), std::string::npos) << targets(f);
}

// And where the out= call reads the tensor the in-place call wrote rather than its result
// (addcdiv_(b, p, b), then sum.out(b)): the placeholder's meta says no grad, and the storage
// remembers the write that made it require grad (a 1.13 campaign's D1 case: sum(dtype=i64)
// tripped autograd's isDifferentiableType assert).
TEST(Functionalize, ATensorWrittenToRequireGradIsProbedWithGrad) {
  const ExportedProgram p = test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %p_weight0: f32[]<requires_grad=True> = placeholder
  %x0: f32[] = placeholder
  %b: f32[1, 1, 1] = placeholder
  %addcdiv_: f32[1, 1, 1]<requires_grad=True> = aten::addcdiv_(%b, %p_weight0, %b)
  %sum: f32[] = aten::sum.out(%b, dtype=torch.int64, out=%x0)
  return (%sum)
}
signature {
  input parameter %p_weight0 -> "weight0"
  input user_input %x0
  input user_input %b
  output user_output %sum
}
storages {
  $0: f32[1] = [0.5]
  $1: f32[1] = [-6.0]
  $2: f32[1] = [-1.0]
}
state {
  parameter "weight0" = $0 f32[]<requires_grad=True>
}
example_inputs {
  $1 f32[]
  $2 f32[1, 1, 1]
}
)");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  auto f = functionalAgreesWithEager(p);
  EXPECT_NE(targets(f).find("aten::detach aten::sum"), std::string::npos) << targets(f);
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
