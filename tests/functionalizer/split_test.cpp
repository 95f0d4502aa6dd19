// Writes through the elements of splits and unbinds (each element a slice or select of the
// list's base) and reads of them after the base changed, checked against eager on inputs
// whose values are all distinct; those of a symbolic base at several sizes of its range.
#include <gtest/gtest.h>

#include <string>

#include "formats/text_format.h"
#include "generators/symbolic_sizes.h"
#include "oracle/program_io.h"
#include "tests/functionalizer/support.h"

namespace epsmith {
namespace {

using test::functionalAgreesWithEager;
using test::onX;
using test::outputKinds;
using test::targets;

// An element of a tensor_split by a tensor of indices (which no argument spells) starts
// where its offset says, read at the example where a later dim is symbolic (a stride of
// s0): a 30-minute default campaign's D1 case wrote zero_ into the rows after it.
TEST(FunctionalizeSplits, AnElementOfASplitOfASymbolicBaseStartsWhereItsOffsetSays) {
  auto f = functionalAgreesWithEager(test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f16[7, sym("s0", hint=2)]<stride=[sym("s0", hint=2), 1]> = placeholder
  %idx: i64[7] = placeholder
  %tensor_split: (f16[5, 2], f16[0, 2]<offset=10>, f16[5, 2]<offset=2>, f16[0, 2]<offset=12>, f16[2, 2]<offset=6>, f16[1, 2]<offset=10>, f16[0, 2]<offset=12>, f16[5, 2]<offset=4>) = aten::tensor_split.tensor_indices_or_sections(%x, %idx)
  %getitem_4: f16[2, 2]<offset=6> = operator.getitem(%tensor_split, 4)
  %zero_: f16[2, 2]<offset=6> = aten::zero_(%getitem_4)
  return (%zero_)
}
signature {
  input user_input %x
  input user_input %idx
  output user_output %zero_
}
range_constraints {
  "s0" = [2, 4]
}
storages {
  $0: f16[14] = [-1.0, -2.0, 3.0, 0.0, 0.0, -1.5, -3.0, -3.0, -0.5, 2.0, -1.5, -3.0, 2.0, -1.5]
  $1: i64[7] = [-2, -6, -1, -4, -2, 6, -5]
}
example_inputs {
  $0 f16[7, 2]
  $1 i64[7]
}
)"));
  EXPECT_NE(targets(f).find("aten::slice_scatter"), std::string::npos) << targets(f);
}

TEST(FunctionalizeSplits, SplitAndUnbindElementsMutated) {
  auto f = functionalAgreesWithEager(onX(R"(  %split: (f32[4, 4], f32[4, 2]) = aten::split.Tensor(%x, 4, 1)
  %a: f32[4, 4]<stride=[6, 1]> = operator.getitem(%split, 0)
  %b: f32[4, 2]<stride=[6, 1], offset=4> = operator.getitem(%split, 1)
  %mul_: f32[4, 2]<stride=[6, 1], offset=4> = aten::mul_.Scalar(%b, -2)
  %unbind: (f32[6], f32[6], f32[6], f32[6]) = aten::unbind.int(%x)
  %r2: f32[6]<offset=12> = operator.getitem(%unbind, 2)
  %add_: f32[6]<offset=12> = aten::add_.Scalar(%r2, 9)
  %out: f32[4, 4] = aten::mul.Scalar(%a, 1)
  return (%out)
)"));
  EXPECT_EQ(outputKinds(f), "user_input_mutation x, user_output");
}

// tensor_split whose sections come in a tensor splits as the other forms do: its elements
// are views of the base, and a write to the base reaches them (a campaign found one returned
// as it was before the write).
TEST(FunctionalizeSplits, ElementsOfASplitByATensorSeeWritesToTheBase) {
  functionalAgreesWithEager(onX(R"(  %clone: f32[4, 6] = aten::clone(%x)
  %sections: i64[] = aten::scalar_tensor(2, dtype=torch.int64)
  %tensor_split: (f32[2, 6], f32[2, 6]<offset=12>) = aten::tensor_split.tensor_indices_or_sections(%clone, %sections, 0)
  %piece: f32[2, 6]<offset=12> = operator.getitem(%tensor_split, 1)
  %clamp_min_: f32[4, 6] = aten::clamp_min_(%clone, 0)
  %out: f32[2, 6] = aten::mul.Scalar(%piece, 1)
  return (%out)
)"));
}

// tensor_split.indices' elements are the windows its indices name, in whatever order; an
// element of a split by a tensor of indices is where its offset says or, where that cannot
// tell (a stride of 0), anywhere inside the base.
TEST(FunctionalizeSplits, ElementsOfASplitByUnorderedIndicesAreTheWindowsTheyName) {
  for (const char* finding :
       {"d1_tensor_split_unordered_indices_stride0.ept", "d1_tensor_split_by_a_tensor_stride0.ept"}) {
    auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/findings/" + finding);
    ASSERT_TRUE(p.ok()) << p.error().str();
    functionalAgreesWithEager(p.value());
  }
  functionalAgreesWithEager(onX(R"(  %clone: f32[4, 6] = aten::clone(%x)
  %tensor_split: (f32[1, 6], f32[0, 6]<offset=6>, f32[3, 6], f32[0, 6]<offset=18>, f32[4, 6]) = aten::tensor_split.indices(%clone, [1, 0, 3, 0], 0)
  %a: f32[3, 6] = operator.getitem(%tensor_split, 2)
  %b: f32[4, 6] = operator.getitem(%tensor_split, 4)
  %mul_: f32[3, 6] = aten::mul_.Scalar(%a, -3)
  %add_: f32[4, 6] = aten::add_.Scalar(%b, 1)
  %out: f32[4, 6] = aten::mul.Scalar(%clone, 2)
  return (%out)
)"));
}

// vsplit, hsplit and dsplit given an index list split as tensor_split.indices does: an
// element starts at the index before it, not where the one before it ended (a campaign found
// vsplit's [0, 1, 0] on a dim of stride 0 written back through the window [1:9] of 8 rows).
TEST(FunctionalizeSplits, ElementsOfAnArraySplitAreTheWindowsTheyName) {
  functionalAgreesWithEager(onX(R"(  %clone: f32[4, 6] = aten::clone(%x)
  %vsplit: (f32[0, 6], f32[1, 6], f32[0, 6]<offset=6>, f32[4, 6]) = aten::vsplit.array(%clone, [0, 1, 0])
  %rows: f32[4, 6] = operator.getitem(%vsplit, 3)
  %mul_: f32[4, 6] = aten::mul_.Scalar(%rows, -3)
  %hsplit: (f32[4, 2]<stride=[6, 1]>, f32[4, 0]<stride=[6, 1], offset=2>, f32[4, 5]<stride=[6, 1], offset=1>) = aten::hsplit.array(%clone, [2, 1])
  %cols: f32[4, 5]<stride=[6, 1], offset=1> = operator.getitem(%hsplit, 2)
  %add_: f32[4, 5]<stride=[6, 1], offset=1> = aten::add_.Scalar(%cols, 1)
  %out: f32[4, 6] = aten::mul.Scalar(%clone, 2)
  return (%out)
)"));
}

// The D1 contract of `p`, whose user input x is [s0, 3] with s0 in [2, 8], at the range's
// edges and inside it: the functional program is made once, at the example, and must
// compute what eager does at every size.
void functionalAgreesWithEagerAtEverySize(const ExportedProgram& p) {
  const ExportedProgram f = functionalAgreesWithEager(p);
  for (int64_t size : {2, 3, 5, 8}) {
    SCOPED_TRACE("s0 = " + std::to_string(size));
    ExportedProgram eager_p = p.clone(), functional_p = f.clone();
    ASSERT_FALSE(resizeInputs(eager_p, "s0", size));
    ASSERT_FALSE(resizeInputs(functional_p, "s0", size));
    RunResult eager = runProgram(eager_p, RunOptions(RunMode::Eager));
    ASSERT_TRUE(eager.ok()) << eager.error->str();
    RunResult functional = runProgram(functional_p, RunOptions(RunMode::Exported));
    Verdict v = compareResults(eager, functional);
    EXPECT_TRUE(v.match()) << verdictKindName(v.kind) << " at " << v.where << "\n"
                           << v.report << "\n"
                           << printProgramText(f);
  }
}

// `graph` on x: f32[s0, 3], s0 in [2, 8], at the example s0 = 4.
ExportedProgram onSymbolicX(const std::string& graph) {
  return test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[sym("s0", hint=4), 3] = placeholder
)" + graph + R"(}
signature {
  input user_input %x
  output user_output %out
}
range_constraints {
  "s0" = [2, 8]
}
storages {
  $0: f32[12] = [-2.0, 0.5, 0.0, 3.0, -0.25, 1.0, 7.0, -4.5, 2.5, -1.0, 6.0, 0.75]
}
example_inputs {
  $0 f32[4, 3]
}
)");
}

// An element whose size along the split dim is symbolic lies where its start says, to the
// base's end when it is the last (chunk and split_with_sizes of s0 rows); one of
// tensor_split.indices lies between its literal indices, which slice wraps and clamps at
// every size as tensor_split does ([1, -1] leaves s0 - 2 rows in the middle). Writes to
// each reach the base at every size of the range (a default campaign's D1 refused them).
TEST(FunctionalizeSplits, ElementsOfASymbolicSplitAreWrittenBackAtEverySize) {
  functionalAgreesWithEagerAtEverySize(onSymbolicX(R"(  %clone: f32[sym("s0", hint=4), 3] = aten::clone(%x)
  %chunk: (f32[sym("s0", hint=4), 3],) = aten::chunk(%clone, 1, 0)
  %all: f32[sym("s0", hint=4), 3] = operator.getitem(%chunk, 0)
  %mul_: f32[sym("s0", hint=4), 3] = aten::mul_.Scalar(%all, -2)
  %n: sym_int("s0", hint=4) = aten::sym_size.int(%x, 0)
  %rest: sym_int("s0 - 1", hint=3) = operator.sub(sym_int(%n), 1)
  %split: (f32[1, 3], f32[sym("s0 - 1", hint=3), 3]<offset=3>) = aten::split_with_sizes(%clone, sym_ints[1, %rest])
  %tail: f32[sym("s0 - 1", hint=3), 3]<offset=3> = operator.getitem(%split, 1)
  %add_: f32[sym("s0 - 1", hint=3), 3]<offset=3> = aten::add_.Scalar(%tail, 10)
  %tensor_split: (f32[1, 3], f32[sym("s0 - 2", hint=2), 3]<offset=3>, f32[1, 3]<offset=sym("3*s0 - 3", hint=9)>) = aten::tensor_split.indices(%clone, [1, -1])
  %middle: f32[sym("s0 - 2", hint=2), 3]<offset=3> = operator.getitem(%tensor_split, 1)
  %last: f32[1, 3]<offset=sym("3*s0 - 3", hint=9)> = operator.getitem(%tensor_split, 2)
  %sub_: f32[sym("s0 - 2", hint=2), 3]<offset=3> = aten::sub_.Scalar(%middle, 100)
  %neg_: f32[1, 3]<offset=sym("3*s0 - 3", hint=9)> = aten::neg_(%last)
  %out: f32[sym("s0", hint=4), 3] = aten::mul.Scalar(%clone, 1)
  return (%out)
)"));
}

// Where an element before the one written has a symbolic size, or the written one has
// and is not the last, no literal says where it starts or ends: refused, naming why.
TEST(FunctionalizeSplits, AnElementAfterOneOfSymbolicSizeIsRefused) {
  const std::string why = test::rejection(onSymbolicX(R"(  %clone: f32[sym("s0", hint=4), 3] = aten::clone(%x)
  %n: sym_int("s0", hint=4) = aten::sym_size.int(%x, 0)
  %rest: sym_int("s0 - 1", hint=3) = operator.sub(sym_int(%n), 1)
  %split: (f32[sym("s0 - 1", hint=3), 3], f32[1, 3]<offset=sym("3*s0 - 3", hint=9)>) = aten::split_with_sizes(%clone, sym_ints[%rest, 1])
  %last: f32[1, 3]<offset=sym("3*s0 - 3", hint=9)> = operator.getitem(%split, 1)
  %add_: f32[1, 3]<offset=sym("3*s0 - 3", hint=9)> = aten::add_.Scalar(%last, 10)
  %out: f32[sym("s0", hint=4), 3] = aten::mul.Scalar(%clone, 1)
  return (%out)
)"));
  EXPECT_NE(why.find("%last: an element before it has a symbolic size along the split dim"), std::string::npos) << why;
}

}  // namespace
}  // namespace epsmith
