// Root causes (Note [Root causes]): message templates from findings, core op names, the
// slice of a mismatch, the ops a failure needs, and the known-bugs list, including that
// every upstream bug the checked-in corpus knows is in it.
#include <gtest/gtest.h>

#include <filesystem>

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

// A finding as a check records it: its kind and its message, which keys it whatever its
// report says.
CheckOutcome recorded(const std::string& kind, const std::string& message) {
  CheckOutcome o;
  o.status = CheckOutcome::Status::Finding;
  o.kind = kind;
  o.message = message;
  o.report = "a report that names other ops: aten::mm, aten::add.Tensor";
  return o;
}

std::string templateOf(const std::string& kind, const std::string& message) {
  return messageTemplate(recorded(kind, message));
}

// Messages as kernels raise them (the checked-in corpus has each of these).
TEST(RootCause, OneMessageThroughManyOpsHasOneTemplate) {
  const std::string select = "Dimension out of range (expected to be in range of [-1, 0], but got 1)";
  const std::string transpose = "Dimension out of range (expected to be in range of [-2, 1], but got 3)";
  EXPECT_EQ(templateOf("exception-in-one", select),
            "Dimension out of range (expected to be in range of [...], but got N)");
  EXPECT_EQ(templateOf("exception-in-one", select), templateOf("exception-in-one", transpose));
  // Quoted and bare op names, dtype names, sizes and decimals vary too.
  EXPECT_EQ(
      templateOf("exception-in-one", "Could not run 'aten::abs.out' with arguments from the 'Meta' backend."),
      templateOf("exception-in-one", "Could not run 'aten::nan_to_num.out' with arguments from the 'Meta' backend."));
  EXPECT_EQ(normalizedMessage("aten::abs.out: attempted to run this operator with Meta tensors"),
            "aten::*: attempted to run this operator with Meta tensors");
  EXPECT_EQ(normalizedMessage("self.stride(-1) must be 1 to view Float as Half"),
            "self.stride(N) must be N to view DTYPE as DTYPE");
  EXPECT_EQ(normalizedMessage("expand(CPUHalfType{[1, 2]}, size=[3])"), "expand(DTYPE{[...]}, size=[...])");
  // A call that raised in a grad or autocast region, a branch or a loop raises the bug's own
  // message.
  EXPECT_EQ(normalizedMessage("in the region, %fill_: Dimension out of range (expected to be in range of [-1, 0])"),
            normalizedMessage("Dimension out of range (expected to be in range of [-1, 0])"));
  EXPECT_EQ(normalizedMessage("in the true branch, %x: in the region, %y: boom 2"), "boom N");
  EXPECT_EQ(normalizedMessage("in the loop's body, %sin: boom 2"), "boom N");
  EXPECT_EQ(normalizedMessage("in the autocast region, %max_1: boom 2"), "boom N");
  EXPECT_EQ(normalizedMessage("in the loop's condition, %lt: boom 2"), "boom N");
  EXPECT_EQ(normalizedMessage("in the map's body, %sin: in the scan's combine function, %x: boom 2"), "boom N");
  // The C++ names caffe2::TypeMeta gives dtypes, where a dtype is named; other words stay.
  EXPECT_EQ(normalizedMessage("Expected out tensor to have dtype long int, but got c10::complex<float> instead"),
            normalizedMessage("Expected out tensor to have dtype float, but got bool instead"));
  EXPECT_EQ(normalizedMessage("Expected out tensor to have dtype float, but got c10::Half instead"),
            "Expected out tensor to have dtype DTYPE, but got DTYPE instead");
  EXPECT_EQ(normalizedMessage("expected an int or a float"), "expected an int or a float");
  EXPECT_EQ(templateOf("exception-in-one", "shape '[2, 3]' is invalid for input of size 5"),
            "shape '[...]' is invalid for input of size N");
}

TEST(RootCause, DifferentMessagesHaveDifferentTemplates) {
  const std::string dims = "Dimension out of range (expected to be in range of [-1, 0], but got 1)";
  const std::string sizes = "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0";
  EXPECT_NE(templateOf("exception-in-one", dims), templateOf("exception-in-one", sizes));
  // Which side raised is part of the message (the comparator says so): eager refusing is
  // another bug.
  EXPECT_EQ(templateOf("exception-in-one", "in expected only: got 1"), "in expected only: got N");
  EXPECT_NE(templateOf("exception-in-one", "in expected only: got 1"), templateOf("exception-in-one", "got 1"));
  // Negative numbers are numbers; digits in a name are the name's; a sentence's full stop stays.
  EXPECT_EQ(normalizedMessage("got -1"), normalizedMessage("got 3"));
  EXPECT_EQ(normalizedMessage("a Caffe2 tensor"), "a Caffe2 tensor");
  EXPECT_EQ(normalizedMessage("slice() cannot be applied to a 0-dim tensor."),
            "slice() cannot be applied to a N-dim tensor.");
}

// Note [Root causes]: a value or shape mismatch is its kind, whatever its dtype and wherever
// it shows; a dtype mismatch keeps its dtypes; a finding without a message has none.
TEST(RootCause, MismatchTemplates) {
  EXPECT_EQ(templateOf("value-mismatch", "value mismatch (f32)"), "value mismatch");
  EXPECT_EQ(templateOf("value-mismatch", "value mismatch (i64)"), "value mismatch");
  EXPECT_EQ(templateOf("shape-mismatch", "shape mismatch"), "shape mismatch");
  EXPECT_EQ(templateOf("dtype-mismatch", "dtype mismatch (f16 expected, f32 actual)"),
            "dtype mismatch (f16 expected, f32 actual)");
  EXPECT_NE(templateOf("dtype-mismatch", "dtype mismatch (f16 expected, f32 actual)"),
            templateOf("dtype-mismatch", "dtype mismatch (f64 expected, f32 actual)"));
  EXPECT_EQ(templateOf("crash-SIGSEGV", ""), "");
  EXPECT_EQ(templateOf("escaped-exception", "std::bad_alloc"), "std::bad_alloc");
}

TEST(RootCause, CoreOpNamesMergeInPlaceOutAndFunctionalForms) {
  EXPECT_EQ(coreOpName("aten::add_.Tensor"), "add");
  EXPECT_EQ(coreOpName("aten::add.out"), "add");
  EXPECT_EQ(coreOpName("aten::add.Scalar"), "add");
  EXPECT_EQ(coreOpName("aten::relu"), "relu");
  EXPECT_EQ(coreOpName("aten::__iand__.Tensor"), "__iand__");
  // Note [Ops that take another tensor's sizes]
  EXPECT_EQ(coreOpName("aten::reshape_as"), "reshape");
  EXPECT_EQ(coreOpName("aten::resize_as_"), "resize");
  EXPECT_EQ(coreOpName("aten::type_as"), "type_as");
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

// A known-bugs entry that names a trait matches only root causes that have it.
TEST(KnownBugs, AnEntryWithATraitMatchesOnlyProgramsThatHaveIt) {
  auto list = KnownBugs::parse(R"({"epsmith_known_bugs": 2, "bugs": [{"id": "resize", "check": "D2",
      "kind": "exception-in-one", "traits": ["resizes-a-viewed-tensor"], "path": "cpp-only", "issue": "unreported",
      "seen": ["2.13"], "why": "test"}]})",
                               "test");
  ASSERT_TRUE(list.ok()) << list.error().str();
  RootCause root{"D2", "exception-in-one", "shape '[...]' is invalid for input of size N", {"cos", "neg"}};
  EXPECT_EQ(list->match(root, "2.13"), nullptr);
  root.traits = {"resizes-a-viewed-tensor"};
  ASSERT_NE(list->match(root, "2.13"), nullptr);
  EXPECT_EQ(list->match(root, "2.13")->id, "resize");
  auto bad = KnownBugs::parse(R"({"epsmith_known_bugs": 2, "bugs": [{"id": "x", "check": "D2", "kind": "k",
      "traits": ["resized"], "why": "t"}]})",
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
      n += node.atenOp() && node.target.op()->name() == name;
    }
    return n;
  };
  // Fails while neg_ is called: neg by name; exp_ stands in for... nothing it needs; the
  // functional ops' values alone matter, so they are left out.
  int runs = 0;
  auto needs_neg = [&](const ExportedProgram& q, const OpInfo&, const OpInfo&) { return calls(q, "aten::neg_") > 0; };
  const auto named = generalizedOps(p, shapes, needs_neg, &runs).ops;
  EXPECT_NE(std::find(named.begin(), named.end(), "neg"), named.end());
  EXPECT_EQ(std::find(named.begin(), named.end(), "sin"), named.end());
  EXPECT_EQ(std::find(named.begin(), named.end(), "cos"), named.end());
  EXPECT_GT(runs, 0);
  // Fails while any unary in-place op writes x's view: neg_ is needed by its kind only.
  auto needs_two_writes = [&](const ExportedProgram& q, const OpInfo&, const OpInfo&) {
    int writes = 0;
    for (const Node& node : q.graph().nodes()) {
      writes += node.atenOp() && node.target.op()->name().back() == '_';
    }
    return writes == 2;
  };
  const GeneralizedOps g = generalizedOps(p, shapes, needs_two_writes, &runs);
  const auto& classed = g.ops;
  EXPECT_EQ(std::find(classed.begin(), classed.end(), "neg"), classed.end());
  EXPECT_NE(std::find(classed.begin(), classed.end(), "*op"), classed.end());
  // ... and its name is kept beside the key, for the known bugs to match.
  EXPECT_NE(std::find(g.classed.begin(), g.classed.end(), "neg"), g.classed.end());
}

const char* kInARegion = R"EPT(graph {
  %x: f32[2, 2] = placeholder
  %y: f32[2, 2] = placeholder
  %cos: f32[2, 2] = aten::cos(%y)
  %submod_0 = get_attr("submod_0")
  %wrap_with_set_grad_enabled: (f32[2, 2],) = higher_order.wrap_with_set_grad_enabled(False, graph(%submod_0), %x)
  %getitem: f32[2, 2] = operator.getitem(%wrap_with_set_grad_enabled, 0)
  return (%getitem, %cos)
  attr "submod_0" = graph {
    %x: f32[2, 2] = placeholder
    %sin: f32[2, 2] = aten::sin(%x)
    %neg_: f32[2, 2] = aten::neg_(%sin)
    return (%neg_)
  }
}
signature {
  input user_input %x
  input user_input %y
  output user_output %getitem
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

// A grad region's calls are the program's: the slice of what the region returns holds them,
// and an op a failure needs inside the region is kept by name or by its class.
TEST(RootCause, OpsInsideARegionAreTheFailures) {
  const ExportedProgram p = test::parse(kInARegion);
  EXPECT_EQ(sliceOps(p, "output 0"), (std::vector<std::string>{"neg", "sin"}));
  EXPECT_EQ(sliceOps(p, "output 1"), (std::vector<std::string>{"cos"}));
  auto catalog = OpCatalog::build();
  ASSERT_TRUE(catalog.ok());
  const OpShapes shapes(catalog.value());
  auto writes = [](const ExportedProgram& q, std::string_view named) {
    const Graph& region = *q.graph().attribute("submod_0")->subgraph;
    int n = 0;
    for (const Node& node : region.nodes()) {
      n += node.atenOp() && (named.empty() ? node.atenOp()->is_mutable : node.target.op()->name() == named);
    }
    return n;
  };
  int runs = 0;
  auto needs_neg = [&](const ExportedProgram& q, const OpInfo&, const OpInfo&) { return writes(q, "aten::neg_") > 0; };
  const auto named = generalizedOps(p, shapes, needs_neg, &runs).ops;
  EXPECT_NE(std::find(named.begin(), named.end(), "neg"), named.end());
  auto needs_a_write = [&](const ExportedProgram& q, const OpInfo&, const OpInfo&) { return writes(q, "") > 0; };
  const GeneralizedOps g = generalizedOps(p, shapes, needs_a_write, &runs);
  EXPECT_NE(std::find(g.ops.begin(), g.ops.end(), "*op"), g.ops.end());
  EXPECT_NE(std::find(g.classed.begin(), g.classed.end(), "neg"), g.classed.end());
}

const char* kKnown = R"JSON({
  "epsmith_known_bugs": 2,
  "bugs": [
    {"id": "lost", "check": "D2", "kind": ["exception-in-one", "shape-mismatch"], "message": "^Dimension out of range",
     "ops": ["squeeze", "transpose"], "path": "cpp-only", "issue": "unreported", "seen": ["2.11", "2.13"],
     "why": "a lost metadata mutation"},
    {"id": "family", "check": "D2", "kind": "crash-SIGSEGV", "frame": "at::functionalization", "path": "user",
     "issue": "https://github.com/pytorch/pytorch/issues/1", "seen": ["1.13"], "why": "a crash"},
    {"id": "both", "check": ["D2", "D8"], "kind": "decompositions-raise", "message": "^A view was", "ops": ["split"],
     "path": "user", "issue": "unreported", "seen": ["2.13"], "fixed": "2.14", "why": "one bug two checks meet"},
    {"id": "by-trait", "check": "D2", "kind": "value-mismatch", "traits": ["mutates-metadata-in-place"],
     "path": "cpp-only", "issue": "unreported", "seen": ["2.13"], "why": "a lost metadata mutation, no raise"}
  ]
})JSON";

TEST(KnownBugs, EntriesMatchByCheckKindMessageOpsAndRelease) {
  auto list = KnownBugs::parse(kKnown, "known.json");
  ASSERT_TRUE(list.ok()) << list.error().str();
  const RootCause lost{"D2", "exception-in-one", "Dimension out of range (got N)", {"select", "squeeze"}};
  ASSERT_NE(list->match(lost, "2.13.0"), nullptr);
  EXPECT_EQ(list->match(lost, "2.13.0")->id, "lost");
  EXPECT_NE(list->match(lost, "2.11.0+cu126"), nullptr);
  EXPECT_EQ(list->match(lost, "1.13.1"), nullptr);  // a release it was not seen on
  EXPECT_EQ(list->match(lost, "2.14.1"), nullptr);  // nor checked on: never an open range
  EXPECT_EQ(list->match({"D1", lost.kind, lost.message, lost.ops}, "2.13"), nullptr);
  EXPECT_EQ(list->match({"D2", lost.kind, lost.message, {"select"}}, "2.13"), nullptr);  // none of its ops
  // An op the key names by its class matches by its own name.
  RootCause classed{"D2", lost.kind, lost.message, {"*view:permute", "select"}};
  classed.class_ops = {"transpose"};
  EXPECT_NE(list->match(classed, "2.13"), nullptr);
  EXPECT_EQ(list->match({"D2", lost.kind, "The size of tensor a", lost.ops}, "2.13"), nullptr);
  EXPECT_NE(list->match({"D2", "shape-mismatch", "Dimension out of range", lost.ops}, "2.13"), nullptr);
  // Before minimization only the raising op is known: an entry naming it matches then.
  EXPECT_NE(list->match({"D2", lost.kind, lost.message, {"squeeze"}}, "2.13", MatchStage::Raised), nullptr);
  // A crash's signals are one kind, matched by the frame it died in, and only once minimized.
  const RootCause crash{"D2", crashKind("crash-SIGABRT"), "in at::functionalization::impl::sync", {"expm1"}};
  EXPECT_NE(list->match(crash, "1.13"), nullptr);
  EXPECT_EQ(list->match(crash, "1.13", MatchStage::Raised), nullptr);
  EXPECT_EQ(list->match({"D2", crash.kind, "in epsmith::crashPlantedFault", {"expm1"}}, "1.13"), nullptr);
  // An entry may name several checks, any one of which matches; it stops at its fix.
  for (const char* check : {"D2", "D8"}) {
    const KnownBug* both = list->match({check, "decompositions-raise", "A view was made", {"split"}}, "2.13");
    ASSERT_NE(both, nullptr) << check;
    EXPECT_EQ(both->id, "both");
  }
  EXPECT_EQ(list->match({"D5", "decompositions-raise", "A view was made", {"split"}}, "2.13"), nullptr);
  // A trait is read from the minimized program: a mismatch through a plain transpose is
  // not the lost metadata mutation of transpose_.
  RootCause plain{"D2", "value-mismatch", "value mismatch", {"transpose"}};
  EXPECT_EQ(list->match(plain, "2.13"), nullptr);
  plain.traits = {"mutates-metadata-in-place"};
  EXPECT_NE(list->match(plain, "2.13"), nullptr);
  EXPECT_EQ(list->match(plain, "2.13", MatchStage::Raised), nullptr);
}

TEST(KnownBugs, ReleasesCompareByNumber) {
  EXPECT_EQ(releaseOf("2.13.0+cpu"), "2.13");
  EXPECT_EQ(releaseOf("1.13.1"), "1.13");
  EXPECT_TRUE(releaseBefore("2.9", "2.13"));
  EXPECT_FALSE(releaseBefore("2.13", "2.13"));
  EXPECT_FALSE(releaseBefore("2.14", "2.13"));
}

TEST(KnownBugs, ABadListIsALocatedError) {
  auto error = [](const std::string& bugs) {
    auto list = KnownBugs::parse(R"({"epsmith_known_bugs": 2, "bugs": [)" + bugs + "]}", "k.json");
    return list.ok() ? std::string("ok") : list.error().str();
  };
  const std::string standing = R"("path": "user", "issue": "unreported", "seen": ["2.13"], "why": "w")";
  const std::string pattern = R"("check": "D2", "kind": "exception-in-one", "ops": ["add"], )";
  EXPECT_EQ(error(R"({"id": "a", )" + pattern + standing + "}"), "ok");
  auto list = KnownBugs::parse(R"({"epsmith_known_bugs": 1, "bugs": []})", "k.json");
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().str(), "k.json: $.epsmith_known_bugs: unknown version (this epsmith reads 2)");
  EXPECT_EQ(error(R"({"id": "a", "check": "D2", "kind": "k", "message": "(", "ops": ["add"], )" + standing + "}")
                .rfind("k.json: $.bugs[0].message: bad regex", 0),
            0u);
  // A message alone names a symptom, never a bug.
  EXPECT_EQ(error(R"({"id": "a", "check": "D2", "kind": "k", "message": "^Dimension out of range", )" + standing + "}"),
            "k.json: $.bugs[0]: an entry names its bug, not only its symptom: it needs \"ops\", \"traits\" or a "
            "crash's \"frame\"");
  EXPECT_EQ(error(R"({"id": "a", "check": "D2", "kind": "value-mismatch", "frame": "x", )" + standing + "}"),
            "k.json: $.bugs[0].frame: a frame names where a crash died: every kind must be a crash");
  EXPECT_NE(error(R"({"id": "a", )" + pattern + standing + R"(}, {"id": "a", )" + pattern + standing + "}")
                .find("$.bugs[1].id: a second entry with this id"),
            std::string::npos);
  // What it is: its path, issue and releases, never open-ended.
  EXPECT_EQ(
      error(R"({"id": "a", )" + pattern + R"("path": "user", "issue": "unreported", "seen": ["2."], "why": "w"})"),
      "k.json: $.bugs[0].seen[0]: '2.' is not a release (major.minor, as \"2.13\")");
  EXPECT_EQ(error(R"({"id": "a", )" + pattern + R"("path": "user", "issue": "unreported", "seen": [], "why": "w"})"),
            "k.json: $.bugs[0].seen: the releases it was seen on, at least one");
  EXPECT_EQ(error(R"({"id": "a", )" + pattern + R"("path": "p", "issue": "unreported", "seen": ["2.13"], "why": "w"})"),
            "k.json: $.bugs[0].path: 'p' is not a path (user, cpp-only, by-design)");
  EXPECT_EQ(error(R"({"id": "a", )" + pattern +
                  R"("path": "by-design", "issue": "unreported", "seen": ["2.13"], "why": "w"})"),
            "k.json: $.bugs[0]: a by-design entry needs the \"doc\" that says so");
  EXPECT_EQ(error(R"({"id": "a", )" + pattern + R"("path": "user", "issue": "#1", "seen": ["2.13"], "why": "w"})"),
            "k.json: $.bugs[0].issue: an issue is a link or \"unreported\"");
  EXPECT_EQ(error(R"({"id": "a", )" + pattern + standing + R"(, "fixed": "2.13"})"),
            "k.json: $.bugs[0].fixed: fixed in 2.13, but seen on 2.13");
  EXPECT_NE(error(R"({"id": "a", )" + pattern + R"("issue": "unreported", "seen": ["2.13"], "why": "w"})").find("path"),
            std::string::npos);
  EXPECT_NE(error(R"({"id": "a", )" + pattern + standing + R"(, "libtorch": ["2."]})").find("libtorch"),
            std::string::npos);
}

// Known upstream bugs are never filed again: every upstream bug of the checked-in corpus that
// was found on this LibTorch's release, mismatches included, is an instance of an entry of
// corpus/known.json, so a campaign that reads no corpus (run outside a checkout) files none
// of them; and none of the bugs of ours there (fixed or open) is. A case found on another
// release is read here by this release's op roles, which draw its core ops and traits
// otherwise (Note [Cases found on another LibTorch]): that release's build checks it.
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
    if (c->provenance.libtorch != libtorchVersion()) continue;
    const KnownBug* bug = list->match(rootCauseOf(c.value()), c->provenance.libtorch);
    if (c->status == CaseStatus::KnownUpstream) {
      ++upstream;
      EXPECT_NE(bug, nullptr) << file << ": " << rootCauseOf(c.value()).str();
    } else if (c->status != CaseStatus::KnownUpstream) {
      ++ours;
      EXPECT_EQ(bug, nullptr) << file << " is a bug of ours, but matches " << bug->id;
    }
  }
  if (upstream + ours == 0) GTEST_SKIP() << "no case of the corpus was found on LibTorch " << libtorchVersion();
  EXPECT_GT(upstream, 0);
}

// An entry's `repro` is the torch-only script beside a case of it that the entry matches,
// and that case records what the script established (docs/repro.md).
TEST(KnownBugs, EntriesNameTheScriptsOfTheirCases) {
  auto list = KnownBugs::load(std::string(EPSMITH_SOURCE_DIR) + "/corpus/known.json");
  ASSERT_TRUE(list.ok()) << list.error().str();
  int linked = 0;
  for (const KnownBug& bug : list->bugs()) {
    if (bug.repro.empty()) continue;
    ++linked;
    const std::filesystem::path script = std::filesystem::path(EPSMITH_SOURCE_DIR) / bug.repro;
    EXPECT_TRUE(std::filesystem::exists(script)) << bug.id << ": " << bug.repro;
    auto cases = caseFilesUnder({script.parent_path().string()});
    ASSERT_TRUE(cases.ok() && cases->size() == 1) << bug.id << ": no one case beside " << bug.repro;
    auto c = readCaseFile(cases->front());
    ASSERT_TRUE(c.ok()) << c.error().str();
    EXPECT_TRUE(c->upstream.has_value()) << cases->front() << " records no class";
    // Its core ops and traits are read from its program by this LibTorch's op roles, which
    // another release draws otherwise (Note [Cases found on another LibTorch]).
    if (c->provenance.libtorch != libtorchVersion()) continue;
    EXPECT_EQ(list->match(rootCauseOf(c.value()), c->provenance.libtorch), &bug) << cases->front();
  }
  EXPECT_GT(linked, 60);
}

}  // namespace
}  // namespace epsmith
