// See campaign.h. Requests and replies between the campaign and its workers are JSON.
#include "fuzz/campaign.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <deque>
#include <filesystem>
#include <iomanip>
#include <map>
#include <set>

#include "epsmith/version.h"
#include "formats/json_format.h"
#include "formats/program_io.h"
#include "formats/text_format.h"
#include "fuzz/campaign_books.h"
#include "fuzz/messages.h"

namespace epsmith {
namespace {

using campaign_detail::Clock;

volatile std::sig_atomic_t g_stop_requested = 0;
extern "C" void requestStop(int) { g_stop_requested = 1; }

// ---- what a worker does ----------------------------------------------------------------

// A request the worker cannot read is a bug of this binary: it ends the worker, as any
// other bug would (exit status 3, a death the campaign reports).
std::string serve(const CaseRunner& runner, const std::string& request) {
  auto req = readRequest(request);
  if (!req.ok()) throw std::runtime_error(req.error().str());
  if (req->type == WorkRequest::Type::Case) return writeCaseReply(runner.run(req->seed));
  return writeMinimizeReply(runner.minimize(req->seed, *req->failing, req->fork_steps));
}

}  // namespace

namespace campaign_detail {

void Campaign::onCase(const CaseResult& reply) {
  ++cases_;
  times_.add(reply.times);
  if (reply.generation_error) ++generation_errors_;
  for (const CheckOutcome& o : reply.outcomes) {
    if (o.status == CheckOutcome::Status::Skipped) ++skipped_[std::string(diffCheckName(o.check))];
    if (o.status == CheckOutcome::Status::Finding) onFinding(reply.seed, Failing::of(o), o.kind, o.report);
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
    outcomes_[signature].not_minimized =
        "the worker died (" + crash->kindName() + ") while generating the program, running " + crash->op;
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
void Campaign::onCaseEvent(uint64_t seed, std::optional<CaseResult> reply, std::optional<WorkerDeath> death) {
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

void Campaign::onMinimized(MinimizedFinding reply) {
  const std::string signature = reply.signature;
  if (pending_.count(signature)) outcomes_[signature].minimized = std::move(reply);
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
  outcomes_[signature].not_minimized =
      "not minimized: the minimizing worker died (" + d.kindName() + (d.op.empty() ? "" : " in " + d.op) + ")";
}

// Settles the pending signatures whose outcome is in, oldest first seed first, up to the
// first still being minimized; `stopping` (the campaign is over) settles the rest as they are.
void Campaign::settleInOrder(bool stopping) {
  while (!order_.empty()) {
    const std::string signature = order_.begin()->second;
    auto outcome = outcomes_.find(signature);
    if (outcome == outcomes_.end() && !stopping) return;
    order_.erase(order_.begin());
    MinimizeOutcome taken{std::nullopt, "not minimized: the campaign stopped first"};
    if (outcome != outcomes_.end()) {
      taken = std::move(outcome->second);
      outcomes_.erase(outcome);
    }
    settleMinimized(signature, std::move(taken));
  }
}

void Campaign::settleMinimized(const std::string& signature, MinimizeOutcome outcome) {
  auto it = pending_.find(signature);
  if (it == pending_.end()) return;
  const Pending p = it->second;
  pending_.erase(it);
  Bucket b;
  b.signature = signature;
  if (!outcome.minimized) {
    b.report = outcome.not_minimized;
    Bucket& settled = settle(std::move(b), p, std::nullopt);
    bucket_of_[signature] = settled.id;
    return;
  }
  MinimizedFinding& m = *outcome.minimized;
  times_.add(m.times);
  if (m.flaky) {
    flaky_[signature] += p.count;
    if (auto& seeds = flaky_seeds_[signature]; seeds.size() < 3) seeds.push_back(p.seed);
    return;
  }
  b.id = m.bucket.id();
  b.key = m.bucket.str();
  b.ops = m.bucket.ops;
  b.check = m.check;
  b.kind = m.kind;
  b.where = m.where;
  b.report = m.report;
  b.op = m.op;
  b.variant = m.variant;
  b.nodes_before = m.nodes_before;
  b.nodes_after = m.nodes_after;
  b.oracle_calls = m.oracle_calls;
  if (m.program) b.text = printProgramText(*m.program);
  Bucket& settled = settle(std::move(b), p, std::move(m.program));
  bucket_of_[signature] = settled.id;
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
      const WorkRequest req{WorkRequest::Type::Minimize, p.seed, p.failing, p.fork_steps};
      // Every step may run up to a case's time limit; allow the minimization a few minutes.
      pool.send(w, writeRequest(req), std::max(300.0, 4 * o_.setup.limits.seconds_per_request));
      continue;
    }
    while (!minimization_waits && pool.queued(w) < 2 && casesLeft()) {
      const uint64_t seed = o_.seed + static_cast<uint64_t>(issued++);
      pool.send(w, writeRequest({WorkRequest::Type::Case, seed, std::nullopt, false}));
    }
  }
}

// Takes in what the workers answered (or how they died) within `ms` milliseconds. A reply
// the campaign cannot read (a bug of this binary) goes to the report's errors: its case
// counts with no outcomes, its signature as not minimized.
void Campaign::receive(WorkerPool& pool, int ms) {
  for (auto& e : pool.wait(ms)) {
    const WorkRequest req = readRequest(e.request).value();  // written by this process
    auto unreadable = [&](const Diagnostic& error) { errors_.push_back("a worker's reply: " + error.str()); };
    if (req.type == WorkRequest::Type::Case) {
      if (e.death) {
        onCaseEvent(req.seed, std::nullopt, *e.death);
        continue;
      }
      auto reply = readCaseReply(*e.reply);
      if (!reply.ok()) unreadable(reply.error());
      onCaseEvent(req.seed, reply.ok() ? std::move(reply.value()) : CaseResult{req.seed, {}, {}, 0, {}}, std::nullopt);
    } else if (e.death) {
      onMinimizeDeath(req.failing->signature, *e.death);
    } else if (auto reply = readMinimizeReply(*e.reply); reply.ok()) {
      onMinimized(std::move(reply.value()));
    } else {
      unreadable(reply.error());
      if (pending_.count(req.failing->signature)) {
        outcomes_[req.failing->signature].not_minimized = "not minimized: " + reply.error().str();
      }
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

}  // namespace campaign_detail

Expected<CampaignResult> runCampaign(const CampaignOptions& options, std::ostream& log) {
  auto runner = CaseRunner::create(options.setup);
  if (!runner.ok()) return runner.error();
  campaign_detail::Campaign campaign(options, log, std::move(runner.value()));
  try {
    return campaign.run();
  } catch (const std::runtime_error& e) {  // the system refused the workers a pipe, a fork
    CampaignResult failed;
    failed.errors.push_back(std::string("the workers could not run: ") + e.what());
    return failed;
  }
}

}  // namespace epsmith
