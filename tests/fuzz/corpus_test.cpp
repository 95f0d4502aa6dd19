// The corpus: bucket names, case files that read back as written, one file per bucket even
// when a second is offered, located errors for bad case files, and replay's three verdicts
// on a planted functionalization fault (the logical_not_ program of tests/data/findings).
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "oracle/program_io.h"
#include "formats/text_format.h"
#include "fuzz/case_runner.h"
#include "fuzz/corpus.h"
#include "fuzz/replay.h"
#include "ops/op_registry.h"
#include "tests/support/planted_fault.h"

namespace epsmith {
namespace {
namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "epsmith-corpus-XXXXXX").string();
    if (::mkdtemp(tmpl.data())) {
      path_ = tmpl;
    } else {
      ADD_FAILURE() << tmpl << ": " << std::strerror(errno);
    }
  }
  ~TempDir() { removeTree(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

ExportedProgram logicalNotProgram() {
  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/findings/d2_planted_logical_not.ept");
  EXPECT_TRUE(p.ok()) << p.error().str();
  return std::move(p.value());
}

CaseFile logicalNotCase() {
  CaseFile c;
  c.program = logicalNotProgram();
  c.check = "D2";
  c.finding.kind = "exception-in-one";
  c.signature = "D2 exception-in-one aten::logical_not_";
  const RootCause root = rootCauseOf(c);
  c.bucket = root.id();
  c.bucket_key = root.str();
  c.status = CaseStatus::KnownUpstream;
  c.provenance.seed = 7;
  c.provenance.libtorch = libtorchVersion();
  return c;
}

TEST(Corpus, BucketNamesAreStableAndReadable) {
  const RootCause key{"D2", "exception-in-one", "refused", {"logical_not"}};
  EXPECT_EQ(key.str(), "D2|exception-in-one|refused|logical_not");
  EXPECT_EQ(key.id().substr(0, 20), "d2-exception-in-one-");
  EXPECT_EQ(key.id().size(), 28u);
  EXPECT_EQ(key.id(), (RootCause{"D2", "exception-in-one", "refused", {"logical_not"}}.id()));
  EXPECT_NE(key.id(), (RootCause{"D2", "exception-in-one", "refused", {"exp", "logical_not"}}.id()));
  EXPECT_NE(key.id(), (RootCause{"D2", "exception-in-one", "other", {"logical_not"}}.id()));
  EXPECT_EQ((RootCause{"D6", "corruption-unreported:node-target", "", {}}.id().substr(0, 36)),
            "d6-corruption-unreported-node-target");
}

// A case file's root cause: its program's core ops and its finding's message as a
// template; the report keys only a case that kept no message.
TEST(Corpus, ACaseFileRecordsItsRootCause) {
  CaseFile c = logicalNotCase();
  c.finding.message = "planted fault: 'aten::logical_not_' refused under functionalization (EPSMITH_PLANTED_FAULT)";
  const RootCause root = rootCauseOf(c);
  EXPECT_EQ(root.message, "planted fault: 'aten::*' refused under functionalization (EPSMITH_PLANTED_FAULT)");
  EXPECT_EQ(root.ops, coreOps(*c.program));
  c.finding.report = "exception in actual only: node %logical_not_: aten::logical_not_: another message";
  EXPECT_EQ(rootCauseOf(c).id(), root.id());
  CaseFile old = logicalNotCase();  // a converted format 1 case that kept no message
  old.finding.report =
      "exception in actual only: node %logical_not_: aten::logical_not_: planted fault: "
      "'aten::logical_not_' refused under functionalization (EPSMITH_PLANTED_FAULT)";
  EXPECT_EQ(rootCauseOf(old).id(), root.id());
  c.program.reset();
  c.finding.op = "aten::logical_not_";
  EXPECT_EQ(rootCauseOf(c).ops, std::vector<std::string>{"logical_not"});
}

// The ops a case's key names by their class are kept beside it (class_ops), so that a known
// bug naming one of them matches the case read back as it matched in its campaign; an older
// file without them takes its program's ops that the key does not name.
TEST(Corpus, ACaseFileKeepsTheOpsItsKeyNamesByClass) {
  CaseFile c = logicalNotCase();
  c.core_ops = {"*op"};
  c.class_ops = {"logical_not"};
  auto text = writeCaseFileText(c);
  ASSERT_TRUE(text.ok()) << text.error().str();
  auto back = parseCaseFile(text.value(), "case.json");
  ASSERT_TRUE(back.ok()) << back.error().str();
  EXPECT_EQ(back->class_ops, std::vector<std::string>{"logical_not"});
  EXPECT_EQ(rootCauseOf(back.value()).class_ops, std::vector<std::string>{"logical_not"});
  c.class_ops.clear();
  EXPECT_EQ(rootCauseOf(c).class_ops, coreOps(*c.program));
  c.core_ops = coreOps(*c.program);  // a key that names every op by its own name
  EXPECT_TRUE(rootCauseOf(c).class_ops.empty());
}

// Note [One memory error, several signals]: a segfault and an abort in the same op of the
// same program are one bucket and replay as each other, and as an exception at that op (or
// at none); other deaths and findings are not.
TEST(Corpus, MemoryErrorsAreOneKindWhateverTheSignal) {
  const RootCause segv{"D2", crashKind("crash-SIGSEGV"), "", {"expm1"}};
  const RootCause abrt{"D2", crashKind("crash-SIGABRT"), "", {"expm1"}};
  EXPECT_EQ(segv.id(), abrt.id());
  EXPECT_EQ(segv.id().substr(0, 16), "d2-crash-memory-");
  EXPECT_NE(segv.id(), (RootCause{"D2", crashKind("crash-SIGFPE"), "", {"expm1"}}.id()));
  EXPECT_NE(segv.id(), (RootCause{"D2", crashKind("timeout"), "", {"expm1"}}.id()));
  EXPECT_TRUE(sameFailure("D2 crash-SIGSEGV aten::expm1_", "D2 crash-SIGABRT aten::expm1_"));
  EXPECT_TRUE(sameFailure("worker crash-SIGBUS", "worker crash-SIGSEGV"));
  EXPECT_TRUE(sameFailure("D1 value-mismatch", "D1 value-mismatch"));
  EXPECT_FALSE(sameFailure("D2 crash-SIGSEGV aten::expm1_", "D2 crash-SIGSEGV aten::exp"));
  EXPECT_FALSE(sameFailure("D2 crash-SIGSEGV aten::expm1_", "D1 crash-SIGABRT aten::expm1_"));
  EXPECT_FALSE(sameFailure("D2 crash-SIGSEGV aten::expm1_", "D2 crash-SIGFPE aten::expm1_"));
  // A freed block still intact: LibTorch's assertions raise at the op, or as results are read.
  EXPECT_TRUE(sameFailure("D2 exception-in-one aten::expm1_", "D2 crash-SIGSEGV aten::expm1_"));
  EXPECT_TRUE(sameFailure("D2 exception-in-one", "D2 crash-SIGSEGV aten::split.Tensor"));
  EXPECT_TRUE(sameFailure("D2 crash-SIGABRT aten::expm1_", "D2 exception-in-one aten::expm1_"));
  EXPECT_FALSE(sameFailure("D2 crash-SIGSEGV aten::expm1_", "D2 exception-in-one"));  // a crash anywhere
  EXPECT_FALSE(sameFailure("D2 exception-in-one aten::exp", "D2 crash-SIGSEGV aten::expm1_"));
  EXPECT_FALSE(sameFailure("D1 exception-in-one aten::expm1_", "D2 crash-SIGSEGV aten::expm1_"));
  EXPECT_FALSE(sameFailure("D2 exception-in-one aten::expm1_", "D2 crash-SIGFPE aten::expm1_"));
  EXPECT_FALSE(sameFailure("D2 different-exceptions aten::expm1_", "D2 crash-SIGSEGV aten::expm1_"));
  EXPECT_FALSE(sameFailure("D2 exception-in-one", "D2 timeout aten::expm1_"));
  EXPECT_FALSE(sameFailure("D2 value-mismatch", "D2 crash-SIGSEGV aten::expm1_"));
  EXPECT_FALSE(sameFailure("D2 exception-in-one aten::exp", "D2 exception-in-one aten::expm1_"));
  EXPECT_FALSE(sameFailure("D2 crash-SIGSEGV aten::expm1_", ""));
}

TEST(Corpus, CaseFilesReadBackAsWritten) {
  CaseFile c = logicalNotCase();
  c.note = "the planted fault in logical_not_'s functionalization";
  c.provenance.config = "nodes 8\n";
  c.provenance.nodes_before = 50;
  c.provenance.nodes_after = 1;
  auto text = writeCaseFileText(c);
  ASSERT_TRUE(text.ok());
  EXPECT_TRUE(isCaseFileText(text.value()));
  auto back = parseCaseFile(text.value(), "case.json");
  ASSERT_TRUE(back.ok()) << back.error().str();
  EXPECT_EQ(back->bucket, c.bucket);
  EXPECT_EQ(back->signature, c.signature);
  EXPECT_EQ(back->status, CaseStatus::KnownUpstream);
  EXPECT_EQ(back->note, c.note);
  EXPECT_EQ(back->provenance.config, "nodes 8\n");
  EXPECT_EQ(back->provenance.nodes_before, 50u);
  ASSERT_TRUE(back->program.has_value());
  EXPECT_EQ(printProgramText(*back->program), printProgramText(*c.program));
}

// A case file keeps every field of its finding beside its signature, and the re-runs focus
// on what it keeps; a file of format 1, which kept only part of it, is refused with the way
// to convert it, never read with fields guessed.
TEST(Corpus, CaseFilesKeepTheWholeFindingAndFormatOneIsRefused) {
  CaseFile c = logicalNotCase();
  c.check = "D6";
  c.finding.kind = "corruption-unreported:input-count";
  c.signature = "D6 corruption-unreported:input-count";
  c.finding.variant = "input-count";
  c.finding.where = "input 0";
  c.finding.message = "not reported";
  auto text = writeCaseFileText(c);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("\"variant\": \"input-count\""), std::string::npos) << text.value();
  auto back = parseCaseFile(text.value(), "case.json");
  ASSERT_TRUE(back.ok()) << back.error().str();
  EXPECT_EQ(back->finding.variant, "input-count");
  EXPECT_EQ(back->finding.op, "");
  EXPECT_EQ(back->finding.where, "input 0");
  EXPECT_EQ(back->finding.message, "not reported");
  EXPECT_EQ(back->finding.check, DiffCheck::D6);

  std::string old = text.value();
  old.replace(old.find("\"epsmith_case\": 2"), 17, "\"epsmith_case\": 1");
  auto refused = parseCaseFile(old, "old.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().str().find("old.json: $.epsmith_case: case format 1"), std::string::npos)
      << refused.error().str();
  EXPECT_NE(refused.error().str().find("ci/migrate-cases.py"), std::string::npos);
  // A field missing from format 2 is an error at its place, not an empty field.
  std::string partial = text.value();
  partial.erase(partial.find("  \"where\": \"input 0\",\n"), 22);
  auto missing = parseCaseFile(partial, "partial.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().str(), "partial.json: $.expected: missing required field \"where\"");
}

// The repository's corpus was written before case files moved to our JSON writer
// (Note [One JSON stack]): each file this LibTorch can read must be written back byte for
// byte (some were saved without the final newline), so no file needs migrating and a
// campaign's new files look like the old ones.
TEST(Corpus, EveryCaseFileInTheRepositoryIsWrittenBackAsItWas) {
  auto files = caseFilesUnder({std::string(EPSMITH_SOURCE_DIR) + "/corpus"});
  ASSERT_TRUE(files.ok()) << files.error().str();
  ASSERT_GT(files->size(), 100u);
  size_t compared = 0;
  for (const auto& path : files.value()) {
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto c = parseCaseFile(text, path);
    ASSERT_TRUE(c.ok()) << c.error().str();
    if (!c->program_unreadable_here.empty()) continue;  // found on another LibTorch
    auto again = writeCaseFileText(c.value());
    ASSERT_TRUE(again.ok()) << path << ": " << again.error().str();
    ASSERT_EQ(again.value(), text.back() == '\n' ? text : text + "\n") << path;
    ++compared;
  }
  EXPECT_GT(compared, files->size() / 2);
}

TEST(Corpus, BadCaseFilesNameThePlace) {
  auto not_json = parseCaseFile("{", "a.json");
  ASSERT_FALSE(not_json.ok());
  EXPECT_NE(not_json.error().str().find("a.json"), std::string::npos);
  auto no_marker = parseCaseFile("{\"bucket\": \"x\"}", "b.json");
  ASSERT_FALSE(no_marker.ok());
  EXPECT_NE(no_marker.error().str().find("not an epsmith case file"), std::string::npos);
  auto bad_status = parseCaseFile(
      "{\"epsmith_case\": 2, \"bucket\": \"x\", \"status\": \"maybe\", \"expected\": {\"check\": \"D1\", \"kind\": "
      "\"k\", \"where\": \"\", \"op\": \"\", \"variant\": \"\", \"message\": \"\", \"report\": \"\", "
      "\"signature\": \"s\"}, \"provenance\": {\"seed\": 1}, \"program\": null}",
      "c.json");
  ASSERT_FALSE(bad_status.ok());
  EXPECT_NE(bad_status.error().str().find("c.json: $.status"), std::string::npos) << bad_status.error().str();
  auto missing = parseCaseFile("{\"epsmith_case\": 2, \"bucket\": \"x\"}", "d.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().str(), "d.json: $: missing required field \"expected\"");
  auto wrong_type = parseCaseFile(
      "{\"epsmith_case\": 2, \"bucket\": \"x\", \"expected\": {\"check\": \"D1\", \"kind\": \"k\", \"where\": \"\", "
      "\"op\": \"\", "
      "\"variant\": \"\", \"message\": \"\", \"report\": \"\", \"signature\": \"s\"}, \"provenance\": {\"seed\": "
      "\"7\"}}",
      "f.json");
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_NE(wrong_type.error().str().find("f.json: $.provenance.seed: "), std::string::npos)
      << wrong_type.error().str();
  auto malformed = parseCaseFile("{\"epsmith_case\": 2,\n \"bucket\": }", "g.json");
  ASSERT_FALSE(malformed.ok());
  EXPECT_NE(malformed.error().str().find("g.json: 2:12: malformed JSON"), std::string::npos) << malformed.error().str();
  CaseFile c = logicalNotCase();
  auto text = writeCaseFileText(c).value();
  const std::string target = "torch.ops.aten.logical_not_";
  ASSERT_NE(text.find(target), std::string::npos);
  text.replace(text.find(target), target.size(), "torch.ops.aten.no_such_op_");
  auto bad_program = parseCaseFile(text, "e.json");
  ASSERT_FALSE(bad_program.ok());
  EXPECT_NE(bad_program.error().str().find("e.json: $.program"), std::string::npos) << bad_program.error().str();
}

TEST(Corpus, OneFilePerBucketWrittenWhole) {
  TempDir dir;
  CaseFile c = logicalNotCase();
  auto first = writeCaseAtomically(dir.path(), "seed-7.json", c);
  ASSERT_TRUE(first.ok()) << first.error().str();
  EXPECT_EQ(first.value(), dir.path() + "/regressions/" + c.bucket + "/seed-7.json");
  c.provenance.seed = 8;
  auto second = writeCaseAtomically(dir.path(), "seed-8.json", c);
  EXPECT_FALSE(second.ok());
  EXPECT_FALSE(fs::exists(dir.path() + "/regressions/" + c.bucket + "/seed-8.json"));
  EXPECT_EQ(existingBuckets(dir.path()), std::vector<std::string>{c.bucket});
  // Nothing is left half-made: .incoming is empty and skipped when cases are listed.
  EXPECT_TRUE(fs::is_empty(dir.path() + "/regressions/.incoming"));
  std::ofstream(dir.path() + "/regressions/.incoming/partial.json") << "{";
  auto files = caseFilesUnder({dir.path()});
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(files.value(), std::vector<std::string>{first.value()});
  auto back = readCaseFile(first.value());
  ASSERT_TRUE(back.ok()) << back.error().str();
  EXPECT_EQ(back->provenance.seed, 7u);
  EXPECT_FALSE(caseFilesUnder({dir.path() + "/none"}).ok());
}

// Note [No std::filesystem::remove_all]: a tree goes whole, a link in it goes without what it
// points to, and a path that is not there is no error.
TEST(Corpus, RemoveTreeRemovesWhatIsUnderAndNoMore) {
  TempDir dir;
  const fs::path root = fs::path(dir.path()) / "tree";
  fs::create_directories(root / "a" / "b");
  std::ofstream(root / "a" / "b" / "case.json") << "{}";
  std::ofstream(root / "top.json") << "{}";
  fs::create_directories(fs::path(dir.path()) / "outside");
  std::ofstream(fs::path(dir.path()) / "outside" / "kept.json") << "{}";
  fs::create_directory_symlink(fs::path(dir.path()) / "outside", root / "a" / "link");
  EXPECT_EQ(removeTree(root.string()), std::nullopt);
  EXPECT_FALSE(fs::exists(root));
  EXPECT_TRUE(fs::exists(fs::path(dir.path()) / "outside" / "kept.json"));
  EXPECT_EQ(removeTree(root.string()), std::nullopt);
  std::ofstream(root.string()) << "a file";
  EXPECT_EQ(removeTree(root.string()), std::nullopt);
  EXPECT_FALSE(fs::exists(root));
}

TEST(Replay, ReproducesFixedAndChanged) {
  CaseFile c = logicalNotCase();
  ReplayOutcome same = replayCase(c, WorkerLimits{});
  EXPECT_EQ(same.verdict, ReplayVerdict::Reproduces) << same.now << same.error;
  EXPECT_TRUE(same.as_expected);
  // A case that says the bug was fixed: it still reproduces, which is not what it expects.
  c.status = CaseStatus::Fixed;
  EXPECT_FALSE(replayCase(c, WorkerLimits{}).as_expected);
  // Another program under the same expectation: D2 passes on the example, so "fixed".
  auto example = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/examples/linear_counter.ept");
  ASSERT_TRUE(example.ok());
  c.program = std::move(example.value());
  ReplayOutcome fixed = replayCase(c, WorkerLimits{});
  EXPECT_EQ(fixed.verdict, ReplayVerdict::Fixed);
  EXPECT_TRUE(fixed.as_expected);
  // A different signature recorded: "changed", with what is seen now.
  c.program = logicalNotProgram();
  c.signature = "D2 value-mismatch";
  c.status = CaseStatus::Open;
  ReplayOutcome changed = replayCase(c, WorkerLimits{});
  EXPECT_EQ(changed.verdict, ReplayVerdict::Changed);
  EXPECT_EQ(changed.now, "D2 exception-in-one aten::logical_not_");
  EXPECT_FALSE(changed.as_expected);
}

// Note [A replay keeps the message]: the same signature with another message is another
// root cause, as the minimizer holds it; a case that kept no message is judged by its
// signature alone.
TEST(Replay, AnotherMessageUnderTheSameSignatureIsChanged) {
  CaseFile c = logicalNotCase();
  ReplayOutcome first = replayCase(c, WorkerLimits{});
  ASSERT_EQ(first.verdict, ReplayVerdict::Reproduces) << first.now << first.error;
  ASSERT_FALSE(first.now_message.empty());
  c.finding.message =
      "exception in actual only: Dimension out of range (expected to be in range of [-1, 0], but got 3)";
  ReplayOutcome other = replayCase(c, WorkerLimits{});
  EXPECT_EQ(other.verdict, ReplayVerdict::Changed);
  EXPECT_EQ(other.now, "D2 exception-in-one aten::logical_not_");
  EXPECT_EQ(other.now_message, first.now_message);
  EXPECT_FALSE(other.as_expected);
  EXPECT_EQ(other.runs, kReplayLayouts);  // a message that differs is no memory error: every layout tried
  c.finding.message = first.now_message;  // a template reads back as itself
  EXPECT_EQ(replayCase(c, WorkerLimits{}).verdict, ReplayVerdict::Reproduces);
}

TEST(Replay, ACaseWithoutAProgramIsRemadeFromItsSeed) {
  CaseSetup setup;
  setup.nodes = 6;
  setup.checks = {DiffCheck::D4};
  auto runner = CaseRunner::create(setup);
  ASSERT_TRUE(runner.ok());
  CaseFile c;
  c.check = "D4";
  c.finding.kind = "json-round-trip-differs";
  c.signature = "D4 json-round-trip-differs";
  c.status = CaseStatus::Fixed;
  c.provenance.seed = 3;
  c.provenance.nodes = 6;
  ReplayOutcome o = replayCase(c, WorkerLimits{});
  EXPECT_TRUE(o.error.empty()) << o.error;
  EXPECT_EQ(o.verdict, ReplayVerdict::Fixed);  // the remade program round-trips
  EXPECT_TRUE(o.as_expected);
}

// A crash in LibTorch (the planted polygamma_ fault, Note [Planted faults]) replays as the
// recorded crash whatever the replaying process allocated and freed before
// (Note [Replaying memory errors]).
TEST(Replay, ACrashReproducesWhateverTheHeapLooksLike) {
  CaseFile c;
  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/findings/d2_planted_crash_polygamma.ept");
  ASSERT_TRUE(p.ok()) << p.error().str();
  c.program = std::move(p.value());
  c.check = "D2";
  c.finding.kind = "crash-SIGSEGV";
  c.signature = "D2 crash-SIGSEGV aten::polygamma_";
  c.status = CaseStatus::KnownUpstream;
  c.provenance.libtorch = libtorchVersion();
  std::vector<std::unique_ptr<char[]>> kept;
  for (size_t shift = 0; shift < 10; ++shift) {
    std::vector<std::unique_ptr<char[]>> freed;
    for (size_t size = 16 + 8 * shift; size < 70000; size = size * 3 / 2 + 8) {
      freed.emplace_back(new char[size]);
      kept.emplace_back(new char[size + shift]);
    }
    freed.clear();
    ReplayOutcome o = replayCase(c, WorkerLimits{});
    EXPECT_EQ(o.verdict, ReplayVerdict::Reproduces) << "heap shift " << shift << ": now " << o.now;
    EXPECT_TRUE(o.as_expected);
  }
}

// Note [Cases found on another LibTorch]: an upstream bug that does not come back here is
// "fixed in" this release, as expected, whichever release recorded it (tests never depend on
// an upstream bug still existing); an open bug of ours found here must still show, and a
// fixed bug of ours must stay fixed whatever release recorded it.
TEST(Replay, AnUpstreamBugGoneOnThisLibTorchIsFixedInIt) {
  CaseFile c = logicalNotCase();
  c.program->graph().find("logical_not_")->target = Target::aten(findOp("aten::neg_", ""));
  c.provenance.libtorch = "1.13";
  if (libtorchVersion() == "1.13") c.provenance.libtorch = "2.13";
  ReplayOutcome gone = replayCase(c, WorkerLimits{});
  EXPECT_EQ(gone.verdict, ReplayVerdict::Fixed) << gone.now;
  EXPECT_TRUE(gone.as_expected);
  EXPECT_EQ(gone.fixed_in, libtorchVersion());
  c.provenance.libtorch = libtorchVersion();
  ReplayOutcome here = replayCase(c, WorkerLimits{});
  EXPECT_TRUE(here.as_expected);  // a patch release fixed it
  EXPECT_EQ(here.fixed_in, libtorchVersion());
  c.status = CaseStatus::Open;
  ReplayOutcome open = replayCase(c, WorkerLimits{});
  EXPECT_FALSE(open.as_expected);  // a bug of ours found here, and not coming back
  EXPECT_TRUE(open.fixed_in.empty());

  CaseFile ours = logicalNotCase();
  ours.status = CaseStatus::Fixed;
  ours.provenance.libtorch = gone.fixed_in == "1.13" ? "2.13" : "1.13";
  ReplayOutcome back = replayCase(ours, WorkerLimits{});
  EXPECT_EQ(back.verdict, ReplayVerdict::Reproduces);
  EXPECT_FALSE(back.as_expected);  // a fixed bug of ours that came back, on any release
}

}  // namespace
}  // namespace epsmith
