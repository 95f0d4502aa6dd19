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

// A token input is a trait; a program without one has none.
TEST(RootCause, AnEffectTokenInputIsATrait) {
  auto program = [](const std::string& token_input, const std::string& token_output) {
    return test::parse(
        "graph {\n  %token: f32[0] = placeholder\n  %x: f32[2] = placeholder\n"
        "  %neg: f32[2] = aten::neg(%x)\n  return (%token, %neg)\n}\nsignature {\n" +
        token_input + "  input user_input %x\n" + token_output + "  output user_output %neg\n}\n");
  };
  EXPECT_EQ(programTraits(program("  input token token(%token)\n", "  output token token(%token)\n")),
            std::vector<std::string>{"takes-an-effect-token"});
}

// A write into a parameter, or a view of one, under no_grad; not one with grad on, nor a
// write into a user input under no_grad.
TEST(RootCause, AWriteIntoAParameterUnderNoGradIsATrait) {
  auto program = [](const std::string& mode, const std::string& written) {
    return test::parse(
        "graph {\n  %p_w: f32[2, 3]<requires_grad=True> = placeholder\n  %x: f32[2, 3] = placeholder\n"
        "  %g: None = torch._C._set_grad_enabled(" +
        mode +
        ")\n"
        "  %t: f32[3, 2] = aten::t(" +
        written +
        ")\n  %mul_: f32[3, 2] = aten::mul_.Scalar(%t, 2)\n"
        "  %g2: None = torch._C._set_grad_enabled(True)\n  %add: f32[2, 3] = aten::add.Tensor(%p_w, %x)\n"
        "  return (%add)\n}\nsignature {\n  input parameter %p_w -> \"w\"\n  input user_input %x\n"
        "  output user_output %add\n}\n");
  };
  auto has = [](const ExportedProgram& p) {
    const auto traits = programTraits(p);
    return std::find(traits.begin(), traits.end(), "writes-a-parameter-under-no-grad") != traits.end();
  };
  EXPECT_TRUE(has(program("False", "%p_w")));
  EXPECT_FALSE(has(program("True", "%p_w")));
  EXPECT_FALSE(has(program("False", "%x")));
}

// A grad region's calls run where the region is, under no_grad: a write there into a
// parameter, or an out= call there resizing a user input, is the program's, though inside
// the region each is a write into a placeholder of the subgraph. A submodule entry naming
// the region's result is still read from the program as it is.
TEST(RootCause, WritesInsideAGradRegionAreTraitsOfTheProgram) {
  const std::string spec = R"(in_spec="[1, {\"type\": null, \"context\": null, \"children_spec\": []}]" )"
                           R"(out_spec="[1, {\"type\": null, \"context\": null, \"children_spec\": []}]")";
  auto program = [&](const std::string& call) {
    return test::parse(
        "graph {\n  %p_w: f32[2, 3]<requires_grad=True> = placeholder\n  %x: f32[2, 3] = placeholder\n"
        "  %submod_0 = get_attr(\"submod_0\")\n"
        "  %wrap_with_set_grad_enabled: (f32[2, 3],) = "
        "higher_order.wrap_with_set_grad_enabled(False, graph(%submod_0), %p_w, %x)\n"
        "  %getitem: f32[2, 3] = operator.getitem(%wrap_with_set_grad_enabled, 0)\n"
        "  %add: f32[2, 3] = aten::add.Tensor(%p_w, %getitem)\n  return (%add)\n"
        "  attr \"submod_0\" = graph {\n    %p_w: f32[2, 3]<requires_grad=True> = placeholder\n"
        "    %x: f32[2, 3] = placeholder\n    " +
        call +
        "\n    return (%x)\n  }\n}\nsignature {\n  input parameter %p_w -> \"w\"\n  input user_input %x\n"
        "  output user_output %add\n}\nmodule_call_graph {\n  entry \"block\" inputs=[%x] outputs=[%getitem] " +
        spec + "\n}\n");
  };
  auto has = [](const ExportedProgram& p, const std::string& trait) {
    const auto traits = programTraits(p);
    return std::find(traits.begin(), traits.end(), trait) != traits.end();
  };
  const ExportedProgram writes = program("%mul_: f32[2, 3] = aten::mul_.Scalar(%p_w, 2)");
  EXPECT_TRUE(has(writes, "writes-a-parameter-under-no-grad"));
  EXPECT_FALSE(has(writes, "resizes-an-input"));
  const ExportedProgram resizes = program("%sum: f32[3] = aten::sum.IntList_out(%p_w, [0], out=%x)");
  EXPECT_TRUE(has(resizes, "resizes-an-input"));
  EXPECT_FALSE(has(resizes, "writes-a-parameter-under-no-grad"));
  EXPECT_FALSE(has(program("%neg: f32[2, 3] = aten::neg(%x)"), "resizes-an-input"));
  // What the program's own graph names stays named: the entry's output is the region's getitem.
  EXPECT_TRUE(has(writes, "submodule-entry-names-an-output"));
}

// An out= call resizing an out that requires grad (made from a parameter); not one that
// keeps its sizes, nor one into an out that needs no grad.
TEST(RootCause, ResizingAnOutThatRequiresGradIsATrait) {
  auto program = [](const std::string& requires_grad, const std::string& sizes) {
    return test::parse("graph {\n  %p_w: f32[2, 2]<requires_grad=True> = placeholder\n  %c: f32[" + sizes +
                       "] = placeholder\n  %fd: f32[2, 2]" + requires_grad +
                       " = aten::floor_divide.Scalar(%p_w, 1)\n  %nd: f32[" + sizes + "]" + requires_grad +
                       " = aten::special_ndtr.out(%c, out=%fd)\n  return (%p_w)\n}\nsignature {\n"
                       "  input parameter %p_w -> \"w\"\n  input user_input %c\n  output user_output %p_w\n}\n");
  };
  auto has = [](const ExportedProgram& p) {
    const auto traits = programTraits(p);
    return std::find(traits.begin(), traits.end(), "resizes-an-out-that-requires-grad") != traits.end();
  };
  EXPECT_TRUE(has(program("<requires_grad=True>", "")));
  EXPECT_FALSE(has(program("<requires_grad=True>", "2, 2")));
  EXPECT_FALSE(has(program("", "")));
}

// A write into an input holding one element at several positions (stride 0), through a
// view made in a grad region as well (a 2.13 campaign's D2 lead); not into a dense input.
TEST(RootCause, WritingAnInputWhoseElementsOverlapIsATrait) {
  auto program = [](const std::string& layout) {
    return test::parse("graph {\n  %x: f64[7]" + layout +
                       " = placeholder\n  %r = get_attr(\"submod_1\")\n"
                       "  %w: (f64[],) = higher_order.wrap_with_set_grad_enabled(False, graph(%r), %x)\n"
                       "  %g: f64[] = operator.getitem(%w, 0)\n  %s: f64[] = aten::sinh_(%g)\n  return (%s)\n"
                       "  attr \"submod_1\" = graph {\n    %a: f64[7]" +
                       layout +
                       " = placeholder\n    %v: f64[] = aten::select.int(%a, 0, 5)\n    return (%v)\n  }\n}\n"
                       "signature {\n  input user_input %x\n  output user_output %s\n}\n");
  };
  auto has = [](const ExportedProgram& p) {
    const auto traits = programTraits(p);
    return std::find(traits.begin(), traits.end(), "writes-an-input-whose-elements-overlap") != traits.end();
  };
  EXPECT_TRUE(has(program("<stride=[0]>")));
  EXPECT_FALSE(has(program("")));
}

// A submodule's entry that names a node among its outputs; not one that names none, nor the
// root entry.
TEST(RootCause, ASubmoduleEntryNamingAnOutputIsATrait) {
  auto program = [](const std::string& fqn, const std::string& output) {
    const std::string spec = R"(in_spec="[1, {\"type\": null, \"context\": null, \"children_spec\": []}]" )"
                             R"(out_spec="[1, {\"type\": null, \"context\": null, \"children_spec\": []}]")";
    return test::parse(
        "graph {\n  %x: f32[2, 1] = placeholder\n  %squeeze: f32[2] = aten::squeeze.dim(%x, 1)\n"
        "  %neg: f32[2] = aten::neg(%squeeze)\n  return (%neg)\n}\n"
        "signature {\n  input user_input %x\n  output user_output %neg\n}\n"
        "module_call_graph {\n  entry \"" +
        fqn + "\" inputs=[%x] outputs=[" + output + "] " + spec + "\n}\n");
  };
  auto has = [](const ExportedProgram& p) {
    const auto traits = programTraits(p);
    return std::find(traits.begin(), traits.end(), "submodule-entry-names-an-output") != traits.end();
  };
  EXPECT_TRUE(has(program("block", "%squeeze")));
  EXPECT_TRUE(has(program("block", "%neg")));
  EXPECT_FALSE(has(program("block", "")));
  EXPECT_FALSE(has(program("", "%squeeze")));
}

// A cond in a cond's branch; not a cond whose branches call only ATen ops, nor two conds
// side by side.
TEST(RootCause, AHigherOrderOpInASubgraphIsATrait) {
  auto program = [](const std::string& inner) {
    return test::parse(R"EPT(graph {
  %x: f32[3] = placeholder
  %p: b8[] = placeholder
  %t = get_attr("true_graph_0")
  %f = get_attr("false_graph_0")
  %cond: (f32[3],) = higher_order.cond(%p, graph(%t), graph(%f), [%x])
  %getitem: f32[3] = operator.getitem(%cond, 0)
  %t2 = get_attr("true_graph_1")
  %f2 = get_attr("false_graph_1")
  %cond_1: (f32[3],) = higher_order.cond(%p, graph(%t2), graph(%f2), [%getitem])
  %getitem_1: f32[3] = operator.getitem(%cond_1, 0)
  return (%getitem_1)
  attr "false_graph_0" = graph {
    %x: f32[3] = placeholder
    %cos: f32[3] = aten::cos(%x)
    return (%cos)
  }
  attr "true_graph_0" = graph {
    %x: f32[3] = placeholder
)EPT" + inner + R"EPT(  }
  attr "false_graph_1" = graph {
    %x: f32[3] = placeholder
    %cos: f32[3] = aten::cos(%x)
    return (%cos)
  }
  attr "true_graph_1" = graph {
    %x: f32[3] = placeholder
    %sin: f32[3] = aten::sin(%x)
    return (%sin)
  }
}
signature {
  input user_input %x
  input user_input %p
  output user_output %getitem_1
}
)EPT");
  };
  const std::string nested = R"EPT(    %sum: f32[] = aten::sum(%x)
    %gt: b8[] = aten::gt.Scalar(%sum, 1)
    %t = get_attr("true_graph_0")
    %f = get_attr("false_graph_0")
    %cond: (f32[3],) = higher_order.cond(%gt, graph(%t), graph(%f), [%x])
    %getitem: f32[3] = operator.getitem(%cond, 0)
    return (%getitem)
    attr "false_graph_0" = graph {
      %x: f32[3] = placeholder
      return (%x)
    }
    attr "true_graph_0" = graph {
      %x: f32[3] = placeholder
      %neg: f32[3] = aten::neg(%x)
      return (%neg)
    }
)EPT";
  auto has = [](const ExportedProgram& p) {
    const auto traits = programTraits(p);
    return std::find(traits.begin(), traits.end(), "nests-a-higher-order-op") != traits.end();
  };
  EXPECT_TRUE(has(program(nested)));
  EXPECT_FALSE(has(program("    %sin: f32[3] = aten::sin(%x)\n    return (%sin)\n")));
}

// requires_grad_ of a periodic window of two elements or more, which eager makes as a view
// (Note [Factories eager returns as views]), or of a view of one; of a symmetric window,
// of a window of one element, or of another factory's result, it is none.
TEST(RootCause, RequiresGradOfAFactoryViewIsATrait) {
  auto program = [](const std::string& made, const std::string& n, const std::string& through) {
    return test::parse(R"EPT(graph {
  %w: f64[)EPT" + n + R"EPT(] = aten::)EPT" +
                       made + R"EPT(
  %m: f64[)EPT" + n + R"EPT(] = aten::movedim.intlist(%w, [0], [0])
  %r: f64[)EPT" + n + R"EPT(]<requires_grad=True> = aten::requires_grad_(%)EPT" +
                       through + R"EPT()
  %c: f64[)EPT" + n + R"EPT(] = aten::cosh_(%m)
  return (%c)
}
signature {
  output user_output %c
}
)EPT");
  };
  const std::vector<std::string> trait{"requires-grad-of-a-factory-view"};
  EXPECT_EQ(programTraits(program("hamming_window(2, dtype=torch.float64)", "2", "w")), trait);
  EXPECT_EQ(programTraits(program("kaiser_window.beta(3, True, 2.0, dtype=torch.float64)", "3", "m")), trait);
  EXPECT_TRUE(programTraits(program("hann_window.periodic(3, False, dtype=torch.float64)", "3", "w")).empty());
  EXPECT_TRUE(programTraits(program("hann_window(1, dtype=torch.float64)", "1", "w")).empty());
  EXPECT_TRUE(programTraits(program("ones([2], dtype=torch.float64)", "2", "w")).empty());
}

// unbind of a dimension of size 0 returns no tensors (torch.export.load cannot read such a
// node back); of size 2, two.
TEST(RootCause, AnEmptyTensorListIsATrait) {
  auto program =
      [](const std::string& rows, const std::string& result) {
        return test::parse(R"EPT(graph {
  %x: f32[)EPT" + rows + R"EPT(, 3] = placeholder
  %unbind: )EPT" + result + R"EPT( = aten::unbind.int(%x)
  %neg: f32[)EPT" + rows + R"EPT(, 3] = aten::neg(%x)
  return (%neg)
}
signature {
  input user_input %x
  output user_output %neg
}
)EPT");
      };
  EXPECT_EQ(programTraits(program("0", "()")), (std::vector<std::string>{"returns-an-empty-tensor-list"}));
  EXPECT_TRUE(programTraits(program("2", "(f32[3], f32[3]<offset=3>)")).empty());
}

// as_strided of a transposed input that triu_ then writes addresses the storage, which
// LibTorch's functionalization holds contiguously after the write (a 2.13 campaign's D2
// case, seed 54802495), and so of an input at a storage offset (a D8 case, seed 9300939);
// of a contiguous input, or with no write, it is no trait.
TEST(RootCause, AnAsStridedOfAWrittenStridedTensorIsATrait) {
  auto program = [](const std::string& layout, bool write) {
    return test::parse(R"EPT(graph {
  %x: f32[2, 3])EPT" + layout +
                       R"EPT( = placeholder
  %as_strided: f32[6] = aten::as_strided(%x, [6], [1])
)EPT" + (write ? "  %triu_: f32[2, 3]" + layout + " = aten::triu_(%x)\n" : std::string()) +
                       R"EPT(  %neg: f32[6] = aten::neg(%as_strided)
  return (%neg)
}
signature {
  input user_input %x
  output user_output %neg
}
)EPT");
  };
  EXPECT_EQ(programTraits(program("<stride=[1, 2]>", true)),
            (std::vector<std::string>{"addresses-a-written-strided-tensor"}));
  EXPECT_EQ(programTraits(program("<offset=3>", true)),
            (std::vector<std::string>{"addresses-a-written-strided-tensor"}));
  EXPECT_TRUE(programTraits(program("", true)).empty());
  EXPECT_TRUE(programTraits(program("<stride=[1, 2]>", false)).empty());
}

// A grad region's calls are the program's: their ops are core ops of its root cause, and
// a graph trait that one of them has is the program's (a lost metadata mutation in a
// region is the same bug as outside one).
TEST(RootCause, ARegionsCallsAreTheProgramsToo) {
  const ExportedProgram p = test::parse(R"EPT(graph {
  %x: f32[2, 3] = placeholder
  %region = get_attr("submod_0")
  %wrap: (f32[3, 2],) = higher_order.wrap_with_set_grad_enabled(False, graph(%region), %x)
  %getitem: f32[3, 2] = operator.getitem(%wrap, 0)
  %neg: f32[3, 2] = aten::neg(%getitem)
  return (%neg)
  attr "submod_0" = graph {
    %a: f32[2, 3] = placeholder
    %clone: f32[2, 3] = aten::clone(%a)
    %t_: f32[3, 2] = aten::t_(%clone)
    return (%t_)
  }
}
signature {
  input user_input %x
  output user_output %neg
}
)EPT");
  EXPECT_EQ(coreOps(p), (std::vector<std::string>{"clone", "neg", "t"}));
  const auto traits = programTraits(p);
  EXPECT_NE(std::find(traits.begin(), traits.end(), "mutates-metadata-in-place"), traits.end());
}

}  // namespace
}  // namespace epsmith
