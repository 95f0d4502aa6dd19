// Program traits (Note [Program traits]): each trait read from a minimized program's graph
// and signature, with programs that have it and near misses that do not (the traits of
// resizes are resize_traits_test.cpp's).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fuzz/root_cause.h"
#include "tests/support/program_text.h"

namespace epsmith {
namespace {

// A write into what a schema that hides an alias made: the functional set's result shares
// its source's storage.
TEST(RootCause, AWriteIntoAnUndeclaredAliasIsATrait) {
  auto program = [](const std::string& written) {
    return test::parse(R"EPT(graph {
  %x: f32[2] = placeholder
  %y: f32[2] = placeholder
  %set: f32[2] = aten::set.source_Tensor(%x, %y)
  %neg: f32[2] = aten::neg(%y)
  %cos_: f32[2] = aten::cos_()EPT" +
                       written + R"EPT()
  return (%cos_)
}
signature {
  input user_input %x
  input user_input %y
  output user_output %cos_
}
)EPT");
  };
  EXPECT_EQ(programTraits(program("%set")), (std::vector<std::string>{"writes-an-undeclared-alias"}));
  EXPECT_TRUE(programTraits(program("%neg")).empty());
  // The out= form of an op that hides an alias: functionalization gives the out the
  // functional result, conj_physical's alias of an expanded real input (a 2.13 campaign).
  auto conj_out = [](const std::string& write) {
    return test::parse(R"EPT(graph {
  %x: f32[2, 5]<stride=[1, 0]> = placeholder
  %o: f32[2, 5] = aten::zeros([2, 5])
  %c: f32[2, 5] = aten::conj_physical.out(%x, out=%o)
)EPT" + write + R"EPT(  return (%l)
}
signature {
  input user_input %x
  output user_output %l
}
)EPT");
  };
  EXPECT_EQ(programTraits(conj_out("  %l: f32[2, 5] = aten::ldexp_(%c, %x)\n")),
            (std::vector<std::string>{"writes-an-undeclared-alias"}));
  // The same write through the out argument rather than the call's result (a 1.13 campaign).
  EXPECT_EQ(programTraits(conj_out("  %l: f32[2, 5] = aten::mul_.Scalar(%o, 0)\n")),
            (std::vector<std::string>{"writes-an-undeclared-alias"}));
  // set.source_Tensor_out, whose functional variant hides the alias (a 1.13 campaign).
  const ExportedProgram set_out = test::parse(R"EPT(graph {
  %x: f32[4]<stride=[0]> = placeholder
  %y: f32[1, 1] = placeholder
  %o: f32[4] = aten::zeros([4])
  %s: f32[4] = aten::set.source_Tensor_out(%y, %x, out=%o)
  %r: f32[4] = aten::rad2deg_(%s)
  return (%r)
}
signature {
  input user_input %x
  input user_input %y
  output user_output %r
}
)EPT");
  EXPECT_EQ(programTraits(set_out), (std::vector<std::string>{"writes-an-undeclared-alias"}));
}

// A write into the source of the functional set, between the set and a read of its result:
// eager's result shares the source's storage and sees the write.
TEST(RootCause, AWriteUnderAnUndeclaredAliasIsATrait) {
  auto program = [](bool read_after) {
    const std::string write = "  %cos_: f32[2] = aten::cos_(%y)\n";
    const std::string read = "  %neg: f32[2] = aten::neg(%set)\n";
    return test::parse(R"EPT(graph {
  %x: f32[2] = placeholder
  %y: f32[2] = placeholder
  %set: f32[2] = aten::set.source_Tensor(%x, %y)
)EPT" + (read_after ? write + read : read + write) +
                       R"EPT(  return (%neg)
}
signature {
  input user_input %x
  input user_input %y
  output user_output %neg
}
)EPT");
  };
  EXPECT_EQ(programTraits(program(true)), (std::vector<std::string>{"writes-an-undeclared-alias"}));
  EXPECT_TRUE(programTraits(program(false)).empty());
}

// A write into the base of a view that unsafe_split took, before a read of a piece: the
// piece shares the base's storage in eager.
TEST(RootCause, AWriteIntoTheBaseOfAnUndeclaredAliasIsATrait) {
  auto program = [](const std::string& written) {
    return test::parse(R"EPT(graph {
  %b: f32[1, 8] = placeholder
  %y: f32[1, 8] = placeholder
  %t: f32[8, 1]<stride=[1, 8]> = aten::numpy_T(%b)
  %split: (f32[3, 1]<stride=[1, 8]>, f32[5, 1]<stride=[1, 8], offset=3>) = aten::unsafe_split_with_sizes(%t, [3, 5])
  %piece: f32[5, 1]<stride=[1, 8], offset=3> = operator.getitem(%split, 1)
  %acos_: f32[1, 8] = aten::acos_(%)EPT" +
                       written + R"EPT()
  %neg: f32[5, 1] = aten::neg(%piece)
  return (%neg)
}
signature {
  input user_input %b
  input user_input %y
  output user_output %neg
}
)EPT");
  };
  EXPECT_EQ(programTraits(program("b")), (std::vector<std::string>{"writes-an-undeclared-alias"}));
  EXPECT_TRUE(programTraits(program("y")).empty());
}

// The same through two undeclared aliases: unsafe_chunk of an element of atleast_2d of a
// 0-d x, read after an in-place write into x (a 2.13 campaign's D2 case); written before
// the chunk is taken, none.
TEST(RootCause, AWriteUnderAChainOfUndeclaredAliasesIsATrait) {
  auto program = [](bool write_first) {
    const std::string write = "  %xlogy_: f32[] = aten::xlogy_.Tensor(%c, %x)\n";
    return test::parse(R"EPT(graph {
  %x: f32[] = placeholder
  %c: f32[] = placeholder
)EPT" + (write_first ? write : "") +
                       R"EPT(  %atleast_2d: (f32[1, 1], f32[1, 1]) = aten::atleast_2d.Sequence([%c, %x])
  %getitem: f32[1, 1] = operator.getitem(%atleast_2d, 0)
  %unsafe_chunk: (f32[1, 1],) = aten::unsafe_chunk(%getitem, 1)
  %piece: f32[1, 1] = operator.getitem(%unsafe_chunk, 0)
)EPT" + (write_first ? "" : write) +
                       R"EPT(  return (%piece)
}
signature {
  input user_input %x
  input user_input %c
  output user_output %piece
}
)EPT");
  };
  EXPECT_EQ(programTraits(program(false)), (std::vector<std::string>{"writes-an-undeclared-alias"}));
  EXPECT_TRUE(programTraits(program(true)).empty());
}

// set_ from a source of another dtype: self takes the source's dtype eagerly.
TEST(RootCause, SettingFromAnotherDtypeIsATrait) {
  auto program =
      [](const std::string& source) {
        return test::parse(R"EPT(graph {
  %x: f32[2] = placeholder
  %y: )EPT" + source + R"EPT([2] = placeholder
  %set_: )EPT" + source + R"EPT([2] = aten::set_.source_Tensor(%x, %y)
  %neg: )EPT" + source + R"EPT([2] = aten::neg(%x)
  return (%neg)
}
signature {
  input user_input %x
  input user_input %y
  output user_output %neg
}
)EPT");
      };
  EXPECT_EQ(programTraits(program("i64")), (std::vector<std::string>{"sets-another-dtype"}));
  // set_ changes metadata in place too, but not by applying a view.
  const std::vector<std::string> same = programTraits(program("f32"));
  EXPECT_EQ(std::count(same.begin(), same.end(), "sets-another-dtype"), 0);
}

// An in-place op that applies a view to its self; a functional view is none.
// set_ with a storage offset of a source that starts at one (an input at offset 3); of a
// source at offset 0, none.
TEST(RootCause, SettingFromASourceWithAnOffsetIsATrait) {
  auto program = [](const std::string& offset) {
    return test::parse(R"EPT(graph {
  %x: f32[3]<offset=)EPT" +
                       offset + R"EPT(> = placeholder
  %c: f32[3] = aten::clone(%x)
  %set_: f32[2] = aten::set_.source_Tensor_storage_offset(%c, %x, 1, [2])
  return (%set_)
}
signature {
  input user_input %x
  output user_output %set_
}
)EPT");
  };
  EXPECT_EQ(programTraits(program("3")), (std::vector<std::string>{"sets-from-a-source-with-an-offset"}));
  EXPECT_TRUE(programTraits(program("0")).empty());
}

// An out= call of a view op's copying form; of an op that is no view's copy, none.
TEST(RootCause, AViewCopyOutIsATrait) {
  auto program = [](const std::string& call) {
    return test::parse(R"EPT(graph {
  %x: f32[2, 1] = placeholder
  %o: f32[3] = aten::zeros([3])
  %r: f32[2] = )EPT" + call +
                       R"EPT(
  return (%r)
}
signature {
  input user_input %x
  output user_output %r
}
)EPT");
  };
  EXPECT_EQ(programTraits(program("aten::squeeze_copy.dim_out(%x, 1, out=%o)")),
            (std::vector<std::string>{"writes-a-view-copy-out"}));
  EXPECT_TRUE(programTraits(program("aten::sum.IntList_out(%x, [1], out=%o)")).empty());
}

TEST(RootCause, AnInPlaceMetadataMutationIsATrait) {
  auto program = [](const std::string& op) {
    return test::parse(R"EPT(graph {
  %x: f32[2, 1] = placeholder
  %c: f32[2, 1] = aten::clone(%x)
  %v: f32[2] = )EPT" + op +
                       R"EPT((%c, 1)
  %neg: f32[2] = aten::neg(%v)
  return (%neg)
}
signature {
  input user_input %x
  output user_output %neg
}
)EPT");
  };
  EXPECT_EQ(programTraits(program("aten::squeeze_.dim")), (std::vector<std::string>{"mutates-metadata-in-place"}));
  EXPECT_TRUE(programTraits(program("aten::squeeze.dim")).empty());
}

// An in-place write through an unfold whose windows leave elements of its input
// uncovered (the inverse LibTorch's functionalization uses zeroes them), or through a view
// of one; unfolds that cover every element, and other empty views, are none.
TEST(RootCause, AWriteThroughAnUnfoldWithGapsIsATrait) {
  auto program = [](const std::string& view, const std::string& sizes, bool through_select = false) {
    std::string graph = "graph {\n  %x: f32[2, 5] = placeholder\n  %v: f32[" + sizes + "] = " + view + "\n";
    std::string written = "v";
    if (through_select) {
      graph += "  %s: f32[" + sizes.substr(sizes.find(',') + 2) + "] = aten::select.int(%v, 0, 0)\n";
      written = "s";
    }
    graph += "  %w: f32[1] = aten::ge_.Scalar(%" + written + ", 0)\n  return (%x)\n}\n";
    return test::parse(graph + "signature {\n  input user_input %x\n  output user_output %x\n}\n");
  };
  const std::vector<std::string> gaps{"writes-through-an-unfold-with-gaps"};
  EXPECT_EQ(programTraits(program("aten::unfold(%x, 1, 0, 1)", "2, 6, 0")), gaps);   // empty windows
  EXPECT_EQ(programTraits(program("aten::unfold(%x, 1, 1, 3)", "2, 2, 1")), gaps);   // a step past the window
  EXPECT_EQ(programTraits(program("aten::unfold(%x, -1, 2, 2)", "2, 2, 2")), gaps);  // an uncovered tail
  EXPECT_EQ(programTraits(program("aten::unfold(%x, 1, 1, 3)", "2, 2, 1", true)), gaps);
  EXPECT_TRUE(programTraits(program("aten::unfold(%x, 1, 5, 1)", "2, 1, 5")).empty());  // one window, all of it
  EXPECT_TRUE(programTraits(program("aten::unfold(%x, 0, 1, 1)", "2, 5, 1")).empty());
  EXPECT_TRUE(programTraits(program("aten::slice.Tensor(%x, 1, 0, 0)", "2, 0")).empty());
}

// An in-place write through an expand view, or a view of one; a write into the tensor
// expanded is none.
TEST(RootCause, AWriteThroughAnExpandIsATrait) {
  auto program = [](const std::string& written) {
    return test::parse(R"EPT(graph {
  %x: f32[1, 3] = placeholder
  %expand_as: f32[1, 3] = aten::expand_as(%x, %x)
  %select: f32[3] = aten::select.int(%expand_as, 0, 0)
  %le_: f32[)EPT" +
                       std::string(written == "x"        ? "1, 3"
                                   : written == "select" ? "3"
                                                         : "1, 3") +
                       R"EPT(] = aten::le_.Scalar(%)EPT" + written + R"EPT(, 0.0)
  return (%x)
}
signature {
  input user_input %x
  output user_output %x
}
)EPT");
  };
  EXPECT_EQ(programTraits(program("expand_as")), (std::vector<std::string>{"writes-through-an-expand"}));
  EXPECT_EQ(programTraits(program("select")), (std::vector<std::string>{"writes-through-an-expand"}));
  EXPECT_TRUE(programTraits(program("x")).empty());
}

// An in-place write through a piece of a bool view of an f32 tensor, even an empty one; a
// u8 view is none.
TEST(RootCause, AWriteThroughABoolViewIsATrait) {
  auto program = [](const std::string& dtype, const std::string& short_name) {
    return test::parse(R"EPT(graph {
  %x: f32[1, 1] = placeholder
  %v: )EPT" + short_name +
                       R"EPT([1, 4] = aten::view.dtype(%x, torch.)EPT" + dtype + R"EPT()
  %piece: )EPT" + short_name +
                       R"EPT([1, 0] = aten::slice.Tensor(%v, 1, 0, 0)
  %w: )EPT" + short_name +
                       R"EPT([1, 0] = aten::sgn_(%piece)
  return (%x)
}
signature {
  input user_input %x
  output user_output %x
}
)EPT");
  };
  EXPECT_EQ(programTraits(program("bool", "b8")),
            (std::vector<std::string>{"writes-through-a-bool-view", "views-as-another-dtype"}));
  EXPECT_EQ(programTraits(program("uint8", "u8")), std::vector<std::string>{"views-as-another-dtype"});
}

// A dtype view of any element size, and a detach of a view (a split's piece), are traits;
// a view.default and a detach of a fresh tensor are not.
TEST(RootCause, DtypeViewsAndDetachesOfViewsAreTraits) {
  auto program = [](const std::string& calls) {
    return test::parse(R"EPT(graph {
  %x: f32[2, 3] = placeholder
)EPT" + calls + R"EPT(  return (%x)
}
signature {
  input user_input %x
  output user_output %x
}
)EPT");
  };
  EXPECT_EQ(programTraits(program("  %v: i32[2, 3] = aten::view.dtype(%x, torch.int32)\n")),
            (std::vector<std::string>{"views-as-another-dtype"}));
  EXPECT_EQ(programTraits(program("  %v: f32[3, 2] = aten::view(%x, [3, 2])\n")), std::vector<std::string>{});
  const std::string piece =
      "  %split: (f32[1, 3], f32[1, 3]<offset=3>) = aten::split.Tensor(%x, 1)\n"
      "  %g: f32[1, 3]<offset=3> = operator.getitem(%split, 1)\n";
  EXPECT_EQ(programTraits(program(piece + "  %d: f32[1, 3]<offset=3> = aten::detach(%g)\n")),
            (std::vector<std::string>{"detaches-a-view"}));
  EXPECT_EQ(programTraits(program("  %d: f32[2, 3] = aten::detach(%x)\n")), std::vector<std::string>{});
  // What an in-place call on a view returned, and what atleast_2d returned (a view its
  // schema hides), are views too.
  EXPECT_EQ(programTraits(program(piece + "  %n: f32[1, 3]<offset=3> = aten::neg_(%g)\n"
                                          "  %d: f32[1, 3]<offset=3> = aten::detach(%n)\n")),
            (std::vector<std::string>{"detaches-a-view"}));
  EXPECT_EQ(programTraits(program("  %a: (f32[2, 3], f32[2, 3]) = aten::atleast_2d.Sequence([%x, %x])\n"
                                  "  %g: f32[2, 3] = operator.getitem(%a, 0)\n"
                                  "  %d: f32[2, 3] = aten::detach(%g)\n")),
            (std::vector<std::string>{"detaches-a-view"}));
}

// ravel of a moved-axis view copies in eager; after an in-place write to its storage it is
// a trait, as LibTorch's functionalization views it then. Without the write, or where
// ravel views (of the input itself), it is not this trait.
TEST(RootCause, AReshapeThatCopiesAWrittenTensorIsATrait) {
  auto program = [](const std::string& write, const std::string& raveled) {
    return test::parse(R"EPT(graph {
  %x: f32[1, 2, 2, 1] = placeholder
  %m: f32[2, 1, 1, 2]<stride=[1, 1, 4, 2]> = aten::moveaxis.intlist(%x, [3, 1, 2, 0], [1, 3, 0, 2])
)EPT" + write + "  %r: f32[4] = aten::ravel(" +
                       raveled + R"EPT()
  return (%r)
}
signature {
  input user_input %x
  output user_output %r
}
)EPT");
  };
  const std::string cumprod = "  %c: f32[2, 1, 1, 2]<stride=[1, 1, 4, 2]> = aten::cumprod_(%m, 0)\n";
  EXPECT_EQ(programTraits(program(cumprod, "%m")), std::vector<std::string>{"reshape-copies-a-written-tensor"});
  EXPECT_EQ(programTraits(program("", "%m")), std::vector<std::string>{});
  // ravel of x itself views it in eager; after the write through the moved axes it is the
  // other 1.13 trait (1.13's D2 raises on it).
  EXPECT_EQ(programTraits(program(cumprod, "%x")), std::vector<std::string>{"writes-under-a-strided-reshape"});
}

// flatten of a strided slice views it with strides [3]; a write through it, or through a
// piece of it, or into its base with the flatten read after, is a trait. Through a
// flatten that comes out contiguous, with no write, or with the flatten read only before
// the write, it is none.
TEST(RootCause, AWriteUnderAStridedReshapeIsATrait) {
  auto program = [](const std::string& flatten, const std::string& written, const std::string& returned = "%x") {
    return test::parse(R"EPT(graph {
  %x: f32[1, 3, 3] = placeholder
  %s: f32[1, 3, 1]<stride=[9, 3, 1]> = aten::slice.Tensor(%x, 2, 0, 1)
  %w: f32[1, 1, 3]<stride=[9, 9, 1]> = aten::slice.Tensor(%x, 1, 0, 1)
)EPT" + flatten + written +
                       "  return (" + returned + R"EPT()
}
signature {
  input user_input %x
  output user_output )EPT" +
                       returned + "\n}\n");
  };
  const std::string strided = "  %f: f32[3]<stride=[3]> = aten::flatten.using_ints(%s)\n";
  const std::string piece = "  %e: f32[0]<stride=[3]> = aten::slice.Tensor(%f, 0, 0, 0)\n";
  const std::string write_x = "  %m: f32[1, 3, 3] = aten::mul_.Scalar(%x, 2)\n";
  const std::vector<std::string> trait{"writes-under-a-strided-reshape"}, none;
  EXPECT_EQ(programTraits(program(strided, "  %m: f32[3]<stride=[3]> = aten::mul_.Scalar(%f, 2)\n")), trait);
  EXPECT_EQ(programTraits(program(strided, piece + "  %z: f32[0]<stride=[3]> = aten::zero_(%e)\n")), trait);
  EXPECT_EQ(programTraits(program(strided, write_x, "%f")), trait);
  EXPECT_EQ(programTraits(program(strided, "")), none);
  EXPECT_EQ(programTraits(program(strided, write_x)), none);
  EXPECT_EQ(programTraits(
                program("  %f: f32[3] = aten::flatten.using_ints(%w)\n", "  %m: f32[3] = aten::mul_.Scalar(%f, 2)\n")),
            none);
  // A contiguous reshape made after a write through a transposed view of its storage (a
  // 1.13 campaign's D2 case: mvlgamma.out into x.mH, then reshape_as of x); after a write
  // through x itself, or made before the write, none.
  auto after = [](const std::string& calls) {
    return test::parse("graph {\n  %x: f32[3, 3] = placeholder\n  %v: f32[3, 3]<stride=[1, 3]> = aten::t(%x)\n" +
                       calls + "  return (%r)\n}\nsignature {\n  input user_input %x\n  output user_output %r\n}\n");
  };
  const std::string reshape = "  %r: f32[9] = aten::reshape(%x, [9])\n";
  EXPECT_EQ(programTraits(after("  %m: f32[3, 3]<stride=[1, 3]> = aten::mul_.Scalar(%v, 2)\n" + reshape)), trait);
  EXPECT_EQ(programTraits(after("  %m: f32[3, 3] = aten::mul_.Scalar(%x, 2)\n" + reshape)), none);
  EXPECT_EQ(programTraits(after(reshape + "  %m: f32[3, 3]<stride=[1, 3]> = aten::mul_.Scalar(%v, 2)\n")), none);
  // A contiguous reshape written through by a write into a transposed view of it (a 1.13
  // campaign's D2 case: tril_ of flatten(x).mT); the same write with no reshape between,
  // none.
  auto through = [](const std::string& viewed) {
    return test::parse(
        "graph {\n  %x: f32[3, 1, 2] = placeholder\n"
        "  %f: f32[3, 2] = aten::flatten.using_ints(%x, 1)\n"
        "  %q: f32[3, 2] = aten::squeeze.dim(%x, 1)\n"
        "  %t: f32[2, 3]<stride=[1, 2]> = aten::mT(" +
        viewed +
        ")\n"
        "  %w: f32[2, 3]<stride=[1, 2]> = aten::tril_(%t)\n"
        "  return (%x)\n}\nsignature {\n  input user_input %x\n  output user_output %x\n}\n");
  };
  EXPECT_EQ(programTraits(through("%f")), (std::vector<std::string>{"writes-under-a-strided-reshape"}));
  EXPECT_EQ(programTraits(through("%q")), none);
}

}  // namespace
}  // namespace epsmith
