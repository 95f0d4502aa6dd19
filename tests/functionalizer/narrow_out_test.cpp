// The out= form probe's sets for narrow outs (functionalizer/out_form_probe.cpp,
// narrowOutSets): an out= call into an f16, bf16 or bool out whose kernel computes in that
// dtype, or in the input's and casts, where the assorted sets do not part the two forms.
// Each program runs eagerly and, functionalized, must agree.
#include <gtest/gtest.h>

#include "tests/functionalizer/support.h"

namespace epsmith {
namespace {

using test::functionalAgreesWithEager;

// An out= call into an f16 or bf16 out whose sums eager keeps in that dtype: 1.13's
// norm.dtype_out of f32 asked for f32 into a bf16 `out` sums |x| in bf16, 344 where the f32
// norm cast is 352. On the probe's assorted values the two forms were within D1's
// tolerance, so the probe also runs on ones after one large element (a 1.13 campaign's D1
// cases, their values here). 2.x refuses such an out.
TEST(Functionalize, OutCallsThatSumInTheirLessPreciseOut) {
  for (const std::string x : {"f32", "bf16"}) {  // a bf16 x asked for f32 sums in bf16 too
    SCOPED_TRACE(x);
    const ExportedProgram p = test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: )" + x + R"([7, 6, 5, 1] = placeholder
  %o: bf16[] = placeholder
  %norm: bf16[] = aten::norm.dtype_out(%x, 1, [2, 0, 3, 1], False, dtype=torch.float32, out=%o)
  return (%norm)
}
signature {
  input user_input %x
  input user_input %o
  output user_output %norm
}
storages {
  $0: )" + x + R"([210] = [
    1.0, -1.0, 2.5, 1.0, -2.5, -1.5, -3.0, -1.5, 3.0, 2.5, -2.0, 2.5, 0.5, 3.0, -1.0, 0.5, -3.0,
    -1.0, -1.0, 2.0, 2.5, 1.5, 0.0, 3.0, 0.5, -0.5, 3.0, -1.0, -1.0, 0.0, -3.0, 1.0, -0.5, -2.5,
    2.5, 0.0, 1.0, 0.5, 2.5, 2.5, 3.0, -1.5, 2.5, -1.5, 2.5, 1.0, 0.5, 2.5, -1.0, -0.5, -1.5, -2.5,
    0.5, 2.0, 3.0, -2.0, -3.0, 2.5, 2.0, -2.5, 2.5, 2.5, -2.0, -2.5, 2.0, 1.0, -2.0, -0.5, 2.5,
    -3.0, -3.0, 2.5, -2.0, -1.5, -2.0, -1.5, 1.0, 3.0, -2.5, 0.0, -2.5, 3.0, -2.5, 3.0, -2.0, 3.0,
    -1.5, -1.0, 0.0, 0.5, 0.5, -1.5, 2.0, -1.5, 3.0, -3.0, 3.0, 0.5, -2.0, 3.0, 1.5, -1.0, 0.0,
    -1.5, 2.0, 1.5, 2.0, 2.0, -1.0, -3.0, 0.5, -3.0, -1.0, 2.0, -0.5, 2.5, -0.5, 1.5, 2.0, -2.5,
    -2.0, 1.0, -3.0, 1.0, 2.0, -2.0, -1.5, -1.0, -3.0, -2.5, 3.0, -1.0, 1.0, 1.0, 0.0, 1.0, -3.0,
    2.0, -1.0, 0.5, -3.0, -3.0, 1.0, -2.5, 1.0, 1.5, 0.0, -0.5, -0.5, -2.5, 1.5, 2.5, 1.0, 0.0,
    -0.5, -2.5, 2.5, 0.5, 0.0, -3.0, 0.5, 2.5, -3.0, 1.0, 3.0, 2.0, -0.5, -0.5, 0.0, -1.5, 1.0,
    2.5, 0.5, 0.5, 2.5, -0.5, 3.0, -2.5, -1.0, -1.5, 0.5, 2.5, -2.5, -2.5, 1.5, 2.0, 1.0, 3.0,
    -0.5, 1.5, 2.5, -2.5, -1.0, -0.5, -1.5, -2.0, -2.5, 0.5, -2.5, 1.0, 2.5, 0.0, 1.0, 2.5, 0.0,
    1.0, 1.5, 2.0, -2.5, 1.0]
  $1: bf16[1] = [-3.0]
}
example_inputs {
  $0 )" + x + R"([7, 6, 5, 1]
  $1 bf16[]
}
)");
    if (auto refused = test::eagerRefuses(p)) {
      GTEST_SKIP() << "this LibTorch refuses the program eagerly (Note [Programs a LibTorch refuses]): " << *refused;
    }
    functionalAgreesWithEager(p);
  }
}

// An out= call into an f16 out that computes in f16: 1.13's norm.out(x, 0.5, out=f16) of
// an f32 x gave 57 470 on these 360 sigmoid values where the f32 norm cast is 57 184 (a
// 1.13 campaign's D1 case), and neither the assorted sets nor the swamped one part the two
// forms. The probe also runs on inputs of 2^-25, which f16 rounds to zero.
TEST(Functionalize, OutCallsThatComputeInTheirF16Out) {
  const ExportedProgram p = test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[5, 4, 3, 6] = placeholder
  %o: f16[] = placeholder
  %norm: f16[] = aten::norm.out(%x, 0.5, [0, 2, 1, 3], False, out=%o)
  return (%norm)
}
signature {
  input user_input %x
  input user_input %o
  output user_output %norm
}
storages {
  $0: f32[360] = [
    0.18242553, 0.07585818, 0.37754068, 0.8807971, 0.8175745, 0.7310586, 0.18242553, 0.95257413,
    0.8807971, 0.7310586, 0.8807971, 0.11920292, 0.5, 0.8807971, 0.7310586, 0.9241418,
    0.047425874, 0.9241418, 0.9241418, 0.047425874, 0.62245935, 0.07585818, 0.95257413,
    0.07585818, 0.8175745, 0.047425874, 0.8175745, 0.18242553, 0.7310586, 0.26894143,
    0.37754068, 0.18242553, 0.8175745, 0.26894143, 0.8807971, 0.5, 0.8175745, 0.26894143,
    0.18242553, 0.62245935, 0.5, 0.5, 0.047425874, 0.8807971, 0.18242553, 0.95257413, 0.5,
    0.26894143, 0.7310586, 0.07585818, 0.95257413, 0.8175745, 0.07585818, 0.07585818, 0.8807971,
    0.7310586, 0.8175745, 0.26894143, 0.07585818, 0.07585818, 0.7310586, 0.8807971, 0.18242553,
    0.8807971, 0.047425874, 0.62245935, 0.26894143, 0.8807971, 0.5, 0.9241418, 0.26894143,
    0.047425874, 0.37754068, 0.26894143, 0.5, 0.37754068, 0.07585818, 0.62245935, 0.047425874,
    0.26894143, 0.95257413, 0.26894143, 0.18242553, 0.5, 0.11920292, 0.18242553, 0.37754068,
    0.62245935, 0.047425874, 0.5, 0.11920292, 0.11920292, 0.8807971, 0.7310586, 0.8175745,
    0.8175745, 0.8175745, 0.047425874, 0.8807971, 0.62245935, 0.047425874, 0.95257413,
    0.26894143, 0.37754068, 0.11920292, 0.9241418, 0.8807971, 0.62245935, 0.8807971,
    0.047425874, 0.18242553, 0.11920292, 0.8175745, 0.5, 0.8175745, 0.7310586, 0.18242553,
    0.11920292, 0.26894143, 0.047425874, 0.11920292, 0.9241418, 0.11920292, 0.9241418,
    0.95257413, 0.9241418, 0.07585818, 0.37754068, 0.7310586, 0.7310586, 0.62245935, 0.8175745,
    0.18242553, 0.9241418, 0.62245935, 0.07585818, 0.5, 0.07585818, 0.7310586, 0.8807971,
    0.9241418, 0.047425874, 0.62245935, 0.8175745, 0.11920292, 0.18242553, 0.8807971,
    0.047425874, 0.62245935, 0.37754068, 0.95257413, 0.11920292, 0.5, 0.047425874, 0.5,
    0.07585818, 0.26894143, 0.18242553, 0.95257413, 0.8807971, 0.8807971, 0.047425874,
    0.9241418, 0.26894143, 0.26894143, 0.5, 0.8175745, 0.11920292, 0.9241418, 0.047425874,
    0.9241418, 0.5, 0.62245935, 0.07585818, 0.9241418, 0.7310586, 0.07585818, 0.9241418,
    0.95257413, 0.18242553, 0.047425874, 0.9241418, 0.9241418, 0.8175745, 0.8175745, 0.8175745,
    0.8175745, 0.8807971, 0.07585818, 0.95257413, 0.5, 0.62245935, 0.7310586, 0.8175745,
    0.07585818, 0.26894143, 0.5, 0.07585818, 0.047425874, 0.047425874, 0.11920292, 0.11920292,
    0.5, 0.5, 0.5, 0.37754068, 0.7310586, 0.18242553, 0.62245935, 0.95257413, 0.5, 0.7310586,
    0.7310586, 0.5, 0.11920292, 0.62245935, 0.62245935, 0.26894143, 0.9241418, 0.8175745,
    0.18242553, 0.95257413, 0.18242553, 0.26894143, 0.18242553, 0.11920292, 0.37754068,
    0.62245935, 0.37754068, 0.8175745, 0.5, 0.26894143, 0.8807971, 0.62245935, 0.9241418,
    0.62245935, 0.7310586, 0.95257413, 0.8175745, 0.95257413, 0.9241418, 0.11920292, 0.11920292,
    0.047425874, 0.07585818, 0.18242553, 0.18242553, 0.07585818, 0.11920292, 0.95257413,
    0.8175745, 0.8807971, 0.8175745, 0.95257413, 0.11920292, 0.95257413, 0.62245935, 0.9241418,
    0.37754068, 0.8807971, 0.8175745, 0.11920292, 0.5, 0.8175745, 0.7310586, 0.37754068,
    0.37754068, 0.9241418, 0.9241418, 0.37754068, 0.9241418, 0.047425874, 0.26894143, 0.5,
    0.07585818, 0.26894143, 0.8175745, 0.8175745, 0.8175745, 0.26894143, 0.7310586, 0.7310586,
    0.95257413, 0.18242553, 0.8807971, 0.7310586, 0.5, 0.7310586, 0.8175745, 0.8175745,
    0.8807971, 0.9241418, 0.07585818, 0.5, 0.11920292, 0.7310586, 0.9241418, 0.26894143,
    0.11920292, 0.047425874, 0.047425874, 0.62245935, 0.5, 0.26894143, 0.8807971, 0.26894143,
    0.5, 0.95257413, 0.5, 0.047425874, 0.9241418, 0.37754068, 0.18242553, 0.37754068,
    0.62245935, 0.7310586, 0.5, 0.18242553, 0.8175745, 0.26894143, 0.7310586, 0.26894143,
    0.26894143, 0.37754068, 0.62245935, 0.95257413, 0.8175745, 0.8175745, 0.07585818, 0.7310586,
    0.7310586, 0.62245935, 0.18242553, 0.11920292, 0.8807971, 0.26894143, 0.62245935,
    0.047425874, 0.8175745, 0.047425874, 0.047425874, 0.62245935, 0.5, 0.7310586, 0.18242553,
    0.37754068, 0.5, 0.8175745, 0.047425874, 0.18242553, 0.7310586, 0.9241418, 0.11920292,
    0.95257413, 0.07585818, 0.95257413, 0.5, 0.7310586, 0.62245935, 0.07585818
  ]
  $1: f16[1] = [3.0]
}
example_inputs {
  $0 f32[5, 4, 3, 6]
  $1 f16[]
}
)");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  functionalAgreesWithEager(p);
}

// The same with a negative order: 1.13's norm.out(x, -2.5, out=f16) of an f32 x of two
// f16 subnormals raises them to a power past f16's range, and gives 0 where the f32 norm
// cast is 4e-5 (a 1.13 campaign's D1 case, its values here); of 2^-25 both are 0. The
// probe also runs on inputs of 5e-5.
TEST(Functionalize, OutCallsThatComputeInTheirF16OutPastItsRange) {
  const ExportedProgram p = test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[2] = placeholder
  %o: f16[] = placeholder
  %norm: f16[] = aten::norm.out(%x, -2.5, [0], False, out=%o)
  return (%norm)
}
signature {
  input user_input %x
  input user_input %o
  output user_output %norm
}
storages {
  $0: f32[2] = [5.2773437e-05, 5.2773437e-05]
  $1: f16[1] = [1.5]
}
example_inputs {
  $0 f32[2]
  $1 f16[]
}
)");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  functionalAgreesWithEager(p);
}

// And into a bool out: 1.13's prod.out of an f32 input multiplies in f32 and casts, so inf
// times 0 is NaN, true, where prod(dtype=bool) is false (a 1.13 campaign's D1 case, its
// values here). The probe also runs on inputs whose product underflows.
TEST(Functionalize, OutCallsThatMultiplyBeforeTheyCastToBool) {
  const ExportedProgram p = test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[1, 3, 2] = placeholder
  %o: b8[] = placeholder
  %prod: b8[] = aten::prod.out(%x, out=%o)
  return (%prod)
}
signature {
  input user_input %x
  input user_input %o
  output user_output %prod
}
storages {
  $0: f32[6] = [0.5723649, inf, inf, 0.0, 0.6931472, inf]
  $1: b8[1] = [False]
}
example_inputs {
  $0 f32[1, 3, 2]
  $1 b8[]
}
)");
  EPSMITH_SKIP_WHERE_EAGER_REFUSES(p);
  functionalAgreesWithEager(p);
}

}  // namespace
}  // namespace epsmith
