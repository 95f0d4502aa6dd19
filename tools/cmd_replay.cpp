// `epsmith replay PATH... [--timeout S] [--releases]`: re-runs case files (a directory is
// searched for them) and prints, for each, whether it still reproduces, is fixed, or changed,
// and whether that is what its status expects (known upstream LibTorch bugs reproduce; fixed
// bugs of ours stay fixed). With --releases, a case attributed to PyTorch also has its
// torch-only script run under every installed torch, and the releases it affects are printed
// (Note [The releases a finding affects]). Exit 0 when every case is as expected, 1 when one
// is not, 2 for unreadable cases or bad flags.
#include <iostream>

#include "fuzz/known_bugs.h"
#include "fuzz/releases.h"
#include "fuzz/replay.h"
#include "fuzz/upstream.h"
#include "tools/command.h"

namespace epsmith::cli {
namespace {

// What a replay of many cases came to.
struct Tally {
  int verdicts[3] = {0, 0, 0};  // by ReplayVerdict
  int unexpected = 0, unreadable = 0, fixed_in_this = 0, not_here = 0;
};

// One case's lines: its verdict, what it was and is now, and where it was found.
void report(const std::string& path, const CaseFile& c, const ReplayOutcome& o, Tally& t) {
  if (o.not_here) {
    ++t.not_here;
    std::cout << "not here    " << path << ": " << o.error << "\n";
    return;
  }
  t.unexpected += o.as_expected ? 0 : 1;
  if (!o.error.empty()) {
    std::cout << "error       " << path << ": " << o.error << "\n";
    return;
  }
  ++t.verdicts[static_cast<int>(o.verdict)];
  const std::string_view verdict = replayVerdictName(o.verdict);
  std::cout << verdict << std::string(12 - verdict.size(), ' ') << path << "  [" << caseStatusName(c.status)
            << (o.as_expected ? "" : ", NOT AS EXPECTED") << "]\n"
            << "    was: " << c.signature << "\n";
  if (o.verdict == ReplayVerdict::Changed) {
    std::cout << "    now: " << o.now << (o.now_message.empty() ? "" : ": " + o.now_message) << "\n";
  }
  if (!o.fixed_in.empty()) {
    ++t.fixed_in_this;
    // "Fixed in" a later release; an earlier one simply never had the bug.
    const bool later =
        releaseBefore(c.provenance.libtorch, o.fixed_in) || c.provenance.libtorch == releaseOf(o.fixed_in);
    std::cout << "    found on LibTorch " << c.provenance.libtorch << (later ? ": fixed in " : ": not on ")
              << o.fixed_in << "\n";
  }
  if (o.verdict == ReplayVerdict::Reproduces && o.runs > 1) {
    std::cout << "    on run " << o.runs << " of " << kReplayLayouts
              << ", under another heap layout: a memory error (docs/fuzzing.md, Replay)\n";
  }
}

// The releases case `c`'s script shows its finding on, where PyTorch's code is what it tests.
void reportReleases(const CaseFile& c, int timeout_seconds) {
  auto script = caseReproScript(c);
  if (!script.ok()) return;
  const ScriptRun first = runCaseScript(c, script.value(), timeout_seconds);
  const std::vector<ReleaseOutcome> outcomes = runOnReleases(c, script.value(), first, timeout_seconds);
  const std::string phrase = releasesPhrase(outcomes);
  std::cout << "    releases: " << (phrase.empty() ? "no release decides" : phrase) << " (" << releasesTried(outcomes)
            << ")\n";
}

void summarize(size_t cases, const Tally& t) {
  std::cout << cases << " case" << (cases == 1 ? "" : "s") << ": " << t.verdicts[0] << " reproduce, " << t.verdicts[1]
            << " fixed, " << t.verdicts[2] << " changed"
            << (t.fixed_in_this ? " (" + std::to_string(t.fixed_in_this) + " found on another LibTorch, not on " +
                                      libtorchVersion() + ")"
                                : "")
            << (t.not_here ? ", " + std::to_string(t.not_here) + " not runnable here" : "") << "; " << t.unexpected
            << " not as expected" << (t.unreadable ? ", " + std::to_string(t.unreadable) + " unreadable" : "") << "\n";
}

}  // namespace

void addReplayCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("replay", "Re-run corpus cases: reproduces, fixed, or changed");
  struct Options {
    std::vector<std::string> paths;
    double timeout = 30;
    bool releases = false;
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("PATH", opts->paths, "case files or directories (e.g. corpus/regressions)")->required();
  cmd->add_option("--timeout", opts->timeout, "seconds one case may run")
      ->check(CLI::Range(0.001, 86400.0))
      ->capture_default_str();
  cmd->add_flag("--releases", opts->releases,
                "also run each PyTorch finding's torch-only script under every installed torch and say which releases "
                "it affects");
  cmd->callback([opts, &exit_code] {
    auto files = caseFilesUnder(opts->paths);
    if (!files.ok()) {
      std::cerr << "epsmith replay: " << files.error().str() << "\n";
      exit_code = kExitBadInput;
      return;
    }
    WorkerLimits limits;
    limits.seconds_per_request = opts->timeout;
    Tally t;
    for (const auto& path : files.value()) {
      auto c = readCaseFile(path);
      if (!c.ok()) {
        std::cerr << "epsmith replay: " << c.error().str() << "\n";
        ++t.unreadable;
        continue;
      }
      report(path, c.value(), replayCase(c.value(), limits), t);
      if (opts->releases) reportReleases(c.value(), 300);
    }
    summarize(files->size(), t);
    exit_code = t.unreadable ? kExitBadInput : t.unexpected ? kExitFindings : kExitOk;
  });
}

}  // namespace epsmith::cli
