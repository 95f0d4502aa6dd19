// Note [Writes eager leaves undefined]: the programs D2 and D3 skip because eager's answer
// is its kernel's choice, and their neighbours that are compared.
#include <gtest/gtest.h>

#include <string>

#include "fuzz/aliases.h"
#include "fuzz/checks.h"
#include "tests/support/program_text.h"

namespace epsmith {
namespace {

// A write through a piece of an expanded input: `layout` is the input's, `storage` its
// storage's element count.
std::string writeIntoAPiece(const std::string& layout, int storage) {
  std::string values = "-0.5";
  for (int i = 1; i < storage; ++i) values += ", 0.25";
  return "program {\n  verifiers [\"TRAINING\"]\n}\ngraph {\n  %x: f32[3, 2]" + layout +
         " = placeholder\n"
         "  %split: (f32[1, 2]" +
         layout + ", f32[2, 2]" + layout +
         ") = aten::split.Tensor(%x, 1)\n"
         "  %getitem: f32[1, 2]" +
         layout +
         " = operator.getitem(%split, 0)\n"
         "  %getitem_1: f32[2, 2]" +
         layout +
         " = operator.getitem(%split, 1)\n"
         "  %tanh_: f32[1, 2]" +
         layout +
         " = aten::tanh_(%getitem)\n  return (%tanh_)\n}\n"
         "signature {\n  input user_input %x\n  output user_output %tanh_\n}\n"
         "storages {\n  $0: f32[" +
         std::to_string(storage) + "] = [" + values +
         "]\n}\n"
         "example_inputs {\n  $0 f32[3, 2]" +
         layout + "\n}\n";
}

// An as_strided_scatter into a view whose elements share memory (strides [1, 1]: offsets
// 0..2 written twice each) is a write eager leaves undefined; one into a view of distinct
// offsets (strides [2, 1] over [2, 2]: the minimizer's other form of the case) is compared.
TEST(Checks, AScatterIntoAnOverlapIsNotCompared) {
  auto program = [](const std::string& strides) {
    return test::parse(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[6] = placeholder
  %s: f32[2, 2] = placeholder
  %r: f32[6] = aten::as_strided_scatter(%x, %s, [2, 2], )EPT" +
                       strides + R"EPT()
  return (%r)
}
signature {
  input user_input %x
  input user_input %s
  output user_output %r
}
)EPT");
  };
  const auto why = writeEagerLeavesUndefined(program("[1, 1]"));
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why,
            "%r scatters into a view of strides [1, 1] whose elements share memory: eager leaves the write undefined");
  EXPECT_EQ(writeEagerLeavesUndefined(program("[2, 1]")), std::nullopt);
  EXPECT_EQ(writeEagerLeavesUndefined(program("[1, 2]")), std::nullopt);  // offsets 0, 2, 1, 3
}

// Note [Writes eager leaves undefined]: D2 and D3 report a mismatch of a write into shared
// elements as a skip (D3 skips anyway without CUDA); a write into the same program's
// contiguous input is compared.
TEST(Checks, AWriteEagerLeavesUndefinedIsNotCompared) {
  const ExportedProgram shared = test::parse(writeIntoAPiece("<stride=[0, 1]>", 2));
  auto outcomes = runChecks(shared, {DiffCheck::D2, DiffCheck::D3});
  ASSERT_EQ(outcomes.size(), 2u);
  for (const auto& o : outcomes) EXPECT_EQ(o.status, CheckOutcome::Status::Skipped) << o.report;
  EXPECT_NE(outcomes[0].report.find("%tanh_ writes into %x (f32[3, 2]<stride=[0, 1]>), whose elements share memory"),
            std::string::npos)
      << outcomes[0].report;
  // A reshape of an expanded tensor is a copy: a write into it is defined.
  const ExportedProgram reshaped = test::parse(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[3, 2]<stride=[0, 1]> = placeholder
  %reshape: f32[6] = aten::reshape(%x, [-1])
  %neg_: f32[6] = aten::neg_(%reshape)
  return (%neg_)
}
signature {
  input user_input %x
  output user_output %neg_
}
storages {
  $0: f32[2] = [1.0, 2.0]
}
example_inputs {
  $0 f32[3, 2]<stride=[0, 1]>
}
)EPT");
  EXPECT_EQ(writeEagerLeavesUndefined(reshaped), std::nullopt);
  // A reshape of a piece to its own sizes is a view: a write through it lands in the input
  // (a 1.13 campaign's D2 case, filed as a mismatch until the walk went through it).
  std::string through = writeIntoAPiece("<stride=[0, 1]>", 2);
  const std::string tanh = "  %tanh_: f32[1, 2]<stride=[0, 1]> = aten::tanh_(%getitem)\n";
  through.replace(through.find(tanh), tanh.size(),
                  "  %r: f32[1, 2] = aten::reshape_as(%getitem, %getitem)\n"
                  "  %tanh_: f32[1, 2] = aten::tanh_(%r)\n");
  const auto why = writeEagerLeavesUndefined(test::parse(through));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("%tanh_ writes into %x (f32[3, 2]<stride=[0, 1]>), whose elements share memory"),
            std::string::npos)
      << *why;
  const ExportedProgram contiguous = test::parse(writeIntoAPiece("", 6));
  EXPECT_EQ(writeEagerLeavesUndefined(contiguous), std::nullopt);
  EXPECT_EQ(runChecks(contiguous, {DiffCheck::D2})[0].status, CheckOutcome::Status::Pass);
}

// Note [In-place calls that read what they write]: masked_scatter_ whose source is the
// tensor it fills reads elements it has already written, so D2 and D3 skip it (a 1.13
// campaign's minimizer made it of a D1 case); mul_(x, x) reads each element before it
// writes it, and masked_scatter_ from another tensor reads nothing it writes: both are
// compared.
TEST(Checks, AnInPlaceCallReadingItsOwnWritesIsNotCompared) {
  auto program = [](const std::string& source, const std::string& then) {
    return test::parse(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %m: b8[1, 7] = placeholder
  %x: f32[3, 7] = placeholder
  %y: f32[3, 7] = placeholder
  %s: f32[3, 7] = aten::masked_scatter_(%x, %m, )EPT" +
                       source + R"EPT()
  %t: f32[3, 7] = )EPT" +
                       then + R"EPT(
  return (%x)
}
signature {
  input user_input %m
  input user_input %x
  input user_input %y
  output user_output %x
}
storages {
  $0: b8[7] = [True, False, True, True, False, True, True]
  $1: f32[21] = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 8.0, 8.5, 9.0, 9.5, 10.0, 10.5]
  $2: f32[21] = [-0.5, -1.0, -1.5, -2.0, -2.5, -3.0, -3.5, -4.0, -4.5, -5.0, -5.5, -6.0, -6.5, -7.0, -7.5, -8.0, -8.5, -9.0, -9.5, -10.0, -10.5]
}
example_inputs {
  $0 b8[1, 7]
  $1 f32[3, 7]
  $2 f32[3, 7]
}
)EPT");
  };
  const auto own = program("%x", "aten::neg(%y)");
  const auto why = writeEagerLeavesUndefined(own);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "%s reads the %x it writes as 'source': eager's answer depends on its kernel's order");
  for (const auto& o : runChecks(own, {DiffCheck::D1, DiffCheck::D2})) {
    EXPECT_EQ(o.status, CheckOutcome::Status::Skipped) << o.report;
    EXPECT_NE(o.report.find("eager's answer depends on its kernel's order"), std::string::npos) << o.report;
  }
  const auto other = program("%y", "aten::mul_.Tensor(%y, %y)");
  EXPECT_EQ(writeEagerLeavesUndefined(other), std::nullopt);
  for (const auto& o : runChecks(other, {DiffCheck::D1, DiffCheck::D2})) {
    EXPECT_EQ(o.status, CheckOutcome::Status::Pass) << o.report;
  }
}

// The same rule for a source on the written tensor's storage in another layout, where no
// probe runs: TensorIterator's kernels raise on such an overlap, and the others read what
// they have written. The fuzz checks and the functionalizer share it (readsOfAWrite).
TEST(Checks, AnInPlaceCallReadingItsWriteInAnotherLayoutIsNotCompared) {
  const auto p = test::parse(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %m: b8[1, 4] = placeholder
  %x: f32[4, 4] = placeholder
  %v: f32[4, 4]<stride=[1, 4]> = aten::t(%x)
  %s: f32[4, 4] = aten::masked_scatter_(%x, %m, %v)
  return (%x)
}
signature {
  input user_input %m
  input user_input %x
  output user_output %x
}
storages {
  $0: b8[4] = [True, False, True, True]
  $1: f32[16] = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 8.0]
}
example_inputs {
  $0 b8[1, 4]
  $1 f32[4, 4]
}
)EPT");
  const auto why = writeEagerLeavesUndefined(p);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why,
            "%s reads %v, which shares memory with the %x it writes in another layout: eager's answer "
            "depends on its kernel's order");
  // D1's functionalizer refuses it by the same rule; D2 runs, and would skip what it found.
  const auto outcomes = runChecks(p, {DiffCheck::D1, DiffCheck::D2});
  EXPECT_EQ(outcomes[0].status, CheckOutcome::Status::Skipped) << outcomes[0].report;
  EXPECT_NE(outcomes[0].report.find("it reads 'v', which shares memory with the tensor it writes in another layout"),
            std::string::npos)
      << outcomes[0].report;
  EXPECT_NE(outcomes[1].status, CheckOutcome::Status::Finding) << outcomes[1].report;
}

// The same Note: an out= call two of whose outs share a storage (a 2.13 campaign's
// minimizer made log_sigmoid_forward.output(x, output=x, buffer=x)) writes what its
// kernel writes last there; two outs of their own are compared.
TEST(Checks, AnOutCallWritingOneStorageAsTwoOutsIsNotCompared) {
  auto program = [](const std::string& buffer) {
    return test::parse(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[1, 1] = placeholder
  %o: f32[1, 1] = placeholder
  %b: f32[1, 1] = placeholder
  %lsf: (f32[1, 1], f32[1, 1]) = aten::log_sigmoid_forward.output(%x, output=%o, buffer=)EPT" +
                       buffer + R"EPT()
  return (%x)
}
signature {
  input user_input %x
  input user_input %o
  input user_input %b
  output user_output %x
}
storages {
  $0: f32[1] = [2.5]
  $1: f32[1] = [0.0]
  $2: f32[1] = [0.0]
}
example_inputs {
  $0 f32[1, 1]
  $1 f32[1, 1]
  $2 f32[1, 1]
}
)EPT");
  };
  const ExportedProgram shared = program("%o");
  const auto why = writeEagerLeavesUndefined(shared);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "%lsf writes %o as two of its outs: eager's answer depends on its kernel's order");
  EXPECT_NE(runChecks(shared, {DiffCheck::D2})[0].status, CheckOutcome::Status::Finding);
  const ExportedProgram apart = program("%b");
  EXPECT_EQ(writeEagerLeavesUndefined(apart), std::nullopt);
  EXPECT_EQ(runChecks(apart, {DiffCheck::D2})[0].status, CheckOutcome::Status::Pass);
}

}  // namespace
}  // namespace epsmith
