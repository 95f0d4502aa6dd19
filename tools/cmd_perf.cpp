// `epsmith perf [PROGRAM|DIR...] [--seed S --count N] [--modes M,...] [--out FILE]`: times
// programs (files, corpus cases, generated ones) in each run mode of the LibTorch at hand
// and writes a timing file; `epsmith perf --compare A[:MODE] B[:MODE]` reports what got
// slower from A to B beyond noise (docs/perf.md).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "fuzz/case_runner.h"
#include "fuzz/corpus.h"
#include "fuzz/failing.h"
#include "fuzz/programs.h"
#include "fuzz/workers.h"
#include "generators/generation_config.h"
#include "oracle/libtorch_compat.h"
#include "oracle/nativert.h"
#include "oracle/program_io.h"
#include "perf/compare.h"
#include "tools/command.h"

namespace epsmith::cli {
namespace {

using namespace perf;

struct PerfOptions {
  std::vector<std::string> paths;
  uint64_t seed = 1;
  int64_t count = 0;
  std::string config;
  std::string modes;
  TimingOptions timing;
  std::string out = "perf.json";
  std::string label;
  bool append = false;
  std::vector<std::string> compare;
  CompareOptions compare_options;
  size_t top = 10;
  double far_slower = 3;
};

// The modes flag, or why it names none: "eager,functionalized".
Expected<std::vector<Mode>> parseModes(const std::string& list) {
  std::vector<Mode> modes;
  for (size_t start = 0; start <= list.size();) {
    size_t end = std::min(list.find(',', start), list.size());
    const std::string name = list.substr(start, end - start);
    auto m = modeFromName(name);
    if (!m)
      return Diagnostic{"--modes",
                        "unknown mode '" + name + "' (eager, functionalized, libtorch-functionalize, nativert)"};
    modes.push_back(*m);
    start = end + 1;
  }
  return modes;
}

std::string modesFlag(const TimingOptions& t) {
  std::string s;
  for (Mode m : t.modes) s += (s.empty() ? "" : ",") + std::string(modeName(m));
  return s;
}

// One program to time: a file's, read once, or a seed's, generated afresh in each child.
struct Source {
  std::string id, reproduce;
  std::optional<ExportedProgram> loaded;
  uint64_t seed = 0;
  std::string not_timed{};  // why a file is not timed: "unreadable", or a case of another LibTorch
  bool unreadable = false;  // bad input, which makes the exit status 2
};

// What the seeds are generated with.
struct Generation {
  GenerationConfig config;
  OpCatalog catalog;
};

// Times one program for one round in a child, so that a kernel's memory error ends the
// child, not the run.
ProgramTiming timeIsolated(const Source& source, const Generation* generation, const TimingOptions& options) {
  WorkerLimits limits;
  limits.seconds_per_request = 120;
  IsolatedOutcome o = runIsolated(
      [&] {
        prepareCaseProcess();  // one intra-op thread, warnings silenced: as a campaign's workers run
        if (source.loaded) return timingJson(timeProgram(*source.loaded, options));
        SeededSource random(source.seed);
        auto p = generateInDialect(generation->catalog, generation->config.generator, random);
        ProgramTiming t;
        if (p.ok())
          t = timeProgram(p.value(), options);
        else
          t.error = "not generated: " + p.error().str();
        return timingJson(t);
      },
      limits);
  if (o.result) {
    if (auto read = readProgramTiming(*o.result); read.ok()) return read.value();
  }
  ProgramTiming t;
  t.error = "died: " + (o.death ? deathSignature(*o.death) : std::string("the timing child sent back nothing"));
  return t;
}

Expected<Generation> generation(const PerfOptions& opts) {
  GenerationConfig config;
  if (!opts.config.empty()) {
    auto loaded = loadGenerationConfig(opts.config);
    if (!loaded.ok()) return loaded.error();
    config = std::move(loaded.value());
  }
  auto catalog = buildGenerationCatalog(config.catalog, opts.config.empty() ? "<default config>" : opts.config);
  if (!catalog.ok()) return catalog.error();
  return Generation{std::move(config), std::move(catalog.value())};
}

// The program files and corpus cases under the paths (an unreadable one is reported and
// kept, to be recorded with its error), then the seeds.
Expected<std::vector<Source>> sources(const PerfOptions& opts) {
  auto files = caseFilesUnder(opts.paths);
  if (!files.ok()) return files.error();
  std::vector<Source> out;
  const std::string modes = " --modes " + modesFlag(opts.timing);
  for (const std::string& path : files.value()) {
    int load_exit = kExitOk;
    Source s{path, "epsmith perf " + path + modes, loadOrReport("perf", path, load_exit)};
    if (!s.loaded) {
      // A valid case this LibTorch cannot read (found on another release) or remake is a
      // fact, as replay reports it, not bad input.
      s.unreadable = !readCaseFile(path).ok();
      s.not_timed = s.unreadable ? "unreadable" : "a case whose program this LibTorch cannot read or remake";
    }
    out.push_back(std::move(s));
  }
  for (int64_t i = 0; i < opts.count; ++i) {
    const uint64_t seed = opts.seed + static_cast<uint64_t>(i);
    out.push_back({"seed:" + std::to_string(seed),
                   "epsmith perf --seed " + std::to_string(seed) + " --count 1" +
                       (opts.config.empty() ? "" : " --config " + opts.config) + modes,
                   std::nullopt, seed});
  }
  return out;
}

// Every source timed, round after round (Note [Timing in rounds]).
std::vector<ProgramTiming> timeInRounds(const std::vector<Source>& all, const Generation* generation,
                                        const TimingOptions& options) {
  std::vector<ProgramTiming> timings(all.size());
  for (int round = 0; round < options.rounds; ++round) {
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].not_timed.empty()) addRounds(timings[i], timeIsolated(all[i], generation, options));
    }
  }
  for (size_t i = 0; i < all.size(); ++i) {
    timings[i].id = all[i].id;
    timings[i].reproduce = all[i].reproduce;
    if (!all[i].not_timed.empty()) timings[i].error = all[i].not_timed;
  }
  return timings;
}

// Note [Far slower when functionalized]
// A program whose functionalized form (epsmith's, or LibTorch's functionalization) runs
// `--far-slower` times as long as eager or longer, by at least 50 microseconds and beyond
// noise (Note [Slower beyond noise]), is a finding: functionalization replaces writes with
// copies and scatters, and a form that pays many times the eager cost for them is what a
// compiler engineer wants to see, with the program to reproduce it.
size_t reportFarSlower(const TimingFile& file, double factor) {
  CompareOptions far;
  far.threshold = factor - 1;
  far.min_micros = 50;
  size_t findings = 0;
  const Side eager{&file, Mode::Eager, "eager"};
  for (Mode m : {Mode::Functionalized, Mode::LibTorchFunctionalize}) {
    const Side form{&file, m, std::string(modeName(m))};
    for (const ProgramChange& c : compare(eager, form, far).slower) {
      char figures[96];
      std::snprintf(figures, sizeof figures, "%.2fx as long as eager (%.1f -> %.1f us, p=%.1e)", c.ratio, c.a_micros,
                    c.b_micros, c.p);
      std::cout << "finding: " << c.id << ": " << form.name << " runs " << figures << "\n    " << c.reproduce << "\n";
      ++findings;
    }
  }
  return findings;
}

// The options the children time with: a mode this build lacks is said once, in the file's
// `unavailable`, not once per program.
TimingOptions availableModes(const TimingOptions& asked, TimingFile& file) {
  TimingOptions timed = asked;
  std::string why;
  auto nativert = std::find(timed.modes.begin(), timed.modes.end(), Mode::NativeRT);
  if (nativert != timed.modes.end() && !nativeRuntime(&why)) {
    timed.modes.erase(nativert);
    file.unavailable[std::string(modeName(Mode::NativeRT))] = why;
  }
  return timed;
}

// The file --append adds to, read before any timing so that a file it cannot add to costs
// no work: nullopt when there is none yet.
Expected<std::optional<TimingFile>> appendTarget(const PerfOptions& opts, const TimingFile& fresh) {
  if (!opts.append || !std::filesystem::exists(opts.out)) return std::optional<TimingFile>();
  auto earlier = readTimingFile(opts.out);
  if (!earlier.ok()) return earlier.error();
  TimingFile probe = fresh;  // no programs yet: only how it is timed is checked
  if (auto error = addRounds(probe, earlier.value())) return Diagnostic{opts.out, "cannot append: " + error->message};
  return std::optional<TimingFile>(std::move(earlier.value()));
}

void runTiming(const PerfOptions& opts, int& exit_code) {
  auto fail = [&](const std::string& message) {
    std::cerr << "epsmith perf: " << message << "\n";
    exit_code = kExitBadInput;
  };
  if (opts.paths.empty() && opts.count == 0) return fail("nothing to time: name programs or directories, or --count N");
  TimingFile file{compat::libtorchFullVersion(), opts.label, opts.timing, {}, {}};
  PerfOptions timed = opts;
  timed.timing = availableModes(opts.timing, file);
  auto earlier = appendTarget(opts, file);
  if (!earlier.ok()) return fail(earlier.error().str());
  auto all = sources(timed);
  if (!all.ok()) return fail(all.error().str());
  std::optional<Generation> gen;
  if (opts.count > 0) {
    auto g = generation(opts);
    if (!g.ok()) return fail(g.error().str());
    gen = std::move(g.value());
  }
  file.programs = timeInRounds(all.value(), gen ? &*gen : nullptr, timed.timing);
  std::string out = opts.out;
  if (earlier->has_value()) {
    if (auto error = addRounds(**earlier, file)) {
      out += ".new";  // another program under an id already there: keep this run's rounds apart
      fail(opts.out + ": cannot append: " + error->str() + "; this run's timing is in " + out);
    } else {
      file = std::move(**earlier);
    }
  }
  if (auto error = writeFileAtomically(out, timingFileJson(file))) return fail(error->str());
  size_t timed_ok = 0;
  for (const ProgramTiming& t : file.programs) timed_ok += t.error.empty();
  std::cout << "timed " << timed_ok << " of " << file.programs.size() << " programs in " << modesFlag(timed.timing)
            << " on LibTorch " << file.libtorch << ": " << out << "\n";
  for (const auto& [mode, why] : file.unavailable) std::cout << "  " << mode << " not timed: " << why << "\n";
  const size_t findings = reportFarSlower(file, opts.far_slower);
  const bool all_read = std::none_of(all->begin(), all->end(), [](const Source& s) { return s.unreadable; });
  if (exit_code != kExitBadInput) exit_code = !all_read ? kExitBadInput : findings ? kExitFindings : kExitOk;
}

// "file.json:eager" -> the file and the mode; no mode: eager.
std::pair<std::string, Mode> splitSide(const std::string& arg) {
  const size_t colon = arg.rfind(':');
  if (colon != std::string::npos) {
    if (auto m = modeFromName(arg.substr(colon + 1))) return {arg.substr(0, colon), *m};
  }
  return {arg, Mode::Eager};
}

void runCompare(const PerfOptions& opts, int& exit_code) {
  auto fail = [&](const std::string& message) {
    std::cerr << "epsmith perf --compare: " << message << "\n";
    exit_code = kExitBadInput;
  };
  std::vector<TimingFile> files;
  std::vector<Side> sides;
  for (const std::string& arg : opts.compare) {
    auto [path, mode] = splitSide(arg);
    auto f = readTimingFile(path);
    if (!f.ok()) return fail(f.error().str());
    files.push_back(std::move(f.value()));
    sides.push_back(
        {nullptr, mode, path + " (LibTorch " + files.back().libtorch + ", " + std::string(modeName(mode)) + ")"});
  }
  sides[0].file = &files[0];
  sides[1].file = &files[1];
  const Comparison c = compare(sides[0], sides[1], opts.compare_options);
  std::cout << comparisonReport(sides[0], sides[1], c, opts.top);
  exit_code = c.slower.empty() && c.slower_ops.empty() ? kExitOk : kExitFindings;
}

}  // namespace

void addPerfCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("perf", "Time programs in each run mode; compare two timing files");
  auto opts = std::make_shared<PerfOptions>();
  cmd->add_option("PROGRAM", opts->paths, "program files, corpus cases, or directories of them");
  cmd->add_option("--seed", opts->seed, "seed of the first generated program (the i-th uses seed+i)");
  cmd->add_option("--count", opts->count, "how many generated programs to time")
      ->check(CLI::Range(int64_t{0}, int64_t{100000000}));
  cmd->add_option("--config", opts->config, "generation config file (docs/generators.md)");
  cmd->add_option("--modes", opts->modes,
                  "comma-separated: eager, functionalized, libtorch-functionalize, nativert (default: all)");
  cmd->add_option("--warmup", opts->timing.warmup, "untimed runs per mode first")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_option("--reps", opts->timing.reps, "timed runs per mode and round")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  cmd->add_option("--rounds", opts->timing.rounds, "passes over all the programs")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--out", opts->out, "the timing file to write")->capture_default_str();
  cmd->add_option("--label", opts->label, "what to call this run in the timing file");
  cmd->add_flag("--append", opts->append,
                "add these rounds to the timing file's, if it exists (Note [Timing in rounds])");
  cmd->add_option("--far-slower", opts->far_slower, "a functionalized form this many times eager's time is a finding")
      ->check(CLI::Range(1.1, 1000.0))
      ->capture_default_str();
  auto* compare =
      cmd->add_option("--compare", opts->compare, "compare two timing files: A[:MODE] B[:MODE]")->expected(2);
  cmd->add_option("--threshold", opts->compare_options.threshold, "smallest change reported, a fraction of A's median")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--alpha", opts->compare_options.alpha, "the p-value a change must be below")
      ->check(CLI::Range(1e-12, 1.0))
      ->capture_default_str();
  cmd->add_option("--top", opts->top, "how many of each kind of change to list")->capture_default_str();
  for (const char* timing_only : {"PROGRAM", "--seed", "--count", "--config", "--modes", "--out", "--label", "--append",
                                  "--reps", "--rounds", "--warmup"}) {
    compare->excludes(cmd->get_option(timing_only));
  }
  cmd->callback([opts, &exit_code] {
    if (!opts->compare.empty()) return runCompare(*opts, exit_code);
    if (!opts->modes.empty()) {
      auto modes = parseModes(opts->modes);
      if (!modes.ok()) {
        std::cerr << "epsmith perf: " << modes.error().str() << "\n";
        exit_code = kExitBadInput;
        return;
      }
      opts->timing.modes = modes.value();
    }
    runTiming(*opts, exit_code);
  });
}

}  // namespace epsmith::cli
