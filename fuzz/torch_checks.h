// What D5, D7 and D8, the checks that ask a Python torch (oracle/torch_peer.h) about a
// program, share: the peer's answer, asked once per program for all of them. Internal to
// fuzz/ (fuzz/checks/D5.cpp, D7.cpp, D8.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fuzz/checks.h"
#include "generators/corruptions.h"
#include "oracle/run.h"
#include "oracle/torch_peer.h"

namespace epsmith::check_detail {

// What the torch peer said of a program, asked once for every torch check of a runChecks
// call; `skipped` says why it could not be asked, `failed` that the peer died or hung.
struct TorchAnswer {
  std::optional<std::string> skipped, failed;
  PeerReply reply;
  std::vector<const Corruption*> corruptions;  // of archives 1.., for D7
  std::vector<std::string> rejected_as;        // epsmith's first diagnostic for each
};

// Asks the peer what `checks` need of `p`: its verdict on `p` and on the corruptions D6
// would try (D7), ep.module()'s run (D5), run_decompositions' run and signature (D8).
TorchAnswer askTorch(const ExportedProgram& p, const std::vector<DiffCheck>& checks, const CheckOptions& options);

// The outcome every torch check gets when the peer could not answer; nullopt when it did.
std::optional<CheckOutcome> unanswered(DiffCheck c, const TorchAnswer& a);
// "stage type: message" of one of torch's verdicts.
std::string verdictText(const PeerVerdict& v);
// Our run against torch's (`what`: "ep.module()"); both raising agree whatever the words.
CheckOutcome compareWithTorch(const ExportedProgram& p, DiffCheck c, const RunResult& ours, const RunResult& torch,
                              const std::string& what, PhaseTimes* times);

CheckOutcome d5(const ExportedProgram& p, const TorchAnswer& a, const Device& device, const Interpreter* plan,
                PhaseTimes* times);
// D7's kinds across releases begin so (Note [Save and load across releases]).
inline constexpr std::string_view kAcrossReleases = "across-releases";

CheckOutcome d7(const ExportedProgram& p, const TorchAnswer& a, const CheckOptions& options);
CheckOutcome d8(const ExportedProgram& p, const RunResult& eager, const TorchAnswer& a, PhaseTimes* times);

}  // namespace epsmith::check_detail
