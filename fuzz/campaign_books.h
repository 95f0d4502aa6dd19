// The campaign's books, internal to fuzz/: its buckets (one per root cause), the known bugs
// it met, its pending minimizations, and the Campaign that keeps them. campaign.cpp runs the
// campaign (the workers, the findings as they come in); campaign_report.cpp writes what it
// found (summary.json, report.md).
#pragma once

#include <array>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "fuzz/campaign.h"
#include "fuzz/corpus.h"
#include "fuzz/case_runner.h"
#include "formats/json.h"
#include "fuzz/failing.h"
#include "fuzz/known_bugs.h"
#include "generators/program_features.h"
#include "fuzz/root_cause.h"
#include "fuzz/workers.h"

namespace epsmith::campaign_detail {

using Clock = std::chrono::steady_clock;

// One root cause met (Note [Root causes]): the minimized finding that keyed it.
struct Bucket {
  RootCause root;
  std::string id, signature, text, corpus_file;
  // The finding that keyed it, minimized (a death's kind and op for a crash); for one
  // never minimized, the finding as the case found it, with why in its report.
  CheckOutcome finding = blankFinding();
  bool is_new = false;  // no corpus read holds its root cause
  int64_t count = 0;
  uint64_t first_seed = 0;
  size_t nodes_before = 0, nodes_after = 0;
  int oracle_calls = 0;
  // What its torch-only script established (new root causes with a path through PyTorch).
  std::optional<UpstreamRecord> upstream;
};

// Buckets of one family (RootCause::family: one message, other ops), in bucket id order.
struct Family {
  std::string name;
  std::vector<const Bucket*> buckets;
  int64_t findings = 0;  // over its buckets
  int new_buckets = 0;
};

// The families of `buckets`, the largest first (ties by name).
std::vector<Family> familiesOf(const std::map<std::string, Bucket>& buckets);

// A finding waiting for its minimization, or under way.
struct Pending {
  Failing failing;
  std::string kind;  // as seen (crash-SIGSEGV, not crash-memory)
  RootCause seen;    // before minimization: the raising op its only op
  uint64_t seed = 0;
  int64_t count = 0;
  bool fork_steps = false;  // its minimization ended a worker once (Note [Minimizing in forked steps])
};

// What became of a minimization: the minimized finding, or why there is none.
struct MinimizeOutcome {
  std::optional<MinimizedFinding> minimized;
  std::string not_minimized;  // why, when `minimized` is empty
};

// What minimized programs with one feature (Note [Program features]) came to.
struct FeatureTally {
  int root_causes = 0, new_root_causes = 0;
  int64_t known_findings = 0;
  std::set<std::string> known_entries;
};

// Findings of an entry of the known-bugs list (Note [Known bugs]).
struct KnownHits {
  const KnownBug* bug = nullptr;
  int64_t findings = 0;
  uint64_t first_seed = 0;
  std::set<std::string> families;  // of the findings it took
};

class Campaign {
 public:
  Campaign(const CampaignOptions& options, std::ostream& log, std::unique_ptr<CaseRunner> runner)
      : o_(options), log_(log), runner_(std::move(runner)) {}
  CampaignResult run();

 private:
  void readCorpora();
  void onCase(const CaseResult& reply);
  void onCaseDeath(uint64_t seed, const WorkerDeath& d);
  void onFinding(uint64_t seed, const Failing& failing, const std::string& kind, const std::string& op);
  bool countKnown(const RootCause& root, MatchStage stage, uint64_t seed, int64_t count, const std::string& key);
  Bucket* predictedBucket(const std::string& family, const std::vector<std::string>& slice);
  bool familyBudgetSpent(uint64_t seed, const std::string& key, const std::string& family);
  void onCaseEvent(uint64_t seed, std::optional<CaseResult> reply, std::optional<WorkerDeath> death);
  void takeCasesInOrder(bool stopping);
  void onMinimized(const std::string& key, MinimizedFinding reply);
  void onMinimizeDeath(const std::string& key, const WorkerDeath& d);
  double elapsedSeconds() const;  // since the campaign began
  void settleInOrder(bool stopping);
  void settleMinimized(const std::string& key, MinimizeOutcome outcome);
  void tallyKnownFeatures(const ExportedProgram& program, const std::string& key, int64_t count);
  Bucket& settle(const std::string& key, Bucket b, const Pending& p, std::optional<ExportedProgram> program);
  void fileCase(Bucket& b, const Pending& p, std::optional<ExportedProgram> program);
  void statusLine(bool final);
  void dispatch(WorkerPool& pool, int64_t& issued, bool out_of_time);
  void receive(WorkerPool& pool, int ms);
  void logStats() const;
  void confirmUpstream();
  void writeReport();
  int newBuckets() const;
  int upstreamCount(UpstreamClass c) const;  // new root causes of that class
  int64_t knownFindings() const;
  void writeBucketsJson(JsonWriter& w) const;
  void writeKnownJson(JsonWriter& w) const;
  void writeFamiliesJson(JsonWriter& w, const std::vector<Family>& families) const;
  std::string summaryJson(double elapsed, const std::vector<Family>& families) const;
  void writeOverview(std::ostream& md, double elapsed) const;
  void writeNew(std::ostream& md) const;
  void writeKnown(std::ostream& md) const;
  void writeFeatures(std::ostream& md) const;
  void writeFeaturesJson(JsonWriter& w) const;
  void writeSeenBefore(std::ostream& md) const;
  void writeFamilies(std::ostream& md, const std::vector<Family>& families) const;
  std::string reproCommand(const Bucket& b) const;
  void writeOverBudget(std::ostream& md) const;
  std::string notMinimizedRow() const;

  const CampaignOptions& o_;
  std::ostream& log_;
  std::unique_ptr<CaseRunner> runner_;
  std::map<std::string, std::string> corpus_roots_;  // root cause id → a case file of it, in a corpus read
  std::map<std::string, Bucket> buckets_;            // root cause id → its bucket
  std::map<std::string, std::string> bucket_of_;     // pending key → bucket id, once settled
  std::map<std::string, std::string> known_of_;      // pending key → known-bug id, once settled
  std::map<std::string, KnownHits> known_hits_;      // known-bug id → its findings
  std::array<FeatureTally, kProgramFeatures.size()> by_feature_;
  std::map<std::string, Pending> pending_;  // pending key →
  // Note [A flaky finding does not hide its signature]: a key as coarse as a signature and
  // its message covers many programs; one finding of it that did not repeat (a kernel
  // reading uninitialized memory) must not make every later one count as flaky unseen.
  // The next few findings of a flaky key are minimized too, and the first to repeat
  // becomes its bucket; the seeds of flaky ones go to the report, by family.
  static constexpr int kFlakyRetries = 4;
  std::map<std::string, int> flaky_retries_;                  // pending key → minimizations that were flaky
  std::map<std::string, int64_t> flaky_;                      // family → findings that did not repeat
  std::map<std::string, std::vector<uint64_t>> flaky_seeds_;  // family → the first few seeds
  std::deque<std::string> to_minimize_;                       // pending keys
  // Note [A minimization budget per family]
  struct OverBudget {
    int64_t findings = 0;
    std::map<std::string, uint64_t> first_seeds;  // pending key → the seed it was first met in
  };
  std::map<std::string, int> minimizations_;               // family → minimizations asked for
  std::map<std::string, OverBudget> over_budget_;          // family → what it met past its budget
  std::map<std::string, std::string> family_over_budget_;  // pending key → its family, when past
  // Note [Campaigns that do not depend on timing]
  struct CaseEvent {
    std::optional<CaseResult> reply;
    std::optional<WorkerDeath> death;
  };
  uint64_t next_case_ = 0;                            // the seed whose result is taken next
  std::map<uint64_t, CaseEvent> early_cases_;         // results of later seeds, waiting for it
  std::set<std::pair<uint64_t, std::string>> order_;  // pending keys by first seed
  std::map<std::string, MinimizeOutcome> outcomes_;   // pending key → what its minimization made
  PhaseTimes times_;
  int64_t cases_ = 0, findings_ = 0, generation_errors_ = 0, deaths_ = 0;
  int64_t by_slice_ = 0;                    // mismatches counted by their slice, not minimized
  std::map<std::string, int64_t> skipped_;  // check → cases it skipped
  // check → why (skipReasonTemplate) → cases, at most kSkipReasons reasons a check
  static constexpr size_t kSkipReasons = 40;
  std::map<std::string, std::map<std::string, int64_t>> skip_reasons_;
  size_t peak_rss_ = 0;
  Clock::time_point start_;
  double fuzz_seconds_ = 0;     // from the start to the last case settled
  double confirm_seconds_ = 0;  // running new root causes' scripts, after that
  std::string started_at_;
  std::vector<std::string> errors_;
  int restarts_ = 0;
  int recycled_ = 0;  // workers replaced after their share of requests
};

// "12%": `part` of `whole`, for status lines and the report.
std::string percent(double part, double whole);

}  // namespace epsmith::campaign_detail
