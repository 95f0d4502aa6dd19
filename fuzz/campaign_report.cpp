// The campaign's report: summary.json and report.md; see campaign_books.h.
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <set>
#include <sstream>
#include <vector>

#include "epsmith/version.h"
#include "oracle/program_io.h"
#include "fuzz/campaign_books.h"
#include "fuzz/corpus.h"
#include "fuzz/finding_record.h"
#include "fuzz/releases.h"

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
  for (const auto& [id, b] : buckets) by_name[b.root.family()].push_back(&b);
  std::vector<Family> out;
  for (auto& [name, members] : by_name) {
    Family f{name, std::move(members)};
    for (const Bucket* b : f.buckets) {
      f.findings += b->count;
      f.new_buckets += b->is_new ? 1 : 0;
    }
    out.push_back(std::move(f));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Family& a, const Family& b) { return a.buckets.size() > b.buckets.size(); });
  return out;
}

// The report's list of what families met past their minimization budget
// (Note [A minimization budget per family]), each signature with the seed that finds it.
void Campaign::writeOverBudget(std::ostream& md) const {
  if (over_budget_.empty()) return;
  md << "\n## Not minimized: the family had its minimizations\n\n"
     << "Findings of families that had their share of minimizations (--minimize-per-family, " << o_.minimize_per_family
     << "): each\n"
     << "is found again by `epsmith fuzz --seed S --cases 1 --minimize-per-family 0`.\n\n"
     << "| family | findings | seeds (the first few) |\n|---|---|---|\n";
  constexpr size_t kSeedsShown = 8;
  for (const auto& [family, over] : over_budget_) {
    std::set<uint64_t> seeds;
    for (const auto& [key, seed] : over.first_seeds) seeds.insert(seed);
    md << "| `" << markdownCell(family) << "` | " << over.findings << " |";
    size_t shown = 0;
    for (auto it = seeds.begin(); it != seeds.end() && shown < kSeedsShown; ++it, ++shown) md << " " << *it;
    if (seeds.size() > kSeedsShown) md << " ...";
    md << " |\n";
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

int64_t Campaign::knownFindings() const {
  int64_t n = 0;
  for (const auto& [id, hits] : known_hits_) n += hits.findings;
  return n;
}

// summary.json's known bugs: each entry met, with its findings and the families they showed.
void Campaign::writeKnownJson(JsonWriter& w) const {
  w.beginArray();
  for (const auto& [id, hits] : known_hits_) {
    w.beginObject();
    w.key("id").string(id);
    w.key("findings").integer(hits.findings);
    w.key("first_seed").unsignedInteger(hits.first_seed);
    w.key("path").string(knownPathName(hits.bug->path));
    w.key("issue").string(hits.bug->issue);
    w.key("families").strings(std::vector<std::string>(hits.families.begin(), hits.families.end()));
    w.endObject();
  }
  w.endArray();
}

// summary.json's buckets: each with the finding's fields and how to get it back.
void Campaign::writeBucketsJson(JsonWriter& w) const {
  w.beginArray();
  for (const auto& [id, b] : buckets_) {
    w.beginObject();
    w.key("id").string(id);
    w.key("new").boolean(b.is_new);
    w.key("count").integer(b.count);
    w.key("signature").string(b.signature);
    w.key("key").string(b.root.str());
    w.key("check").string(b.root.check);
    w.key("message").string(b.root.message);
    w.key("ops").strings(b.root.ops);
    w.key("finding").beginObject();
    writeFindingFields(w, b.finding);
    w.endObject();
    w.key("first_seed").unsignedInteger(b.first_seed);
    w.key("nodes_before").unsignedInteger(b.nodes_before);
    w.key("nodes_after").unsignedInteger(b.nodes_after);
    w.key("oracle_calls").integer(b.oracle_calls);
    w.key("corpus_file").string(b.corpus_file);
    w.key("repro").string(reproCommand(b));
    w.key("upstream").string(b.upstream ? std::string(upstreamClassName(b.upstream->cls)) : "");
    w.key("releases").string(b.upstream ? releasesPhrase(b.upstream->releases) : "");
    w.endObject();
  }
  w.endArray();
}

void Campaign::writeFamiliesJson(JsonWriter& w, const std::vector<Family>& families) const {
  w.beginArray();
  for (const Family& f : families) {
    w.beginObject();
    w.key("family").string(f.name);
    w.key("buckets").unsignedInteger(f.buckets.size());
    w.key("new").integer(f.new_buckets);
    w.key("findings").integer(f.findings);
    w.key("bucket_ids").beginArray();
    for (const Bucket* b : f.buckets) w.string(b->id);
    w.endArray();
    w.endObject();
  }
  w.endArray();
}

namespace {

// {"name": count, ...} of a map keyed by text.
template <typename Map, typename F>
void writeMapJson(JsonWriter& w, const Map& map, F&& value) {
  w.beginObject();
  for (const auto& [key, v] : map) w.member(key, [&, &v = v](JsonWriter& out) { value(out, v); });
  w.endObject();
}

// The phases' seconds, each times `scale`.
void writePhasesJson(JsonWriter& w, const PhaseTimes& t, double scale) {
  w.beginObject();
  for (int i = 0; i < kNumPhases; ++i) w.key(kPhaseNames[i]).number(t.seconds[static_cast<size_t>(i)] * scale);
  w.endObject();
}

}  // namespace

std::string Campaign::summaryJson(double elapsed, const std::vector<Family>& families) const {
  const double total = times_.total();
  const double per_second = cases_ / std::max(elapsed, 1e-9);
  JsonWriter w(InvalidUtf8::Replace);
  w.beginObject();
  w.key("epsmith").string(kEpsmithVersion);
  w.key("libtorch").string(libtorchVersion());
  w.key("command").string(o_.command_line);
  w.key("started").string(started_at_);
  w.key("seconds").number(elapsed);
  w.key("confirm_seconds").number(confirm_seconds_);
  w.key("torch_confirmed").integer(upstreamCount(UpstreamClass::TorchConfirmed));
  w.key("seed").unsignedInteger(o_.seed);
  w.key("jobs").integer(o_.jobs);
  w.key("nodes").integer(runner_->nodes());
  w.key("device").string(o_.device);
  w.key("checks").beginArray();
  for (DiffCheck c : o_.setup.checks) w.string(diffCheckName(c));
  w.endArray();
  w.key("cases").integer(cases_);
  w.key("cases_per_second").number(per_second);
  w.key("cases_per_second_per_job").number(per_second / std::max(o_.jobs, 1));
  writePhasesJson(w.key("phase_seconds"), times_, 1);
  writePhasesJson(w.key("phase_share"), times_, total > 0 ? 1 / total : 0);
  // Time inside ATen kernels, whatever the phase: the generator's trial calls and the
  // functionalizer's probes as well as the programs' runs (oracle/op_time.h).
  w.key("op_seconds").number(times_.in_ops);
  w.key("op_share").number(total > 0 ? times_.in_ops / total : 0.0);
  w.key("findings").integer(findings_);
  w.key("generation_errors").integer(generation_errors_);
  w.key("worker_deaths").integer(deaths_);
  w.key("worker_restarts").integer(restarts_);
  w.key("worker_recycles").integer(recycled_);
  w.key("peak_rss_bytes").unsignedInteger(peak_rss_);
  const auto count = [](JsonWriter& out, int64_t n) { out.integer(n); };
  writeMapJson(w.key("skipped"), skipped_, count);
  writeMapJson(
      w.key("skip_reasons"), skip_reasons_,
      [&](JsonWriter& out, const std::map<std::string, int64_t>& reasons) { writeMapJson(out, reasons, count); });
  writeMapJson(w.key("flaky"), flaky_, count);
  writeMapJson(w.key("flaky_seeds"), flaky_seeds_, [](JsonWriter& out, const std::vector<uint64_t>& seeds) {
    out.beginArray();
    for (uint64_t seed : seeds) out.unsignedInteger(seed);
    out.endArray();
  });
  writeBucketsJson(w.key("buckets"));
  w.key("new_buckets").integer(newBuckets());
  writeKnownJson(w.key("known_bugs"));
  w.key("known_bug_findings").integer(knownFindings());
  writeFeaturesJson(w.key("features"));
  w.key("mismatches_counted_by_slice").integer(by_slice_);
  writeFamiliesJson(w.key("families"), families);
  w.key("minimize_per_family").integer(o_.minimize_per_family);
  w.key("not_minimized").beginArray();
  for (const auto& [family, over] : over_budget_) {
    w.beginObject();
    w.key("family").string(family);
    w.key("findings").integer(over.findings);
    std::set<uint64_t> seeds;
    for (const auto& [key, seed] : over.first_seeds) seeds.insert(seed);
    w.key("seeds").beginArray();
    for (uint64_t seed : seeds) w.unsignedInteger(seed);
    w.endArray();
    w.endObject();
  }
  w.endArray();
  w.key("errors").strings(errors_);
  w.endObject();
  return indentedJson(w.compact());
}

// The overview's row for findings past their family's minimization budget, which are
// neither filed nor known and make the campaign's exit code 1; "" where there are none.
std::string Campaign::notMinimizedRow() const {
  if (over_budget_.empty()) return "";
  int64_t findings = 0;
  for (const auto& [family, over] : over_budget_) findings += over.findings;
  return "| **not minimized** | " + std::to_string(findings) + " findings (" +
         std::to_string(family_over_budget_.size()) + " signatures) of " + std::to_string(over_budget_.size()) +
         " families past their minimization budget: neither filed nor known (see Not minimized) |\n";
}

// report.md's table: cases, findings, deaths, memory, where the time went, what was skipped
// or flaky.
void Campaign::writeOverview(std::ostream& md, double elapsed) const {
  const double total = times_.total();
  md << "# epsmith fuzz report\n\n"
     << "`" << o_.command_line << "` — started " << started_at_ << ", LibTorch " << libtorchVersion() << "\n\n"
     << "| | |\n|---|---|\n"
     << "| cases | " << cases_ << " in " << std::fixed << std::setprecision(1) << elapsed << " s ("
     << static_cast<int64_t>(cases_ / std::max(elapsed, 1e-9)) << "/s, " << o_.jobs << " job"
     << (o_.jobs == 1 ? "" : "s") << ") |\n"
     << "| findings | " << findings_ << " |\n"
     << "| root causes | " << buckets_.size() << ", " << newBuckets() << " new (no corpus held them) |\n"
     << notMinimizedRow() << "| new, confirmed with torch alone | " << upstreamCount(UpstreamClass::TorchConfirmed)
     << " torch-confirmed, " << upstreamCount(UpstreamClass::CppOnly) << " cpp-only, "
     << upstreamCount(UpstreamClass::Unconfirmed) << " unconfirmed (scripts run in " << std::setprecision(0)
     << confirm_seconds_ << std::setprecision(1) << " s after the cases) |\n"
     << "| known bugs | " << knownFindings() << " findings of " << known_hits_.size() << " entries |\n"
     << "| mismatches counted by their slice | " << by_slice_ << " (not minimized; Note [The slice of a mismatch]) |\n"
     << "| worker deaths | " << deaths_ << " |\n"
     << "| peak worker RSS | " << (peak_rss_ >> 20) << " MiB |\n"
     << "| time split |";
  for (int i = 0; i < kNumPhases; ++i)
    md << " " << kPhaseNames[i] << " " << percent(times_.seconds[static_cast<size_t>(i)], total);
  md << " |\n"
     << "| inside ATen kernels | " << percent(times_.in_ops, total) << " (in any phase) |\n";
  for (const auto& [check, n] : skipped_) {
    md << "| " << check << " skipped | " << n << " cases";
    // the three commonest reasons; summary.json has them all
    std::vector<std::pair<int64_t, std::string>> reasons;
    if (auto it = skip_reasons_.find(check); it != skip_reasons_.end()) {
      for (const auto& [why, k] : it->second) reasons.emplace_back(-k, why);
    }
    std::sort(reasons.begin(), reasons.end());
    for (size_t i = 0; i < std::min<size_t>(3, reasons.size()); ++i) {
      md << (i ? "; " : ": ") << -reasons[i].first << " `" << markdownCell(reasons[i].second) << "`";
    }
    md << " |\n";
  }
  for (const auto& [family, n] : flaky_) {
    md << "| flaky (not repeated on re-run) | `" << markdownCell(family) << "` × " << n;
    if (auto seeds = flaky_seeds_.find(family); seeds != flaky_seeds_.end() && !seeds->second.empty()) {
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
     << "Root causes that share a message template and differ in their ops: often one bug met\n"
     << "through many ops, a lead for a known-bugs entry (docs/fuzzing.md).\n\n"
     << "| root causes | new | findings | family |\n|---|---|---|---|\n";
  for (const Family& f : families) {
    md << "| " << f.buckets.size() << " | " << f.new_buckets << " | " << f.findings << " | `" << markdownCell(f.name)
       << "` |\n";
  }
}

int Campaign::upstreamCount(UpstreamClass c) const {
  int n = 0;
  for (const auto& [id, b] : buckets_) n += b.is_new && b.upstream && b.upstream->cls == c ? 1 : 0;
  return n;
}

// The report's first section: each new root cause with its minimized program and how to
// get it back, those torch alone confirmed first (Note [A finding confirmed by torch alone]).
void Campaign::writeNew(std::ostream& md) const {
  md << "\n## New root causes\n";
  if (newBuckets() == 0) md << "\nNone: every finding is a known bug or a root cause a corpus holds.\n";
  std::vector<const Bucket*> ordered;
  for (const auto& [id, b] : buckets_) {
    if (b.is_new) ordered.push_back(&b);
  }
  auto rank = [](const Bucket* b) { return b->upstream ? static_cast<int>(b->upstream->cls) : 3; };
  std::stable_sort(ordered.begin(), ordered.end(), [&](const Bucket* x, const Bucket* y) { return rank(x) < rank(y); });
  for (const Bucket* bp : ordered) {
    const Bucket& b = *bp;
    md << "\n### " << b.id << "\n\n";
    if (b.upstream) {
      const std::string dir = std::filesystem::path(b.corpus_file).parent_path().string();
      md << "- upstream: **" << upstreamClassName(b.upstream->cls) << "** on torch " << b.upstream->torch << ": "
         << markdownCell(b.upstream->reason) << " (`" << dir << "/repro.py`, `" << dir << "/issue.md`)\n";
      if (const std::string releases = releasesPhrase(b.upstream->releases); !releases.empty()) {
        md << "- releases: " << releases << " (" << releasesTried(b.upstream->releases) << ")\n";
      }
    }
    md << "- root cause: `" << markdownCell(b.root.str()) << "`\n"
       << "- seen " << b.count << " time" << (b.count == 1 ? "" : "s") << ", first with seed " << b.first_seed << "\n"
       << "- minimized: " << b.nodes_before << " → " << b.nodes_after << " calls in " << b.oracle_calls
       << " oracle calls\n"
       << "- case file: " << (b.corpus_file.empty() ? "(none)" : "`" + b.corpus_file + "`") << "\n"
       << "- reproduce: `" << reproCommand(b) << "`\n";
    const std::string& report = b.finding.report;
    if (!b.finding.where.empty()) md << "- where: " << b.finding.where << "\n";
    md << "\n```\n" << report << (report.empty() || report.back() == '\n' ? "" : "\n") << "```\n";
    if (!b.text.empty())
      md << "\nMinimized program:\n\n```\n" << b.text << (b.text.back() == '\n' ? "" : "\n") << "```\n";
  }
}

void Campaign::writeKnown(std::ostream& md) const {
  if (known_hits_.empty()) return;
  md << "\n## Known bugs\n\n"
     << "Findings that match an entry of the known-bugs list (--known); none is filed.\n\n"
     << "| entry | path | issue | findings | first seed | why |\n|---|---|---|---|---|---|\n";
  for (const auto& [id, hits] : known_hits_) {
    md << "| `" << id << "` | " << knownPathName(hits.bug->path) << " | " << hits.bug->issue << " | " << hits.findings
       << " | " << hits.first_seed << " | " << markdownCell(hits.bug->why) << " |\n";
  }
}

// Note [Program features]: root causes and known-bug findings by the features their
// minimized programs kept.
void Campaign::writeFeatures(std::ostream& md) const {
  md << "\n## Root causes by feature\n\n"
     << "The features (Note [Program features]) that minimized programs kept, so their findings need them. "
        "How many programs have each: `epsmith generate --stats` over the campaign's seeds.\n\n"
     << "| feature | root causes | new | known-bug findings | known-bug entries |\n|---|---|---|---|---|\n";
  for (size_t f = 0; f < kProgramFeatures.size(); ++f) {
    const FeatureTally& t = by_feature_[f];
    std::string entries;
    for (const std::string& id : t.known_entries) entries += (entries.empty() ? "`" : ", `") + id + "`";
    md << "| " << kProgramFeatures[f] << " | " << t.root_causes << " | " << t.new_root_causes << " | "
       << t.known_findings << " | " << entries << " |\n";
  }
}

void Campaign::writeFeaturesJson(JsonWriter& w) const {
  w.beginObject();
  for (size_t f = 0; f < kProgramFeatures.size(); ++f) {
    const FeatureTally& t = by_feature_[f];
    w.key(kProgramFeatures[f]).beginObject();
    w.key("root_causes").integer(t.root_causes);
    w.key("new_root_causes").integer(t.new_root_causes);
    w.key("known_bug_findings").integer(t.known_findings);
    w.key("known_bugs").beginArray();
    for (const std::string& id : t.known_entries) w.string(id);
    w.endArray();
    w.endObject();
  }
  w.endObject();
}

void Campaign::writeSeenBefore(std::ostream& md) const {
  if (static_cast<int>(buckets_.size()) == newBuckets()) return;
  md << "\n## Root causes a corpus already holds\n\n"
     << "| root cause | findings | first seed | case file |\n|---|---|---|---|\n";
  for (const auto& [id, b] : buckets_) {
    if (b.is_new) continue;
    md << "| `" << markdownCell(b.root.str()) << "` | " << b.count << " | " << b.first_seed << " | `" << b.corpus_file
       << "` |\n";
  }
}

void Campaign::writeReport() {
  const double elapsed = fuzz_seconds_;
  const std::vector<Family> families = familiesOf(buckets_);
  const std::string summary = summaryJson(elapsed, families);
  std::ostringstream md;
  writeOverview(md, elapsed);
  writeNew(md);
  writeKnown(md);
  writeFeatures(md);
  writeSeenBefore(md);
  writeFamilies(md, families);
  writeOverBudget(md);
  std::error_code ec;
  std::filesystem::create_directories(o_.report_dir, ec);
  if (ec) {
    errors_.push_back(o_.report_dir + ": cannot create the directory: " + ec.message());
    return;
  }
  const auto dir = std::filesystem::path(o_.report_dir);
  if (auto e = writeFileAtomically((dir / "summary.json").string(), summary)) errors_.push_back(e->str());
  if (auto e = writeFileAtomically((dir / "report.md").string(), md.str())) errors_.push_back(e->str());
}

}  // namespace epsmith::campaign_detail
