// `epsmith check FILE [--checks D1,...,D8] [--seed S]`: runs the differential checks
// on one program and prints, per check, pass / skipped (why) / the finding, readably.
// Exit 0 when nothing was found, 1 when a check found something, 2 for unreadable input or
// bad flags.
#include <algorithm>
#include <iostream>

#include "oracle/program_io.h"
#include "fuzz/case_runner.h"
#include "fuzz/checks.h"
#include "fuzz/messages.h"
#include "fuzz/workers.h"
#include "tools/command.h"

namespace epsmith::cli {
namespace {

// Note [Checks out of harm's way]
// A check can meet a LibTorch memory error (the corpus's d2-crash-memory cases segfault in
// LibTorch's functionalization) or a kernel that hangs. Each check runs in a child, so such
// a program shows as that check's finding, naming the op it was running, and the other
// checks still run; the fork costs a few milliseconds a check.

// Each check on `p` in a child of its own; a child that dies is its check's finding. The
// checks that ask the torch peer share one child, so they share one peer and one question.
std::vector<CheckOutcome> eachInAChild(const ExportedProgram& p, const std::vector<DiffCheck>& checks,
                                       const CheckOptions& options, const WorkerLimits& limits) {
  std::vector<std::vector<DiffCheck>> groups;
  std::vector<DiffCheck> torch;
  for (DiffCheck c : checks) asksTorch(c) ? torch.push_back(c) : groups.push_back({c});
  if (!torch.empty()) groups.push_back(torch);
  std::vector<CheckOutcome> outcomes;
  for (const auto& group : groups) {
    IsolatedOutcome r = runIsolated(
        [&] {
          std::string lines;  // one outcome a line: writeOutcome's JSON has no raw newline
          for (const auto& o : runChecks(p, group, options)) lines += writeOutcome(o) + "\n";
          return lines;
        },
        limits);
    std::vector<CheckOutcome> read;
    for (size_t at = 0; r.result && at < r.result->size();) {
      const size_t nl = r.result->find('\n', at);
      auto one = readOutcome(std::string_view(*r.result).substr(at, nl - at));
      if (!one.ok()) break;
      read.push_back(one.value());
      at = nl + 1;
    }
    if (read.size() == group.size()) {
      outcomes.insert(outcomes.end(), read.begin(), read.end());
      continue;
    }
    for (DiffCheck c : group) {
      CheckOutcome died;
      died.check = c;
      died.status = CheckOutcome::Status::Finding;
      died.kind = r.death ? r.death->kindName() : "check-error";
      died.report = r.death ? "the check's process died (" + deathSignature(*r.death) + ")"
                            : "the check's process sent back no outcome";
      outcomes.push_back(died);
    }
  }
  std::stable_sort(outcomes.begin(), outcomes.end(),
                   [](const CheckOutcome& a, const CheckOutcome& b) { return a.check < b.check; });
  return outcomes;
}

// "D1 pass", "D4 skipped: why", or the finding and its report, indented; whether a finding.
bool print(const CheckOutcome& o) {
  std::cout << diffCheckName(o.check) << " ";
  switch (o.status) {
    case CheckOutcome::Status::Pass: std::cout << "pass\n"; return false;
    case CheckOutcome::Status::Skipped: std::cout << "skipped: " << o.report << "\n"; return false;
    case CheckOutcome::Status::Finding: break;
  }
  std::cout << "FINDING " << o.kind << (o.where.empty() ? "" : " at " + o.where) << "\n";
  for (size_t start = 0; start < o.report.size();) {
    const size_t end = o.report.find('\n', start);
    std::cout << "    " << o.report.substr(start, end - start) << "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return true;
}

}  // namespace

void addCheckCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("check", "Run the differential checks (" + allDiffCheckNames() + ") on one program");
  struct Options {
    std::string file;
    std::string checks = allDiffCheckNames();
    uint64_t seed = 1;
    double timeout = 60;
    bool across_releases = false;
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("FILE", opts->file, "program file (.json, .ept or .pt2)")->required();
  cmd->add_option("--checks", opts->checks, checksHelp())->capture_default_str();
  cmd->add_option("--seed", opts->seed, "where D6 places its corruptions")->capture_default_str();
  cmd->add_option("--timeout", opts->timeout, "seconds one check may run before it is a hang")
      ->check(CLI::Range(0.001, 86400.0))
      ->capture_default_str();
  cmd->add_flag("--across-releases", opts->across_releases,
                "D7 also saves the program with each of two installed torches and loads it with the other");
  cmd->callback([opts, &exit_code] {
    auto checks = parseDiffChecks(opts->checks);
    if (!checks) {
      std::cerr << "epsmith check: --checks: " << checks.error().message << "\n";
      exit_code = kExitBadInput;
      return;
    }
    auto program = loadOrReport("check", opts->file, exit_code);
    if (!program) return;
    CheckOptions options;
    options.case_seed = opts->seed;
    options.across_releases = opts->across_releases;
    WorkerLimits limits;
    limits.seconds_per_request = opts->timeout;
    const std::vector<CheckOutcome> outcomes = eachInAChild(program.value(), *checks, options, limits);
    int findings = 0;
    for (const auto& o : outcomes) findings += print(o) ? 1 : 0;
    exit_code = findings ? kExitFindings : kExitOk;
  });
}

}  // namespace epsmith::cli
