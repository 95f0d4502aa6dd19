// `epsmith report PATH... [--out DIR] [--timeout S]`: an upstream-ready bundle per case
// (repro.py and issue.md, docs/repro.md), each script run with the peer's Python torch, and
// the class it establishes recorded in the case file (Note [A finding confirmed by torch alone]),
// then under every other installed torch (Note [The releases a finding affects]). Checks of
// epsmith's own code are listed and left alone.
#include <filesystem>
#include <iostream>
#include <map>

#include "fuzz/corpus.h"
#include "fuzz/known_bugs.h"
#include "fuzz/releases.h"
#include "fuzz/upstream.h"
#include "oracle/program_io.h"
#include "oracle/torch_peer.h"
#include "tools/command.h"

namespace epsmith::cli {
namespace {

struct ReportOptions {
  std::vector<std::string> paths;
  std::string out;
  std::string known = "corpus/known.json";
  int timeout = 300;
};

// Counts by check (or known-bugs entry) and class, for the closing tables.
using Tally = std::map<std::string, std::map<std::string, int>>;

// One case: its bundle, and its class recorded in the case file (unless bundles go to --out).
void reportCase(const std::string& path, const ReportOptions& o, const KnownBugs& known, Tally& tally, Tally& by_entry,
                int& exit_code) {
  auto c = readCaseFile(path);
  if (!c.ok()) {
    std::cerr << "epsmith report: " << c.error().str() << "\n";
    exit_code = kExitBadInput;
    return;
  }
  const std::filesystem::path file(path);
  const std::string dir =
      o.out.empty() ? file.parent_path().string() : (std::filesystem::path(o.out) / c->bucket).string();
  auto record = writeUpstreamBundle(c.value(), dir, o.timeout);
  if (!record.ok()) {
    ++tally[c->check]["no script"];
    std::cout << "no script        " << path << ": " << record.error().str() << "\n";
    return;
  }
  const std::string_view cls = upstreamClassName(record->cls);
  ++tally[c->check][std::string(cls)];
  std::cout << cls << std::string(17 - cls.size(), ' ') << path << "\n    " << record->reason << "\n";
  if (const std::string releases = releasesPhrase(record->releases); !releases.empty()) {
    std::cout << "    releases: " << releases << " (" << releasesTried(record->releases) << ")\n";
  }
  if (const KnownBug* entry = known.match(rootCauseOf(c.value()), c->provenance.libtorch)) {
    ++by_entry[entry->id][std::string(cls)];
    std::cout << "    known-bugs entry: " << entry->id << "\n";
  }
  if (!o.out.empty()) return;
  if (auto error = recordUpstream(path, c.value(), record.value())) {
    std::cerr << "epsmith report: " << error->str() << "\n";
    exit_code = kExitBadInput;
  }
}

void printTally(const Tally& tally, const std::string& heading) {
  const std::vector<std::string> columns{"torch-confirmed", "cpp-only", "unconfirmed", "no script"};
  std::cout << "\n| " << heading << " |";
  for (const auto& c : columns) std::cout << " " << c << " |";
  std::cout << "\n|---|";
  for (size_t i = 0; i < columns.size(); ++i) std::cout << "---|";
  std::cout << "\n";
  for (const auto& [check, counts] : tally) {
    std::cout << "| " << check << " |";
    for (const auto& c : columns) std::cout << " " << (counts.count(c) ? counts.at(c) : 0) << " |";
    std::cout << "\n";
  }
}

int report(const ReportOptions& o) {
  auto files = caseFilesUnder(o.paths);
  if (!files.ok()) {
    std::cerr << "epsmith report: " << files.error().str() << "\n";
    return kExitBadInput;
  }
  KnownBugs known;
  if (!o.known.empty() && o.known != "none" && std::filesystem::exists(o.known)) {
    auto loaded = KnownBugs::load(o.known);
    if (!loaded.ok()) {
      std::cerr << "epsmith report: " << loaded.error().str() << "\n";
      return kExitBadInput;
    }
    known = std::move(loaded.value());
  }
  if (auto why = torchPeerUnavailable()) {
    std::cerr << "epsmith report: no Python torch to run the scripts with: " << *why << "\n";
    return kExitBadInput;
  }
  int exit_code = kExitOk;
  Tally tally, by_entry;
  for (const auto& path : files.value()) reportCase(path, o, known, tally, by_entry, exit_code);
  printTally(tally, "check");
  if (!by_entry.empty()) printTally(by_entry, "known-bugs entry");
  return exit_code;
}

}  // namespace

void addReportCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("report", "Write repro.py and issue.md for cases, confirming each with torch alone");
  auto o = std::make_shared<ReportOptions>();
  cmd->add_option("PATH", o->paths, "case files, or directories searched for them")->required();
  cmd->add_option("--out", o->out, "write each bundle to DIR/<bucket>/ and leave the case files as they are");
  cmd->add_option("--known", o->known, "the known-bugs list whose entries each case is matched with (none: no list)")
      ->capture_default_str();
  cmd->add_option("--timeout", o->timeout, "seconds each script may run")->check(CLI::PositiveNumber);
  cmd->callback([o, &exit_code] { exit_code = report(*o); });
}

}  // namespace epsmith::cli
