// `epsmith fuzz [--time S | --cases N] [--jobs N] [--seed S] [--nodes N] [--device D]
// [--checks LIST] [--corpus DIR] [--known-corpus DIR]... [--known FILE] [--report DIR]
// [--config FILE] [--timeout S] [--rss-limit-mb N]`: a campaign (fuzz/campaign.h). Exit 0
// when no new root cause was found, 1 when one was (its case file is in --corpus), 2 for
// bad flags, configs or known-bugs lists, 3 when the corpus or the report could not be
// written. By default it writes under ./fuzz-out, never into a checked-in corpus.
#include <algorithm>
#include <array>
#include <filesystem>
#include <iostream>
#include <utility>

#include "fuzz/campaign.h"
#include "generators/generation_config.h"
#include "generators/op_catalog.h"
#include "oracle/run.h"
#include "tools/command.h"

namespace epsmith::cli {

constexpr int kExitCannotWrite = 3;

namespace {

struct FuzzOptions {
  double time = -1;
  int64_t cases = 0;
  int jobs = 1;
  uint64_t seed = 1;
  int nodes = -1;
  std::string device = "cpu";
  std::string checks = allDiffCheckNames();
  std::string corpus = "fuzz-out/corpus";
  std::vector<std::string> known_corpora;  // default: ./corpus, where it is
  std::string known;                       // default: ./corpus/known.json, where it is
  std::string report = "fuzz-out/report";
  std::string config;
  double timeout = 10;
  int64_t rss_limit_mb = 2048;
  int minimize_calls = 500;
  std::array<int, kCheckDrawCount> every = defaultDrawEvery();
  int across_every = 4;
  int minimize_per_family = 8;
  int confirm_timeout = 300;
  double status = 3;
};

void addFuzzOptions(CLI::App* cmd, FuzzOptions* opts) {
  auto* time = cmd->add_option("--time", opts->time, "seconds to run (default 60 unless --cases is given)")
                   ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--cases", opts->cases, "cases to run")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 50))
      ->excludes(time);
  cmd->add_option("--jobs", opts->jobs, "worker processes")->check(CLI::Range(1, 256))->capture_default_str();
  cmd->add_option("--seed", opts->seed, "seed of the first case (case i uses seed+i)")->capture_default_str();
  cmd->add_option("--nodes", opts->nodes, "ops per program (default: the config's, 16)")->check(CLI::Range(0, 100000));
  cmd->add_option("--device", opts->device, "cpu, cuda, or both (adds D3: CPU against CUDA)")
      ->check(CLI::IsMember({"cpu", "cuda", "both"}))
      ->capture_default_str();
  cmd->add_option("--checks", opts->checks, checksHelp())->capture_default_str();
  cmd->add_option("--corpus", opts->corpus, "corpus directory new cases go to (DIR/regressions)")
      ->capture_default_str();
  cmd->add_option("--known-corpus", opts->known_corpora,
                  "a corpus only read: its root causes are not new (repeatable; default: ./corpus where it is)");
  cmd->add_option("--known", opts->known,
                  "known-bugs list (docs/fuzzing.md; default: ./corpus/known.json where it is; none: no list)");
  cmd->add_option("--report", opts->report, "report directory (summary.json, report.md)")->capture_default_str();
  cmd->add_option("--config", opts->config, "generation config file (docs/generators.md)");
  cmd->add_option("--timeout", opts->timeout, "seconds one case may run before it is a hang")
      ->check(CLI::Range(0.001, 86400.0))
      ->capture_default_str();
  cmd->add_option("--rss-limit-mb", opts->rss_limit_mb, "resident memory a worker may reach")
      ->check(CLI::Range(int64_t{64}, int64_t{1} << 30))
      ->capture_default_str();
  cmd->add_option("--minimize-calls", opts->minimize_calls,
                  "oracle calls per minimization at most (each run of the checks, each eager run)")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  cmd->add_option("--minimize-per-family", opts->minimize_per_family,
                  "minimizations per family of findings at most (0: no limit)")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  cmd->add_option("--confirm-timeout", opts->confirm_timeout,
                  "seconds each new root cause's torch-only script may run, after the cases (0: not run)")
      ->check(CLI::Range(0, 86400))
      ->capture_default_str();
  for (CheckDraw d : kAllCheckDraws) {
    if (d == CheckDraw::Every) continue;
    cmd->add_option(std::string(checkDrawInfo(d).flag), opts->every[static_cast<size_t>(d)], checkDrawHelp(d))
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str();
  }
  cmd->add_option("--across-every", opts->across_every,
                  "of the cases that ask PyTorch, save and load across two installed releases (D7) on one in N")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--status-every", opts->status, "seconds between status lines")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
}

// D3 where the checks or --device ask for it and CUDA is here; a note when it is not.
Expected<std::vector<DiffCheck>> checksToRun(const FuzzOptions& opts) {
  auto checks = parseDiffChecks(opts.checks);
  if (!checks) return Diagnostic{"--checks", checks.error().message};
  std::vector<DiffCheck> run = checks.value();
  const bool has_d3 = std::find(run.begin(), run.end(), DiffCheck::D3) != run.end();
  if (opts.device != "cpu" && !cudaAvailable()) {
    return Diagnostic{"--device " + opts.device, "CUDA is not available in this LibTorch build or machine"};
  }
  if (has_d3 && !cudaAvailable()) {
    std::cerr << "epsmith fuzz: CUDA is not available: D3 (CPU against CUDA) is not run\n";
    run.erase(std::remove(run.begin(), run.end(), DiffCheck::D3), run.end());
  }
  if (opts.device == "both" && !has_d3) run.push_back(DiffCheck::D3);
  // The checks that cannot run here, named once per reason.
  std::vector<std::pair<std::string, std::string>> not_run;  // reason, "D5, D7, D8"
  std::vector<DiffCheck> kept;
  for (DiffCheck c : run) {
    auto why = c == DiffCheck::D3 ? std::nullopt : checkUnavailable(c, /*for_workers=*/true);  // D3: above
    if (!why) {
      kept.push_back(c);
      continue;
    }
    auto same = std::find_if(not_run.begin(), not_run.end(), [&](const auto& r) { return r.first == *why; });
    if (same == not_run.end()) same = not_run.insert(not_run.end(), {*why, ""});
    same->second += (same->second.empty() ? "" : ", ") + std::string(diffCheckName(c));
  }
  for (const auto& [why, names] : not_run) {
    std::cerr << "epsmith fuzz: " << why << ": " << names << (names.size() > 2 ? " are" : " is") << " not run\n";
  }
  run = kept;
  if (run.empty()) return Diagnostic{"--checks", "nothing left to run"};
  return run;
}

// The campaign the flags describe; `command_line` is how the report names it.
Expected<CampaignOptions> campaignOptions(const FuzzOptions& opts, std::string command_line) {
  CampaignOptions o;
  if (!opts.config.empty()) {
    auto text = readConfigFile(opts.config);
    if (!text) return text.error();
    o.setup.config_text = text.value();
    o.setup.config_name = opts.config;
  }
  o.setup.nodes = opts.nodes;
  o.setup.minimize_calls = opts.minimize_calls;
  o.setup.every = opts.every;
  o.setup.across_every = opts.across_every;
  o.setup.limits.seconds_per_request = opts.timeout;
  o.setup.limits.rss_limit_bytes = static_cast<size_t>(opts.rss_limit_mb) << 20;
  if (opts.device == "cuda") o.setup.device.type = "cuda";
  o.minimize_per_family = opts.minimize_per_family;
  o.confirm_timeout = opts.confirm_timeout;
  o.device = opts.device;
  o.cases = opts.cases;
  o.seconds = opts.cases > 0 ? 0 : (opts.time >= 0 ? opts.time : 60);
  o.jobs = opts.jobs;
  o.seed = opts.seed;
  o.corpus_dir = opts.corpus;
  o.known_corpora = opts.known_corpora;
  std::error_code ec;
  if (o.known_corpora.empty() && std::filesystem::is_directory("corpus/regressions", ec)) o.known_corpora = {"corpus"};
  std::string known = opts.known;
  if (known.empty() && std::filesystem::is_regular_file("corpus/known.json", ec)) known = "corpus/known.json";
  if (!known.empty() && known != "none") {
    auto list = KnownBugs::load(known);
    if (!list) return Diagnostic{"--known", list.error().str()};
    o.known_bugs = std::move(list.value());
  }
  o.report_dir = opts.report;
  o.status_seconds = opts.status;
  o.command_line = std::move(command_line);
  // Bad input is reported before the torch peer starts, which takes seconds.
  auto config = parseGenerationConfig(o.setup.config_text, o.setup.config_name);
  if (!config) return config.error();
  if (auto catalog = buildGenerationCatalog(config->catalog, o.setup.config_name); !catalog) return catalog.error();
  auto checks = checksToRun(opts);
  if (!checks) return checks.error();
  o.setup.checks = checks.value();
  return o;
}

// "epsmith fuzz --cases 100 --jobs 2": the flags given, for the report.
std::string commandLine(const CLI::App& cmd) {
  std::string line = "epsmith fuzz";
  for (const auto* option : cmd.get_options()) {
    if (option->count() == 0 || option->get_name() == "--help") continue;
    line += " " + option->get_name() + (option->get_expected_min() == 0 ? "" : " " + option->as<std::string>());
  }
  return line;
}

}  // namespace

void addFuzzCommand(CLI::App& app, int& exit_code) {
  auto* cmd =
      app.add_subcommand("fuzz", "Run a fuzz campaign: generate, check, minimize, keep new buckets in the corpus");
  auto opts = std::make_shared<FuzzOptions>();
  addFuzzOptions(cmd, opts.get());
  cmd->callback([opts, cmd, &exit_code] {
    auto options = campaignOptions(*opts, commandLine(*cmd));
    if (!options) {
      std::cerr << "epsmith fuzz: " << options.error().str() << "\n";
      exit_code = kExitBadInput;
      return;
    }
    auto run = runCampaign(options.value(), std::cout);
    if (!run) {
      std::cerr << "epsmith fuzz: " << run.error().str() << "\n";
      exit_code = kExitBadInput;
      return;
    }
    const CampaignResult& r = run.value();
    std::cout << "report: " << opts->report << "/report.md (summary.json beside it)\n";
    for (const auto& e : r.errors) std::cerr << "epsmith fuzz: " << e << "\n";
    if (!r.errors.empty())
      exit_code = kExitCannotWrite;
    else
      exit_code = r.new_buckets > 0 || r.unminimized > 0 ? kExitFindings : kExitOk;
  });
}

}  // namespace epsmith::cli
