// D5, D7 and D8 against the installed PyTorch, through the torch peer: programs torch runs
// as epsmith does pass, faults planted in the peer (Note [Planted faults in the peer]) are
// found by the check each belongs to, a peer that dies or is missing is a finding or a skip
// and never a crash, and a forked child gets a peer of its own. Skipped where no Python
// torch is beside the build.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "fuzz/checks.h"
#include "formats/text_format.h"
#include "fuzz/messages.h"
#include "fuzz/torch_checks.h"
#include "fuzz/workers.h"
#include "functionalizer/functionalize.h"
#include "oracle/pt2_archive.h"
#include "oracle/program_io.h"
#include "oracle/torch_peer.h"

namespace epsmith {
namespace {

const std::vector<DiffCheck> kTorchChecks = {DiffCheck::D5, DiffCheck::D7, DiffCheck::D8};

ExportedProgram example(const char* name) {
  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/examples/" + name);
  EXPECT_TRUE(p.ok()) << p.error().str();
  return std::move(p.value());
}

std::string describe(const CheckOutcome& o) {
  return std::string(diffCheckName(o.check)) + " " + o.kind + " " + o.where + ": " + o.report;
}

// The torch checks on `p` in a child whose environment has `env` set (the peer reads its
// planted faults once, when it starts, and a child starts its own).
std::vector<CheckOutcome> inChild(const ExportedProgram& p, const std::vector<std::pair<const char*, const char*>>& env,
                                  const CheckOptions& options = {}) {
  WorkerLimits limits;
  limits.seconds_per_request = 300;
  IsolatedOutcome r = runIsolated(
      [&] {
        for (const auto& [k, v] : env) ::setenv(k, v, 1);
        std::string lines;
        for (const auto& o : runChecks(p, kTorchChecks, options)) lines += writeOutcome(o) + "\n";
        return lines;
      },
      limits);
  std::vector<CheckOutcome> out;
  EXPECT_TRUE(r.result.has_value()) << (r.death ? deathSignature(*r.death) : "no result");
  for (size_t at = 0; r.result && at < r.result->size();) {
    const size_t nl = r.result->find('\n', at);
    auto o = readOutcome(std::string_view(*r.result).substr(at, nl - at));
    EXPECT_TRUE(o.ok());
    if (o.ok()) out.push_back(o.value());
    at = nl + 1;
  }
  return out;
}

// Note [Refusals export makes]: run_decompositions taking a program that epsmith refuses as
// export does is a D8 refusal-parity finding, and refusing it too a pass. The peer's
// answers are made up here, so this holds whatever a torch release does with the program.
TEST(TorchRefusals, TakingWhatExportRefusesIsARefusalParityFinding) {
  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/findings/d8_input_metadata_mutation.ept");
  ASSERT_TRUE(p.ok()) << p.error().str();
  auto ours = functionalize(p.value());
  ASSERT_FALSE(ours.ok());
  EXPECT_TRUE(refusedAsExportDoes(ours.error())) << ours.error().str();
  const RunResult eager = runProgram(p.value(), RunOptions(RunMode::Eager));
  ASSERT_TRUE(eager.ok()) << eager.error->str();
  check_detail::TorchAnswer takes;
  takes.reply.torch_version = "made up";
  takes.reply.verdicts.push_back(PeerVerdict{true, "", "", ""});
  takes.reply.decomposed_run = eager;  // even a decomposed program that runs as eager does
  const CheckOutcome found = check_detail::d8(p.value(), eager, takes, nullptr);
  EXPECT_EQ(found.status, CheckOutcome::Status::Finding) << describe(found);
  EXPECT_EQ(found.kind, "refusal-parity");
  EXPECT_EQ(found.message.find("%"), std::string::npos) << found.message;  // no node names to key on
  check_detail::TorchAnswer refuses = takes;
  refuses.reply.decomposed_run.reset();
  refuses.reply.decompose_error = "RuntimeError: Found an input that received a metadata mutation";
  EXPECT_EQ(check_detail::d8(p.value(), eager, refuses, nullptr).status, CheckOutcome::Status::Pass);
  // Refusing for another reason is not the refusal export makes, but a refusal by design
  // that tracing meets first says nothing of it (Note [Refusal reasons compared]).
  refuses.reply.decompose_error = "AssertionError: len(mutations) (0) != num_mutated_inp_runtime_indices (1)";
  const CheckOutcome other = check_detail::d8(p.value(), eager, refuses, nullptr);
  EXPECT_EQ(other.status, CheckOutcome::Status::Finding) << describe(other);
  EXPECT_EQ(other.kind, "refusal-parity");
  EXPECT_EQ(other.message, found.message);  // one root cause with torch taking the program
  EXPECT_NE(other.report.find("num_mutated_inp_runtime_indices"), std::string::npos) << other.report;
  refuses.reply.decompose_error = "DataDependentOutputException: aten.allclose.default";
  EXPECT_EQ(check_detail::d8(p.value(), eager, refuses, nullptr).status, CheckOutcome::Status::Pass);
  // A program epsmith functionalizes is compared by its run, as before.
  const ExportedProgram plain = example("linear_counter.ept");
  const RunResult plain_eager = runProgram(plain, RunOptions(RunMode::Eager));
  takes.reply.decomposed_run = plain_eager;
  EXPECT_NE(check_detail::d8(plain, plain_eager, takes, nullptr).kind, "refusal-parity");
}

// Note [Parameters written with grad on]: export under no_grad makes this program, and
// run_decompositions taking it is no refusal-parity finding, even where its verifier then
// fails on what it made; refusing it for another reason still is one.
TEST(TorchRefusals, TakingAParameterWrittenWithGradOnIsNoFinding) {
  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/findings/d8_parameter_written_with_grad_on.ept");
  ASSERT_TRUE(p.ok()) << p.error().str();
  auto ours = functionalize(p.value());
  ASSERT_FALSE(ours.ok());
  EXPECT_TRUE(refusedAsExportDoes(ours.error())) << ours.error().str();
  const RunResult eager = runProgram(p.value(), RunOptions(RunMode::Eager));
  check_detail::TorchAnswer takes;
  takes.reply.torch_version = "made up";
  takes.reply.verdicts.push_back(PeerVerdict{true, "", "", ""});
  takes.reply.decomposed_run = eager;
  const CheckOutcome o = check_detail::d8(p.value(), eager, takes, nullptr);
  EXPECT_EQ(o.status, CheckOutcome::Status::Pass) << describe(o);
  check_detail::TorchAnswer other = takes;
  other.reply.decomposed_run.reset();
  other.reply.decompose_error = "AssertionError: something else";
  EXPECT_EQ(check_detail::d8(p.value(), eager, other, nullptr).kind, "refusal-parity");
  // Torch's verifier failing on what it made: it took the program (a campaign's D8 case,
  // where run_decompositions lost a node that the module call graph names).
  other.reply.decompose_error = "SpecViolationError: Output getitem_2 does not exist in the graph.";
  EXPECT_EQ(check_detail::d8(p.value(), eager, other, nullptr).status, CheckOutcome::Status::Pass);
  // Autograd refusing the write, in either of its wordings, is the same refusal.
  for (const char* autograd :
       {"RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.",
        "RuntimeError: A view was created in no_grad mode and its base or another view of its "
        "base has been modified inplace with grad mode enabled."}) {
    other.reply.decompose_error = autograd;
    EXPECT_EQ(check_detail::d8(p.value(), eager, other, nullptr).status, CheckOutcome::Status::Pass) << autograd;
  }
}

// Note [Lifted state compared by name]: torch lifting a submodule's buffer after the root's
// constants is no finding; another target, or user inputs in another order, still is. The
// peer's signature is made up here.
TEST(TorchSignatures, LiftedStateComparesByNameAndUserInputsByPlace) {
  auto p = parseProgramText(R"EPT(graph {
  %b_layer_scratch0: f32[3] = placeholder
  %c_c: f32[3] = placeholder
  %x: f32[3] = placeholder
  %y: f32[3] = placeholder
  %add_: f32[3] = aten::add_.Tensor(%b_layer_scratch0, %c_c)
  %mul: f32[3] = aten::mul.Tensor(%x, %y)
  return (%mul)
}
signature {
  input buffer %b_layer_scratch0 -> "layer.scratch0" persistent=False
  input tensor_constant %c_c -> "c"
  input user_input %x
  input user_input %y
  output user_output %mul
}
constants {
  "layer.scratch0" = $1 f32[3]
  "c" = $0 f32[3]
}
example_inputs {
  $0 f32[3]
  $0 f32[3]
}
storages {
  $0: f32[3] = [1.0, 2.0, 3.0]
  $1: f32[3] = [0.0, 0.0, 0.0]
}
)EPT");
  ASSERT_TRUE(p.ok()) << p.error().str();
  ASSERT_TRUE(functionalize(p.value()).ok());
  const RunResult eager = runProgram(p.value(), RunOptions(RunMode::Eager));
  check_detail::TorchAnswer torch;
  torch.reply.torch_version = "made up";
  torch.reply.verdicts.push_back(PeerVerdict{true, "", "", ""});
  torch.reply.decomposed_run = eager;
  const SpecList::Entries outputs = {{"BUFFER_MUTATION", "layer.scratch0"}, {"USER_OUTPUT", ""}};
  auto with = [&](SpecList::Entries inputs) {
    torch.reply.decomposed_signature = SpecList{std::move(inputs), outputs};
    return check_detail::d8(p.value(), eager, torch, nullptr);
  };
  const CheckOutcome reordered =
      with({{"CONSTANT_TENSOR", "c"}, {"BUFFER", "layer.scratch0"}, {"USER_INPUT", "#0"}, {"USER_INPUT", "#1"}});
  EXPECT_EQ(reordered.status, CheckOutcome::Status::Pass) << describe(reordered);
  EXPECT_EQ(with({{"CONSTANT_TENSOR", "c"}, {"BUFFER", "scratch0"}, {"USER_INPUT", "#0"}, {"USER_INPUT", "#1"}}).kind,
            "signature-differs");
  EXPECT_EQ(
      with({{"BUFFER", "layer.scratch0"}, {"CONSTANT_TENSOR", "c"}, {"USER_INPUT", "#1"}, {"USER_INPUT", "#0"}}).kind,
      "signature-differs");
}

TEST(TorchRefusals, RefusingWhatEagerRefusesIsNoFinding) {
  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/findings/d8_eager_refuses.ept");
  ASSERT_TRUE(p.ok()) << p.error().str();
  ASSERT_TRUE(functionalize(p.value()).ok());
  const RunResult eager = runProgram(p.value(), RunOptions(RunMode::Eager));
  ASSERT_FALSE(eager.ok());
  check_detail::TorchAnswer refuses;
  refuses.reply.torch_version = "made up";
  refuses.reply.verdicts.push_back(PeerVerdict{true, "", "", ""});
  refuses.reply.decompose_error = "IndexError: list index out of range";  // any reason at all
  const CheckOutcome o = check_detail::d8(p.value(), eager, refuses, nullptr);
  EXPECT_EQ(o.status, CheckOutcome::Status::Pass) << describe(o);
  EXPECT_NE(o.report.find("vsplit requires"), std::string::npos) << o.report;
}

class TorchChecks : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = torchPeerUnavailable()) GTEST_SKIP() << *why;
  }
};

TEST_F(TorchChecks, ExamplesRunInTorchAsInEpsmith) {
  for (const char* name : {"linear_counter.ept", "writes_through_views.ept"}) {
    const auto outcomes = runChecks(example(name), kTorchChecks);
    ASSERT_EQ(outcomes.size(), 3u);
    for (const auto& o : outcomes) {
      EXPECT_EQ(o.status, CheckOutcome::Status::Pass) << name << ": " << describe(o);
    }
  }
}

TEST_F(TorchChecks, DecomposedSignatureIsTheFunctionalizers) {
  // linear_counter mutates a buffer and a user input: torch's functional program and
  // epsmith's list the two mutation outputs, in input order, before the user output.
  const ExportedProgram p = example("linear_counter.ept");
  PeerRequest request;
  request.decompose = true;
  request.archives.push_back(writeProgramPt2(p).value());
  auto reply = askTorchPeer(request);
  ASSERT_TRUE(reply.ok()) << reply.error().str();
  ASSERT_TRUE(reply->decomposed_signature.has_value());
  const SpecList expected{{{"PARAMETER", "weight"}, {"BUFFER", "calls"}, {"USER_INPUT", "#0"}},
                          {{"BUFFER_MUTATION", "calls"}, {"USER_INPUT_MUTATION", "#0"}, {"USER_OUTPUT", ""}}};
  EXPECT_EQ(*reply->decomposed_signature, expected);
  auto ours = functionalize(p);
  ASSERT_TRUE(ours.ok()) << ours.error().str();
  EXPECT_EQ(specList(ours.value()), expected);
  ASSERT_TRUE(reply->decomposed_run.has_value());
  EXPECT_TRUE(reply->decomposed_run->ok());
  EXPECT_EQ(reply->decomposed_run->final_inputs.size(), 3u);
}

// Note [Grad regions in export's form]: a bare _set_grad_enabled call, which export never
// leaves in a program, is decomposed in export's form; 2.13 raised IndexError on it bare.
TEST_F(TorchChecks, BareGradRegionsAreDecomposedInExportsForm) {
  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/findings/d8_bare_grad_region.ept");
  ASSERT_TRUE(p.ok()) << p.error().str();
  const auto outcomes = runChecks(p.value(), kTorchChecks);
  ASSERT_EQ(outcomes.size(), 3u);
  for (const auto& o : outcomes) EXPECT_EQ(o.status, CheckOutcome::Status::Pass) << describe(o);
}

TEST_F(TorchChecks, AWrongTorchRuntimeIsAD5AndD8ValueMismatch) {
  // linear_counter calls aten::relu; the peer's relu programs come out one too high.
  const auto outcomes = inChild(example("linear_counter.ept"), {{"EPSMITH_PLANTED_FAULT", "torch:aten::relu"}});
  ASSERT_EQ(outcomes.size(), 3u);
  EXPECT_EQ(outcomes[0].check, DiffCheck::D5);
  EXPECT_EQ(outcomes[0].kind, "value-mismatch") << describe(outcomes[0]);
  EXPECT_EQ(outcomes[0].where, "output 0");
  EXPECT_EQ(outcomes[1].status, CheckOutcome::Status::Pass) << describe(outcomes[1]);
  EXPECT_EQ(outcomes[2].check, DiffCheck::D8);
  EXPECT_EQ(outcomes[2].kind, "value-mismatch") << describe(outcomes[2]);
}

TEST_F(TorchChecks, ATorchVerifierThatAcceptsAllIsAD7Finding) {
  CheckOptions options;  // every corruption with a place, in check-id order
  const auto outcomes =
      inChild(example("linear_counter.ept"), {{"EPSMITH_PLANTED_FAULT", "torch-verifier:accept-all"}}, options);
  ASSERT_EQ(outcomes.size(), 3u);
  EXPECT_EQ(outcomes[1].check, DiffCheck::D7);
  ASSERT_EQ(outcomes[1].status, CheckOutcome::Status::Finding) << describe(outcomes[1]);
  EXPECT_EQ(outcomes[1].kind.rfind("torch-accepts:", 0), 0u) << outcomes[1].kind;
  EXPECT_EQ(outcomes[1].kind, "torch-accepts:" + outcomes[1].variant);
  // The finding re-runs on the corruption it names alone.
  const auto again = inChild(example("linear_counter.ept"), {{"EPSMITH_PLANTED_FAULT", "torch-verifier:accept-all"}},
                             focusedOn(outcomes[1]));
  ASSERT_EQ(again.size(), 3u);
  EXPECT_EQ(again[1].kind, outcomes[1].kind);
}

TEST_F(TorchChecks, TheRealVerifierRejectsEveryCorruptionEpsmithsRejects) {
  for (const char* name : {"linear_counter.ept", "writes_through_views.ept"}) {
    const auto outcomes = runChecks(example(name), {DiffCheck::D7});
    ASSERT_EQ(outcomes.size(), 1u);
    EXPECT_EQ(outcomes[0].status, CheckOutcome::Status::Pass) << name << ": " << describe(outcomes[0]);
  }
}

TEST_F(TorchChecks, APeerThatDiesIsAFindingAndTheNextOneStarts) {
  const std::string dies = std::string(EPSMITH_SOURCE_DIR) + "/tests/data/peer_dies.py";
  const auto outcomes = inChild(example("linear_counter.ept"), {{"EPSMITH_PEER", dies.c_str()}});
  ASSERT_EQ(outcomes.size(), 3u);
  for (const auto& o : outcomes) {
    EXPECT_EQ(o.kind, "torch-peer-failed") << describe(o);
    EXPECT_NE(o.report.find("died"), std::string::npos) << o.report;
  }
}

TEST_F(TorchChecks, NoPythonIsASkipWithTheReason) {
  const auto outcomes = inChild(example("linear_counter.ept"), {{"EPSMITH_PYTHON", "/nonexistent/python"}});
  ASSERT_EQ(outcomes.size(), 3u);
  for (const auto& o : outcomes) {
    EXPECT_EQ(o.status, CheckOutcome::Status::Skipped) << describe(o);
    EXPECT_NE(o.report.find("/nonexistent/python"), std::string::npos) << o.report;
  }
}

// Without torch the peer says so in its first line, and the checks skip with that reason,
// whatever Python has (this one has torch hidden).
TEST(TorchPeer, APythonWithoutTorchIsASkipWithTheReason) {
  const std::string python = std::string(EPSMITH_SOURCE_DIR) + "/tests/data/python_without_torch.sh";
  const auto outcomes = inChild(example("linear_counter.ept"), {{"EPSMITH_PYTHON", python.c_str()}});
  ASSERT_EQ(outcomes.size(), 3u);
  for (const auto& o : outcomes) {
    EXPECT_EQ(o.status, CheckOutcome::Status::Skipped) << describe(o);
    EXPECT_NE(o.report.find("cannot import torch: No module named 'torch'"), std::string::npos) << o.report;
  }
}

TEST_F(TorchChecks, WorkersForkedAfterAZygoteGetTheirPeersFromIt) {
  // As a campaign does: the parent starts the zygote, its forked children ask (each a peer
  // forked by the zygote, torch already imported) and get the answers a spawned peer gives.
  WorkerLimits limits;
  limits.seconds_per_request = 300;
  IsolatedOutcome r = runIsolated(
      [&] {
        if (auto why = startTorchZygote()) return "no zygote: " + *why;
        if (!std::getenv("EPSMITH_PEER_ZYGOTE")) return std::string("EPSMITH_PEER_ZYGOTE is not set");
        std::string verdicts = std::string(std::getenv("EPSMITH_PEER_ZYGOTE")) + "\n";
        for (int worker = 0; worker < 2; ++worker) {
          IsolatedOutcome w = runIsolated(
              [&] {
                ::setenv("EPSMITH_PYTHON", "/nonexistent/python", 1);  // only the zygote can give a peer
                std::string out;
                for (const auto& o : runChecks(example("linear_counter.ept"), kTorchChecks)) {
                  out += o.status == CheckOutcome::Status::Pass ? std::string(diffCheckName(o.check)) + " pass\n"
                                                                : describe(o) + "\n";
                }
                return out;
              },
              limits);
          verdicts += w.result.value_or("worker died\n");
        }
        return verdicts;
      },
      limits);
  ASSERT_TRUE(r.result.has_value());
  for (const char* check : {"D5 pass", "D7 pass", "D8 pass"}) {
    size_t seen = 0;
    for (size_t at = r.result->find(check); at != std::string::npos; at = r.result->find(check, at + 1)) ++seen;
    EXPECT_EQ(seen, 2u) << check << " in:\n" << *r.result;
  }
  // The child left by _exit, running no exit handlers: the zygote, its standard input
  // closed, removes its socket's directory itself.
  const auto dir = std::filesystem::path(r.result->substr(0, r.result->find('\n'))).parent_path();
  ASSERT_EQ(dir.filename().string().rfind("epsmith-peer-", 0), 0u) << *r.result;
  for (int tries = 0; tries < 100 && std::filesystem::exists(dir); ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_FALSE(std::filesystem::exists(dir)) << dir;
}

TEST_F(TorchChecks, AForkedChildAsksAPeerOfItsOwn) {
  // The parent's peer is started (SetUp); a child that inherits it must not speak on its
  // pipes, and the parent's peer still answers afterwards.
  const auto child = inChild(example("writes_through_views.ept"), {});
  ASSERT_EQ(child.size(), 3u);
  EXPECT_EQ(child[0].status, CheckOutcome::Status::Pass) << describe(child[0]);
  const auto parent = runChecks(example("writes_through_views.ept"), {DiffCheck::D5});
  EXPECT_EQ(parent[0].status, CheckOutcome::Status::Pass) << describe(parent[0]);
}

}  // namespace
}  // namespace epsmith
