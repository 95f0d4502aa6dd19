// `epsmith perf`'s pieces: its statistics against scipy's, the comparison on timings whose
// answer the test knows by construction, the timing file, and timing real programs.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "oracle/program_io.h"
#include "perf/compare.h"

namespace epsmith::perf {
namespace {

// The venv's Python with scipy, which the build names where it has one.
std::string scipyPython() {
#ifdef EPSMITH_TEST_PYTHON
  const std::string python = EPSMITH_TEST_PYTHON;
  if (std::system((python + " -c 'import scipy.stats' 2>/dev/null").c_str()) == 0) return python;
#endif
  return "";
}

// What `python` prints running `script`.
std::string runPython(const std::string& python, const std::string& script) {
  const std::string path = ::testing::TempDir() + "/perf_oracle.py";
  std::ofstream(path) << script;
  std::string out;
  FILE* pipe = ::popen((python + " " + path).c_str(), "r");
  if (!pipe) return out;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  ::pclose(pipe);
  return out;
}

std::string pyList(const std::vector<double>& v) {
  std::ostringstream s;
  s.precision(17);
  s << "[";
  for (double x : v) s << x << ",";
  return s.str() + "]";
}

// Samples of every shape the comparison meets: equal, shifted, tied (timings rounded to a
// clock's tick), of unequal sizes.
std::vector<std::pair<std::vector<double>, std::vector<double>>> samplePairs() {
  std::mt19937_64 rng(20261127);
  std::vector<std::pair<std::vector<double>, std::vector<double>>> pairs;
  for (int i = 0; i < 40; ++i) {
    std::lognormal_distribution<double> a(3.0, 0.2), b(3.0 + 0.05 * (i % 8), 0.2);
    std::vector<double> x, y;
    const int nx = 3 + i % 13, ny = 3 + (i * 7) % 17;
    for (int k = 0; k < nx; ++k) x.push_back(i % 3 == 0 ? std::round(a(rng)) : a(rng));
    for (int k = 0; k < ny; ++k) y.push_back(i % 3 == 0 ? std::round(b(rng)) : b(rng));
    pairs.emplace_back(x, y);
  }
  return pairs;
}

TEST(PerfStatistics, MannWhitneyAgreesWithScipy) {
  const std::string python = scipyPython();
  if (python.empty()) GTEST_SKIP() << "no Python with scipy beside this build";
  std::string script = "from scipy.stats import mannwhitneyu\n";
  for (const auto& [x, y] : samplePairs()) {
    script += "print(float(mannwhitneyu(" + pyList(x) + "," + pyList(y) +
              ", alternative='two-sided', method='asymptotic', use_continuity=True).pvalue))\n";
  }
  std::istringstream theirs(runPython(python, script));
  for (const auto& [x, y] : samplePairs()) {
    double p = -1;
    ASSERT_TRUE(theirs >> p) << "scipy gave fewer answers than asked";
    EXPECT_NEAR(mannWhitneyP(x, y), p, 1e-12 + 1e-9 * p) << pyList(x) << " " << pyList(y);
  }
}

TEST(PerfStatistics, SignTestAgreesWithScipy) {
  const std::string python = scipyPython();
  if (python.empty()) GTEST_SKIP() << "no Python with scipy beside this build";
  const std::vector<std::pair<size_t, size_t>> counts = {{0, 1},   {5, 5},     {8, 0},   {1, 9},
                                                         {30, 12}, {400, 350}, {0, 2000}};
  std::string script = "from scipy.stats import binomtest\n";
  for (auto [up, down] : counts)
    script += "print(float(binomtest(" + std::to_string(up) + "," + std::to_string(up + down) + ").pvalue))\n";
  std::istringstream theirs(runPython(python, script));
  for (auto [up, down] : counts) {
    double p = -1;
    ASSERT_TRUE(theirs >> p);
    EXPECT_NEAR(signTestP(up, down), p, 1e-12 + 1e-9 * p) << up << " up, " << down << " down";
  }
}

// A program timed in eager with repetitions around `centre` and ops in the proportions given.
ProgramTiming synthetic(const std::string& id, uint64_t digest, double centre, std::map<std::string, double> ops,
                        std::mt19937_64& rng) {
  ProgramTiming t;
  t.id = id;
  t.reproduce = "epsmith perf " + id;
  t.digest = digest;
  std::normal_distribution<double> noise(1.0, 0.03);
  ModeTiming& m = t.modes["eager"];
  for (int i = 0; i < 15; ++i) m.micros.push_back(centre * noise(rng));
  for (const auto& [op, micros] : ops)
    m.op_micros[op] = {micros * noise(rng), micros * noise(rng), micros * noise(rng)};
  return t;
}

TEST(PerfCompare, FindsWhatGotSlowerAndOnlyThat) {
  std::mt19937_64 rng(7);
  TimingFile a, b;
  a.libtorch = b.libtorch = "2.13.0";
  for (int i = 0; i < 12; ++i) {
    const std::string id = "seed:" + std::to_string(i);
    const bool uses_mul = i < 10;  // ten programs call mul, which B made twice as slow
    std::map<std::string, double> ops = {{"aten::add.Tensor", 10}};
    if (uses_mul) ops["aten::mul.Tensor"] = 20;
    a.programs.push_back(synthetic(id, i, 50, ops, rng));
    if (uses_mul) ops["aten::mul.Tensor"] = 40;
    b.programs.push_back(synthetic(id, i, uses_mul ? 70 : 50, ops, rng));
  }
  b.programs.push_back(synthetic("seed:99", 1, 50, {}, rng));  // in B only
  a.programs[11].digest = 1234;                                // the same id, another program: never compared
  const Side sa{&a, Mode::Eager, "A"}, sb{&b, Mode::Eager, "B"};
  const Comparison c = compare(sa, sb, CompareOptions{});
  EXPECT_EQ(c.paired, 11u);
  EXPECT_EQ(c.not_same, 1u);
  ASSERT_EQ(c.slower.size(), 10u);
  for (const ProgramChange& p : c.slower) {
    EXPECT_NEAR(p.ratio, 1.4, 0.1) << p.id;
    EXPECT_LT(p.p, 0.01);
  }
  EXPECT_TRUE(c.faster.empty());
  ASSERT_EQ(c.slower_ops.size(), 1u);
  EXPECT_EQ(c.slower_ops[0].op, "aten::mul.Tensor");
  EXPECT_NEAR(c.slower_ops[0].ratio, 2.0, 0.1);
  EXPECT_TRUE(c.faster_ops.empty());
  const std::string report = comparisonReport(sa, sb, c, 3);
  EXPECT_NE(report.find("programs slower in B beyond noise: 10"), std::string::npos) << report;
  EXPECT_NE(report.find("epsmith perf seed:"), std::string::npos) << report;  // each with its reproducer
}

TEST(PerfCompare, AChangeWithinTheThresholdOrTheNoiseIsNone) {
  std::mt19937_64 rng(11);
  TimingFile a, b;
  for (int i = 0; i < 20; ++i) {
    a.programs.push_back(synthetic("p" + std::to_string(i), i, 50, {{"aten::add.Tensor", 10}}, rng));
    b.programs.push_back(synthetic("p" + std::to_string(i), i, 52, {{"aten::add.Tensor", 10.4}}, rng));  // +4%
  }
  const Comparison c = compare({&a, Mode::Eager, "A"}, {&b, Mode::Eager, "B"}, CompareOptions{});
  EXPECT_EQ(c.paired, 20u);
  EXPECT_TRUE(c.slower.empty() && c.faster.empty() && c.slower_ops.empty() && c.faster_ops.empty());
}

TEST(PerfTimingFile, RoundTripsAndAppendsRounds) {
  std::mt19937_64 rng(3);
  TimingFile f;
  f.libtorch = "2.13.0";
  f.label = "nightly";
  f.unavailable["nativert"] = "not in this build";
  f.programs.push_back(synthetic("seed:1", 0xfeedface12345678ull, 40, {{"aten::abs", 5}}, rng));
  ProgramTiming refused;
  refused.id = "x.json";
  refused.modes["functionalized"].error = "the functionalizer refuses it";
  f.programs.push_back(refused);
  const std::string path = ::testing::TempDir() + "/timing.json";
  ASSERT_FALSE(writeFileAtomically(path, timingFileJson(f)));
  auto back = readTimingFile(path);
  ASSERT_TRUE(back.ok()) << back.error().str();
  EXPECT_EQ(back->label, "nightly");
  EXPECT_EQ(back->unavailable, f.unavailable);
  ASSERT_EQ(back->programs.size(), 2u);
  EXPECT_EQ(back->programs[0].digest, 0xfeedface12345678ull);
  EXPECT_EQ(back->programs[0].modes.at("eager").micros.size(), 15u);
  EXPECT_EQ(back->programs[1].modes.at("functionalized").error, "the functionalizer refuses it");

  TimingFile more = back.value();
  ASSERT_FALSE(addRounds(back.value(), more));
  EXPECT_EQ(back->options.rounds, 2 * f.options.rounds);
  EXPECT_EQ(back->programs[0].modes.at("eager").micros.size(), 30u);
  EXPECT_EQ(back->programs[0].modes.at("eager").op_micros.at("aten::abs").size(), 6u);
  more.programs[0].digest = 1;
  EXPECT_TRUE(addRounds(back.value(), more));  // another program under that id
  more.libtorch = "1.13.1";
  EXPECT_TRUE(addRounds(back.value(), more));  // rounds of another LibTorch
}

TEST(PerfTimingFile, BadFilesAreLocatedErrors) {
  const std::string path = ::testing::TempDir() + "/bad_timing.json";
  auto errorOf = [&](const std::string& text) {
    std::ofstream(path) << text;
    auto f = readTimingFile(path);
    return f.ok() ? std::string("read") : f.error().str();
  };
  EXPECT_EQ(errorOf("{\"epsmith_perf\": 9}").rfind(path + ": $.epsmith_perf: a timing file of version 9", 0), 0u);
  const std::string header =
      R"({"epsmith_perf": 1, "libtorch": "2.13.0", "label": "", "warmup": 1, "reps": 1, "rounds": 1,)";
  EXPECT_NE(
      errorOf(header + R"("modes": ["eagre"], "unavailable": {}, "programs": []})").find("$.modes[0]: unknown mode"),
      std::string::npos);
  EXPECT_NE(
      errorOf(
          header +
          R"("modes": [], "unavailable": {}, "programs": [{"id": "a", "reproduce": "", "digest": "xyz", "modes": {}}]})")
          .find("$.programs[0].digest: expected up to 16 hexadecimal digits"),
      std::string::npos);
  EXPECT_EQ(errorOf("{").rfind(path + ": ", 0), 0u) << errorOf("{");
}

TEST(PerfTiming, TimesEveryModeOfARealProgram) {
  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/examples/writes_through_views.ept");
  ASSERT_TRUE(p.ok()) << p.error().str();
  TimingOptions options;
  options.modes = {Mode::Eager, Mode::Functionalized, Mode::LibTorchFunctionalize};
  options.warmup = 1;
  options.reps = 4;
  const ProgramTiming t = timeProgram(p.value(), options);
  EXPECT_EQ(t.digest, programDigest(p.value()));
  for (const char* mode : {"eager", "functionalized", "libtorch-functionalize"}) {
    const ModeTiming& m = t.modes.at(mode);
    EXPECT_EQ(m.error, "") << mode;
    ASSERT_EQ(m.micros.size(), 4u) << mode;
    for (double v : m.micros) EXPECT_GT(v, 0) << mode;
  }
  // The functionalized form calls what its writes became; eager calls the program's own ops.
  EXPECT_FALSE(t.modes.at("eager").op_micros.empty());
  for (const auto& [op, rounds] : t.modes.at("eager").op_micros) {
    bool in_program = false;
    for (const Node& n : p->graph().nodes()) in_program |= n.op() == OpKind::CallFunction && n.target.textName() == op;
    EXPECT_TRUE(in_program) << op;
  }
}

}  // namespace
}  // namespace epsmith::perf
