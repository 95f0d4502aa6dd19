// A fuzz campaign (`epsmith fuzz`): cases from consecutive seeds run in forked workers
// (fuzz/workers.h); each finding's signature is minimized once, in a worker, into its
// bucket; a bucket not yet in the corpus is new and gets its case file. Status lines every
// few seconds, `stat::` lines at the end, and a report directory (summary.json, report.md).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "fuzz/case_runner.h"

namespace epsmith {

struct CampaignOptions {
  CaseSetup setup;
  double seconds = 60;        // stop issuing cases after this long (0: no time limit)
  int64_t cases = 0;          // stop after this many cases (0: no count limit)
  int jobs = 1;
  uint64_t seed = 1;          // case i uses seed + i
  std::string device = "cpu"; // as asked for: cpu, cuda, both (D3 added)
  std::string corpus_dir = "corpus";
  std::string report_dir = "fuzz-report";
  double status_seconds = 3;  // between status lines
  int minimize_per_family = 3;  // Note [A minimization budget per family] (campaign.cpp); 0: no limit
  std::string command_line;   // for the report
};

struct CampaignResult {
  int64_t cases = 0;
  int new_buckets = 0;
  int buckets = 0;
  std::vector<std::string> errors;  // writing the corpus or the report, starting workers
};

// Runs the campaign, printing status lines to `log`; a bad generation config is a Diagnostic
// naming its line. What the system refuses it (a file it cannot write, a worker it cannot
// start) is in the result's errors.
Expected<CampaignResult> runCampaign(const CampaignOptions& options, std::ostream& log);

}  // namespace epsmith
