// `epsmith fuzz [--time S | --cases N] [--jobs N] [--seed S] [--nodes N] [--device D]
// [--checks LIST] [--corpus DIR] [--report DIR] [--config FILE] [--timeout S]
// [--rss-limit-mb N]`: a campaign (fuzz/campaign.h). Exit 0 when no new bucket was found,
// 1 when one was (its case file is in the corpus), 2 for bad flags or configs, 3 when the
// corpus or the report could not be written.
#include <fstream>
#include <iostream>
#include <sstream>

#include "fuzz/campaign.h"
#include "oracle/run.h"
#include "tools/command.h"

namespace epsmith::cli {

constexpr int kExitCannotWrite = 3;

void addFuzzCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("fuzz", "Run a fuzz campaign: generate, check, minimize, keep new buckets in the corpus");
  struct Options {
    double time = -1;
    int64_t cases = 0;
    int jobs = 1;
    uint64_t seed = 1;
    int nodes = -1;
    std::string device = "cpu";
    std::string checks = "D1,D2,D3,D4,D6";
    std::string corpus = "corpus";
    std::string report = "fuzz-report";
    std::string config;
    double timeout = 10;
    int64_t rss_limit_mb = 2048;
    int minimize_calls = 500;
    int round_trip_every = 8;
    int minimize_per_family = 3;
    double status = 3;
  };
  auto opts = std::make_shared<Options>();
  auto* time = cmd->add_option("--time", opts->time, "seconds to run (default 60 unless --cases is given)")
                   ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--cases", opts->cases, "cases to run")->check(CLI::Range(int64_t{1}, int64_t{1} << 50))->excludes(time);
  cmd->add_option("--jobs", opts->jobs, "worker processes")->check(CLI::Range(1, 256))->capture_default_str();
  cmd->add_option("--seed", opts->seed, "seed of the first case (case i uses seed+i)")->capture_default_str();
  cmd->add_option("--nodes", opts->nodes, "ops per program (default: the config's, 16)")->check(CLI::Range(0, 100000));
  cmd->add_option("--device", opts->device, "cpu, cuda, or both (adds D3: CPU against CUDA)")
      ->check(CLI::IsMember({"cpu", "cuda", "both"}))->capture_default_str();
  cmd->add_option("--checks", opts->checks, "comma-separated subset of D1,D2,D3,D4,D6")->capture_default_str();
  cmd->add_option("--corpus", opts->corpus, "corpus directory (new buckets go to DIR/regressions)")->capture_default_str();
  cmd->add_option("--report", opts->report, "report directory (summary.json, report.md)")->capture_default_str();
  cmd->add_option("--config", opts->config, "generation config file (docs/generators.md)");
  cmd->add_option("--timeout", opts->timeout, "seconds one case may run before it is a hang")
      ->check(CLI::Range(0.001, 86400.0))->capture_default_str();
  cmd->add_option("--rss-limit-mb", opts->rss_limit_mb, "resident memory a worker may reach")
      ->check(CLI::Range(int64_t{64}, int64_t{1} << 30))->capture_default_str();
  cmd->add_option("--minimize-calls", opts->minimize_calls, "oracle calls per minimization at most (each run of the checks, each eager run)")
      ->check(CLI::Range(0, 1000000))->capture_default_str();
  cmd->add_option("--minimize-per-family", opts->minimize_per_family,
                  "minimizations per family of findings at most (0: no limit)")
      ->check(CLI::Range(0, 1000000))->capture_default_str();
  cmd->add_option("--round-trip-every", opts->round_trip_every, "run D4 on one case in N, drawn from its seed")
      ->check(CLI::Range(1, 1000000))->capture_default_str();
  cmd->add_option("--status-every", opts->status, "seconds between status lines")->check(CLI::Range(0.1, 3600.0))->capture_default_str();
  cmd->callback([opts, cmd, &exit_code] {
    auto fail = [&](const std::string& message) {
      std::cerr << "epsmith fuzz: " << message << "\n";
      exit_code = kExitBadInput;
    };
    std::string error;
    auto checks = parseDiffChecks(opts->checks, &error);
    if (!checks) return fail("--checks: " + error);
    CampaignOptions o;
    o.setup.checks = *checks;
    if (!opts->config.empty()) {
      std::ifstream in(opts->config, std::ios::binary);
      if (!in) return fail(opts->config + ": cannot read the config file");
      std::ostringstream text;
      text << in.rdbuf();
      o.setup.config_text = text.str();
      o.setup.config_name = opts->config;
    }
    o.setup.nodes = opts->nodes;
    o.setup.minimize_calls = opts->minimize_calls;
    o.setup.round_trip_every = opts->round_trip_every;
    o.minimize_per_family = opts->minimize_per_family;
    o.setup.limits.seconds_per_request = opts->timeout;
    o.setup.limits.rss_limit_bytes = static_cast<size_t>(opts->rss_limit_mb) << 20;
    o.device = opts->device;
    const bool has_d3 = std::find(checks->begin(), checks->end(), DiffCheck::D3) != checks->end();
    if (opts->device != "cpu" && !cudaAvailable()) {
      return fail("--device " + opts->device + ": CUDA is not available in this LibTorch build or machine");
    }
    if (opts->device == "cuda") o.setup.device.type = "cuda";
    if (has_d3 && !cudaAvailable()) {
      std::cerr << "epsmith fuzz: CUDA is not available: D3 (CPU against CUDA) is not run\n";
      o.setup.checks.erase(std::remove(o.setup.checks.begin(), o.setup.checks.end(), DiffCheck::D3), o.setup.checks.end());
    }
    if (opts->device == "both" && !has_d3) o.setup.checks.push_back(DiffCheck::D3);
    o.cases = opts->cases;
    o.seconds = opts->cases > 0 ? 0 : (opts->time >= 0 ? opts->time : 60);
    o.jobs = opts->jobs;
    o.seed = opts->seed;
    o.corpus_dir = opts->corpus;
    o.report_dir = opts->report;
    o.status_seconds = opts->status;
    o.command_line = "epsmith fuzz";
    for (const auto* option : cmd->get_options()) {
      if (option->count() == 0 || option->get_name() == "--help") continue;
      o.command_line += " " + option->get_name() + (option->get_expected_min() == 0 ? "" : " " + option->as<std::string>());
    }
    if (o.setup.checks.empty()) return fail("--checks: nothing left to run");
    std::optional<Expected<CampaignResult>> run;
    try {
      run.emplace(runCampaign(o, std::cout));
    } catch (const std::exception& e) {  // workers that cannot start
      std::cerr << "epsmith fuzz: " << e.what() << "\n";
      exit_code = kExitCannotWrite;
      return;
    }
    if (!run->ok()) return fail(run->error().str());
    const CampaignResult& r = run->value();
    std::cout << "report: " << opts->report << "/report.md (summary.json beside it)\n";
    for (const auto& e : r.errors) std::cerr << "epsmith fuzz: " << e << "\n";
    if (!r.errors.empty()) exit_code = kExitCannotWrite;
    else exit_code = r.new_buckets > 0 ? kExitFindings : kExitOk;
  });
}

}  // namespace epsmith::cli
