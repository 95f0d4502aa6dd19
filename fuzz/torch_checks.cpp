// The torch peer's answer that D5, D7 and D8 share; see torch_checks.h.
#include "fuzz/torch_checks.h"

#include <algorithm>
#include <optional>
#include <string>

#include "fuzz/check_steps.h"
#include "oracle/pt2_archive.h"
#include "verifier/verifier.h"

namespace epsmith::check_detail {
namespace {

bool asks(const std::vector<DiffCheck>& checks, DiffCheck c) {
  return std::find(checks.begin(), checks.end(), c) != checks.end();
}

}  // namespace

// The outcome every torch check gets when the peer could not answer.
std::optional<CheckOutcome> unanswered(DiffCheck c, const TorchAnswer& a) {
  if (a.skipped) return skip(c, *a.skipped);
  if (a.failed) {
    CheckOutcome o = finding(c, "torch-peer-failed", "", "torch died or hung on this program: " + *a.failed);
    o.message = *a.failed;
    return o;
  }
  return std::nullopt;
}

std::string verdictText(const PeerVerdict& v) { return v.stage + " " + v.type + ": " + v.message; }

// Both sides raising agree whatever the words: torch's message comes from Python, without
// the op that raised.
CheckOutcome compareWithTorch(const ExportedProgram& p, DiffCheck c, const RunResult& ours, const RunResult& torch,
                              const std::string& what, PhaseTimes* times) {
  if (!ours.ok() && !torch.ok()) {
    CheckOutcome o = pass(c);
    o.report = "both raise: epsmith's " + ours.error->str() + "; " + what + ": " + torch.error->message;
    return o;
  }
  CheckOutcome o = compare(c, ours, torch, times);
  if (o.status == Status::Finding) {
    o.report = what + " differs from epsmith's run: " + o.report;
    o.message = withoutNodeNames(o.message, p);
  }
  return o;
}

TorchAnswer askTorch(const ExportedProgram& p, const std::vector<DiffCheck>& checks, const CheckOptions& options) {
  PhaseClock clock(options.times, Phase::Torch);
  TorchAnswer a;
  if (auto why = torchPeerUnavailable()) {
    a.skipped = "no torch peer: " + *why;
    return a;
  }
  if (auto why = pt2CannotHold(p)) {
    a.skipped = "no .pt2 holds this program: " + *why;
    return a;
  }
  PeerRequest request;
  auto bytes = writeProgramPt2(p);
  if (!bytes.ok()) {  // D4's .pt2 form reports the writer's bug
    a.skipped = "its .pt2 cannot be written: " + bytes.error().str();
    return a;
  }
  request.archives.push_back(std::move(bytes).value());
  request.module_run = asks(checks, DiffCheck::D5);
  request.decompose = asks(checks, DiffCheck::D8);
  if (asks(checks, DiffCheck::D7)) {
    const int limit =
        options.torch_corruptions_per_case > 0 ? options.torch_corruptions_per_case : options.corruptions_per_case;
    eachCorruption(p, options.case_seed, limit, options.corruption,
                   [&](const ExportedProgram& work, const Corruption& c) {
                     auto diagnostics = verify(work);
                     if (diagnostics.empty()) return true;  // D6's finding, not a question for torch
                     auto corrupt = writeProgramPt2(work);
                     if (!corrupt.ok()) return true;  // a form no .pt2 can hold: torch cannot be asked
                     request.archives.push_back(std::move(corrupt).value());
                     a.corruptions.push_back(&c);
                     a.rejected_as.push_back(diagnostics.front().str());
                     return true;
                   });
  }
  auto reply = askTorchPeer(request);
  if (!reply.ok()) {
    a.failed = reply.error().message;
  } else {
    a.reply = std::move(reply).value();
  }
  return a;
}

const TorchAnswer& torchAnswer(CheckContext& context) {
  if (!context.torch) context.torch = askTorch(context.program, context.checks, context.options);
  return *context.torch;
}

}  // namespace epsmith::check_detail
