// `epsmith minimize IN [-o OUT] [--checks LIST] [--max-calls N]`: runs the checks on IN,
// takes the first finding and minimizes the program while the failure keeps its signature
// (check, kind, and the op that raised). Prints each accepted step, the sizes and the oracle
// calls spent, and the minimized program (or writes it to OUT). Exit 0 when minimized, 1
// when IN shows no finding to minimize, 2 for unreadable input or bad flags.
#include <algorithm>
#include <iostream>

#include "oracle/program_io.h"
#include "formats/text_format.h"
#include "fuzz/case_runner.h"
#include "fuzz/checks.h"
#include "fuzz/corpus.h"
#include "fuzz/messages.h"
#include "fuzz/workers.h"
#include "minimizer/minimize.h"
#include "tools/command.h"
#include "tools/minimize_failure.h"

namespace epsmith::cli {
namespace {

// Note [Minimizing out of harm's way]
// Some findings are LibTorch memory errors: a step of their minimization can read a freed
// tensor and end the process (the corpus's var.correction case did, with SIGSEGV). So the
// checks run first in a child; the whole minimization then runs in one child, steps
// in-process, and comes back as JSON; if that child dies, or the finding is itself a crash,
// each step runs in a child of its own (slower by a fork a step), its eager runs in another
// (MinimizeOptions::run_step), a step whose child dies some other way counting as not
// failing.
// A crash is minimized while it crashes the same way, a hang in at most 20 steps.
constexpr double kSecondsForAllSteps = 24 * 3600;  // the one child running every step

// The first finding of `checks` on `p`, as a message (fuzz/messages.h); "" when none.
std::string firstFindingMessage(const ExportedProgram& p, const std::vector<DiffCheck>& checks) {
  const auto outcomes = runChecks(p, checks);
  const CheckOutcome* found = firstFinding(outcomes);
  return found ? writeOutcome(*found) : "";
}

// What `p` fails with, asked in a child: its first finding, or the child's death.
std::optional<Failing> firstFailure(const ExportedProgram& p, const std::vector<DiffCheck>& checks,
                                    const WorkerLimits& limits) {
  IsolatedOutcome first = runIsolated([&] { return firstFindingMessage(p, checks); }, limits);
  if (first.death) return Failing::of(*first.death);
  if (!first.result || first.result->empty()) return std::nullopt;
  auto read = readOutcome(*first.result);
  if (!read.ok()) return std::nullopt;
  return Failing::of(read.value());
}

// The child's result; none when it sent back something unreadable (said, not lost).
std::optional<MinimizeResult> takeResult(Expected<MinimizeResult> read) {
  if (read.ok()) return std::move(read.value());
  std::cerr << "epsmith minimize: " << read.error().str() << "\n";
  return std::nullopt;
}

// Every step in one child, in-process there; none when that child died.
std::optional<MinimizeResult> minimizeInOneChild(const ExportedProgram& p, const std::vector<DiffCheck>& checks,
                                                 const Failing& f, const MinimizeOptions& options) {
  WorkerLimits all;
  all.seconds_per_request = kSecondsForAllSteps;
  IsolatedOutcome o = runIsolated(
      [&] {
        // Note [One rule for still failing]; the re-runs focus on the finding's variant.
        const auto still_fails = [&](const ExportedProgram& q) { return stillFails(q, checks, f, Device(), nullptr); };
        return writeMinimizeResult(minimize(p, still_fails, options));
      },
      all);
  if (o.death)
    std::cout << "a step ended its process (" << deathSignature(*o.death) << "): each step in a child of its own\n";
  return o.result ? takeResult(readMinimizeResult(*o.result)) : std::nullopt;
}

// Each step's checks, and the minimizer's own eager runs (to cut a call to an input, to
// shrink inputs), in grandchildren of the child that minimizes. A crash still fails when
// it crashes the same way.
Expected<MinimizeResult> minimizeStepByStep(const ExportedProgram& p, const std::vector<DiffCheck>& checks,
                                            const Failing& f, MinimizeOptions options, const WorkerLimits& limits) {
  options.run_step = eagerStepsInChildren(limits);
  WorkerLimits all = limits;
  all.seconds_per_request = kSecondsForAllSteps;
  IsolatedOutcome o = runIsolated(
      [&] {
        const auto still_fails = [&](const ExportedProgram& q) { return stillFails(q, checks, f, Device(), &limits); };
        return writeMinimizeResult(minimize(p, still_fails, options));
      },
      all);
  if (o.result) return readMinimizeResult(*o.result);
  return Diagnostic{"", "the minimization died (" + (o.death ? deathSignature(*o.death) : "it sent back nothing") +
                            "); nothing written"};
}

}  // namespace

std::optional<MinimizedFailure> minimizeFirstFailure(const ExportedProgram& p, const std::vector<DiffCheck>& checks,
                                                     const WorkerLimits& limits, int max_calls, std::ostream& log,
                                                     std::string* why) {
  const std::optional<Failing> f = firstFailure(p, checks, limits);
  if (!f) {
    why->clear();
    return std::nullopt;
  }
  log << "minimizing: " << f->signature << "\n";
  // Each step asks the check that found it alone, as a campaign's minimization does: a
  // check after it cannot make a step fail the same way, one before it would only hide
  // the finding where it fails too, and D5-D8 would start a Python peer per step child.
  std::vector<DiffCheck> step_checks = checks;
  if (auto c = diffCheckFromName(f->check)) step_checks = {*c};
  MinimizeOptions options;
  options.max_oracle_calls = max_calls;
  // A hang costs the whole time limit a step (as in a campaign).
  if (f->crash && f->crash->kind == WorkerDeath::Kind::Timeout)
    options.max_oracle_calls = std::min(options.max_oracle_calls, 20);
  std::optional<MinimizeResult> minimized;
  if (!f->crash) minimized = minimizeInOneChild(p, step_checks, *f, options);
  if (!minimized) {
    auto stepwise = minimizeStepByStep(p, step_checks, *f, options, limits);
    if (!stepwise) {
      *why = stepwise.error().str();
      return std::nullopt;
    }
    minimized = std::move(stepwise.value());
  }
  for (const auto& step : minimized->log) log << "  " << step << "\n";
  log << minimized->nodes_before << " -> " << minimized->nodes_after << " calls, " << minimized->oracle_calls
      << " oracle calls\n";
  return MinimizedFailure{*f, std::move(*minimized)};
}

void addMinimizeCommand(CLI::App& app, int& exit_code) {
  auto* cmd =
      app.add_subcommand("minimize", "Shrink a program while its first finding (check, kind and variant) still shows");
  struct Options {
    std::string in;
    std::string out;
    std::string checks = allDiffCheckNames();
    int max_calls = 2000;
    double timeout = 60;
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("IN", opts->in, "program file (.json, .ept or .pt2)")->required();
  cmd->add_option("-o,--output", opts->out, "write the minimized program here (.json, .ept or .pt2)");
  cmd->add_option("--checks", opts->checks, "checks whose first finding is minimized")->capture_default_str();
  cmd->add_option("--max-calls", opts->max_calls, "oracle calls at most (each run of the checks, each eager run)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--timeout", opts->timeout, "seconds the checks of one step may run before they are a hang")
      ->check(CLI::Range(0.001, 86400.0))
      ->capture_default_str();
  cmd->callback([opts, &exit_code] {
    auto fail = [&](const std::string& message, int code) {
      std::cerr << "epsmith minimize: " << message << "\n";
      exit_code = code;
    };
    auto checks = parseDiffChecks(opts->checks);
    if (!checks) return fail("--checks: " + checks.error().message, kExitBadInput);
    if (!opts->out.empty() && !formatFromPath(opts->out)) {
      return fail(opts->out + ": unknown extension (use .json, .ept or .pt2)", kExitBadInput);
    }
    auto program = loadOrReport("minimize", opts->in, exit_code);
    if (!program) return;
    WorkerLimits limits;  // a step: the campaign's memory limit, --timeout
    limits.seconds_per_request = opts->timeout;
    std::string why;
    auto m = minimizeFirstFailure(program.value(), *checks, limits, opts->max_calls, std::cout, &why);
    if (!m && why.empty()) return fail(opts->in + ": no check finds anything; nothing to minimize", kExitFindings);
    if (!m) return fail(why, kExitFindings);
    const MinimizeResult& r = m->result;
    if (opts->out.empty())
      std::cout << printProgramText(r.program);
    else if (auto e = saveProgram(opts->out, r.program))
      return fail(e->str(), kExitBadInput);
    exit_code = kExitOk;
  });
}

}  // namespace epsmith::cli
