// `epsmith minimize IN [-o OUT | --corpus DIR] [--checks LIST] [--max-calls N]`: runs the
// checks on IN, takes the first finding and minimizes the program while the failure keeps
// its signature (check, kind, and the op that raised). Prints each accepted step, the sizes
// and the oracle calls spent, and the minimized program (or writes it to OUT, or files it
// as a case under DIR/regressions: a program written by hand or met elsewhere joins the
// corpus so). Exit 0 when minimized, 1 when IN shows no finding to minimize, 2 for
// unreadable input or bad flags.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "oracle/program_io.h"
#include "formats/text_format.h"
#include "fuzz/case_runner.h"
#include "fuzz/checks.h"
#include "fuzz/corpus.h"
#include "fuzz/messages.h"
#include "fuzz/workers.h"
#include "epsmith/version.h"
#include "minimizer/minimize.h"
#include "tools/command.h"
#include "tools/minimize_failure.h"

namespace epsmith::cli {
namespace {

// Note [Minimizing out of harm's way]
// Some findings are LibTorch memory errors: a step of their minimization can read a freed
// tensor and end the process (the corpus's var.correction case did, with SIGSEGV). So the
// checks run first in a child, and the minimization runs in another through the campaign's
// own driver, CaseRunner::minimizeProgram: one "still fails"
// (Note [One rule for still failing]) and the same re-runs before and after
// (Note [A finding must come back in a fresh process]). Where that child dies, it runs
// again with each step in a child of its own, as a campaign does
// (Note [Minimizing in forked steps]); a crash is minimized so from the start.
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

// The campaign's minimization of `f` on `p`, in a child; the error says why there is none.
Expected<MinimizedFinding> minimizeInChild(const CaseRunner& runner, const ExportedProgram& p, const Failing& f,
                                           bool fork_steps) {
  WorkerLimits all = runner.setup().limits;
  all.seconds_per_request = kSecondsForAllSteps;
  IsolatedOutcome o = runIsolated([&] { return writeMinimizeReply(runner.minimizeProgram(p, f, fork_steps)); }, all);
  if (o.result) return readMinimizeReply(*o.result);
  return Diagnostic{"", "the minimization died (" + (o.death ? deathSignature(*o.death) : "it sent back nothing") +
                            "); nothing written"};
}

}  // namespace

std::optional<MinimizedFirstFailure> minimizeFirstFailure(const ExportedProgram& p,
                                                          const std::vector<DiffCheck>& checks,
                                                          const WorkerLimits& limits, int max_calls, std::ostream& log,
                                                          std::string* why) {
  const std::optional<Failing> f = firstFailure(p, checks, limits);
  if (!f) {
    why->clear();
    return std::nullopt;
  }
  log << "minimizing: " << f->signature << "\n";
  CaseSetup setup;
  setup.checks = checks;
  setup.limits = limits;
  setup.minimize_calls = setup.minimize_calls_asking_torch = max_calls;
  auto runner = CaseRunner::create(setup);
  if (!runner.ok()) {
    *why = runner.error().str();
    return std::nullopt;
  }
  auto m = minimizeInChild(*runner.value(), p, *f, f->crash.has_value());
  if (!m.ok() && !f->crash) {
    log << "a step ended its process (" << m.error().message << "): each step in a child of its own\n";
    m = minimizeInChild(*runner.value(), p, *f, true);
  }
  if (!m.ok()) {
    *why = m.error().str();
    return std::nullopt;
  }
  if (m->flaky) {
    *why = f->signature + ": " + m->finding.report + "; nothing minimized";
    return std::nullopt;
  }
  if (!m->program) {
    *why = "the minimized program cannot be written as JSON, so it did not come back from its child";
    return std::nullopt;
  }
  for (const auto& step : m->steps) log << "  " << step << "\n";
  log << m->nodes_before << " -> " << m->nodes_after << " calls, " << m->oracle_calls << " oracle calls\n";
  return MinimizedFirstFailure{*f, std::move(m.value())};
}

CaseFile caseOfMinimized(MinimizedFirstFailure m, std::string note) {
  MinimizedFinding& found = m.minimized;
  CaseFile c;
  c.check = found.check;
  c.signature = found.signature;
  c.finding = found.finding;
  if (m.failing.crash) c.finding.message = found.root.message;
  c.bucket = found.root.id();
  c.bucket_key = found.root.str();
  c.core_ops = found.root.ops;
  c.class_ops = found.root.class_ops;
  c.status = CaseStatus::Open;
  c.note = std::move(note);
  c.provenance.libtorch = libtorchVersion();
  c.provenance.epsmith = std::string(kEpsmithVersion);
  c.provenance.date = utcNow();
  c.provenance.nodes_before = found.nodes_before;
  c.provenance.nodes_after = found.nodes_after;
  c.provenance.oracle_calls = found.oracle_calls;
  c.program = std::move(found.program);
  return c;
}

namespace {

// Files the minimized failure of `in` under `corpus`/regressions, named after `in`; the
// path written, or an error.
Expected<std::string> fileMinimized(MinimizedFirstFailure m, const std::string& in, const std::string& corpus) {
  const std::string stem = std::filesystem::path(in).stem().string();
  const CaseFile c = caseOfMinimized(std::move(m), "minimized from " + in + " by epsmith minimize");
  auto written = writeCaseAtomically(corpus, stem + ".json", c);
  if (!written.ok()) return written.error();
  std::cout << "filed " << c.bucket << ": " << c.bucket_key << " in " << written.value() << "\n";
  return written;
}

}  // namespace

void addMinimizeCommand(CLI::App& app, int& exit_code) {
  auto* cmd =
      app.add_subcommand("minimize", "Shrink a program while its first finding (check, kind and variant) still shows");
  struct Options {
    std::string in;
    std::string out;
    std::string corpus;
    std::string checks = allDiffCheckNames();
    int max_calls = 2000;
    double timeout = 60;
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("IN", opts->in, "program file (.json, .ept or .pt2)")->required();
  cmd->add_option("-o,--output", opts->out, "write the minimized program here (.json, .ept or .pt2)");
  cmd->add_option("--corpus", opts->corpus,
                  "file the minimized finding as a case under DIR/regressions, as a campaign files a new root cause")
      ->excludes(cmd->get_option("--output"));
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
    if (!opts->corpus.empty()) {
      auto filed = fileMinimized(std::move(*m), opts->in, opts->corpus);
      if (!filed.ok()) return fail(filed.error().str(), kExitBadInput);
      exit_code = kExitOk;
      return;
    }
    const ExportedProgram& minimized = *m->minimized.program;  // set where one came back
    if (opts->out.empty())
      std::cout << printProgramText(minimized);
    else if (auto e = saveProgram(opts->out, minimized))
      return fail(e->str(), kExitBadInput);
    exit_code = kExitOk;
  });
}

}  // namespace epsmith::cli
