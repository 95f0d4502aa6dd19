// Program traits of resizes (Note [Program traits]): a resize of a viewed tensor, of an
// input, of an in-place alias, after a metadata mutation or a set_, and a composite read
// of an out resize, with programs that have each and near misses that do not.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fuzz/root_cause.h"
#include "tests/support/program_text.h"

namespace epsmith {
namespace {

// A program that writes %x through cos.out after taking a view of it; `between` runs after
// the write, `sizes` is what cos.out leaves %x with.
std::string writtenAfterAView(const std::string& view, const std::string& sizes, const std::string& after) {
  return "graph {\n  %x: f32[2] = placeholder\n  %y: f32" + sizes + " = placeholder\n" + view + "  %cos: f32" + sizes +
         " = aten::cos.out(%y, out=%x)\n" + after +
         "  return (%cos, %cos)\n}\n"
         "signature {\n  input user_input %x\n  input user_input %y\n  output user_input_mutation %cos -> \"x\"\n"
         "  output user_output %cos\n}\n";
}

// Note [Program traits]: a resize of a tensor whose view is read after it, or of a view.
// (Traits are read from the graph and signature alone: these programs carry no values.)
TEST(RootCause, AResizeOfAViewedTensorIsATrait) {
  const std::string view = "  %v: f32[2] = aten::alias(%x)\n";
  const std::string read = "  %neg: f32[2] = aten::neg(%v)\n";
  // The tensor resized is an input, so each resize is also "resizes-an-input".
  const std::vector<std::string> trait{"resizes-a-viewed-tensor", "resizes-an-input"};
  const std::vector<std::string> input_only{"resizes-an-input"};
  EXPECT_EQ(programTraits(test::parse(writtenAfterAView(view, "[3]", read))), trait);
  // Not read after the resize; not resized; no view at all.
  EXPECT_EQ(programTraits(test::parse(writtenAfterAView(view, "[3]", ""))), input_only);
  EXPECT_TRUE(programTraits(test::parse(writtenAfterAView(view, "[2]", read))).empty());
  EXPECT_EQ(programTraits(test::parse(writtenAfterAView("", "[3]", "  %neg: f32[2] = aten::neg(%y)\n"))), input_only);
  // The view read after the resize through what an in-place call on it returned.
  const std::string written_view = view + "  %w: f32[2] = aten::zero_(%v)\n";
  EXPECT_EQ(programTraits(test::parse(writtenAfterAView(written_view, "[3]", "  %neg: f32[2] = aten::neg(%w)\n"))),
            trait);
  // resize_ of a view itself.
  const ExportedProgram resized_view = test::parse(R"EPT(graph {
  %x: f32[4] = placeholder
  %v: f32[2, 2] = aten::view(%x, [2, 2])
  %resize_: f32[8] = aten::resize_(%v, [8])
  return (%resize_)
}
signature {
  input user_input %x
  output user_output %resize_
}
)EPT");
  EXPECT_EQ(programTraits(resized_view), trait);
  // An out= call resizing what an out= call into a view returned: that is the view too (a
  // 2.13 campaign's D8 case, bartlett_window.out into clamp_max.out's result).
  const ExportedProgram resized_alias_of_a_view = test::parse(R"EPT(graph {
  %x: f32[2, 3] = placeholder
  %v: f32[3] = aten::select.int(%x, 0, 1)
  %neg: f32[3] = aten::neg.out(%v, out=%v)
  %ones: f32[1] = aten::ones.out([1], out=%neg)
  return (%ones)
}
signature {
  input user_input %x
  output user_output %ones
}
)EPT");
  EXPECT_EQ(programTraits(resized_alias_of_a_view), trait);
}

// resize_ of a transposed view to its own sizes; of a contiguous view, or to other sizes
// (the trait resizes-a-viewed-tensor then), it is none.
TEST(RootCause, AResizeOfAStridedViewToItsSizesIsATrait) {
  auto program = [](const std::string& view, const std::string& sizes) {
    return test::parse("graph {\n  %x: f32[2, 3] = placeholder\n" + view + "  %r: f32" + sizes +
                       " = aten::resize_(%v, " + sizes +
                       ")\n  return (%x)\n}\n"
                       "signature {\n  input user_input %x\n  output user_output %x\n}\n");
  };
  const std::string transposed = "  %v: f32[3, 2]<stride=[1, 3]> = aten::t(%x)\n";
  auto has = [](const ExportedProgram& p) {
    const auto traits = programTraits(p);
    return std::find(traits.begin(), traits.end(), "resizes-a-strided-view-to-its-sizes") != traits.end();
  };
  EXPECT_TRUE(has(program(transposed, "[3, 2]")));
  EXPECT_FALSE(has(program(transposed, "[6]")));
  EXPECT_FALSE(has(program("  %v: f32[2, 3] = aten::alias(%x)\n", "[2, 3]")));
}

// A resize of a graph input (an out= call into it, unsqueeze_ of it) or of a view of one;
// an out= call into an input of the result's sizes, or a resize of a fresh tensor, is none.
TEST(RootCause, ResizingAnInputIsATrait) {
  auto program = [](const std::string& out, const std::string& call) {
    return test::parse(R"EPT(graph {
  %x: f32[6] = placeholder
  %y: i64[)EPT" + out + R"EPT(] = placeholder
  %fresh: i64[4, 1, 3, 2] = aten::zeros([4, 1, 3, 2], dtype=torch.int64)
  %r: )EPT" + call + R"EPT(
  return (%r)
}
signature {
  input user_input %x
  input user_input %y
  output user_output %r
}
)EPT");
  };
  const std::vector<std::string> trait{"resizes-an-input"};
  EXPECT_EQ(programTraits(program("4, 1, 3, 2", "i64[6] = aten::greater_equal.Scalar_out(%x, 2, out=%y)")), trait);
  EXPECT_EQ(programTraits(program("6", "i64[1, 6] = aten::unsqueeze_(%y, 0)")),
            (std::vector<std::string>{"mutates-metadata-in-place", "resizes-an-input"}));
  EXPECT_TRUE(programTraits(program("6", "i64[6] = aten::greater_equal.Scalar_out(%x, 2, out=%y)")).empty());
  EXPECT_TRUE(programTraits(program("6", "i64[6] = aten::greater_equal.Scalar_out(%x, 2, out=%fresh)")).empty());
}

// An out= call that resizes a tensor an in-place metadata mutation changed before (a D8
// case of a 30-minute campaign); an out= call of the sizes it has is none.
TEST(RootCause, ResizingAfterAMetadataMutationIsATrait) {
  auto program =
      [](const std::string& from) {
        return test::parse(R"EPT(graph {
  %x: f32[1] = placeholder
  %e: f32[)EPT" + from + R"EPT(] = placeholder
  %w: f32[1] = aten::clone(%x)
  %u: f32[1, 1] = aten::unsqueeze_(%w, 0)
  %elu: f32[)EPT" + from + R"EPT(] = aten::elu.out(%e, 2.5, 3, out=%u)
  return (%u)
}
signature {
  input user_input %x
  input user_input %e
  output user_output %u
}
)EPT");
      };
  EXPECT_EQ(programTraits(program("0")),
            (std::vector<std::string>{"mutates-metadata-in-place", "resizes-after-a-metadata-mutation"}));
  EXPECT_EQ(programTraits(program("1, 1")), (std::vector<std::string>{"mutates-metadata-in-place"}));
  // The out named by the node unsqueeze_ wrote, whose own meta is its size before: [1, 1]
  // back to [1] is a resize (a 2.13 campaign's D8 case, zeros_like.out after unsqueeze_).
  const auto by_its_node = test::parse(R"EPT(graph {
  %x: f32[1] = placeholder
  %e: f32[1] = placeholder
  %w: f32[1] = aten::clone(%x)
  %u: f32[1, 1] = aten::unsqueeze_(%w, 0)
  %elu: f32[1] = aten::elu.out(%e, 2.5, 3, out=%w)
  return (%elu)
}
signature {
  input user_input %x
  input user_input %e
  output user_output %elu
}
)EPT");
  EXPECT_EQ(programTraits(by_its_node),
            (std::vector<std::string>{"mutates-metadata-in-place", "resizes-after-a-metadata-mutation"}));
}

// An out= call that resizes what an in-place call returned (eye(1, out=) of m.cos_()): a
// composite op (vsplit) reading m afterwards reads the out under another name; an op with
// a kernel of its own (neg) reading it is no trait (torch alone: vsplit raises after
// run_decompositions, neg does not).
TEST(RootCause, ACompositeReadOfTheSelfOfAnInPlaceOutIsATrait) {
  auto program = [](const std::string& read) {
    return test::parse(R"EPT(graph {
  %x: f32[3] = placeholder
  %mean: f32[] = aten::mean.dim(%x, [0])
  %cos_: f32[] = aten::cos_(%mean)
  %eye: f32[1, 1] = aten::eye.out(1, out=%cos_)
  %r: )EPT" + read + R"EPT(
  return (%r)
}
signature {
  input user_input %x
  output user_output %r
}
)EPT");
  };
  EXPECT_EQ(programTraits(program("f32[1] = aten::flatten.using_ints(%mean)")),
            (std::vector<std::string>{"composite-reads-an-out-resize"}));
  EXPECT_TRUE(programTraits(program("f32[1, 1] = aten::neg(%mean)")).empty());
  EXPECT_TRUE(programTraits(program("f32[1, 1] = aten::neg(%eye)")).empty());
}

// An out= call that resizes its out, whose result or out (or an in-place call's return of
// one) a CompositeImplicitAutograd op (numpy_T) reads afterwards; an op with a kernel of its own (t), or an out= call that
// keeps the sizes, is none.
TEST(RootCause, ACompositeReadOfAnOutResizeIsATrait) {
  auto program = [](const std::string& out_sizes, const std::string& read) {
    return test::parse(R"EPT(graph {
  %x: f32[3, 5] = placeholder
  %o: f32[)EPT" + out_sizes +
                       R"EPT(] = placeholder
  %erfcx: f32[3, 5] = aten::special_erfcx.out(%x, out=%o)
  %r: f32[5, 3] = )EPT" +
                       read + R"EPT(
  return (%r)
}
signature {
  input user_input %x
  input user_input %o
  output user_output %r
}
)EPT");
  };
  // The out resized is an input.
  const std::vector<std::string> trait{"composite-reads-an-out-resize", "resizes-an-input"};
  EXPECT_EQ(programTraits(program("2, 5, 8", "aten::numpy_T(%erfcx)")), trait);
  EXPECT_EQ(programTraits(program("2, 5, 8", "aten::numpy_T(%o)")), trait);
  EXPECT_EQ(programTraits(program("2, 5, 8", "aten::t(%erfcx)")), (std::vector<std::string>{"resizes-an-input"}));
  EXPECT_TRUE(programTraits(program("3, 5", "aten::numpy_T(%erfcx)")).empty());
  // Through what an in-place call on the result returns (a 2.13 campaign's D8 case, sinc_
  // then moveaxis; torch alone raises the same with or without the sinc_).
  const auto through = test::parse(R"EPT(graph {
  %x: f32[3, 5] = placeholder
  %o: f32[2, 5, 8] = placeholder
  %erfcx: f32[3, 5] = aten::special_erfcx.out(%x, out=%o)
  %sinc_: f32[3, 5] = aten::sinc_(%erfcx)
  %r: f32[5, 3] = aten::numpy_T(%sinc_)
  return (%r)
}
signature {
  input user_input %x
  input user_input %o
  output user_output %r
}
)EPT");
  EXPECT_EQ(programTraits(through), trait);
}

// An out= call that resizes a tensor set_ pointed at another's storage, which is read after
// it; without the read, none.
TEST(RootCause, ResizingAfterASetIsATrait) {
  auto program = [](const std::string& read) {
    return test::parse(R"EPT(graph {
  %x: f32[1, 1, 1] = placeholder
  %e: f32[1, 0] = placeholder
  %set_: f32[1, 0] = aten::set_.source_Tensor(%x, %e)
  %kaiser_window: f32[0] = aten::kaiser_window.out(0, out=%x)
  %neg: f32[1, 0] = aten::neg()EPT" +
                       read + R"EPT()
  return (%neg)
}
signature {
  input user_input %x
  input user_input %e
  output user_output %neg
}
)EPT");
  };
  // x, resized by both calls, is an input.
  EXPECT_EQ(programTraits(program("%e")), (std::vector<std::string>{"resizes-after-set", "resizes-an-input"}));
  EXPECT_EQ(programTraits(program("%kaiser_window")), (std::vector<std::string>{"resizes-an-input"}));
}

}  // namespace
}  // namespace epsmith
