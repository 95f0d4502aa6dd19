// `epsmith known --check [--known FILE] [--timeout S] [--jobs N]`: the lifecycle of the
// known-bugs list (Note [Known bugs]). Runs every entry's torch-only script under every
// installed Python torch (Note [The releases a finding affects]) and says which still
// reproduce, which are fixed there (the entry then says "fixed" and stops matching from that
// release on), which newer release an entry was checked on, and which do not show their bug
// on a release they say they were seen on: those entries are wrong, and the exit code is 1.
// Upstream fixing a bug never fails it. `epsmith known --which PATH...` says which entry
// each case is an instance of.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <iostream>
#include <map>
#include <thread>

#include "fuzz/corpus.h"
#include "fuzz/known_bugs.h"
#include "fuzz/releases.h"
#include "fuzz/upstream.h"
#include "oracle/program_io.h"
#include "oracle/torch_peer.h"
#include "tools/command.h"

namespace epsmith::cli {
namespace {

struct KnownOptions {
  bool check = false;
  std::vector<std::string> which;  // case files or directories
  std::string known = "corpus/known.json";
  int timeout = 300;
  int jobs = 2;
};

enum class Verdict { Reproduces, CppOnlyAsRecorded, Fixed, Changed, NotYet, NeverReproduced, CannotRun, NoScript };

std::string_view verdictName(Verdict v) {
  switch (v) {
    case Verdict::Reproduces: return "reproduces";
    case Verdict::CppOnlyAsRecorded: return "cpp-only";
    case Verdict::Fixed: return "fixed";
    case Verdict::Changed: return "changed";
    case Verdict::NotYet: return "not yet";
    case Verdict::NeverReproduced: return "wrong";
    case Verdict::CannotRun: return "cannot run";
    case Verdict::NoScript: return "no script";
  }
  return "?";
}

struct Checked {
  Verdict verdict = Verdict::NoScript;
  std::string line;  // what to tell, after the entry's id
};

bool seenOn(const KnownBug& b, const std::string& release) {
  return std::find(b.seen.begin(), b.seen.end(), release) != b.seen.end();
}

// What a run of `b`'s script says of `b` on the release it ran on.
Checked judge(const KnownBug& b, const ScriptRun& run, const UpstreamRecord& r) {
  const std::string release = releaseOf(run.torch);
  if (r.cls == UpstreamClass::TorchConfirmed) {
    return {Verdict::Reproduces, seenOn(b, release) ? "" : "add \"" + release + "\" to its \"seen\""};
  }
  if (run.exit_code == 2) return {Verdict::CannotRun, r.reason};
  // Another difference on a release the entry does not claim: that release changed what the
  // program meets, and a campaign there files it as new, since the entry does not match.
  if (run.exit_code == 1 && run.output.find("\nthe bug shows") != std::string::npos && !seenOn(b, release))
    return {Verdict::Changed, "its bug does not show on " + release + ", " + r.reason};
  if (run.exit_code != 0) return {Verdict::NeverReproduced, "its script does not show it: " + r.reason};
  if (b.path == KnownPath::CppOnly)
    return {Verdict::CppOnlyAsRecorded, "torch alone does not show it, as its path says"};
  if (seenOn(b, release))
    return {Verdict::NeverReproduced, "its script passes on " + release + ", where it says it was seen"};
  // A release before every one it was seen on: the bug is a regression after it.
  if (std::all_of(b.seen.begin(), b.seen.end(), [&](const std::string& s) { return releaseBefore(release, s); })) {
    return {Verdict::NotYet, "passes on " + release + ", before the releases it was seen on: a regression after it"};
  }
  if (b.fixed.empty() || releaseBefore(release, b.fixed)) return {Verdict::Fixed, "set \"fixed\": \"" + release + "\""};
  return {Verdict::Fixed, ""};
}

// The verdicts of `b`'s script under each installed torch, as one: the peer's release's, or
// "wrong" where any release says so; what the others add, after it; and the releases it
// affects, with the newest that decided where the entry names an older one as `checked`.
Checked onEveryRelease(const KnownBug& b, const CaseFile& c, const std::string& script, int timeout) {
  Checked result;
  const std::vector<ReleaseRun> runs = runUnderEveryRelease(c, script, timeout, nullptr, /*until_shown=*/true);
  for (size_t i = 0; i < runs.size(); ++i) {
    const ScriptRun& run = runs[i].run;
    Checked here = judge(b, run, classifyScriptRun(c, run));
    const std::string on = i == 0 ? "" : "on " + releaseOf(run.torch) + ": ";
    if (i == 0 || (here.verdict == Verdict::NeverReproduced && result.verdict != Verdict::NeverReproduced)) {
      result.verdict = here.verdict;
      result.line = here.line.empty() ? result.line : on + here.line + (result.line.empty() ? "" : "; " + result.line);
    } else if (!here.line.empty() && here.verdict != Verdict::CannotRun) {
      result.line += (result.line.empty() ? "" : "; ") + on + here.line;
    }
  }
  const std::vector<ReleaseOutcome> outcomes = outcomesOf(c, runs);
  std::string newest;
  for (const auto& o : outcomes) {
    if (o.outcome == "shows" || o.outcome == "passes") newest = releaseOf(o.torch);
  }
  if (!newest.empty() && (b.checked.empty() || releaseBefore(b.checked, newest))) {
    result.line += (result.line.empty() ? "" : "; ") + std::string("set \"checked\": \"") + newest + "\"";
  }
  const std::string phrase = releasesPhrase(outcomes);
  if (!phrase.empty()) result.line += (result.line.empty() ? "" : "; ") + phrase;
  return result;
}

Checked checkEntry(const KnownBug& b, const std::filesystem::path& root, int timeout) {
  if (b.repro.empty()) return {Verdict::NoScript, ""};
  const std::filesystem::path script = root / b.repro;
  auto cases = caseFilesUnder({script.parent_path().string()});
  if (!std::filesystem::exists(script) || !cases.ok() || cases->size() != 1) {
    return {Verdict::NeverReproduced, script.string() + ": no script with one case beside it"};
  }
  auto c = readCaseFile(cases->front());
  if (!c.ok()) return {Verdict::NeverReproduced, c.error().str()};
  auto text = readFileBytes(script.string());
  if (!text.ok()) return {Verdict::NeverReproduced, text.error().str()};
  return onEveryRelease(b, c.value(), text.value(), timeout);
}

int check(const KnownOptions& o) {
  auto list = KnownBugs::load(o.known);
  if (!list.ok()) {
    std::cerr << "epsmith known: " << list.error().str() << "\n";
    return kExitBadInput;
  }
  if (auto why = torchPeerUnavailable()) {
    std::cerr << "epsmith known: no Python torch to run the scripts with: " << *why << "\n";
    return kExitBadInput;
  }
  // Scripts are named from the directory that holds the list's own directory (the checkout).
  const std::filesystem::path root = std::filesystem::absolute(o.known).parent_path().parent_path();
  const auto& bugs = list->bugs();
  std::vector<Checked> results(bugs.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (int j = 0; j < o.jobs; ++j) {
    workers.emplace_back([&] {
      for (size_t i = next++; i < bugs.size(); i = next++) results[i] = checkEntry(bugs[i], root, o.timeout);
    });
  }
  for (std::thread& w : workers) w.join();
  std::map<Verdict, int> counts;
  for (size_t i = 0; i < bugs.size(); ++i) {
    ++counts[results[i].verdict];
    if (results[i].verdict == Verdict::NoScript) continue;
    const std::string_view name = verdictName(results[i].verdict);
    std::cout << name << std::string(12 - name.size(), ' ') << bugs[i].id
              << (results[i].line.empty() ? "" : ": " + results[i].line) << "\n";
  }
  std::cout << "\nknown --check: " << bugs.size() << " entries of " << o.known << ":";
  for (Verdict v : {Verdict::Reproduces, Verdict::CppOnlyAsRecorded, Verdict::Fixed, Verdict::Changed, Verdict::NotYet,
                    Verdict::NeverReproduced, Verdict::CannotRun, Verdict::NoScript}) {
    std::cout << " " << counts[v] << " " << verdictName(v) << (v == Verdict::NoScript ? "\n" : ",");
  }
  return counts[Verdict::NeverReproduced] > 0 ? kExitFindings : kExitOk;
}

// `--which`: the entry each case is an instance of, so that a campaign's cases can give the
// entries without a script theirs (docs/repro.md). A case is matched as its campaign
// matched it after minimization, on the release it was found on.
int which(const KnownOptions& o) {
  auto list = KnownBugs::load(o.known);
  if (!list.ok()) {
    std::cerr << "epsmith known: " << list.error().str() << "\n";
    return kExitBadInput;
  }
  auto files = caseFilesUnder(o.which);
  if (!files.ok()) {
    std::cerr << "epsmith known: " << files.error().str() << "\n";
    return kExitBadInput;
  }
  int unreadable = 0, matched = 0, for_scriptless = 0;
  for (const std::string& file : files.value()) {
    auto c = readCaseFile(file);
    if (!c.ok()) {
      std::cerr << "epsmith known: " << c.error().str() << "\n";
      ++unreadable;
      continue;
    }
    const KnownBug* bug = list->match(rootCauseOf(c.value()), c->provenance.libtorch);
    if (!bug) {
      std::cout << "none        " << file << "\n";
      continue;
    }
    ++matched;
    for_scriptless += bug->repro.empty();
    std::cout << (bug->repro.empty() ? "no script   " : "has script  ") << file << ": " << bug->id << "\n";
  }
  std::cout << "\nknown --which: " << files->size() << " cases: " << matched << " match an entry, " << for_scriptless
            << " of them one without a script; " << unreadable << " unreadable\n";
  return unreadable > 0 ? kExitBadInput : kExitOk;
}

}  // namespace

void addKnownCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("known", "The known-bugs list's lifecycle: run each entry's torch-only script");
  auto o = std::make_shared<KnownOptions>();
  auto* check_flag = cmd->add_flag("--check", o->check, "run every entry's script under every installed Python torch");
  cmd->add_option("--which", o->which, "case files or directories: say which entry each case matches")
      ->excludes(check_flag);
  cmd->add_option("--known", o->known, "the known-bugs list")->capture_default_str();
  cmd->add_option("--timeout", o->timeout, "seconds each script may run")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--jobs", o->jobs, "scripts run at once")->check(CLI::Range(1, 64))->capture_default_str();
  cmd->callback([o, &exit_code] {
    if (!o->check && o->which.empty()) {
      std::cerr << "epsmith known: say --check (run every entry's script) or --which PATH... (match cases)\n";
      exit_code = kExitBadInput;
      return;
    }
    exit_code = o->check ? check(*o) : which(*o);
  });
}

}  // namespace epsmith::cli
