// Root causes (Note [Root causes]): message templates from findings and from the reports of
// older case files, core op names, the slice of a mismatch, the ops a failure needs, and the
// known-bugs list, including that every upstream bug the checked-in corpus knows is in it.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fuzz/corpus.h"
#include "fuzz/generalize.h"
#include "fuzz/known_bugs.h"
#include "fuzz/root_cause.h"
#include "generators/op_catalog.h"
#include "tests/support/program_text.h"

namespace epsmith {
namespace {

CheckOutcome recorded(const std::string& kind, const std::string& report) {
  CheckOutcome o;
  o.status = CheckOutcome::Status::Finding;
  o.kind = kind;
  o.report = report;
  return o;
}

std::string templateOf(const std::string& kind, const std::string& report) {
  return messageTemplate(recorded(kind, report));
}

// Reports as the comparator writes them (the checked-in corpus has each of these).
TEST(RootCause, OneMessageThroughManyOpsHasOneTemplate) {
  const std::string select =
      "exception in actual only: node %select_1: aten::select.int: Dimension out of range (expected to be in "
      "range of [-1, 0], but got 1)\n  expected completed with 2 output(s)";
  const std::string transpose =
      "exception in actual only: node %t_: aten::t_: Dimension out of range (expected to be in range of [-2, 1], "
      "but got 3)\n  expected completed with 1 output(s)";
  EXPECT_EQ(templateOf("exception-in-one", select), "Dimension out of range (expected to be in range of [...], but got N)");
  EXPECT_EQ(templateOf("exception-in-one", select), templateOf("exception-in-one", transpose));
  // Quoted and bare op names, dtype names, sizes and decimals vary too.
  EXPECT_EQ(templateOf("exception-in-one", "exception in actual only: node %abs_: aten::abs_: Could not run "
                                           "'aten::abs.out' with arguments from the 'Meta' backend."),
            templateOf("exception-in-one", "exception in actual only: node %nan_to_num: aten::nan_to_num: Could not "
                                           "run 'aten::nan_to_num.out' with arguments from the 'Meta' backend."));
  EXPECT_EQ(normalizedMessage("aten::abs.out: attempted to run this operator with Meta tensors"),
            "aten::*: attempted to run this operator with Meta tensors");
  EXPECT_EQ(normalizedMessage("self.stride(-1) must be 1 to view Float as Half"), "self.stride(N) must be N to view DTYPE as DTYPE");
  EXPECT_EQ(normalizedMessage("expand(CPUHalfType{[1, 2]}, size=[3])"), "expand(DTYPE{[...]}, size=[...])");
  EXPECT_EQ(templateOf("exception-in-one", "exception in actual only: node %v: aten::view: shape '[2, 3]' is invalid "
                                           "for input of size 5"),
            "shape '[...]' is invalid for input of size N");
}

TEST(RootCause, DifferentMessagesHaveDifferentTemplates) {
  const std::string dims = "exception in actual only: node %s: aten::select.int: Dimension out of range (expected to "
                           "be in range of [-1, 0], but got 1)";
  const std::string sizes = "exception in actual only: node %s: aten::select.int: The size of tensor a (2) must match "
                            "the size of tensor b (3) at non-singleton dimension 0";
  EXPECT_NE(templateOf("exception-in-one", dims), templateOf("exception-in-one", sizes));
  // Which side raised is part of the message: eager refusing is another bug.
  EXPECT_EQ(templateOf("exception-in-one", "exception in expected only: node %s: aten::s: got 1"), "in expected only: got N");
  // Negative numbers are numbers; digits in a name are the name's; a sentence's full stop stays.
  EXPECT_EQ(normalizedMessage("got -1"), normalizedMessage("got 3"));
  EXPECT_EQ(normalizedMessage("a Caffe2 tensor"), "a Caffe2 tensor");
  EXPECT_EQ(normalizedMessage("slice() cannot be applied to a 0-dim tensor."), "slice() cannot be applied to a N-dim tensor.");
}

// Note [Root causes]: a value or shape mismatch is its kind, whatever its dtype and wherever
// it shows; a dtype mismatch keeps its dtypes. A finding's own message and the report of an
// older case file give one template.
TEST(RootCause, MismatchTemplates) {
  EXPECT_EQ(templateOf("value-mismatch", "value mismatch at output 0 (f32[], rtol 1.3e-06, atol 1e-05): 1 of 1 elements "
                                         "differ"),
            "value mismatch");
  EXPECT_EQ(templateOf("value-mismatch", "value mismatch at input user_input:x0 (i64[2], exact): 1 of 2 elements differ"),
            "value mismatch");
  EXPECT_EQ(templateOf("shape-mismatch", "shape mismatch at output 0: expected f32[0, 0], actual f32[1, 0, 0]"),
            "shape mismatch");
  EXPECT_EQ(templateOf("dtype-mismatch", "dtype mismatch at output 1: expected f16[2], actual f32[2]"),
            "dtype mismatch (f16 expected, f32 actual)");
  CheckOutcome live = recorded("dtype-mismatch", "");
  live.message = "dtype mismatch (f16 expected, f32 actual)";
  EXPECT_EQ(messageTemplate(live), "dtype mismatch (f16 expected, f32 actual)");
  EXPECT_EQ(templateOf("crash-SIGSEGV", "the worker died (crash-SIGSEGV) in D2 while running aten::expm1_"), "");
  EXPECT_EQ(templateOf("escaped-exception", "an exception escaped the check: std::bad_alloc"), "std::bad_alloc");
  // Different exceptions: the actual side's error.
  EXPECT_EQ(templateOf("different-exceptions", "different exceptions:\n  expected: node %a: aten::mm: mat1 and mat2 "
                                              "shapes cannot be multiplied (2x3 and 4x5)\n  actual:   node %a: aten::mm: "
                                              "tried to directly modify sizes for customized tensor"),
            "tried to directly modify sizes for customized tensor");
}

TEST(RootCause, CoreOpNamesMergeInPlaceOutAndFunctionalForms) {
  EXPECT_EQ(coreOpName("aten::add_.Tensor"), "add");
  EXPECT_EQ(coreOpName("aten::add.out"), "add");
  EXPECT_EQ(coreOpName("aten::add.Scalar"), "add");
  EXPECT_EQ(coreOpName("aten::relu"), "relu");
  EXPECT_EQ(coreOpName("aten::__iand__.Tensor"), "__iand__");
  EXPECT_EQ(coreOpName("aten::_foreach_add_.Scalar"), "_foreach_add");
  EXPECT_EQ((RootCause{"D2", "exception-in-one", "m", {"add"}}.family()), "D2 exception-in-one: m");
}

// Note [Op aliases from the JIT's normalization]: another name of an op is the op.
TEST(RootCause, CoreOpNamesMergeAnOpsOtherNames) {
  EXPECT_EQ(coreOpName("aten::divide_.Scalar"), "div");
  EXPECT_EQ(coreOpName("aten::divide.out"), "div");
  EXPECT_EQ(coreOpName("aten::swapaxes"), "transpose");
  EXPECT_EQ(coreOpName("aten::swapdims_"), "transpose");
  EXPECT_EQ(coreOpName("aten::clip_.Tensor"), "clamp");
  EXPECT_EQ(coreOpName("aten::arccos"), "acos");
  EXPECT_EQ(coreOpName("aten::moveaxis.int"), "movedim");
  EXPECT_EQ(coreOpName("aten::div.Tensor"), "div");
  EXPECT_EQ(coreOpName("aten::transpose.int"), "transpose");
}

const char* kSliced = R"EPT(graph {
  %x: f32[2, 2] = placeholder
  %y: f32[2, 2] = placeholder
  %sin: f32[2, 2] = aten::sin(%x)
  %t: f32[2, 2] = aten::t(%sin)
  %neg_: f32[2, 2] = aten::neg_(%t)
  %cos: f32[2, 2] = aten::cos(%y)
  %exp_: f32[2, 2] = aten::exp_(%y)
  return (%exp_, %sin, %cos)
}
signature {
  input user_input %x
  input user_input %y
  output user_input_mutation %exp_ -> "y"
  output user_output %sin
  output user_output %cos
}
storages {
  $0: f32[4] = [1.0, 2.0, 3.0, 4.0]
  $1: f32[4] = [1.0, 2.0, 3.0, 4.0]
}
example_inputs {
  $0 f32[2, 2]
  $1 f32[2, 2]
}
)EPT";

// Note [The slice of a mismatch]: what an output is computed from and what writes into it
// (neg_ writes sin through a view), or into what it is computed from (exp_ writes y, here
// after cos read it: the slice does not look at the order); a mutated input's writers;
// everything where `where` names nothing.
TEST(RootCause, TheSliceOfAMismatch) {
  const ExportedProgram p = test::parse(kSliced);
  EXPECT_EQ(sliceOps(p, "output 0"), (std::vector<std::string>{"neg", "sin", "t"}));
  EXPECT_EQ(sliceOps(p, "output 1"), (std::vector<std::string>{"cos", "exp"}));
  EXPECT_EQ(sliceOps(p, "input user_input:y"), (std::vector<std::string>{"exp"}));
  EXPECT_EQ(sliceOps(p, ""), coreOps(p));
}

// A program that writes %x through cos.out after taking a view of it; `between` runs after
// the write, `sizes` is what cos.out leaves %x with.
std::string writtenAfterAView(const std::string& view, const std::string& sizes, const std::string& after) {
  return "graph {\n  %x: f32[2] = placeholder\n  %y: f32" + sizes + " = placeholder\n" + view +
         "  %cos: f32" + sizes + " = aten::cos.out(%y, out=%x)\n" + after + "  return (%cos, %cos)\n}\n"
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
}

// A write into what a schema that hides an alias made: the functional set's result shares
// its source's storage.
TEST(RootCause, AWriteIntoAnUndeclaredAliasIsATrait) {
  auto program = [](const std::string& written) {
    return test::parse(R"EPT(graph {
  %x: f32[2] = placeholder
  %y: f32[2] = placeholder
  %set: f32[2] = aten::set.source_Tensor(%x, %y)
  %neg: f32[2] = aten::neg(%y)
  %cos_: f32[2] = aten::cos_()EPT" + written + R"EPT()
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
  const ExportedProgram out_form = test::parse(R"EPT(graph {
  %x: f32[2, 5]<stride=[1, 0]> = placeholder
  %o: f32[2, 5] = aten::zeros([2, 5])
  %c: f32[2, 5] = aten::conj_physical.out(%x, out=%o)
  %l: f32[2, 5] = aten::ldexp_(%c, %x)
  return (%l)
}
signature {
  input user_input %x
  output user_output %l
}
)EPT");
  EXPECT_EQ(programTraits(out_form), (std::vector<std::string>{"writes-an-undeclared-alias"}));
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
)EPT" + (read_after ? write + read : read + write) + R"EPT(  return (%neg)
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
  %acos_: f32[1, 8] = aten::acos_(%)EPT" + written + R"EPT()
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

// set_ from a source of another dtype: self takes the source's dtype eagerly.
TEST(RootCause, SettingFromAnotherDtypeIsATrait) {
  auto program = [](const std::string& source) {
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
  %x: f32[3]<offset=)EPT" + offset + R"EPT(> = placeholder
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
  %r: f32[2] = )EPT" + call + R"EPT(
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
  %v: f32[2] = )EPT" + op + R"EPT((%c, 1)
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
  EXPECT_EQ(programTraits(program("aten::unfold(%x, 1, 0, 1)", "2, 6, 0")), gaps);    // empty windows
  EXPECT_EQ(programTraits(program("aten::unfold(%x, 1, 1, 3)", "2, 2, 1")), gaps);    // a step past the window
  EXPECT_EQ(programTraits(program("aten::unfold(%x, -1, 2, 2)", "2, 2, 2")), gaps);   // an uncovered tail
  EXPECT_EQ(programTraits(program("aten::unfold(%x, 1, 1, 3)", "2, 2, 1", true)), gaps);
  EXPECT_TRUE(programTraits(program("aten::unfold(%x, 1, 5, 1)", "2, 1, 5")).empty()); // one window, all of it
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
  %le_: f32[)EPT" + std::string(written == "x" ? "1, 3" : written == "select" ? "3" : "1, 3") +
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
  %v: )EPT" + short_name + R"EPT([1, 4] = aten::view.dtype(%x, torch.)EPT" + dtype + R"EPT()
  %piece: )EPT" + short_name + R"EPT([1, 0] = aten::slice.Tensor(%v, 1, 0, 0)
  %w: )EPT" + short_name + R"EPT([1, 0] = aten::sgn_(%piece)
  return (%x)
}
signature {
  input user_input %x
  output user_output %x
}
)EPT");
  };
  EXPECT_EQ(programTraits(program("bool", "b8")), (std::vector<std::string>{"writes-through-a-bool-view"}));
  EXPECT_TRUE(programTraits(program("uint8", "u8")).empty());
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
  auto program = [](const std::string& from) {
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
}

// requires_grad_ of a periodic window of two elements or more, which eager makes as a view
// (Note [Factories eager returns as views]), or of a view of one; of a symmetric window,
// of a window of one element, or of another factory's result, it is none.
TEST(RootCause, RequiresGradOfAFactoryViewIsATrait) {
  auto program = [](const std::string& made, const std::string& n, const std::string& through) {
    return test::parse(R"EPT(graph {
  %w: f64[)EPT" + n + R"EPT(] = aten::)EPT" + made + R"EPT(
  %m: f64[)EPT" + n + R"EPT(] = aten::movedim.intlist(%w, [0], [0])
  %r: f64[)EPT" + n + R"EPT(]<requires_grad=True> = aten::requires_grad_(%)EPT" + through + R"EPT()
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

// An out= call that resizes what an in-place call returned, whose self is read after; a
// read of the out= call's own result is none.
TEST(RootCause, ResizingAnInPlaceAliasIsATrait) {
  auto program = [](const std::string& read) {
    return test::parse(R"EPT(graph {
  %x: f32[3] = placeholder
  %mean: f32[] = aten::mean.dim(%x, [0])
  %cos_: f32[] = aten::cos_(%mean)
  %eye: f32[1, 1] = aten::eye.out(1, out=%cos_)
  %neg: f32[1, 1] = aten::neg(%)EPT" + read + R"EPT()
  return (%neg)
}
signature {
  input user_input %x
  output user_output %neg
}
)EPT");
  };
  EXPECT_EQ(programTraits(program("mean")), (std::vector<std::string>{"resizes-an-in-place-alias"}));
  EXPECT_TRUE(programTraits(program("eye")).empty());
}

// An out= call that resizes its out, whose result or out a CompositeImplicitAutograd op
// (numpy_T) reads afterwards; an op with a kernel of its own (t), or an out= call that
// keeps the sizes, is none.
TEST(RootCause, ACompositeReadOfAnOutResizeIsATrait) {
  auto program = [](const std::string& out_sizes, const std::string& read) {
    return test::parse(R"EPT(graph {
  %x: f32[3, 5] = placeholder
  %o: f32[)EPT" + out_sizes + R"EPT(] = placeholder
  %erfcx: f32[3, 5] = aten::special_erfcx.out(%x, out=%o)
  %r: f32[5, 3] = )EPT" + read + R"EPT(
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
  %neg: f32[1, 0] = aten::neg()EPT" + read + R"EPT()
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

// A known-bugs entry that names a trait matches only root causes that have it.
TEST(KnownBugs, AnEntryWithATraitMatchesOnlyProgramsThatHaveIt) {
  auto list = KnownBugs::parse(R"({"epsmith_known_bugs": 1, "bugs": [{"id": "resize", "check": "D2",
      "traits": ["resizes-a-viewed-tensor"], "why": "test"}]})", "test");
  ASSERT_TRUE(list.ok()) << list.error().str();
  RootCause root{"D2", "exception-in-one", "shape '[...]' is invalid for input of size N", {"cos", "neg"}};
  EXPECT_EQ(list->match(root, "2.13"), nullptr);
  root.traits = {"resizes-a-viewed-tensor"};
  ASSERT_NE(list->match(root, "2.13"), nullptr);
  EXPECT_EQ(list->match(root, "2.13")->id, "resize");
  auto bad = KnownBugs::parse(R"({"epsmith_known_bugs": 1, "bugs": [{"id": "x", "traits": ["resized"], "why": "t"}]})",
                              "bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().str().find("bad.json: $.bugs[0].traits: unknown program trait 'resized'"), std::string::npos)
      << bad.error().str();
}

// Note [Ops a failure does not depend on], with a predicate standing in for the checks.
TEST(RootCause, OpsAFailureNeedsByNameByKindOrNotAtAll) {
  const ExportedProgram p = test::parse(kSliced);
  auto catalog = OpCatalog::build();
  ASSERT_TRUE(catalog.ok());
  const OpShapes shapes(catalog.value());
  auto calls = [](const ExportedProgram& q, std::string_view name) {
    int n = 0;
    for (const Node& node : q.graph().nodes()) {
      n += node.op() == OpKind::CallFunction && node.target.kind() == Target::Kind::Aten &&
           node.target.op()->name() == name;
    }
    return n;
  };
  // Fails while neg_ is called: neg by name; exp_ stands in for... nothing it needs; the
  // functional ops' values alone matter, so they are left out.
  int runs = 0;
  auto needs_neg = [&](const ExportedProgram& q, const OpInfo&, const OpInfo&) { return calls(q, "aten::neg_") > 0; };
  const auto named = generalizedOps(p, shapes, needs_neg, &runs);
  EXPECT_NE(std::find(named.begin(), named.end(), "neg"), named.end());
  EXPECT_EQ(std::find(named.begin(), named.end(), "sin"), named.end());
  EXPECT_EQ(std::find(named.begin(), named.end(), "cos"), named.end());
  EXPECT_GT(runs, 0);
  // Fails while any unary in-place op writes x's view: neg_ is needed by its kind only.
  auto needs_two_writes = [&](const ExportedProgram& q, const OpInfo&, const OpInfo&) {
    int writes = 0;
    for (const Node& node : q.graph().nodes()) {
      writes += node.op() == OpKind::CallFunction && node.target.kind() == Target::Kind::Aten &&
                node.target.op()->name().back() == '_';
    }
    return writes == 2;
  };
  const auto classed = generalizedOps(p, shapes, needs_two_writes, &runs);
  EXPECT_EQ(std::find(classed.begin(), classed.end(), "neg"), classed.end());
  EXPECT_NE(std::find(classed.begin(), classed.end(), "*op"), classed.end());
}

const char* kKnown = R"JSON({
  "epsmith_known_bugs": 1,
  "bugs": [
    {"id": "lost", "libtorch": ["2."], "check": "D2", "kind": ["exception-in-one", "shape-mismatch"],
     "message": "^Dimension out of range", "ops": ["squeeze", "transpose"], "why": "a lost metadata mutation"},
    {"id": "family", "libtorch": ["1.13"], "check": "D2", "kind": "crash-SIGSEGV", "template": "",
     "issue": "https://github.com/pytorch/pytorch/issues/1"},
    {"id": "both", "check": ["D2", "D8"], "message": "^A view was", "why": "one bug two checks meet"}
  ]
})JSON";

TEST(KnownBugs, EntriesMatchByCheckKindMessageOpsAndRelease) {
  auto list = KnownBugs::parse(kKnown, "known.json");
  ASSERT_TRUE(list.ok()) << list.error().str();
  const RootCause lost{"D2", "exception-in-one", "Dimension out of range (got N)", {"select", "squeeze"}};
  ASSERT_NE(list->match(lost, "2.13"), nullptr);
  EXPECT_EQ(list->match(lost, "2.13")->id, "lost");
  EXPECT_EQ(list->match(lost, "1.13"), nullptr);  // another release
  EXPECT_EQ(list->match({"D1", lost.kind, lost.message, lost.ops}, "2.13"), nullptr);
  EXPECT_EQ(list->match({"D2", lost.kind, lost.message, {"select"}}, "2.13"), nullptr);  // none of its ops
  EXPECT_EQ(list->match({"D2", lost.kind, "The size of tensor a", lost.ops}, "2.13"), nullptr);
  EXPECT_NE(list->match({"D2", "shape-mismatch", "Dimension out of range", lost.ops}, "2.13"), nullptr);
  // A crash's signals are one kind; an empty template matches only an empty one.
  EXPECT_NE(list->match({"D2", crashKind("crash-SIGABRT"), "", {"expm1"}}, "1.13"), nullptr);
  // An entry may name several checks, any one of which matches.
  for (const char* check : {"D2", "D8"}) {
    const KnownBug* both = list->match({check, "decompositions-raise", "A view was made", {}}, "2.13");
    ASSERT_NE(both, nullptr) << check;
    EXPECT_EQ(both->id, "both");
  }
  EXPECT_EQ(list->match({"D5", "decompositions-raise", "A view was made", {}}, "2.13"), nullptr);
}

TEST(KnownBugs, ABadListIsALocatedError) {
  auto error = [](const std::string& text) {
    auto list = KnownBugs::parse(text, "k.json");
    return list.ok() ? std::string("ok") : list.error().str();
  };
  EXPECT_EQ(error(R"({"epsmith_known_bugs": 2, "bugs": []})"), "k.json: $.epsmith_known_bugs: unknown version (this epsmith reads 1)");
  EXPECT_EQ(error(R"({"epsmith_known_bugs": 1, "bugs": [{"id": "a", "message": "(", "why": "w"}]})").rfind(
                "k.json: $.bugs[0].message: bad regex", 0),
            0u);
  EXPECT_EQ(error(R"({"epsmith_known_bugs": 1, "bugs": [{"id": "a"}]})"),
            "k.json: $.bugs[0]: an entry needs its \"issue\" or a \"why\"");
  EXPECT_EQ(error(R"({"epsmith_known_bugs": 1, "bugs": [{"id": "a", "why": "w"}, {"id": "a", "why": "w"}]})"),
            "k.json: $.bugs[1].id: a second entry with this id");
  EXPECT_NE(error(R"({"epsmith_known_bugs": 1, "bugs": [{"id": "a", "why": "w", "kinds": "x"}]})").find("kinds"),
            std::string::npos);
  EXPECT_EQ(error("{").rfind("k.json: 1:", 0), 0u) << error("{");
}

// Known upstream bugs are never filed again: every upstream bug of the checked-in corpus,
// mismatches included, is an instance of an entry of corpus/known.json on the release it was
// found on, so a campaign that reads no corpus (run outside a checkout) files none of them;
// and none of the bugs of ours there (fixed or open) is.
TEST(KnownBugs, TheCorpusUpstreamBugsAreKnown) {
  auto list = KnownBugs::load(std::string(EPSMITH_SOURCE_DIR) + "/corpus/known.json");
  ASSERT_TRUE(list.ok()) << list.error().str();
  auto files = caseFilesUnder({std::string(EPSMITH_SOURCE_DIR) + "/corpus/regressions"});
  ASSERT_TRUE(files.ok());
  int upstream = 0, ours = 0;
  for (const std::string& file : files.value()) {
    auto c = readCaseFile(file);
    ASSERT_TRUE(c.ok()) << c.error().str();
    if (c->check == "D3") continue;  // CPU against CUDA: replayed where CUDA is, not listed
    const KnownBug* bug = list->match(rootCauseOf(c.value()), c->provenance.libtorch);
    if (c->status == CaseStatus::KnownUpstream) {
      ++upstream;
      EXPECT_NE(bug, nullptr) << file << ": " << rootCauseOf(c.value()).str();
    } else if (c->status != CaseStatus::KnownUpstream) {
      ++ours;
      EXPECT_EQ(bug, nullptr) << file << " is a bug of ours, but matches " << bug->id;
    }
  }
  EXPECT_GT(upstream, 100);
  EXPECT_GT(ours, 40);
}

}  // namespace
}  // namespace epsmith
