// `epsmith generate --seed S --count N --out DIR [--config FILE] [--nodes N] [--dialect D]
// [--text | --pt2] [--stats]`: writes N generated programs, the i-th from seed S+i as DIR/gen-<S+i>.json (or
// .ept, .pt2), so `--seed S+i --count 1` remakes any one of them. Every program is verified in its
// dialect before it is written; one that fails is a generator bug: reported, exit 1.
#include <algorithm>
#include <array>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <vector>

#include "oracle/program_io.h"
#include "fuzz/programs.h"
#include "generators/generation_config.h"
#include "generators/program_features.h"
#include "tools/command.h"
#include "verifier/verifier.h"

namespace epsmith::cli {

namespace {

struct GenerateOptions {
  uint64_t seed = 1;
  int64_t count = 1;
  std::string out;
  std::string config;
  int nodes = -1;
  std::string dialect;
  bool text = false;
  bool pt2 = false;
  bool stats = false;
};

// The config file's generation config, with the flags that override it.
Expected<GenerationConfig> generationConfig(const GenerateOptions& opts) {
  GenerationConfig config;
  if (!opts.config.empty()) {
    auto loaded = loadGenerationConfig(opts.config);
    if (!loaded.ok()) return loaded.error();
    config = std::move(loaded.value());
  }
  if (opts.nodes >= 0) config.generator.nodes = opts.nodes;
  if (!opts.dialect.empty()) config.generator.dialect = opts.dialect == "ATEN" ? IrDialect::Aten : IrDialect::Training;
  return config;
}

using FeatureCounts = std::array<int64_t, kProgramFeatures.size()>;

// Writes the programs; how many fail to verify in their dialect (each reported), or why
// none more could be written. `features` counts the programs with each feature.
Expected<int64_t> writePrograms(const GenerateOptions& opts, const OpCatalog& catalog, const GeneratorConfig& config,
                                GenerationStats* stats, FeatureCounts* features) {
  const Dialect& dialect = *findDialect(std::string(dialectName(config.dialect)));
  int64_t invalid = 0;
  for (int64_t i = 0; i < opts.count; ++i) {
    const uint64_t seed = opts.seed + static_cast<uint64_t>(i);
    SeededSource random(seed);
    auto program = generateInDialect(catalog, config, random, stats);
    if (!program.ok()) return Diagnostic{"seed " + std::to_string(seed), program.error().str()};
    const auto has = programFeatures(program.value());
    for (size_t f = 0; f < has.size(); ++f) (*features)[f] += has[f] ? 1 : 0;
    auto violations = verify(program.value(), dialect);
    if (!violations.empty()) {
      ++invalid;
      std::cerr << "epsmith generate: seed " << seed
                << ": the generated program does not verify: " << violations.front().str() << "\n";
    }
    const std::string path = (std::filesystem::path(opts.out) / ("gen-" + std::to_string(seed) +
                                                                 (opts.text  ? ".ept"
                                                                  : opts.pt2 ? ".pt2"
                                                                             : ".json")))
                                 .string();
    if (auto error = saveProgram(path, program.value())) return *error;
  }
  return invalid;
}

// What making the programs took: the candidate calls drawn, how many were kept, and how
// many each screen refused (generators/screens.def), the commonest first; then how many
// programs have each feature (Note [Program features]).
void printStats(const GenerationStats& stats, const FeatureCounts& features, int64_t programs) {
  const auto share = [&](int64_t n) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << (stats.candidates ? 100.0 * n / stats.candidates : 0.0) << "%";
    return s.str();
  };
  std::cout << "programs: " << programs << " (" << stats.programs_given_up << " given up and made again)\n"
            << "candidate calls: " << stats.candidates << ", kept: " << stats.kept << " (" << share(stats.kept)
            << ")\nrefused by screen:\n";
  std::vector<Screen> order;
  for (size_t i = 0; i < kScreenCount; ++i) order.push_back(static_cast<Screen>(i));
  std::stable_sort(order.begin(), order.end(), [&](Screen a, Screen b) {
    return stats.refused[static_cast<size_t>(a)] > stats.refused[static_cast<size_t>(b)];
  });
  for (Screen screen : order) {
    const int64_t n = stats.refused[static_cast<size_t>(screen)];
    const ScreenInfo& info = screenInfo(screen);
    std::cout << "  " << std::left << std::setw(34) << info.name << std::right << std::setw(10) << n << std::setw(8)
              << share(n) << "  " << info.what << "\n";
  }
  std::cout << "programs with each feature:\n";
  for (size_t f = 0; f < features.size(); ++f) {
    std::cout << "  " << std::left << std::setw(34) << kProgramFeatures[f] << std::right << std::setw(10) << features[f]
              << std::setw(7) << std::fixed << std::setprecision(1)
              << (programs ? 100.0 * static_cast<double>(features[f]) / static_cast<double>(programs) : 0.0) << "%\n";
  }
}

}  // namespace

void addGenerateCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("generate", "Write random exported programs, reproducible from a seed");
  auto opts = std::make_shared<GenerateOptions>();
  cmd->add_option("--seed", opts->seed, "seed of the first program (the i-th uses seed+i)");
  cmd->add_option("--count", opts->count, "how many programs")->check(CLI::Range(int64_t{1}, int64_t{100000000}));
  cmd->add_option("--out", opts->out, "directory to write them to (created if missing)")->required();
  cmd->add_option("--config", opts->config, "generation config file (docs/generators.md)");
  cmd->add_option("--nodes", opts->nodes, "ops per program (overrides the config)")->check(CLI::Range(0, 100000));
  cmd->add_option("--dialect", opts->dialect, "TRAINING (mutating) or ATEN (functional; overrides the config)")
      ->check(CLI::IsMember({"TRAINING", "ATEN"}));
  auto* text = cmd->add_flag("--text", opts->text, "write the text form (.ept) instead of JSON");
  cmd->add_flag("--pt2", opts->pt2, "write torch.export.save's archive (.pt2) instead of JSON")->excludes(text);
  cmd->add_flag("--stats", opts->stats,
                "print the candidate calls drawn, kept, and refused by each screen (generators/screens.def), and the "
                "programs with each feature");
  cmd->callback([opts, &exit_code] {
    auto fail = [&](const std::string& message) {
      std::cerr << "epsmith generate: " << message << "\n";
      exit_code = kExitBadInput;
    };
    auto config = generationConfig(*opts);
    if (!config.ok()) return fail(config.error().str());
    auto catalog = buildGenerationCatalog(config->catalog, opts->config.empty() ? "<default config>" : opts->config);
    if (!catalog.ok()) return fail(catalog.error().str());
    std::error_code ec;
    std::filesystem::create_directories(opts->out, ec);
    if (ec) return fail(opts->out + ": cannot create the directory: " + ec.message());
    GenerationStats stats;
    FeatureCounts features{};
    auto invalid = writePrograms(*opts, catalog.value(), config->generator, &stats, &features);
    if (!invalid.ok()) return fail(invalid.error().str());
    std::cout << "wrote " << opts->count << " " << dialectName(config->generator.dialect) << " program"
              << (opts->count == 1 ? "" : "s") << " to " << opts->out << "\n";
    if (opts->stats) printStats(stats, features, opts->count);
    exit_code = invalid.value() ? kExitFindings : kExitOk;
  });
}

}  // namespace epsmith::cli
