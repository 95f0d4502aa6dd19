// What a run of a finding's torch-only script establishes and the issue draft made of it
// (Note [A finding confirmed by torch alone]): each class from the runs that lead to it,
// written here as a script's output, so nothing depends on a bug of torch.
#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "fuzz/releases.h"
#include "fuzz/upstream.h"

namespace epsmith {
namespace {

CaseFile finding(std::string check, std::string kind, std::string message) {
  CaseFile c;
  c.bucket = "d8-test";
  c.check = std::move(check);
  c.finding.kind = std::move(kind);
  c.finding.message = std::move(message);
  c.finding.op = "aten::prod.int_out";
  return c;
}

ScriptRun exited(int code, std::string output) {
  ScriptRun run;
  run.exit_code = code;
  run.torch = "2.13.0+cpu";
  run.output = "torch 2.13.0+cpu\n" + output;
  return run;
}

TEST(Upstream, AScriptThatShowsTheCasesDifferenceConfirmsIt) {
  const CaseFile raises =
      finding("D8", "exception-in-one", "RuntimeError: a leaf Variable that requires grad is being used");
  auto r =
      classifyScriptRun(raises, exited(1,
                                       "eager ran; the path raised RuntimeError: a leaf Variable that requires grad is "
                                       "being used in an in-place operation.\nthe bug shows\n"));
  EXPECT_EQ(r.cls, UpstreamClass::TorchConfirmed);
  EXPECT_EQ(r.torch, "2.13.0+cpu");
  EXPECT_EQ(r.reason,
            "eager ran; the path raised RuntimeError: a leaf Variable that requires grad is being used in an in-place "
            "operation.");

  const CaseFile mismatch = finding("D8", "value-mismatch", "value mismatch (i64)");
  r = classifyScriptRun(mismatch, exited(1, "output 0: eager tensor([0]); the path tensor([-19])\nthe bug shows\n"));
  EXPECT_EQ(r.cls, UpstreamClass::TorchConfirmed);
}

// A script whose runs may meet a memory error as a crash or as an internal assert runs
// again until one shows the case's difference; one that shows nothing of a memory error
// runs once.
// (Note [A memory error in a script shows when it will])
TEST(Upstream, AScriptMeetingAMemoryErrorRunsAgain) {
  const std::filesystem::path counter =
      std::filesystem::temp_directory_path() / ("epsmith-runs-" + std::to_string(::getpid()));
  std::filesystem::remove(counter);
  const std::string script =
      "import os, signal\n"
      "p = '" +
      counter.string() +
      "'\n"
      "n = int(open(p).read()) + 1 if os.path.exists(p) else 1\n"
      "open(p, 'w').write(str(n))\n"
      "print('torch 2.13.0+cpu', flush=True)\n"
      "if n == 3: os.kill(os.getpid(), signal.SIGSEGV)\n"
      "print('eager ran; the path raised RuntimeError: !isFunctionalTensor(tensor) INTERNAL "
      "ASSERT FAILED')\nprint('the bug shows')\nraise SystemExit(1)\n";
  const CaseFile c = finding("D2", "exception-in-one", "RuntimeError: weight must be 2-D");
  ScriptRun run = runCaseScript(c, script, 30, "python3");
  EXPECT_EQ(run.signal, SIGSEGV) << run.output;
  EXPECT_EQ(classifyScriptRun(c, run).cls, UpstreamClass::TorchConfirmed);
  // A fourth run and on: the assert every time, and runs stop at kMemoryErrorRuns.
  run = runCaseScript(c, script, 30, "python3");
  EXPECT_EQ(run.signal, 0);
  std::ifstream in(counter);
  int runs = 0;
  in >> runs;
  EXPECT_EQ(runs, 3 + kMemoryErrorRuns);
  // Another difference with no sign of a memory error: once.
  std::filesystem::remove(counter);
  const std::string plain = "open('" + counter.string() + "', 'a').write('x')\nprint('torch 2.13.0+cpu')\n" +
                            "print('eager ran; the path raised RuntimeError: no')\nprint('the bug shows')\n" +
                            "raise SystemExit(1)\n";
  run = runCaseScript(c, plain, 30, "python3");
  EXPECT_EQ(classifyScriptRun(c, run).cls, UpstreamClass::Unconfirmed);
  EXPECT_EQ(std::filesystem::file_size(counter), 1u);
  // A known-bugs entry's script, which claims to show it, runs again whatever it showed.
  std::filesystem::remove(counter);
  run = runCaseScript(c, plain, 30, "python3", /*until_shown=*/true);
  EXPECT_EQ(std::filesystem::file_size(counter), static_cast<uintmax_t>(kMemoryErrorRuns));
  std::filesystem::remove(counter);
}

// A script's exception says the case's message in Python's words: sizes as torch.Size and
// tuples, tensor types as torch.FloatTensor, a traced graph module's class as '<lambda>'; a
// message that opens with a quoted kernel name keeps that name in what must match; where
// in a subgraph a call raised is no part of it.
TEST(Upstream, AScriptsExceptionMatchesInPythonsWords) {
  struct Row {
    const char* message;  // the case's
    const char* raised;   // what the script's path raised
    bool confirmed;
  };
  const Row rows[] = {
      {"output with shape [] doesn't match the broadcast shape [1]",
       "RuntimeError: output with shape torch.Size([]) doesn't match the broadcast shape (1,)", true},
      {"ValueError: Cannot view a tensor with shape torch.Size([4, 8])",
       "ValueError: Cannot view a tensor with shape torch.Size([4, 8])", true},
      {"expand(CPUFloatType{[1]}, size=[]): the number of sizes",
       "RuntimeError: expand(torch.FloatTensor{[1]}, size=[]): the number of sizes", true},
      {"\"ldexp_cpu_exp\" not implemented for 'Bool'",
       "NotImplementedError: \"ldexp_cpu_exp\" not implemented for 'Bool'", true},
      {"\"ldexp_cpu_exp\" not implemented for 'Bool'", "RuntimeError: \"add_cpu\" not implemented for 'Bool'", false},
      // The graph module export traced, where D8's came from torch.export.load.
      {"AttributeError: 'GraphModule' object has no attribute 'true_graph_4'",
       "AttributeError: '<lambda>' object has no attribute 'true_graph_0'", true},
      {"AttributeError: 'GraphModule' object has no attribute 'true_graph_4'",
       "AttributeError: 'Tensor' object has no attribute 'true_graph_0'", false},
      // Where in a subgraph epsmith's run raised is not in torch's words.
      {"in the autocast region, %dstack: Unexpected floating ScalarType in at::autocast::prioritize",
       "RuntimeError: Unexpected floating ScalarType in at::autocast::prioritize", true},
      {"in the true branch, %x: in the region, %y: index 5 is out of bounds", "IndexError: index 5 is out of bounds",
       true},
  };
  for (const Row& row : rows) {
    const auto r =
        classifyScriptRun(finding("D2", "exception-in-one", row.message),
                          exited(1, std::string("eager ran; the path raised ") + row.raised + "\nthe bug shows\n"));
    EXPECT_EQ(r.cls, row.confirmed ? UpstreamClass::TorchConfirmed : UpstreamClass::Unconfirmed) << row.message;
  }
}

TEST(Upstream, AnotherDifferenceOrNoVerdictConfirmsNothing) {
  const CaseFile raises = finding("D2", "exception-in-one", "RuntimeError: planted fault: 'aten::neg_' refused");
  auto r = classifyScriptRun(
      raises,
      exited(1, "eager ran; the path raised RuntimeError: Found a custom (non-ATen) operator\nthe bug shows\n"));
  EXPECT_EQ(r.cls, UpstreamClass::Unconfirmed);
  EXPECT_NE(r.reason.find("another difference than the case's"), std::string::npos) << r.reason;
  // Numbers compare as templates do; a message that merely contains the key's first words
  // elsewhere does not match it.
  const CaseFile scalar =
      finding("D2", "exception-in-one", "RuntimeError: a Tensor with 2 elements cannot be converted to Scalar");
  r = classifyScriptRun(scalar, exited(1,
                                       "eager ran; the path raised RuntimeError: a Tensor with 6 elements cannot be "
                                       "converted to Scalar\nthe bug shows\n"));
  EXPECT_EQ(r.cls, UpstreamClass::TorchConfirmed);
  r = classifyScriptRun(scalar,
                        exited(1,
                               "eager ran; the path raised RuntimeError: Found a custom (non-ATen) operator ... "
                               "(e.g. 'Tensor(a)' is a Tensor with an alias annotation\nthe bug shows\n"));
  EXPECT_EQ(r.cls, UpstreamClass::Unconfirmed);
  // A mismatch the script shows as an exception is another difference too.
  r = classifyScriptRun(finding("D8", "value-mismatch", "value mismatch (f32)"),
                        exited(1, "eager ran; the path raised RuntimeError: boom\nthe bug shows\n"));
  EXPECT_EQ(r.cls, UpstreamClass::Unconfirmed);
  // A case converted from format 1 kept no message: the one in its report is the one to
  // show, and a case with neither is shown by no exception.
  CaseFile converted = finding("D2", "exception-in-one", "");
  converted.finding.report = "exception in actual only: Dimension out of range (expected to be in range of [-1, 0])";
  r = classifyScriptRun(converted, exited(1,
                                          "eager ran; the path raised RuntimeError: Found a custom (non-ATen) "
                                          "operator\nthe bug shows\n"));
  EXPECT_EQ(r.cls, UpstreamClass::Unconfirmed);
  r = classifyScriptRun(converted, exited(1,
                                          "eager ran; the path raised IndexError: Dimension out of range (expected "
                                          "to be in range of [-2, 1])\nthe bug shows\n"));
  EXPECT_EQ(r.cls, UpstreamClass::TorchConfirmed);
  converted.finding.report.clear();
  r = classifyScriptRun(converted, exited(1, "eager ran; the path raised RuntimeError: anything\nthe bug shows\n"));
  EXPECT_EQ(r.cls, UpstreamClass::Unconfirmed);
  // Python's exit 1 for an uncaught exception (no torch, a broken script) is no verdict.
  r = classifyScriptRun(
      finding("D8", "value-mismatch", ""),
      exited(1, "Traceback (most recent call last):\nModuleNotFoundError: No module named 'torch'\n"));
  EXPECT_EQ(r.cls, UpstreamClass::Unconfirmed);
  EXPECT_NE(r.reason.find("failed before its verdict"), std::string::npos) << r.reason;
}

TEST(Upstream, NoDifferenceIsCppOnlyForD2AndUnconfirmedElsewhere) {
  const ScriptRun same = exited(0, "no difference: the bug does not show\n");
  EXPECT_EQ(classifyScriptRun(finding("D2", "exception-in-one", "x"), same).cls, UpstreamClass::CppOnly);
  const auto r = classifyScriptRun(finding("D8", "exception-in-one", "x"), same);
  EXPECT_EQ(r.cls, UpstreamClass::Unconfirmed);
  EXPECT_EQ(r.reason, "the script shows no difference on torch 2.13.0+cpu");
}

TEST(Upstream, CrashesCannotRunAndTimeOuts) {
  ScriptRun crashed = exited(-1, "");
  crashed.signal = SIGSEGV;
  auto r = classifyScriptRun(finding("D2", "exception-in-one", "x"), crashed);
  EXPECT_EQ(r.cls, UpstreamClass::TorchConfirmed);
  EXPECT_NE(r.reason.find("a crash in torch"), std::string::npos) << r.reason;
  // A crash's case shown, by turns, as the internal assert a freed block trips
  // (Note [One memory error, several signals]); another exception does not show it.
  const std::string assert_raised =
      "eager ran; the path raised RuntimeError: !isFunctionalTensor(tensor) INTERNAL ASSERT FAILED at \"x.cpp\":10\n"
      "the bug shows\n";
  EXPECT_EQ(classifyScriptRun(finding("D2", "crash-memory", ""), exited(1, assert_raised)).cls,
            UpstreamClass::TorchConfirmed);
  EXPECT_EQ(classifyScriptRun(finding("D2", "crash-memory", ""),
                              exited(1, "eager ran; the path raised RuntimeError: other\nthe bug shows\n"))
                .cls,
            UpstreamClass::Unconfirmed);
  r = classifyScriptRun(finding("D3", "value-mismatch", ""), exited(2, "CUDA is not available here\n"));
  EXPECT_EQ(r.cls, UpstreamClass::Unconfirmed);
  EXPECT_EQ(r.reason, "the script cannot run here: CUDA is not available here");
  ScriptRun slow = exited(-1, "");
  slow.timed_out = true;
  EXPECT_EQ(classifyScriptRun(finding("D5", "value-mismatch", ""), slow).reason, "the script ran out of time");
}

TEST(Upstream, TheIssueDraftCarriesWhatATriagerAsksFor) {
  const CaseFile c = finding("D8", "value-mismatch", "value mismatch (i64)");
  const ScriptRun run = exited(1, "output 0: eager tensor([0]); the path tensor([-19])\nthe bug shows\n");
  const UpstreamRecord r = classifyScriptRun(c, run);
  const std::string md = issueDraft(c, "import torch\n", run, r, "PyTorch version: 2.13.0+cpu\n");
  for (const char* part :
       {"# [export] run_decompositions({}).module() computes other values than eager for `aten::prod.int_out`",
        "`oncall: export`, `topic: fuzzer`, `module: correctness (silent)`", "```python\nimport torch\n```",
        "Output on torch 2.13.0+cpu", "PyTorch version: 2.13.0+cpu", "- severity: silent wrong result",
        "- releases tried: 2.13.0+cpu (shows)", "`prod run_decompositions({}).module()`"}) {
    EXPECT_NE(md.find(part), std::string::npos) << part << "\n" << md;
  }
}

// Note [Scripts name the step that raised]: the title names the API whose line raised, and
// the check's own words where the module's run raised.
TEST(Upstream, TheIssueDraftNamesTheStepThatRaised) {
  const CaseFile c = finding("D8", "decompositions-raise", "RuntimeError: boom");
  auto title = [&](const std::string& output) {
    const ScriptRun run = exited(1, output);
    const std::string md = issueDraft(c, "import torch\n", run, classifyScriptRun(c, run), "");
    return md.substr(0, md.find('\n'));
  };
  EXPECT_EQ(title("eager ran; the path raised RuntimeError: boom in `ep = torch.export.export(m, args)`\nthe bug "
                  "shows\n"),
            "# [export] torch.export.export raises where eager runs: RuntimeError: boom");
  EXPECT_EQ(title("eager ran; the path raised RuntimeError: boom in `ep = ep.run_decompositions({})`\nthe bug shows\n"),
            "# [export] run_decompositions({}) raises where eager runs: RuntimeError: boom");
  EXPECT_EQ(title("eager ran; the path raised RuntimeError: boom in `return m(*args)`\nthe bug shows\n"),
            "# [export] run_decompositions({}).module() raises where eager runs: RuntimeError: boom");
  EXPECT_EQ(title("eager ran; the path raised RuntimeError: boom\nthe bug shows\n"),
            "# [export] run_decompositions({}).module() raises where eager runs: RuntimeError: boom");
  // Where in a subgraph epsmith's run raised is no part of the title.
  const CaseFile inside = finding("D8", "decompositions-raise", "in the autocast region, %cat: RuntimeError: boom");
  const ScriptRun run = exited(1, "eager ran; the path raised RuntimeError: boom\nthe bug shows\n");
  const std::string md = issueDraft(inside, "import torch\n", run, classifyScriptRun(inside, run), "");
  EXPECT_EQ(md.substr(0, md.find('\n')),
            "# [export] run_decompositions({}).module() raises where eager runs: RuntimeError: boom");
}

// Note [The releases a finding affects]: only runs that show or pass decide; a release that
// passes before one that shows is a regression there; the oldest of the passing releases
// after the last that shows is where it was fixed.
TEST(Releases, ThePhraseSaysWhereTheBugShowsAndWhereItStarted) {
  using O = std::vector<ReleaseOutcome>;
  EXPECT_EQ(releasesPhrase(O{{"2.13.0+cpu", "shows"}, {"2.14.1+cu130", "shows"}}), "affects 2.13.0, 2.14.1");
  EXPECT_EQ(releasesPhrase(O{{"2.11.0", "shows"}, {"2.13.0+cpu", "shows"}, {"2.14.1", "passes"}}),
            "affects 2.11.0, 2.13.0; fixed in 2.14.1");
  EXPECT_EQ(releasesPhrase(O{{"2.13.0+cpu", "passes"}, {"2.14.1", "shows"}}),
            "**regression in 2.14.1** (passes on 2.13.0); affects 2.14.1");
  EXPECT_EQ(releasesPhrase(O{{"2.11.0", "shows"}, {"2.13.0", "passes"}, {"2.14.1", "passes"}}),
            "affects 2.11.0; fixed in 2.13.0");
  // A release that cannot run the script, or shows another difference, says nothing.
  EXPECT_EQ(releasesPhrase(O{{"2.11.0", "cannot run"}, {"2.13.0", "shows"}, {"2.14.1", "another difference"}}),
            "affects 2.13.0");
  EXPECT_EQ(releasesPhrase(O{{"2.13.0", "passes"}, {"2.14.1", "passes"}}), "shows on none of 2.13.0, 2.14.1");
  EXPECT_EQ(releasesPhrase(O{{"2.13.0", "cannot run"}}), "");
  EXPECT_EQ(releasesTried(O{{"2.13.0+cpu", "shows"}, {"2.14.1", "passes"}}), "2.13.0+cpu (shows), 2.14.1 (passes)");
}

TEST(Releases, OutcomesSortOldestFirstByNumber) {
  std::vector<ReleaseOutcome> o{{"2.14.1+cu130", "shows"}, {"2.9.0", "passes"}, {"2.13.0+cpu", "shows"}};
  sortByRelease(o);
  EXPECT_EQ(o[0].torch, "2.9.0");
  EXPECT_EQ(o[1].torch, "2.13.0+cpu");
  EXPECT_EQ(o[2].torch, "2.14.1+cu130");
}

TEST(Releases, EachRunIsJudgedAsTheClassifyingOneIs) {
  const CaseFile c = finding("D8", "value-mismatch", "value mismatch (i64)");
  EXPECT_EQ(releaseOutcomeOf(c, exited(1, "output 0: eager tensor([0]); the path tensor([-19])\nthe bug shows\n")),
            "shows");
  EXPECT_EQ(releaseOutcomeOf(c, exited(0, "the bug does not show\n")), "passes");
  EXPECT_EQ(releaseOutcomeOf(c, exited(1, "eager ran; the path raised RuntimeError: boom\nthe bug shows\n")),
            "another difference");
  EXPECT_EQ(releaseOutcomeOf(c, exited(2, "CUDA is not available here\n")), "cannot run");
  EXPECT_EQ(releaseOutcomeOf(c, exited(1, "Traceback (most recent call last):\n")), "cannot run");
}

TEST(Releases, TheCaseFileKeepsThemAndTheIssueDraftSaysThem) {
  CaseFile c = finding("D8", "value-mismatch", "value mismatch (i64)");
  c.provenance.libtorch = "2.13";
  UpstreamRecord r;
  r.cls = UpstreamClass::TorchConfirmed;
  r.torch = "2.13.0+cpu";
  r.releases = {{"2.13.0+cpu", "shows"}, {"2.14.1+cu130", "passes"}};
  c.upstream = r;
  auto text = writeCaseFileText(c);
  ASSERT_TRUE(text.ok()) << text.error().str();
  auto back = parseCaseFile(text.value(), "case.json");
  ASSERT_TRUE(back.ok()) << back.error().str();
  ASSERT_TRUE(back->upstream.has_value());
  ASSERT_EQ(back->upstream->releases.size(), 2u);
  EXPECT_EQ(back->upstream->releases[1].torch, "2.14.1+cu130");
  EXPECT_EQ(back->upstream->releases[1].outcome, "passes");
  const ScriptRun run = exited(1, "output 0: eager tensor([0]); the path tensor([-19])\nthe bug shows\n");
  const std::string md = issueDraft(c, "import torch\n", run, r, "");
  EXPECT_NE(md.find("Releases: affects 2.13.0; fixed in 2.14.1"), std::string::npos) << md;
  EXPECT_NE(md.find("- releases tried: 2.13.0+cpu (shows), 2.14.1+cu130 (passes)"), std::string::npos) << md;
}

}  // namespace
}  // namespace epsmith
