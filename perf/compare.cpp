// See compare.h.
#include "perf/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

namespace epsmith::perf {
namespace {

const ModeTiming* timed(const ProgramTiming& t, Mode m) {
  auto it = t.modes.find(std::string(modeName(m)));
  return it == t.modes.end() || !it->second.error.empty() || it->second.micros.empty() ? nullptr : &it->second;
}

// Note [Slower beyond noise]
// A program is slower in B when its median time grew by at least the threshold (10% by
// default) AND the Mann-Whitney U test of its repetitions says the two samples differ
// (p below alpha, 0.01): the threshold keeps changes nobody would act on out of the
// report, the test keeps out a median that moved with the machine. An op is slower when,
// over the programs that call it on both sides, the geometric mean of its time's ratio
// grew by the threshold AND a sign test says more of those programs got slower than
// chance allows: its per-program times are medians of kernel time alone, so a single
// program is too little to go on, and many programs moving one way is the evidence.
void compareProgram(const ProgramTiming& ta, const ModeTiming& ma, const ModeTiming& mb, const CompareOptions& options,
                    Comparison& c) {
  ProgramChange change{ta.id, ta.reproduce, median(ma.micros), median(mb.micros)};
  if (change.a_micros <= 0) return;
  change.ratio = change.b_micros / change.a_micros;
  if (std::abs(change.b_micros - change.a_micros) < options.min_micros) return;
  const bool up = change.ratio >= 1 + options.threshold;
  const bool down = change.ratio <= 1 / (1 + options.threshold);
  if (!up && !down) return;
  change.p = mannWhitneyP(ma.micros, mb.micros);
  if (change.p >= options.alpha) return;
  (up ? c.slower : c.faster).push_back(std::move(change));
}

struct OpSamples {
  std::vector<double> log_ratios;
};

void compareOps(const std::map<std::string, OpSamples>& ops, const CompareOptions& options, Comparison& c) {
  for (const auto& [op, s] : ops) {
    const size_t n = s.log_ratios.size();
    const double mean = std::accumulate(s.log_ratios.begin(), s.log_ratios.end(), 0.0) / static_cast<double>(n);
    OpChange change{op, n, std::exp(mean)};
    const bool up = change.ratio >= 1 + options.threshold;
    const bool down = change.ratio <= 1 / (1 + options.threshold);
    if (!up && !down) continue;
    const auto grew =
        static_cast<size_t>(std::count_if(s.log_ratios.begin(), s.log_ratios.end(), [](double r) { return r > 0; }));
    const auto shrank =
        static_cast<size_t>(std::count_if(s.log_ratios.begin(), s.log_ratios.end(), [](double r) { return r < 0; }));
    change.p = signTestP(grew, shrank);
    if (change.p >= options.alpha) continue;
    (up ? c.slower_ops : c.faster_ops).push_back(std::move(change));
  }
}

std::string micros(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f" : "%.1f", v);
  return buf;
}

std::string fixed(const char* format, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

double mannWhitneyP(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;
  if (n1 == 0 || n2 == 0) return 1;
  std::vector<std::pair<double, bool>> all;  // value, from a
  for (double v : a) all.emplace_back(v, true);
  for (double v : b) all.emplace_back(v, false);
  std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  double rank_sum_a = 0, ties = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    const double rank = (static_cast<double>(i + j) + 1) / 2;  // the mean of ranks i+1 .. j
    for (size_t k = i; k < j; ++k) rank_sum_a += all[k].second ? rank : 0;
    const auto t = static_cast<double>(j - i);
    ties += t * t * t - t;
    i = j;
  }
  const double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2), dn = static_cast<double>(n);
  const double u = rank_sum_a - dn1 * (dn1 + 1) / 2;
  const double mu = dn1 * dn2 / 2;
  const double sigma = std::sqrt(dn1 * dn2 / 12 * ((dn + 1) - ties / (dn * (dn - 1))));
  if (sigma == 0) return 1;
  const double z = (std::abs(u - mu) - 0.5) / sigma;
  return std::min(1.0, std::erfc(std::max(z, 0.0) / std::sqrt(2.0)));
}

double signTestP(size_t up, size_t down) {
  const size_t n = up + down, k = std::min(up, down);
  if (n == 0) return 1;
  // 2 * P(X <= k) for X ~ Binomial(n, 1/2), summed in logs so that large n stays finite.
  double tail = 0;
  for (size_t i = 0; i <= k; ++i) {
    tail += std::exp(std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(i) + 1) -
                     std::lgamma(static_cast<double>(n - i) + 1) - static_cast<double>(n) * std::log(2.0));
  }
  return std::min(1.0, 2 * tail);
}

Comparison compare(const Side& a, const Side& b, const CompareOptions& options) {
  Comparison c;
  std::map<std::string, const ProgramTiming*> in_b;
  for (const ProgramTiming& t : b.file->programs) in_b[t.id] = &t;
  std::map<std::string, OpSamples> ops;
  for (const ProgramTiming& ta : a.file->programs) {
    auto it = in_b.find(ta.id);
    const ModeTiming* ma = timed(ta, a.mode);
    const ModeTiming* mb = it == in_b.end() ? nullptr : timed(*it->second, b.mode);
    if (!ma || !mb) {
      ++c.one_sided;
      continue;
    }
    if (ta.digest != it->second->digest) {
      ++c.not_same;
      continue;
    }
    ++c.paired;
    compareProgram(ta, *ma, *mb, options, c);
    for (const auto& [op, rounds] : ma->op_micros) {
      auto other = mb->op_micros.find(op);
      if (other == mb->op_micros.end()) continue;
      const double op_a = median(rounds), op_b = median(other->second);
      if (op_a > 0 && op_b > 0) ops[op].log_ratios.push_back(std::log(op_b / op_a));
    }
  }
  compareOps(ops, options, c);
  auto by_ratio_desc = [](const auto& x, const auto& y) { return x.ratio > y.ratio; };
  auto by_ratio_asc = [](const auto& x, const auto& y) { return x.ratio < y.ratio; };
  std::sort(c.slower.begin(), c.slower.end(), by_ratio_desc);
  std::sort(c.faster.begin(), c.faster.end(), by_ratio_asc);
  std::sort(c.slower_ops.begin(), c.slower_ops.end(), by_ratio_desc);
  std::sort(c.faster_ops.begin(), c.faster_ops.end(), by_ratio_asc);
  return c;
}

std::string comparisonReport(const Side& a, const Side& b, const Comparison& c, size_t top) {
  std::string out = "A: " + a.name + "\nB: " + b.name + "\n";
  out += std::to_string(c.paired) + " programs timed on both sides";
  if (c.not_same) out += ", " + std::to_string(c.not_same) + " with the same id but other ops or inputs (not compared)";
  if (c.one_sided) out += ", " + std::to_string(c.one_sided) + " timed on one side only";
  out += "\n";
  auto programs = [&](const char* what, const std::vector<ProgramChange>& v) {
    out += "\nprograms " + std::string(what) + " in B beyond noise: " + std::to_string(v.size()) + "\n";
    for (size_t i = 0; i < v.size() && i < top; ++i) {
      const ProgramChange& p = v[i];
      out += "  " + fixed("%.2fx", p.ratio) + "  " + micros(p.a_micros) + " -> " + micros(p.b_micros) +
             " us  p=" + fixed("%.1e", p.p) + "  " + p.id + "\n      " + p.reproduce + "\n";
    }
  };
  auto ops = [&](const char* what, const std::vector<OpChange>& v) {
    out += "\nops " + std::string(what) + " in B beyond noise: " + std::to_string(v.size()) + "\n";
    for (size_t i = 0; i < v.size() && i < top; ++i) {
      const OpChange& o = v[i];
      out += "  " + fixed("%.2fx", o.ratio) + "  " + o.op + "  over " + std::to_string(o.programs) +
             " programs  p=" + fixed("%.1e", o.p) + "\n";
    }
  };
  programs("slower", c.slower);
  ops("slower", c.slower_ops);
  programs("faster", c.faster);
  ops("faster", c.faster_ops);
  return out;
}

}  // namespace epsmith::perf
