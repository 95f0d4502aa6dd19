// The campaign's report: summary.json and report.md; see campaign_books.h.
#include <filesystem>
#include <iomanip>
#include <sstream>

#include "epsmith/version.h"
#include "formats/program_io.h"
#include "fuzz/campaign_books.h"
#include "fuzz/corpus.h"

namespace epsmith::campaign_detail {

namespace {

// `s` in a Markdown table's cell, where a '|' would end it.
std::string markdownCell(const std::string& s) {
  std::string cell;
  for (char c : s) cell += c == '|' ? std::string("\\|") : std::string(1, c);
  return cell;
}

}  // namespace

std::string percent(double part, double whole) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(0) << (whole > 0 ? 100 * part / whole : 0) << "%";
  return s.str();
}

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

}  // namespace epsmith::campaign_detail
