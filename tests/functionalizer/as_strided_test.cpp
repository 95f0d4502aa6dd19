// as_strided views, copies and scatters of tensors whose storage was written: they address
// the storage, not the tensor they are called on
// (Note [as_strided views hang off the storage root]), so each case is checked against
// eager, or refused where the functional program lacks the memory eager's view reads.
#include <gtest/gtest.h>

#include <string>

#include "tests/functionalizer/support.h"

namespace epsmith {
namespace {

using test::functionalAgreesWithEager;
using test::onX;
using test::program;
using test::rejection;
using test::targets;

TEST(FunctionalizeViews, AsStridedAndNonOverlappingUnfoldWrites) {
  functionalAgreesWithEager(onX(R"(  %clone: f32[4, 6] = aten::clone(%x)
  %as_strided: f32[3, 2]<stride=[5, 2], offset=1> = aten::as_strided(%clone, [3, 2], [5, 2], 1)
  %add_: f32[3, 2]<stride=[5, 2], offset=1> = aten::add_.Scalar(%as_strided, 50)
  %unfold: f32[4, 2, 2]<stride=[6, 3, 1]> = aten::unfold(%x, 1, 2, 3)
  %mul_: f32[4, 2, 2]<stride=[6, 3, 1]> = aten::mul_.Scalar(%unfold, -1)
  %out: f32[4, 6] = aten::add.Tensor(%clone, %x)
  return (%out)
)"));
}

// as_strided's offset addresses the storage: taken from a split piece that a write has
// replaced by a fresh tensor, it must still read the clone's storage at offset 3 (found by
// the generator: the functional program read past the piece's own 6 elements).
TEST(FunctionalizeViews, AsStridedAfterAWriteAddressesTheStorage) {
  functionalAgreesWithEager(onX(R"(  %clone: f32[4, 6] = aten::clone(%x)
  %split: (f32[2, 6], f32[2, 6]<offset=12>) = aten::split.Tensor(%clone, 2)
  %piece: f32[2, 6]<offset=12> = operator.getitem(%split, 1)
  %tril_: f32[2, 6]<offset=12> = aten::tril_(%piece)
  %as_strided: f32[6]<offset=3> = aten::as_strided(%piece, [6], [1], 3)
  %mul_: f32[6]<offset=3> = aten::mul_.Scalar(%as_strided, 10)
  %out: f32[4, 6] = aten::mul.Scalar(%clone, 2)
  return (%out)
)"));
  // Of an input that does not start its storage, once written: refused, not miscomputed.
  std::string why = rejection(onX(R"(  %as_strided: f32[2]<offset=5> = aten::as_strided(%x, [2], [1], 5)
  %add_: f32[2]<offset=5> = aten::add_.Scalar(%as_strided, 1)
  %out: f32[4]<offset=4> = aten::mul.Scalar(%x, 2)
  return (%out)
)",
                                  "f32[4]<offset=4>"));
  EXPECT_NE(why.find("as_strided of a storage that was written"), std::string::npos) << why;
}

// as_strided without a storage offset starts where the tensor it is called on starts: of a
// split piece at offset 12, at 12. Replayed from and written back through the storage root,
// the offset has to be spelled out (a campaign found the write landing at offset 0).
TEST(FunctionalizeViews, AsStridedWithoutAnOffsetStartsWhereItsTensorStarts) {
  functionalAgreesWithEager(onX(R"(  %clone: f32[4, 6] = aten::clone(%x)
  %split: (f32[2, 6], f32[2, 6]<offset=12>) = aten::split.Tensor(%clone, 2)
  %piece: f32[2, 6]<offset=12> = operator.getitem(%split, 1)
  %as_strided: f32[1]<stride=[0], offset=12> = aten::as_strided(%piece, [1], [0])
  %eq_: f32[1]<stride=[0], offset=12> = aten::eq_.Scalar(%as_strided, 0.0)
  %as_strided_1: f32[2, 2]<stride=[1, 6], offset=12> = aten::as_strided(%piece, [2, 2], [1, 6])
  %add_: f32[2, 2]<stride=[1, 6], offset=12> = aten::add_.Scalar(%as_strided_1, 5)
  %out: f32[4, 6] = aten::mul.Scalar(%clone, 2)
  return (%out)
)"));
}

// as_strided_copy addresses the storage too: of a split piece a write replaced, it reads the
// clone's storage, from the offset given or, none given, from where the piece starts.
TEST(FunctionalizeViews, AsStridedCopyOfAWrittenPieceReadsTheStorage) {
  functionalAgreesWithEager(onX(R"(  %clone: f32[4, 6] = aten::clone(%x)
  %split: (f32[2, 6], f32[2, 6]<offset=12>) = aten::split.Tensor(%clone, 2)
  %piece: f32[2, 6]<offset=12> = operator.getitem(%split, 1)
  %ge_: f32[2, 6]<offset=12> = aten::ge_.Scalar(%piece, 0)
  %as_strided_copy: f32[3] = aten::as_strided_copy(%piece, [3], [2], 3)
  %as_strided_copy_1: f32[3] = aten::as_strided_copy(%piece, [3], [2])
  %out: f32[3] = aten::add.Tensor(%as_strided_copy, %as_strided_copy_1)
  return (%out)
)"));
}

// Note [as_strided_scatter clones its self's storage]: once a write through a transposed
// view replaced the clone's value by a permuted one (tril makes a row-major result of the
// column-major view), the scatter's offsets must still address the clone's elements in
// eager's row-major order.
TEST(FunctionalizeViews, AsStridedScatterOfAWrittenTensorAddressesItsElements) {
  functionalAgreesWithEager(onX(R"(  %clone: f32[2, 3] = aten::clone(%x)
  %t: f32[3, 2]<stride=[1, 3]> = aten::t(%clone)
  %tril_: f32[3, 2]<stride=[1, 3]> = aten::tril_(%t)
  %src: f32[2]<stride=[3]> = aten::select.int(%x, 1, 0)
  %out: f32[2, 3] = aten::as_strided_scatter(%clone, %src, [2], [1], 1)
  return (%out)
)",
                                "f32[2, 3]"));
}

// Past a written input's elements, or of a view of a written storage, the scatter addresses
// memory the functional program does not have: refused (a 2.13 campaign's D1 case raised
// setStorage out of bounds), in the functional and the out= form alike.
TEST(FunctionalizeViews, AsStridedScatterPastAWrittenTensorIsRefused) {
  std::string why = rejection(onX(R"(  %add_: f32[4] = aten::add_.Scalar(%x, 1)
  %src: f32[4] = aten::mul.Scalar(%x, 2)
  %out: f32[4] = aten::as_strided_scatter(%x, %src, [4], [1], 1)
  return (%out)
)",
                                  "f32[4]"));
  EXPECT_NE(why.find("%out: as_strided_scatter of a storage that was written"), std::string::npos) << why;
  why = rejection(onX(R"(  %slice: f32[2] = aten::slice.Tensor(%x, 0, 0, 2)
  %add_: f32[4] = aten::add_.Scalar(%x, 1)
  %src: f32[2] = aten::mul.Scalar(%slice, 2)
  %out: f32[2] = aten::as_strided_scatter(%slice, %src, [2], [1], 0)
  return (%out)
)",
                      "f32[4]"));
  EXPECT_NE(why.find("%out: as_strided_scatter of a storage that was written"), std::string::npos) << why;
  why = rejection(onX(R"(  %add_: f32[4] = aten::add_.Scalar(%x, 1)
  %src: f32[4] = aten::mul.Scalar(%x, 2)
  %y: f32[4] = aten::clone(%x)
  %out: f32[4] = aten::as_strided_scatter.out(%x, %src, [4], [1], 1, out=%y)
  return (%out)
)",
                      "f32[4]"));
  EXPECT_NE(why.find("%out: as_strided_scatter of a storage that was written"), std::string::npos) << why;
}

// as_strided reads its input's storage in its input's dtype: of an f16 view of an f32
// storage that var.out wrote, a replay on the storage root would read f32. Refused (a
// campaign's D1 case, where the replay returned f32).
TEST(FunctionalizeViews, AsStridedOfAWrittenStorageReadAsAnotherDtypeIsRefused) {
  const std::string why = rejection(program(R"(graph {
  %x: f32[1, 1] = placeholder
  %z: f32[4] = placeholder
  %y: f32[4] = aten::clone(%z)
  %var: f32[1] = aten::var.out(%x, [0], False, out=%y)
  %view: f16[2] = aten::view.dtype(%y, torch.float16)
  %as_strided: f16[1]<offset=1> = aten::as_strided(%view, [1], [1], 1)
  return (%as_strided)
}
signature {
  input user_input %x
  input user_input %z
  output user_output %as_strided
})"));
  EXPECT_NE(why.find("%as_strided: as_strided of a view that reads its written storage as another dtype"),
            std::string::npos)
      << why;
}

// The same view taken before the storage is written: the write makes it a replay on the
// storage root, which would read i32 where eager's view reads f32 (a campaign's D1 case,
// whose replay returned i32). Refused when the write comes.
TEST(FunctionalizeViews, AsStridedAsAnotherDtypeTakenBeforeAWriteIsRefused) {
  const std::string why = rejection(program(R"(graph {
  %x: i32[] = placeholder
  %view: f32[] = aten::view.dtype(%x, torch.float32)
  %as_strided: f32[0]<stride=[0]> = aten::as_strided(%view, [0], [0])
  %mul_: i32[] = aten::mul_.Scalar(%x, 0)
  return (%as_strided)
}
signature {
  input user_input %x
  output user_output %as_strided
})"));
  EXPECT_NE(why.find("as_strided of a view that reads its written storage as another dtype"), std::string::npos) << why;
}

// Read after a write, an as_strided of an input that does not start its storage, or that
// reaches past the input's elements, addresses memory the functional program does not have:
// refused, not run out of bounds.
TEST(FunctionalizeViews, AsStridedOfAWrittenInputThatDoesNotStartItsStorageIsRefused) {
  std::string why = rejection(onX(R"(  %add_: f32[4]<offset=4> = aten::add_.Scalar(%x, 1)
  %as_strided: f32[2]<offset=1> = aten::as_strided(%x, [2], [1], 1)
  %out: f32[2] = aten::mul.Scalar(%as_strided, 2)
  return (%out)
)",
                                  "f32[4]<offset=4>"));
  EXPECT_NE(why.find("%as_strided: as_strided of a storage that was written"), std::string::npos) << why;
  // Nor of one that starts it, when the view reaches past the input's own elements into the
  // rest of its storage (a campaign found one reading element 256 of a 256-element input).
  why = rejection(onX(R"(  %add_: f32[4] = aten::add_.Scalar(%x, 1)
  %as_strided: f32[4]<offset=1> = aten::as_strided(%x, [4], [1], 1)
  %out: f32[4] = aten::mul.Scalar(%as_strided, 2)
  return (%out)
)",
                      "f32[4]"));
  EXPECT_NE(why.find("%as_strided: as_strided of a storage that was written"), std::string::npos) << why;
  // Nor of a column-major input: triu_ leaves a row-major value, where the view's offsets
  // name other elements (a campaign found one reading them).
  why = rejection(onX(R"(  %triu_: f32[6, 4]<stride=[1, 6]> = aten::triu_(%x, 0)
  %as_strided: f32[5] = aten::as_strided(%x, [5], [1], 0)
  %out: f32[5] = aten::mul.Scalar(%as_strided, 2)
  return (%out)
)",
                      "f32[6, 4]<stride=[1, 6]>"));
  EXPECT_NE(why.find("%as_strided: as_strided of a storage that was written"), std::string::npos) << why;
}

// A contiguous root that a kernel rewrote is read through a contiguous copy of its value.
TEST(FunctionalizeViews, AsStridedOfAContiguousInputAfterAKernelWroteIt) {
  functionalAgreesWithEager(onX(R"(  %triu_: f32[4, 6] = aten::triu_(%x, 1)
  %as_strided: f32[3, 2]<stride=[5, 2], offset=1> = aten::as_strided(%x, [3, 2], [5, 2], 1)
  %add_: f32[3, 2]<stride=[5, 2], offset=1> = aten::add_.Scalar(%as_strided, 50)
  %out: f32[3, 2] = aten::mul.Scalar(%as_strided, 2)
  return (%out)
)"));
}

}  // namespace
}  // namespace epsmith
