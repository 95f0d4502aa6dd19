// A fuzz campaign (`epsmith fuzz`): cases from consecutive seeds run in forked workers
// (fuzz/workers.h); findings are minimized, in a worker, into buckets, one per root cause
// (Note [Root causes]); a root cause no corpus holds is new and gets its case file, one that
// matches the known-bugs list is counted under its entry (Note [Known bugs]). Status lines every
// few seconds, `stat::` lines at the end, and a report directory (summary.json, report.md).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "fuzz/case_runner.h"
#include "fuzz/known_bugs.h"

namespace epsmith {

struct CampaignOptions {
  CaseSetup setup;
  double seconds = 60;  // stop issuing cases after this long (0: no time limit)
  int64_t cases = 0;    // stop after this many cases (0: no count limit)
  int jobs = 1;
  uint64_t seed = 1;           // case i uses seed + i
  std::string device = "cpu";  // as asked for: cpu, cuda, both (D3 added)
  // New cases go to corpus_dir/regressions; the root causes of the case files there and in
  // each of known_corpora are not new (Note [Root causes]). known_corpora are only read.
  std::string corpus_dir = "fuzz-out/corpus";
  std::vector<std::string> known_corpora;
  KnownBugs known_bugs;  // Note [Known bugs]
  std::string report_dir = "fuzz-out/report";
  double status_seconds = 3;  // between status lines
  // Note [A minimization budget per family] (campaign.cpp); 0: no limit
  int minimize_per_family = 8;
  // Seconds a new root cause's torch-only script may run when the campaign confirms it with
  // torch alone (Note [A finding confirmed by torch alone]); 0: scripts are not run.
  int confirm_timeout = 300;
  std::string command_line;  // for the report
};

struct CampaignResult {
  int64_t cases = 0;
  int new_buckets = 0;
  int buckets = 0;
  // Signatures past their family's minimization budget: neither filed nor known
  // (Note [A minimization budget per family]).
  int64_t unminimized = 0;
  std::vector<std::string> errors;  // writing the corpus or the report, starting workers
};

// Runs the campaign, printing status lines to `log`; a bad generation config is a Diagnostic
// naming its line. What the system refuses it (a file it cannot write, a worker it cannot
// start) is in the result's errors.
Expected<CampaignResult> runCampaign(const CampaignOptions& options, std::ostream& log);

// Note [Minimizations at a campaign's end]: the seconds a minimization begun `elapsed`
// seconds into a campaign of `campaign_seconds` (0: no time limit) may run, where it may
// run `usual` seconds otherwise.
double minimizationSeconds(double campaign_seconds, double elapsed, double usual);

}  // namespace epsmith
