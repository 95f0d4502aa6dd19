// The oracle's fills: the bytes past each input storage (what a kernel that reads past its
// input sees) and the memory of fresh tensors, each set by the run and seen in its results.
#include <gtest/gtest.h>

#include <ATen/core/Tensor.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/zeros.h>

#include "oracle/program_io.h"
#include "oracle/aten_bridge.h"
#include "oracle/fresh_fill.h"
#include "oracle/run.h"
#include "tests/oracle/support.h"
#include "tests/support/planted_fault.h"
#include "tests/support/program_text.h"

namespace epsmith {
namespace {

using test::parse;
using test::tensorInput;

// Note [Over-reads see a fill]: the bytes past each input storage are the fill, so a kernel
// that reads past its input (the planted polygamma kernel, Note [Planted faults]) returns
// different values under different fills, while the storage keeps its size: a view that
// would reach past it still raises.
TEST(Oracle, AnOverreadFillLiesPastEachInputStorage) {
  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/findings/d4_planted_overread_polygamma.ept");
  ASSERT_TRUE(p.ok()) << p.error().str();
  RunOptions zeros(RunMode::Eager), ones(RunMode::Eager);
  zeros.overread_fill = 0x00;
  ones.overread_fill = 0xff;
  const RunResult a = runProgram(p.value(), zeros), b = runProgram(p.value(), ones);
  ASSERT_FALSE(a.error) << a.error->str();
  ASSERT_FALSE(b.error) << b.error->str();
  bool differ = false;
  for (size_t i = 0; i < a.outputs.size() && i < b.outputs.size(); ++i) {
    differ = differ || !at::equal(a.outputs[i].toTensor(), b.outputs[i].toTensor());
  }
  EXPECT_TRUE(differ) << "polygamma read past its input without seeing the fill";

  ExportedProgram past = parse(R"(graph {
  %x: f32[4] = placeholder
  %as_strided: f32[2] = aten::as_strided(%x, [2], [1], 3)
  return (%as_strided)
}
signature {
  input user_input %x
  output user_output %as_strided
})");
  InputValue x = tensorInput(at::arange(4, at::kFloat));
  const RunResult r = runProgram(past, {x}, zeros);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->message.find("out of bounds for storage of size 16"), std::string::npos) << r.error->str();
}

// Note [Fresh tensors hold a fill]: while a FreshTensorFill lives, every CPU tensor
// LibTorch allocates starts out holding its byte, whatever malloc is underneath: an
// uninitialized result (empty_like's) reads as the fill, and nested fills take over and
// give back.
TEST(Oracle, FreshTensorMemoryHoldsTheFillOfTheInnermostLiveFill) {
  ExportedProgram p = parse(R"(graph {
  %x: f32[256] = placeholder
  %empty_like: f32[256] = aten::empty_like(%x)
  return (%empty_like)
}
signature {
  input user_input %x
  output user_output %empty_like
})");
  InputValue x = tensorInput(at::zeros({256}));
  auto resultBytes = [&] {
    const RunResult r = runProgram(p, {x});
    EXPECT_FALSE(r.error) << r.error->str();
    return r.outputs.at(0).toTensor().view(at::kByte);
  };
  for (uint8_t byte : {uint8_t{0x55}, uint8_t{0xaa}}) {
    SCOPED_TRACE(int(byte));
    const FreshTensorFill fill(byte);
    EXPECT_TRUE(resultBytes().eq(byte).all().item<bool>());
    EXPECT_TRUE(at::empty({3, 5}, at::kDouble).view(at::kByte).eq(byte).all().item<bool>());
    {
      const FreshTensorFill inner(0x3c);
      EXPECT_TRUE(resultBytes().eq(0x3c).all().item<bool>());
    }
    EXPECT_TRUE(resultBytes().eq(byte).all().item<bool>());
  }
}

// Note [Fresh tensors hold a fill]: the fill also lies past the end of each fresh block,
// so a kernel reading past the storage of a tensor the run made (the planted polygamma
// kernel over abs's result, whose 12 bytes leave room in any allocator's block) sees the
// fill of the run, not what an earlier run left there.
TEST(Oracle, FreshTensorMemoryHoldsTheFillPastItsEnd) {
  ExportedProgram p = parse(R"(graph {
  %x: f32[3] = placeholder
  %abs: f32[3] = aten::abs(%x)
  %polygamma: f32[3] = aten::polygamma(1, %abs)
  return (%polygamma)
}
signature {
  input user_input %x
  output user_output %polygamma
})");
  InputValue x = tensorInput(at::arange(3, at::kFloat));
  for (uint8_t byte : {uint8_t{0x55}, uint8_t{0xaa}, uint8_t{0x3c}, uint8_t{0x55}}) {
    SCOPED_TRACE(int(byte));
    const FreshTensorFill fill(byte);
    const RunResult r = runProgram(p, {x});
    ASSERT_FALSE(r.error) << r.error->str();
    EXPECT_TRUE(r.outputs.at(0).toTensor().eq(byte).all().item<bool>()) << r.outputs.at(0).toTensor();
  }
}

}  // namespace
}  // namespace epsmith
