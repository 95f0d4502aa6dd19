// `epsmith perf --compare`: which programs and ops got slower from one timing to another,
// beyond noise (Note [Slower beyond noise]).
#pragma once

#include <string>
#include <vector>

#include "perf/perf.h"

namespace epsmith::perf {

// Two-sided p-value of the Mann-Whitney U test of `a` against `b`: the normal
// approximation with tie and continuity corrections, as scipy.stats.mannwhitneyu's
// method="asymptotic" computes it. 1 when either sample is empty.
double mannWhitneyP(const std::vector<double>& a, const std::vector<double>& b);
// Two-sided p-value of the sign test: `up` changes one way, `down` the other, each way
// equally likely under no change (scipy.stats.binomtest(up, up + down).pvalue).
double signTestP(size_t up, size_t down);

struct CompareOptions {
  double threshold = 0.10;  // a change smaller than this fraction of A's median is no change
  double alpha = 0.01;      // and one whose test's p-value is not below this is noise
  double min_micros = 0;    // nor one smaller than this many microseconds
};

// One side of a comparison: a timing file and the mode read from it.
struct Side {
  const TimingFile* file;
  Mode mode;
  std::string name;  // how the report calls it: "base.json (2.13.0, eager)"
};

struct ProgramChange {
  std::string id, reproduce;
  double a_micros = 0, b_micros = 0;  // medians
  double ratio = 1;                   // b / a
  double p = 1;
};

struct OpChange {
  std::string op;
  size_t programs = 0;  // that call it on both sides
  double ratio = 1;     // geometric mean over them of b / a
  double p = 1;
};

struct Comparison {
  size_t paired = 0;                          // programs timed on both sides
  size_t not_same = 0;                        // same id, other ops or inputs: not compared
  size_t one_sided = 0;                       // timed on one side only (an error, a refusal, absent)
  std::vector<ProgramChange> slower, faster;  // beyond noise, largest change first
  std::vector<OpChange> slower_ops, faster_ops;
};

Comparison compare(const Side& a, const Side& b, const CompareOptions& options);
// The report `epsmith perf --compare` prints: counts, then the `top` largest changes of
// each kind, each program with its reproducer.
std::string comparisonReport(const Side& a, const Side& b, const Comparison& c, size_t top);

}  // namespace epsmith::perf
