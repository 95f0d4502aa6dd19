// See campaign.h. Requests and replies between the campaign and its workers are JSON.
#include "fuzz/campaign.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <deque>
#include <filesystem>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "epsmith/version.h"
#include "formats/json_format.h"
#include "formats/program_io.h"
#include "formats/text_format.h"
#include "fuzz/messages.h"

namespace epsmith {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

volatile std::sig_atomic_t g_stop_requested = 0;
extern "C" void requestStop(int) { g_stop_requested = 1; }

// ---- what a worker does ----------------------------------------------------------------

std::string serve(const CaseRunner& runner, const std::string& request) {
  const json req = json::parse(request);
  const uint64_t seed = req.at("seed").get<uint64_t>();
  json reply{{"type", req.at("type")}, {"seed", seed}};
  if (req.at("type") == "case") {
    CaseResult r = runner.run(seed);
    reply["times"] = toJson(r.times);
    reply["nodes"] = r.nodes;
    if (r.generation_error) reply["generation_error"] = *r.generation_error;
    json outcomes = json::array();
    for (const auto& o : r.outcomes) outcomes.push_back(toJson(o));
    reply["outcomes"] = std::move(outcomes);
    return messageText(reply);
  }
  MinimizedFinding m = runner.minimize(seed, failingFrom(req.at("failing")), req.value("fork_steps", false));
  reply["signature"] = m.signature;
  reply["bucket"] = m.bucket.id();
  reply["bucket_key"] = m.bucket.str();
  reply["ops"] = m.bucket.ops;
  reply["check"] = m.check;
  reply["kind"] = m.kind;
  reply["where"] = m.where;
  reply["report"] = m.report;
  reply["op"] = m.op;
  reply["variant"] = m.variant;
  reply["nodes_before"] = m.nodes_before;
  reply["nodes_after"] = m.nodes_after;
  reply["oracle_calls"] = m.oracle_calls;
  reply["times"] = toJson(m.times);
  reply["flaky"] = m.flaky;
  if (m.program) {
    auto program = writeProgramJson(*m.program);
    if (program.ok()) reply["program"] = program.value();
    reply["text"] = printProgramText(*m.program);
  }
  return messageText(reply);
}

// ---- the campaign's books --------------------------------------------------------------

struct Bucket {
  std::string id, key, signature, check, kind, where, report, text, corpus_file;
  std::string op, variant;  // the finding's fields (CheckOutcome)
  std::string family;  // Note [Families of buckets] (checks.cpp)
  std::vector<std::string> ops;
  bool is_new = false;
  int64_t count = 0;
  uint64_t first_seed = 0;
  size_t nodes_before = 0, nodes_after = 0;
  int oracle_calls = 0;
};

// Buckets of one family (Note [Families of buckets], checks.cpp), in bucket id order.
struct Family {
  std::string name;
  std::vector<const Bucket*> buckets;
  int64_t findings = 0;  // over its buckets
  int new_buckets = 0;
};

// The families of `buckets`, the largest first (ties by name).
std::vector<Family> familiesOf(const std::map<std::string, Bucket>& buckets) {
  std::map<std::string, std::vector<const Bucket*>> by_name;
  for (const auto& [id, b] : buckets) by_name[b.family].push_back(&b);
  std::vector<Family> out;
  for (auto& [name, members] : by_name) {
    Family f{name, std::move(members)};
    for (const Bucket* b : f.buckets) {
      f.findings += b->count;
      f.new_buckets += b->is_new ? 1 : 0;
    }
    out.push_back(std::move(f));
  }
  std::stable_sort(out.begin(), out.end(), [](const Family& a, const Family& b) { return a.buckets.size() > b.buckets.size(); });
  return out;
}

// A signature seen, its minimization asked for or under way.
struct Pending {
  Failing failing;
  std::string kind;
  uint64_t seed = 0;
  int64_t count = 0;
  bool fork_steps = false;  // its minimization ended a worker once (Note [Minimizing in forked steps])
};

class Campaign {
 public:
  Campaign(const CampaignOptions& options, std::ostream& log, std::unique_ptr<CaseRunner> runner)
      : o_(options), log_(log), runner_(std::move(runner)) {}
  CampaignResult run();

 private:
  void onCase(const json& reply);
  void onCaseDeath(uint64_t seed, const WorkerDeath& d);
  void onFinding(uint64_t seed, const Failing& failing, const std::string& kind, const std::string& report);
  bool familyBudgetSpent(uint64_t seed, const std::string& signature, const std::string& family);
  void onCaseEvent(uint64_t seed, std::optional<json> reply, std::optional<WorkerDeath> death);
  void takeCasesInOrder(bool stopping);
  void onMinimized(const json& reply);
  void onMinimizeDeath(const std::string& signature, const WorkerDeath& d);
  void settleInOrder(bool stopping);
  void settleMinimized(const std::string& signature, const json& reply);
  Bucket& settle(Bucket b, const Pending& p, std::optional<ExportedProgram> program);
  void statusLine(bool final);
  void dispatch(WorkerPool& pool, int64_t& issued, bool out_of_time);
  void receive(WorkerPool& pool, int ms);
  void logStats() const;
  void writeReport();
  int newBuckets() const;
  json bucketsJson() const;
  json familiesJson(const std::vector<Family>& families) const;
  json summaryJson(double elapsed, const std::vector<Family>& families) const;
  void writeOverview(std::ostream& md, double elapsed) const;
  void writeFamilies(std::ostream& md, const std::vector<Family>& families) const;
  void writeBuckets(std::ostream& md, const std::vector<Family>& families) const;
  std::string reproCommand(const Bucket& b) const;
  void writeOverBudget(std::ostream& md) const;

  const CampaignOptions& o_;
  std::ostream& log_;
  std::unique_ptr<CaseRunner> runner_;
  std::set<std::string> known_;  // buckets in the corpus before this campaign
  std::map<std::string, Bucket> buckets_;
  std::map<std::string, std::string> bucket_of_;  // signature → bucket id
  std::map<std::string, Pending> pending_;
  std::map<std::string, int64_t> flaky_;          // signature → findings that did not repeat
  // Note [A flaky finding does not hide its signature]: a signature as coarse as
  // "D1 value-mismatch" covers many bugs; one finding of it that did not repeat (a kernel
  // reading uninitialized memory) must not make every later one count as flaky unseen.
  // The next few findings of a flaky signature are minimized too, and the first to repeat
  // becomes its bucket; the seeds of flaky ones go to the report, to be looked at.
  static constexpr int kFlakyRetries = 4;
  std::map<std::string, int> flaky_retries_;
  std::map<std::string, std::vector<uint64_t>> flaky_seeds_;  // the first few of each
  std::deque<std::string> to_minimize_;           // signatures
  // Note [A minimization budget per family]
  struct OverBudget {
    int64_t findings = 0;
    std::map<std::string, uint64_t> first_seeds;  // signature → the seed it was first met in
  };
  std::map<std::string, int> minimizations_;                 // family → minimizations asked for
  std::map<std::string, OverBudget> over_budget_;            // family → what it met past its budget
  std::map<std::string, std::string> family_over_budget_;    // signature → its family, when past
  // Note [Campaigns that do not depend on timing]
  struct CaseEvent {
    std::optional<json> reply;
    std::optional<WorkerDeath> death;
  };
  uint64_t next_case_ = 0;                             // the seed whose result is taken next
  std::map<uint64_t, CaseEvent> early_cases_;          // results of later seeds, waiting for it
  std::set<std::pair<uint64_t, std::string>> order_;   // pending signatures by first seed
  std::map<std::string, json> outcomes_;               // signature → its minimization's reply
  PhaseTimes times_;
  int64_t cases_ = 0, findings_ = 0, generation_errors_ = 0, deaths_ = 0;
  std::map<std::string, int64_t> skipped_;        // check → cases it skipped
  size_t peak_rss_ = 0;
  Clock::time_point start_;
  std::string started_at_;
  std::vector<std::string> errors_;
  int restarts_ = 0;
  int recycled_ = 0;  // workers replaced after their share of requests
};

void Campaign::onCase(const json& reply) {
  ++cases_;
  const uint64_t seed = reply.at("seed").get<uint64_t>();
  times_.add(timesFrom(reply.at("times")));
  if (reply.contains("generation_error")) ++generation_errors_;
  for (const auto& jo : reply.at("outcomes")) {
    const CheckOutcome o = outcomeFrom(jo);
    if (o.status == CheckOutcome::Status::Skipped) ++skipped_[std::string(diffCheckName(o.check))];
    if (o.status == CheckOutcome::Status::Finding) onFinding(seed, Failing::of(o), o.kind, o.report);
  }
}

void Campaign::onCaseDeath(uint64_t seed, const WorkerDeath& d) {
  ++cases_;
  ++deaths_;
  onFinding(seed, Failing::of(d), d.kindName(), "");
}

// Note [A minimization budget per family]
// A bucket is keyed by its minimized program, so a campaign cannot tell a new bug from one
// it met before until it has minimized the finding, and one LibTorch bug that many ops lead
// to (a lost metadata mutation, a read of freed memory under functionalization) costs a
// minimization for each op it is met through. A finding's family
// (Note [Families of buckets]) reads off its report before any minimization, so each family gets at most
// --minimize-per-family minimizations (0: no limit). A new signature of a family past its
// budget is counted under the family and listed in the report with its first seed, and a
// campaign from that seed without the limit files it: nothing is lost, and the campaign's
// time goes to cases and to families it has not yet met.
bool Campaign::familyBudgetSpent(uint64_t seed, const std::string& signature, const std::string& family) {
  int& asked = minimizations_[family];
  if (o_.minimize_per_family <= 0 || asked < o_.minimize_per_family) {
    ++asked;
    return false;
  }
  OverBudget& over = over_budget_[family];
  ++over.findings;
  over.first_seeds.emplace(signature, seed);
  family_over_budget_[signature] = family;
  return true;
}

void Campaign::onFinding(uint64_t seed, const Failing& failing, const std::string& kind, const std::string& report) {
  ++findings_;
  const std::string& signature = failing.signature;
  const std::optional<WorkerDeath>& crash = failing.crash;
  if (auto b = bucket_of_.find(signature); b != bucket_of_.end()) {
    ++buckets_[b->second].count;
    return;
  }
  if (auto f = family_over_budget_.find(signature); f != family_over_budget_.end()) {
    ++over_budget_[f->second].findings;
    return;
  }
  const bool generation_crash = crash && crash->phase == "generate";  // nothing to minimize
  if (!pending_.count(signature) && !generation_crash &&
      familyBudgetSpent(seed, signature, failureFamily(failing.check, kind, report))) {
    return;
  }
  if (auto f = flaky_.find(signature); f != flaky_.end() && !pending_.count(signature)) {
    if (flaky_retries_[signature] >= kFlakyRetries) {
      ++f->second;
      return;
    }
    ++flaky_retries_[signature];  // Note [A flaky finding does not hide its signature]
  }
  auto [it, fresh] = pending_.try_emplace(signature);
  ++it->second.count;
  if (!fresh) return;
  it->second = Pending{failing, kind, seed, 1};
  order_.emplace(seed, signature);
  // A crash while generating leaves no program to shrink: its bucket is its signature.
  if (crash && crash->phase == "generate") {
    outcomes_[signature] = json{{"unminimized", "the worker died (" + crash->kindName() +
                                                    ") while generating the program, running " + crash->op}};
    return;
  }
  to_minimize_.push_back(signature);
}

// Files a minimized (or unminimizable) finding under its bucket: counts merge into a bucket
// seen before; a bucket the corpus lacks gets its case file.
Bucket& Campaign::settle(Bucket b, const Pending& p, std::optional<ExportedProgram> program) {
  if (b.check.empty()) b.check = p.failing.check;
  if (b.kind.empty()) b.kind = p.kind;
  if (b.id.empty() && p.failing.finding) {  // not minimized: the finding as the case found it
    b.op = p.failing.finding->op;
    b.variant = p.failing.finding->variant;
  }
  b.family = failureFamily(b.check, b.kind, b.report);
  if (b.id.empty()) {
    std::string detail;
    if (p.failing.crash) detail = p.failing.crash->op;
    BucketKey key{b.check, b.kind, b.ops, detail};
    b.id = key.id();
    b.key = key.str();
  }
  auto existing = buckets_.find(b.id);
  if (existing != buckets_.end()) {
    existing->second.count += p.count;
    return existing->second;
  }
  b.count = p.count;
  b.first_seed = p.seed;
  b.is_new = known_.count(b.id) == 0;
  const std::string name = "seed-" + std::to_string(p.seed) + ".json";
  if (b.is_new) {
    CaseFile c;
    c.bucket = b.id;
    c.bucket_key = b.key;
    c.check = b.check;
    c.kind = b.kind;
    c.signature = b.signature;
    c.op = b.op;
    c.variant = b.variant;
    c.report = b.report;
    c.status = CaseStatus::Open;
    c.provenance.seed = p.seed;
    c.provenance.config = o_.setup.config_text;
    c.provenance.nodes = runner_->nodes();
    c.provenance.libtorch = libtorchVersion();
    c.provenance.epsmith = std::string(kEpsmithVersion);
    c.provenance.date = utcNow();
    c.provenance.nodes_before = b.nodes_before;
    c.provenance.nodes_after = b.nodes_after;
    c.provenance.oracle_calls = b.oracle_calls;
    c.program = std::move(program);
    auto written = writeCaseAtomically(o_.corpus_dir, name, c);
    if (written.ok()) b.corpus_file = written.value();
    else errors_.push_back(written.error().str());
    log_ << "NEW " << b.id << ": " << b.signature << " (seed " << p.seed << ", " << b.nodes_before << " -> "
         << b.nodes_after << " calls)" << (b.corpus_file.empty() ? "" : " in " + b.corpus_file) << std::endl;
  } else {
    const auto dir = std::filesystem::path(o_.corpus_dir) / "regressions" / b.id;
    std::error_code ec;
    for (const auto& f : std::filesystem::directory_iterator(dir, ec)) {
      if (f.path().extension() == ".json") b.corpus_file = f.path().string();
    }
  }
  return buckets_.emplace(b.id, std::move(b)).first->second;
}

// Note [Campaigns that do not depend on timing]
// With several jobs, cases and minimizations finish in an order the machine decides. Taken
// as they come, that order would pick which seed of a signature is minimized (the first to
// arrive) and which of two signatures that minimize to one bucket files its case (the first
// to finish), so the same campaign could file different cases each run. Instead, case
// results are taken in seed order (a result that arrives early waits for the seeds before
// it), and minimizations are settled in the order of their first seeds (one that finishes
// early waits for those queued before it). A campaign of --cases N then files the same
// cases whatever --jobs is, short of findings that depend on the heap.
void Campaign::onCaseEvent(uint64_t seed, std::optional<json> reply, std::optional<WorkerDeath> death) {
  early_cases_[seed] = CaseEvent{std::move(reply), std::move(death)};
  takeCasesInOrder(false);
}

// Takes the waiting case results from next_case_ on, up to the first gap; `stopping` (no
// more results will come) takes them all.
void Campaign::takeCasesInOrder(bool stopping) {
  while (!early_cases_.empty() && (stopping || early_cases_.begin()->first == next_case_)) {
    const uint64_t seed = early_cases_.begin()->first;
    const CaseEvent e = std::move(early_cases_.begin()->second);
    early_cases_.erase(early_cases_.begin());
    next_case_ = seed + 1;
    if (e.reply) onCase(*e.reply);
    else onCaseDeath(seed, *e.death);
  }
}

void Campaign::onMinimized(const json& reply) {
  const std::string signature = reply.at("signature").get<std::string>();
  if (pending_.count(signature)) outcomes_[signature] = reply;
}

void Campaign::onMinimizeDeath(const std::string& signature, const WorkerDeath& d) {
  auto it = pending_.find(signature);
  if (it == pending_.end()) return;
  ++deaths_;
  if (!it->second.failing.crash && !it->second.fork_steps) {
    it->second.fork_steps = true;  // once more, each step in a child of its own
    to_minimize_.push_front(signature);
    return;
  }
  outcomes_[signature] = json{{"unminimized", "not minimized: the minimizing worker died (" + d.kindName() +
                                                  (d.op.empty() ? "" : " in " + d.op) + ")"}};
}

// Settles the pending signatures whose outcome is in, oldest first seed first, up to the
// first still being minimized; `stopping` (the campaign is over) settles the rest as they are.
void Campaign::settleInOrder(bool stopping) {
  while (!order_.empty()) {
    const std::string signature = order_.begin()->second;
    auto outcome = outcomes_.find(signature);
    if (outcome == outcomes_.end() && !stopping) return;
    order_.erase(order_.begin());
    settleMinimized(signature, outcome != outcomes_.end() ? outcome->second
                                                          : json{{"unminimized", "not minimized: the campaign stopped first"}});
    if (outcome != outcomes_.end()) outcomes_.erase(signature);
  }
}

void Campaign::settleMinimized(const std::string& signature, const json& reply) {
  auto it = pending_.find(signature);
  if (it == pending_.end()) return;
  const Pending p = it->second;
  pending_.erase(it);
  Bucket b;
  b.signature = signature;
  if (reply.contains("unminimized")) {
    b.report = reply.at("unminimized").get<std::string>();
    Bucket& settled = settle(std::move(b), p, std::nullopt);
    bucket_of_[signature] = settled.id;
    return;
  }
  times_.add(timesFrom(reply.at("times")));
  if (reply.at("flaky").get<bool>()) {
    flaky_[signature] += p.count;
    if (auto& seeds = flaky_seeds_[signature]; seeds.size() < 3) seeds.push_back(p.seed);
    return;
  }
  b.id = reply.at("bucket").get<std::string>();
  b.key = reply.at("bucket_key").get<std::string>();
  b.check = reply.at("check").get<std::string>();
  b.kind = reply.at("kind").get<std::string>();
  b.where = reply.at("where").get<std::string>();
  b.report = reply.at("report").get<std::string>();
  b.op = reply.at("op").get<std::string>();
  b.variant = reply.at("variant").get<std::string>();
  b.ops = reply.at("ops").get<std::vector<std::string>>();
  b.nodes_before = reply.at("nodes_before").get<size_t>();
  b.nodes_after = reply.at("nodes_after").get<size_t>();
  b.oracle_calls = reply.at("oracle_calls").get<int>();
  std::optional<ExportedProgram> program;
  if (reply.contains("program")) {
    auto read = readProgramJson(reply.at("program").get<std::string>());
    if (read.ok()) program = std::move(read.value());
    else errors_.push_back("minimized program of " + signature + ": " + read.error().str());
    b.text = reply.value("text", "");
  }
  Bucket& settled = settle(std::move(b), p, std::move(program));
  bucket_of_[signature] = settled.id;
}

// `s` in a Markdown table's cell, where a '|' would end it.
std::string markdownCell(const std::string& s) {
  std::string cell;
  for (char c : s) cell += c == '|' ? std::string("\\|") : std::string(1, c);
  return cell;
}

std::string percent(double part, double whole) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(0) << (whole > 0 ? 100 * part / whole : 0) << "%";
  return s.str();
}

void Campaign::statusLine(bool final) {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const int new_buckets = newBuckets();
  log_ << "#" << cases_ << (final ? "\tDONE" : "\tpulse") << "\tcases/s: " << static_cast<int64_t>(cases_ / std::max(elapsed, 1e-9))
       << "\tbuckets: " << buckets_.size() << "\tnew: " << new_buckets << "\trss: " << (peak_rss_ >> 20) << "Mb\t";
  const double total = times_.total();
  for (int i = 0; i < kNumPhases; ++i) {
    log_ << (i ? " " : "") << kPhaseNames[i].substr(0, 3) << " " << percent(times_.seconds[static_cast<size_t>(i)], total);
  }
  log_ << "\tops " << percent(times_.in_ops, total) << std::endl;
}

// The report's list of what families met past their minimization budget
// (Note [A minimization budget per family]), each signature with the seed that finds it.
void Campaign::writeOverBudget(std::ostream& md) const {
  if (over_budget_.empty()) return;
  md << "\n## Not minimized: the family had its " << o_.minimize_per_family << " minimizations\n\n"
     << "New signatures of families that had their share of minimizations (--minimize-per-family): each\n"
     << "is found again by `epsmith fuzz --seed S --cases 1 --minimize-per-family 0`.\n\n"
     << "| family | findings | signature | seed |\n|---|---|---|---|\n";
  for (const auto& [family, over] : over_budget_) {
    bool first = true;
    for (const auto& [signature, seed] : over.first_seeds) {
      md << "| " << (first ? "`" + markdownCell(family) + "`" : "") << " | " << (first ? std::to_string(over.findings) : "")
         << " | `" << markdownCell(signature) << "` | " << seed << " |\n";
      first = false;
    }
  }
}

std::string Campaign::reproCommand(const Bucket& b) const {
  if (!b.corpus_file.empty()) return "epsmith replay " + b.corpus_file;
  return "epsmith fuzz --seed " + std::to_string(b.first_seed) + " --cases 1";
}

int Campaign::newBuckets() const {
  int n = 0;
  for (const auto& [id, b] : buckets_) n += b.is_new ? 1 : 0;
  return n;
}

// summary.json's buckets: each with the finding's fields and how to get it back.
json Campaign::bucketsJson() const {
  json buckets = json::array();
  for (const auto& [id, b] : buckets_) {
    buckets.push_back({{"id", id},
                       {"new", b.is_new},
                       {"count", b.count},
                       {"signature", b.signature},
                       {"key", b.key},
                       {"check", b.check},
                       {"kind", b.kind},
                       {"op", b.op},
                       {"variant", b.variant},
                       {"ops", b.ops},
                       {"first_seed", b.first_seed},
                       {"nodes_before", b.nodes_before},
                       {"nodes_after", b.nodes_after},
                       {"oracle_calls", b.oracle_calls},
                       {"corpus_file", b.corpus_file},
                       {"repro", reproCommand(b)}});
  }
  return buckets;
}

json Campaign::familiesJson(const std::vector<Family>& families) const {
  json out = json::array();
  for (const Family& f : families) {
    json ids = json::array();
    for (const Bucket* b : f.buckets) ids.push_back(b->id);
    out.push_back({{"family", f.name}, {"buckets", f.buckets.size()}, {"new", f.new_buckets},
                   {"findings", f.findings}, {"bucket_ids", ids}});
  }
  return out;
}

json Campaign::summaryJson(double elapsed, const std::vector<Family>& families) const {
  const double total = times_.total();
  json summary;
  summary["epsmith"] = std::string(kEpsmithVersion);
  summary["libtorch"] = libtorchVersion();
  summary["command"] = o_.command_line;
  summary["started"] = started_at_;
  summary["seconds"] = elapsed;
  summary["seed"] = o_.seed;
  summary["jobs"] = o_.jobs;
  summary["nodes"] = runner_->nodes();
  summary["device"] = o_.device;
  json checks = json::array();
  for (DiffCheck c : o_.setup.checks) checks.push_back(diffCheckName(c));
  summary["checks"] = checks;
  summary["cases"] = cases_;
  summary["cases_per_second"] = cases_ / std::max(elapsed, 1e-9);
  summary["cases_per_second_per_job"] = cases_ / std::max(elapsed, 1e-9) / std::max(o_.jobs, 1);
  json phases, shares;
  for (int i = 0; i < kNumPhases; ++i) {
    phases[std::string(kPhaseNames[i])] = times_.seconds[static_cast<size_t>(i)];
    shares[std::string(kPhaseNames[i])] = total > 0 ? times_.seconds[static_cast<size_t>(i)] / total : 0.0;
  }
  summary["phase_seconds"] = phases;
  summary["phase_share"] = shares;
  // Time inside ATen kernels, whatever the phase: the generator's trial calls and the
  // functionalizer's probes as well as the programs' runs (oracle/op_time.h).
  summary["op_seconds"] = times_.in_ops;
  summary["op_share"] = total > 0 ? times_.in_ops / total : 0.0;
  summary["findings"] = findings_;
  summary["generation_errors"] = generation_errors_;
  summary["worker_deaths"] = deaths_;
  summary["worker_restarts"] = restarts_;
  summary["worker_recycles"] = recycled_;
  summary["peak_rss_bytes"] = peak_rss_;
  summary["skipped"] = skipped_;
  summary["flaky"] = flaky_;
  summary["flaky_seeds"] = flaky_seeds_;
  summary["buckets"] = bucketsJson();
  summary["new_buckets"] = newBuckets();
  summary["families"] = familiesJson(families);
  summary["minimize_per_family"] = o_.minimize_per_family;
  json over_budget = json::array();
  for (const auto& [family, over] : over_budget_) {
    json seeds = json::object();
    for (const auto& [signature, seed] : over.first_seeds) seeds[signature] = seed;
    over_budget.push_back({{"family", family}, {"findings", over.findings}, {"first_seeds", seeds}});
  }
  summary["not_minimized"] = over_budget;
  summary["errors"] = errors_;
  return summary;
}

// report.md's table: cases, findings, deaths, memory, where the time went, what was skipped
// or flaky.
void Campaign::writeOverview(std::ostream& md, double elapsed) const {
  const double total = times_.total();
  md << "# epsmith fuzz report\n\n"
     << "`" << o_.command_line << "` — started " << started_at_ << ", LibTorch " << libtorchVersion() << "\n\n"
     << "| | |\n|---|---|\n"
     << "| cases | " << cases_ << " in " << std::fixed << std::setprecision(1) << elapsed << " s ("
     << static_cast<int64_t>(cases_ / std::max(elapsed, 1e-9)) << "/s, " << o_.jobs << " job" << (o_.jobs == 1 ? "" : "s") << ") |\n"
     << "| findings | " << findings_ << " in " << buckets_.size() << " bucket" << (buckets_.size() == 1 ? "" : "s") << ", "
     << newBuckets() << " new |\n"
     << "| worker deaths | " << deaths_ << " |\n"
     << "| peak worker RSS | " << (peak_rss_ >> 20) << " MiB |\n"
     << "| time split |";
  for (int i = 0; i < kNumPhases; ++i) md << " " << kPhaseNames[i] << " " << percent(times_.seconds[static_cast<size_t>(i)], total);
  md << " |\n"
     << "| inside ATen kernels | " << percent(times_.in_ops, total) << " (in any phase) |\n";
  for (const auto& [check, n] : skipped_) md << "| " << check << " skipped | " << n << " cases |\n";
  for (const auto& [signature, n] : flaky_) {
    md << "| flaky (not repeated on re-run) | `" << signature << "` × " << n;
    if (auto seeds = flaky_seeds_.find(signature); seeds != flaky_seeds_.end() && !seeds->second.empty()) {
      md << " (seeds";
      for (uint64_t seed : seeds->second) md << " " << seed;
      md << ")";
    }
    md << " |\n";
  }
  if (!errors_.empty()) {
    md << "\n## Errors\n\n";
    for (const auto& e : errors_) md << "- " << e << "\n";
  }
}

void Campaign::writeFamilies(std::ostream& md, const std::vector<Family>& families) const {
  if (families.empty()) return;
  md << "\n## Families\n\n"
     << "Buckets whose failures read alike once the node, the op, numbers and int lists are taken out:\n"
     << "often one bug met through many ops. The buckets below come in this order.\n\n"
     << "| buckets | new | findings | family |\n|---|---|---|---|\n";
  for (const Family& f : families) {
    md << "| " << f.buckets.size() << " | " << f.new_buckets << " | " << f.findings << " | `" << markdownCell(f.name) << "` |\n";
  }
}

void Campaign::writeBuckets(std::ostream& md, const std::vector<Family>& families) const {
  md << "\n## Buckets\n";
  if (buckets_.empty()) md << "\nNo findings.\n";
  for (const Family& f : families) {
    for (const Bucket* bucket : f.buckets) {
      const Bucket& b = *bucket;
      md << "\n### " << (b.is_new ? "NEW " : "") << b.id << "\n\n"
         << "- signature: `" << b.signature << "`\n"
         << "- family: `" << b.family << "`\n"
         << "- seen " << b.count << " time" << (b.count == 1 ? "" : "s") << ", first with seed " << b.first_seed << "\n"
         << "- minimized: " << b.nodes_before << " → " << b.nodes_after << " calls in " << b.oracle_calls << " oracle calls\n"
         << "- case file: " << (b.corpus_file.empty() ? "(none)" : "`" + b.corpus_file + "`") << "\n"
         << "- reproduce: `" << reproCommand(b) << "`\n";
      if (!b.where.empty()) md << "- where: " << b.where << "\n";
      md << "\n```\n" << b.report << (b.report.empty() || b.report.back() == '\n' ? "" : "\n") << "```\n";
      if (!b.text.empty()) md << "\nMinimized program:\n\n```\n" << b.text << (b.text.back() == '\n' ? "" : "\n") << "```\n";
    }
  }
}

void Campaign::writeReport() {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const std::vector<Family> families = familiesOf(buckets_);
  const json summary = summaryJson(elapsed, families);
  std::ostringstream md;
  writeOverview(md, elapsed);
  writeFamilies(md, families);
  writeOverBudget(md);
  writeBuckets(md, families);
  std::error_code ec;
  std::filesystem::create_directories(o_.report_dir, ec);
  if (ec) {
    errors_.push_back(o_.report_dir + ": cannot create the directory: " + ec.message());
    return;
  }
  const auto dir = std::filesystem::path(o_.report_dir);
  if (auto e = writeFileAtomically((dir / "summary.json").string(), summary.dump(2, ' ', false, json::error_handler_t::replace) + "\n")) errors_.push_back(e->str());
  if (auto e = writeFileAtomically((dir / "report.md").string(), md.str())) errors_.push_back(e->str());
}

// Hands each idle worker its work: a queued minimization to a worker with nothing queued,
// else cases, two deep (Note [Requests queued ahead]).
void Campaign::dispatch(WorkerPool& pool, int64_t& issued, bool out_of_time) {
  auto casesLeft = [&] { return !out_of_time && !(o_.cases > 0 && issued >= o_.cases); };
  for (int w = 0; w < pool.size(); ++w) {
    const bool minimization_waits = !to_minimize_.empty() && !g_stop_requested;
    if (minimization_waits && pool.queued(w) == 0) {
      const std::string signature = to_minimize_.front();
      to_minimize_.pop_front();
      const Pending& p = pending_.at(signature);
      json req{{"type", "minimize"}, {"seed", p.seed}, {"failing", toJson(p.failing)}};
      if (p.fork_steps) req["fork_steps"] = true;
      // Every step may run up to a case's time limit; allow the minimization a few minutes.
      pool.send(w, req.dump(), std::max(300.0, 4 * o_.setup.limits.seconds_per_request));
      continue;
    }
    while (!minimization_waits && pool.queued(w) < 2 && casesLeft()) {
      const uint64_t seed = o_.seed + static_cast<uint64_t>(issued++);
      pool.send(w, json{{"type", "case"}, {"seed", seed}}.dump());
    }
  }
}

// Takes in what the workers answered (or how they died) within `ms` milliseconds.
void Campaign::receive(WorkerPool& pool, int ms) {
  for (auto& e : pool.wait(ms)) {
    const json req = json::parse(e.request);
    if (req.at("type") == "case") {
      if (e.reply) onCaseEvent(req.at("seed").get<uint64_t>(), json::parse(*e.reply), std::nullopt);
      else if (e.death) onCaseEvent(req.at("seed").get<uint64_t>(), std::nullopt, *e.death);
    } else if (e.reply) {
      onMinimized(json::parse(*e.reply));
    } else if (e.death) {
      onMinimizeDeath(failingFrom(req.at("failing")).signature, *e.death);
    }
  }
}

CampaignResult Campaign::run() {
  for (const auto& id : existingBuckets(o_.corpus_dir)) known_.insert(id);
  // Leftovers of a campaign killed while writing a case.
  std::error_code ec;
  std::filesystem::remove_all(std::filesystem::path(o_.corpus_dir) / "regressions" / ".incoming", ec);

  const CaseRunner& r = *runner_;
  WorkerPool pool(o_.jobs, [&r](const std::string& request) { return serve(r, request); }, o_.setup.limits,
                  prepareCaseProcess);
  g_stop_requested = 0;
  auto previous_int = std::signal(SIGINT, requestStop);
  auto previous_term = std::signal(SIGTERM, requestStop);
  start_ = Clock::now();
  started_at_ = utcNow();
  const auto status_every = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o_.status_seconds));
  auto next_status = start_ + status_every;
  int64_t issued = 0;
  next_case_ = o_.seed;
  for (;;) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const bool out_of_time = g_stop_requested || (o_.seconds > 0 && elapsed >= o_.seconds);
    const bool stop_new = out_of_time || (o_.cases > 0 && issued >= o_.cases);
    dispatch(pool, issued, out_of_time);
    bool any_busy = false;
    for (int w = 0; w < pool.size(); ++w) any_busy = any_busy || pool.busy(w);
    if (!any_busy && (stop_new || g_stop_requested)) break;
    receive(pool, 200);
    settleInOrder(false);
    if (Clock::now() >= next_status) {
      peak_rss_ = std::max(peak_rss_, pool.rssBytes());
      statusLine(false);
      next_status += status_every;
    }
  }
  peak_rss_ = std::max(peak_rss_, pool.rssBytes());
  restarts_ = pool.restarts();
  recycled_ = pool.recycled();
  std::signal(SIGINT, previous_int);
  std::signal(SIGTERM, previous_term);
  takeCasesInOrder(true);
  // Signatures left unminimized (an interrupted campaign) still count, under their own bucket.
  settleInOrder(true);
  statusLine(true);
  writeReport();
  logStats();
  CampaignResult result;
  result.cases = cases_;
  result.buckets = static_cast<int>(buckets_.size());
  result.new_buckets = newBuckets();
  result.errors = errors_;
  return result;
}

// The closing stat:: lines, in libFuzzer's form, for scripts that watch campaigns.
void Campaign::logStats() const {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  int64_t flaky = 0;
  for (const auto& [signature, n] : flaky_) flaky += n;
  log_ << "stat::number_of_executed_cases: " << cases_ << "\n"
       << "stat::average_cases_per_sec: " << static_cast<int64_t>(cases_ / std::max(elapsed, 1e-9)) << "\n"
       << "stat::findings: " << findings_ << "\n"
       << "stat::buckets: " << buckets_.size() << "\n"
       << "stat::new_buckets: " << newBuckets() << "\n"
       << "stat::flaky_findings: " << flaky << "\n"
       << "stat::unminimized_signatures: " << family_over_budget_.size() << "\n"
       << "stat::worker_deaths: " << deaths_ << "\n"
       << "stat::peak_rss_mb: " << (peak_rss_ >> 20) << "\n";
  for (int i = 0; i < kNumPhases; ++i) {
    log_ << "stat::" << kPhaseNames[i] << "_share: " << std::fixed << std::setprecision(3)
         << (times_.total() > 0 ? times_.seconds[static_cast<size_t>(i)] / times_.total() : 0.0) << "\n";
  }
  log_ << "stat::op_share: " << (times_.total() > 0 ? times_.in_ops / times_.total() : 0.0) << "\n";
  log_ << std::defaultfloat;
}

}  // namespace

Expected<CampaignResult> runCampaign(const CampaignOptions& options, std::ostream& log) {
  auto runner = CaseRunner::create(options.setup);
  if (!runner.ok()) return runner.error();
  Campaign campaign(options, log, std::move(runner.value()));
  return campaign.run();
}

}  // namespace epsmith
