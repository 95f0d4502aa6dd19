// See campaign.h. Requests and replies between the campaign and its workers are JSON.
#include "fuzz/campaign.h"

#include "fuzz/upstream.h"
#include "oracle/torch_peer.h"
#include "repro/python_repro.h"

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
#include "oracle/program_io.h"
#include "formats/text_format.h"
#include "fuzz/campaign_books.h"
#include "fuzz/messages.h"
#include "fuzz/root_cause.h"

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

namespace {

// Note [Mismatches are minimized before they are counted]
// An exception names the op that raised and a crash the op it died in, so a finding with
// the same signature and message template as one already minimized is taken to be the
// same root cause. A value, shape or dtype mismatch names no op: one minimized mismatch
// says nothing of the next, whose differing value may come from other ops entirely. So a
// mismatch is counted under a root cause met before only where its slice holds every op
// that root cause needs by name (Note [The slice of a mismatch]); any other is minimized
// on its own (within its family's budget) and counted under the root cause its own
// minimized program shows.
std::string pendingKey(const Failing& f, uint64_t seed) {
  std::string key = f.signature + " | " + f.message;
  if (f.finding && isMismatchKind(f.finding->kind)) key += " @" + std::to_string(seed);
  return key;
}

}  // namespace

// The root causes of the case files of every corpus read: those are not new. A case file
// that cannot be read is named in the log and skipped.
void Campaign::readCorpora() {
  std::vector<std::string> dirs = o_.known_corpora;
  dirs.push_back(o_.corpus_dir);
  for (const std::string& dir : dirs) {
    const auto regressions = std::filesystem::path(dir) / "regressions";
    std::error_code ec;
    if (!std::filesystem::is_directory(regressions, ec)) continue;
    auto files = caseFilesUnder({regressions.string()});
    if (!files.ok()) {
      log_ << "warning: " << files.error().str() << std::endl;
      continue;
    }
    for (const std::string& file : files.value()) {
      auto c = readCaseFile(file);
      if (c.ok())
        corpus_roots_.emplace(rootCauseOf(c.value()).id(), file);
      else
        log_ << "warning: a corpus case not read: " << c.error().str() << std::endl;
    }
  }
}

void Campaign::onCase(const CaseResult& reply) {
  ++cases_;
  times_.add(reply.times);
  if (reply.generation_error) ++generation_errors_;
  for (const CheckOutcome& o : reply.outcomes) {
    if (o.status == CheckOutcome::Status::Skipped) {
      const std::string check(diffCheckName(o.check));
      ++skipped_[check];
      auto& reasons = skip_reasons_[check];
      std::string why = skipReasonTemplate(o.report);
      if (!reasons.count(why) && reasons.size() >= kSkipReasons) why = "(other reasons)";
      ++reasons[why];
    }
    if (o.status == CheckOutcome::Status::Finding) onFinding(reply.seed, Failing::of(o), o.kind, o.op);
  }
}

void Campaign::onCaseDeath(uint64_t seed, const WorkerDeath& d) {
  ++cases_;
  ++deaths_;
  onFinding(seed, Failing::of(d), d.kindName(), d.op);
}

// Counts `count` findings of `root` under the known bug it matches, if one does; `key`, when
// not empty, is the pending key whose later findings go there too.
// The bucket of `family` whose ops named (not by class) are all in `slice`, the most named
// first; null when none is (Note [Mismatches are minimized before they are counted]).
Bucket* Campaign::predictedBucket(const std::string& family, const std::vector<std::string>& slice) {
  Bucket* best = nullptr;
  size_t best_named = 0;
  for (auto& [id, b] : buckets_) {
    if (b.root.family() != family) continue;
    size_t named = 0;
    bool inside = true;
    for (const std::string& op : b.root.ops) {
      if (op.rfind('*', 0) == 0) continue;
      ++named;
      inside = inside && std::binary_search(slice.begin(), slice.end(), op);
    }
    if (inside && named > best_named) {
      best = &b;
      best_named = named;
    }
  }
  return best;
}

bool Campaign::countKnown(const RootCause& root, MatchStage stage, uint64_t seed, int64_t count,
                          const std::string& key) {
  const KnownBug* bug = o_.known_bugs.match(root, libtorchVersion(), stage);
  if (!bug) return false;
  KnownHits& hits = known_hits_[bug->id];
  if (hits.findings == 0) hits.first_seed = seed;
  hits.bug = bug;
  hits.findings += count;
  hits.families.insert(root.family());
  if (!key.empty()) known_of_[key] = bug->id;
  return true;
}

// Note [A minimization budget per family]
// A root cause is known only once its finding is minimized, and one bug that many ops lead
// to (a lost metadata mutation, a read of freed memory under functionalization), or every
// mismatch of one dtype (Note [Mismatches are minimized before they are counted]), would
// cost a minimization per finding. A finding's family (RootCause::family: the check, the
// kind and the message template) is known before any minimization, so each family gets at
// most --minimize-per-family minimizations (0: no limit), and one more per 20 000 cases
// the campaign has run, so a long campaign goes on looking into every family. A finding
// of a family past its budget is counted under the family and listed in the report with its
// first seed, and a campaign from that seed files it: nothing is lost, and the campaign's
// time goes to cases and to families it has not yet met. Such a finding is neither filed
// nor known, so it is not "nothing new": the report's overview counts it in bold and the
// campaign exits 1, as for a new root cause.
bool Campaign::familyBudgetSpent(uint64_t seed, const std::string& key, const std::string& family) {
  constexpr int64_t kCasesPerExtraMinimization = 20000;
  int& asked = minimizations_[family];
  const int64_t budget = o_.minimize_per_family + cases_ / kCasesPerExtraMinimization;
  if (o_.minimize_per_family <= 0 || asked < budget) {
    ++asked;
    return false;
  }
  OverBudget& over = over_budget_[family];
  ++over.findings;
  over.first_seeds.emplace(key, seed);
  family_over_budget_[key] = family;
  return true;
}

void Campaign::onFinding(uint64_t seed, const Failing& failing, const std::string& kind, const std::string& op) {
  ++findings_;
  RootCause seen{failing.check, crashKind(kind), failing.message, {}};
  if (!op.empty()) seen.ops.push_back(coreOpName(op));
  if (countKnown(seen, MatchStage::Raised, seed, 1, "")) return;
  if (failing.finding && isMismatchKind(failing.finding->kind)) {
    if (Bucket* b = predictedBucket(seen.family(), failing.finding->slice)) {
      ++b->count;
      ++by_slice_;
      return;
    }
  }
  const std::string key = pendingKey(failing, seed);
  if (auto b = bucket_of_.find(key); b != bucket_of_.end()) {
    ++buckets_[b->second].count;
    return;
  }
  if (auto k = known_of_.find(key); k != known_of_.end()) {
    ++known_hits_[k->second].findings;
    return;
  }
  if (auto f = family_over_budget_.find(key); f != family_over_budget_.end()) {
    ++over_budget_[f->second].findings;
    return;
  }
  if (!pending_.count(key) && familyBudgetSpent(seed, key, seen.family())) return;
  // Note [A flaky finding does not hide its signature]
  if (auto f = flaky_retries_.find(key);
      f != flaky_retries_.end() && f->second >= kFlakyRetries && !pending_.count(key)) {
    ++flaky_[seen.family()];
    return;
  }
  auto [it, fresh] = pending_.try_emplace(key);
  ++it->second.count;
  if (!fresh) return;
  it->second = Pending{failing, kind, seen, seed, 1, false};
  order_.emplace(seed, key);
  to_minimize_.push_back(key);
}

// Writes `b`'s case file into the corpus (a root cause no corpus held).
void Campaign::fileCase(Bucket& b, const Pending& p, std::optional<ExportedProgram> program) {
  CaseFile c;
  c.bucket = b.id;
  c.bucket_key = b.root.str();
  c.core_ops = b.root.ops;
  c.class_ops = b.root.class_ops;
  c.check = b.root.check;
  c.signature = b.signature;
  c.finding = b.finding;
  if (p.failing.crash) c.finding.message = b.root.message;
  c.status = CaseStatus::Open;
  c.provenance =
      Provenance{p.seed,   o_.setup.config_text, runner_->nodes(), libtorchVersion(), std::string(kEpsmithVersion),
                 utcNow(), b.nodes_before,       b.nodes_after,    b.oracle_calls};
  c.program = std::move(program);
  const std::string name = "seed-" + std::to_string(p.seed) + ".json";
  auto written = writeCaseAtomically(o_.corpus_dir, name, c);
  if (written.ok())
    b.corpus_file = written.value();
  else
    errors_.push_back(written.error().str());
  log_ << "NEW " << b.id << ": " << b.root.str() << " (seed " << p.seed << ", " << b.nodes_before << " -> "
       << b.nodes_after << " calls)" << (b.corpus_file.empty() ? "" : " in " + b.corpus_file) << std::endl;
}

// Files a minimized (or unminimizable) finding under its root cause's bucket: counts merge
// into a bucket seen before; a root cause no corpus holds gets its case file.
Bucket& Campaign::settle(const std::string& key, Bucket b, const Pending& p, std::optional<ExportedProgram> program) {
  b.id = b.root.id();
  bucket_of_[key] = b.id;
  auto existing = buckets_.find(b.id);
  if (existing != buckets_.end()) {
    existing->second.count += p.count;
    return existing->second;
  }
  b.count = p.count;
  b.first_seed = p.seed;
  auto in_corpus = corpus_roots_.find(b.id);
  b.is_new = in_corpus == corpus_roots_.end();
  if (program) {  // Note [Program features]: what the minimized program kept
    const auto has = programFeatures(*program);
    for (size_t f = 0; f < has.size(); ++f) {
      by_feature_[f].root_causes += has[f] ? 1 : 0;
      by_feature_[f].new_root_causes += has[f] && b.is_new ? 1 : 0;
    }
  }
  if (b.is_new)
    fileCase(b, p, std::move(program));
  else
    b.corpus_file = in_corpus->second;
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
    if (e.reply)
      onCase(*e.reply);
    else
      onCaseDeath(seed, *e.death);
  }
}

void Campaign::onMinimized(const std::string& key, MinimizedFinding reply) {
  if (pending_.count(key)) outcomes_[key].minimized = std::move(reply);
}

void Campaign::onMinimizeDeath(const std::string& key, const WorkerDeath& d) {
  auto it = pending_.find(key);
  if (it == pending_.end()) return;
  if (d.kind == WorkerDeath::Kind::Timeout && o_.seconds > 0 && elapsedSeconds() >= o_.seconds) {
    // Note [Minimizations at a campaign's end]
    outcomes_[key].not_minimized = "not minimized: the campaign's time ran out during its minimization";
    return;
  }
  ++deaths_;
  if (!it->second.failing.crash && !it->second.fork_steps) {
    it->second.fork_steps = true;  // once more, each step in a child of its own
    to_minimize_.push_front(key);
    return;
  }
  outcomes_[key].not_minimized =
      "not minimized: the minimizing worker died (" + d.kindName() + (d.op.empty() ? "" : " in " + d.op) + ")";
}

double Campaign::elapsedSeconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

// Settles the pending keys whose outcome is in, oldest first seed first, up to the first
// still being minimized; `stopping` (the campaign is over) settles the rest as they are.
void Campaign::settleInOrder(bool stopping) {
  while (!order_.empty()) {
    const std::string key = order_.begin()->second;
    auto outcome = outcomes_.find(key);
    if (outcome == outcomes_.end() && !stopping) return;
    order_.erase(order_.begin());
    MinimizeOutcome taken{std::nullopt, "not minimized: the campaign stopped first"};
    if (outcome != outcomes_.end()) {
      taken = std::move(outcome->second);
      outcomes_.erase(outcome);
    }
    settleMinimized(key, std::move(taken));
  }
}

// Note [Program features]: a known bug's findings by the features of the program its
// finding minimized to.
void Campaign::tallyKnownFeatures(const ExportedProgram& program, const std::string& key, int64_t count) {
  const auto has = programFeatures(program);
  for (size_t f = 0; f < has.size(); ++f) {
    if (!has[f]) continue;
    by_feature_[f].known_findings += count;
    by_feature_[f].known_entries.insert(known_of_[key]);
  }
}

void Campaign::settleMinimized(const std::string& key, MinimizeOutcome outcome) {
  auto it = pending_.find(key);
  if (it == pending_.end()) return;
  const Pending p = std::move(it->second);
  pending_.erase(it);
  Bucket b;
  b.signature = p.failing.signature;
  if (!outcome.minimized) {  // the finding as the case found it
    b.root = p.seen;
    if (p.failing.finding) b.finding = *p.failing.finding;
    b.finding.kind = p.kind;
    b.finding.report = outcome.not_minimized;
    if (!countKnown(b.root, MatchStage::Raised, p.seed, p.count, key)) settle(key, std::move(b), p, std::nullopt);
    return;
  }
  MinimizedFinding& m = *outcome.minimized;
  times_.add(m.times);
  if (m.flaky) {
    flaky_[p.seen.family()] += p.count;
    ++flaky_retries_[key];
    if (auto& seeds = flaky_seeds_[p.seen.family()]; seeds.size() < 3) seeds.push_back(p.seed);
    return;
  }
  if (countKnown(m.root, MatchStage::Minimized, p.seed, p.count, key)) {
    if (m.program) tallyKnownFeatures(*m.program, key, p.count);
    return;
  }
  b.root = m.root;
  b.finding = m.finding;
  b.nodes_before = m.nodes_before;
  b.nodes_after = m.nodes_after;
  b.oracle_calls = m.oracle_calls;
  if (m.program) b.text = printProgramText(*m.program);
  settle(key, std::move(b), p, std::move(m.program));
}

void Campaign::statusLine(bool final) {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const int new_buckets = newBuckets();
  log_ << "#" << cases_ << (final ? "\tDONE" : "\tpulse")
       << "\tcases/s: " << static_cast<int64_t>(cases_ / std::max(elapsed, 1e-9)) << "\tbuckets: " << buckets_.size()
       << "\tnew: " << new_buckets << "\trss: " << (peak_rss_ >> 20) << "Mb\t";
  const double total = times_.total();
  for (int i = 0; i < kNumPhases; ++i) {
    log_ << (i ? " " : "") << kPhaseNames[i].substr(0, 3) << " "
         << percent(times_.seconds[static_cast<size_t>(i)], total);
  }
  log_ << "\tops " << percent(times_.in_ops, total) << std::endl;
}

// Hands each idle worker its work: a queued minimization to a worker with nothing queued,
// else cases, two deep (Note [Requests queued ahead]).
void Campaign::dispatch(WorkerPool& pool, int64_t& issued, bool out_of_time) {
  auto casesLeft = [&] { return !out_of_time && !(o_.cases > 0 && issued >= o_.cases); };
  for (int w = 0; w < pool.size(); ++w) {
    const bool minimization_waits = !to_minimize_.empty() && !out_of_time;
    if (minimization_waits && pool.queued(w) == 0) {
      const std::string key = to_minimize_.front();
      to_minimize_.pop_front();
      const Pending& p = pending_.at(key);
      const WorkRequest req{WorkRequest::Type::Minimize, p.seed, p.failing, p.fork_steps};
      // Note [A finding must come back in a fresh process]
      pool.renew(w);
      // Every step may run up to a case's time limit; allow the minimization a few minutes.
      const double usual = std::max(300.0, 4 * o_.setup.limits.seconds_per_request);
      pool.send(w, writeRequest(req), minimizationSeconds(o_.seconds, elapsedSeconds(), usual));
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
      continue;
    }
    const std::string key = pendingKey(*req.failing, req.seed);
    if (e.death) {
      onMinimizeDeath(key, *e.death);
    } else if (auto reply = readMinimizeReply(*e.reply); reply.ok()) {
      onMinimized(key, std::move(reply.value()));
    } else {
      unreadable(reply.error());
      if (pending_.count(key)) outcomes_[key].not_minimized = "not minimized: " + reply.error().str();
    }
  }
}

CampaignResult Campaign::run() {
  readCorpora();
  // Leftovers of a campaign killed while writing a case.
  removeTree((std::filesystem::path(o_.corpus_dir) / "regressions" / ".incoming").string());

  const CaseRunner& r = *runner_;
  WorkerPool pool(
      o_.jobs, [&r](const std::string& request) { return serve(r, request); }, o_.setup.limits, prepareCaseProcess);
  g_stop_requested = 0;
  auto previous_int = std::signal(SIGINT, requestStop);
  auto previous_term = std::signal(SIGTERM, requestStop);
  start_ = Clock::now();
  started_at_ = utcNow();
  const auto status_every =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o_.status_seconds));
  auto next_status = start_ + status_every;
  int64_t issued = 0;
  next_case_ = o_.seed;
  for (;;) {
    const bool out_of_time = g_stop_requested || (o_.seconds > 0 && elapsedSeconds() >= o_.seconds);
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
  fuzz_seconds_ = std::chrono::duration<double>(Clock::now() - start_).count();
  confirmUpstream();
  statusLine(true);
  writeReport();
  logStats();
  CampaignResult result;
  result.cases = cases_;
  result.buckets = static_cast<int>(buckets_.size());
  result.new_buckets = newBuckets();
  result.unminimized = static_cast<int64_t>(family_over_budget_.size());
  result.errors = errors_;
  return result;
}

// Note [A finding confirmed by torch alone]: each new root cause with a path through
// PyTorch gets its bundle beside its case file and the class its script establishes, once,
// after the last case: the scripts take seconds each and never slow the cases.
void Campaign::confirmUpstream() {
  if (o_.confirm_timeout <= 0 || newBuckets() == 0) return;
  if (auto why = torchPeerUnavailable()) {
    log_ << "UPSTREAM: the new root causes are not confirmed: " << *why << std::endl;
    return;
  }
  const auto started = Clock::now();
  for (auto& [id, b] : buckets_) {
    // D1's findings are epsmith's until a person judges one LibTorch's (fuzz/upstream.h).
    if (!b.is_new || b.corpus_file.empty() || b.root.check == "D1" || !reproPathOf(b.root.check).ok()) continue;
    auto c = readCaseFile(b.corpus_file);
    if (!c.ok()) {
      errors_.push_back(c.error().str());
      continue;
    }
    const std::string dir = std::filesystem::path(b.corpus_file).parent_path().string();
    auto record = writeUpstreamBundle(c.value(), dir, o_.confirm_timeout);
    if (!record.ok()) {
      errors_.push_back(b.corpus_file + ": " + record.error().str());
      continue;
    }
    b.upstream = record.value();
    if (auto e = recordUpstream(b.corpus_file, c.value(), record.value())) errors_.push_back(e->str());
    log_ << "UPSTREAM " << id << ": " << upstreamClassName(record->cls) << ": " << record->reason << std::endl;
  }
  confirm_seconds_ = std::chrono::duration<double>(Clock::now() - started).count();
}

// The closing stat:: lines, in libFuzzer's form, for scripts that watch campaigns.
void Campaign::logStats() const {
  const double elapsed = fuzz_seconds_;
  int64_t flaky = 0;
  for (const auto& [signature, n] : flaky_) flaky += n;
  log_ << "stat::number_of_executed_cases: " << cases_ << "\n"
       << "stat::average_cases_per_sec: " << static_cast<int64_t>(cases_ / std::max(elapsed, 1e-9)) << "\n"
       << "stat::findings: " << findings_ << "\n"
       << "stat::buckets: " << buckets_.size() << "\n"
       << "stat::new_buckets: " << newBuckets() << "\n"
       << "stat::flaky_findings: " << flaky << "\n"
       << "stat::unminimized_findings: " << family_over_budget_.size() << "\n"
       << "stat::known_bug_findings: " << knownFindings() << "\n"
       << "stat::mismatches_counted_by_slice: " << by_slice_ << "\n"
       << "stat::worker_deaths: " << deaths_ << "\n"
       << "stat::torch_confirmed: " << upstreamCount(UpstreamClass::TorchConfirmed) << "\n"
       << "stat::confirm_seconds: " << static_cast<int64_t>(confirm_seconds_) << "\n"
       << "stat::peak_rss_mb: " << (peak_rss_ >> 20) << "\n";
  for (int i = 0; i < kNumPhases; ++i) {
    log_ << "stat::" << kPhaseNames[i] << "_share: " << std::fixed << std::setprecision(3)
         << (times_.total() > 0 ? times_.seconds[static_cast<size_t>(i)] / times_.total() : 0.0) << "\n";
  }
  log_ << "stat::op_share: " << (times_.total() > 0 ? times_.in_ops / times_.total() : 0.0) << "\n";
  log_ << std::defaultfloat;
}

}  // namespace campaign_detail

// Note [Minimizations at a campaign's end]
// --time stops the cases, and the campaign then waits for what its workers have under way.
// A minimization may run minutes, so one begun near the end could hold the campaign well
// past its time. Past the time no queued minimization begins, and one under way may run
// until the time plus a grace (a tenth of --time, 30 s at least) before its worker is
// stopped; either finding is kept unminimized, under its own bucket, as an interrupted
// campaign's are. A campaign of --cases waits for every minimization.
double minimizationSeconds(double campaign_seconds, double elapsed, double usual) {
  if (campaign_seconds <= 0) return usual;
  const double grace = std::max(30.0, 0.1 * campaign_seconds);
  return std::clamp(campaign_seconds + grace - elapsed, 1.0, usual);
}

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
