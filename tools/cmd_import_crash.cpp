// `epsmith import-crash TARGET FILE [--corpus DIR]`: turns an input that crashed one of the
// libFuzzer targets (fuzz/targets/README.md) into something the corpus keeps. The inputs of
// the generator-driven targets (functionalizer, case) remake the program the target ran;
// its first failure is minimized and filed as a case under its root cause in
// DIR/regressions, which replay and campaigns read like any other. An input of a reader or
// the verifier target is a file whose reading crashed: it is kept byte for byte in
// DIR/fuzz-inputs/TARGET/, which the targets' seed corpora and smoke test include. Exit 0
// when filed or when its root cause is a known bug (--known, as a campaign reads it: counted,
// not filed), 1 when the input shows no failure, 2 for bad input or flags.
#include <filesystem>
#include <iostream>
#include <sstream>

#include "fuzz/corpus.h"
#include "fuzz/fuzz_inputs.h"
#include "fuzz/known_bugs.h"
#include "fuzz/root_cause.h"
#include "oracle/program_io.h"
#include "tools/command.h"
#include "tools/minimize_failure.h"

namespace epsmith::cli {
namespace {

// A stable name for the input's bytes (FNV-1a, 64 bits).
std::string bytesHash(const std::string& bytes) {
  uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ULL;
  std::ostringstream s;
  s << std::hex << h;
  return s.str();
}

// The list `path` names, or ./corpus/known.json where it is, as a campaign reads it; an
// empty list for "none" or where there is none.
Expected<KnownBugs> knownBugs(std::string path) {
  std::error_code ec;
  if (path.empty() && std::filesystem::is_regular_file("corpus/known.json", ec)) path = "corpus/known.json";
  if (path.empty() || path == "none") return KnownBugs{};
  return KnownBugs::load(path);
}

}  // namespace

void addImportCrashCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("import-crash", "Turn a libFuzzer target's crash input into a corpus case");
  struct Options {
    std::string target, input, corpus = "fuzz-out/corpus";
    int max_calls = 500;
    double timeout = 60;
    std::string known;
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("TARGET", opts->target,
                  "the target that crashed (json_reader, text_parser, pt2_reader, verifier, "
                  "functionalizer, case)")
      ->required();
  cmd->add_option("FILE", opts->input, "the crash input libFuzzer saved")->required();
  cmd->add_option("--corpus", opts->corpus, "where the case goes (DIR/regressions, DIR/fuzz-inputs)")
      ->capture_default_str();
  cmd->add_option("--max-calls", opts->max_calls, "oracle calls the minimization may spend")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--timeout", opts->timeout, "seconds one step's checks may run")
      ->check(CLI::Range(0.001, 86400.0))
      ->capture_default_str();
  cmd->add_option("--known", opts->known,
                  "known-bugs list whose bugs are not filed (default: ./corpus/known.json where it is; none: no list)");
  cmd->callback([opts, &exit_code] {
    auto fail = [&](const std::string& message, int code) {
      std::cerr << "epsmith import-crash: " << message << "\n";
      exit_code = code;
    };
    const auto target = fuzzTargetFromName(opts->target);
    if (!target) return fail("unknown target '" + opts->target + "'", kExitBadInput);
    auto read = readFileBytes(opts->input);
    if (!read.ok()) return fail(read.error().str(), kExitBadInput);
    const std::string bytes = std::move(read.value());
    if (!generatesFromBytes(*target)) {
      const std::string dir = opts->corpus + "/fuzz-inputs/" + std::string(fuzzTargetName(*target));
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      const std::string path = dir + "/crash-" + bytesHash(bytes);
      if (ec) return fail(dir + ": " + ec.message(), kExitBadInput);
      if (auto e = writeFileAtomically(path, bytes)) return fail(e->str(), kExitBadInput);
      std::cout << "kept as an input of " << opts->target << ": " << path << "\n";
      exit_code = kExitOk;
      return;
    }
    auto known = knownBugs(opts->known);
    if (!known.ok()) return fail("--known: " + known.error().str(), kExitBadInput);
    const auto catalog = OpCatalog::build();
    if (!catalog.ok()) return fail(catalog.error().str(), kExitBadInput);
    auto program = fuzzInputProgram(*target, bytes, catalog.value());
    if (!program.ok())
      return fail(opts->input + ": " + opts->target + " makes no program of it: " + program.error().str(),
                  kExitBadInput);
    WorkerLimits limits;
    limits.seconds_per_request = opts->timeout;
    std::string why;
    auto m = minimizeFirstFailure(program.value(), checksHeldTo(*target), limits, opts->max_calls, std::cout, &why);
    if (!m && why.empty()) {  // a death or an escaped exception in a check the target runs but is not held to
      m = minimizeFirstFailure(program.value(), checksRun(*target), limits, opts->max_calls, std::cout, &why);
    }
    if (!m && why.empty()) return fail(opts->input + ": no check finds anything in its program", kExitFindings);
    if (!m) return fail(why, kExitFindings);
    const RootCause root = m->minimized.root;
    const CaseFile c = caseOfMinimized(std::move(*m), "imported from an input that stopped the libFuzzer target " +
                                                          opts->target + " (" + opts->input + ")");
    // As a campaign counts a finding of a known bug and files none (docs/fuzzing.md).
    if (const KnownBug* bug = known->match(root, libtorchVersion())) {
      std::cout << "a known bug, not filed: " << bug->id << " (" << (bug->issue == "unreported" ? bug->why : bug->issue)
                << "); its root cause: " << root.str() << "\n";
      exit_code = kExitOk;
      return;
    }
    auto written = writeCaseAtomically(opts->corpus, "fuzz-" + opts->target + "-" + bytesHash(bytes) + ".json", c);
    if (!written.ok()) return fail(written.error().str(), kExitBadInput);
    std::cout << "filed " << c.bucket << ": " << c.bucket_key << " in " << written.value() << "\n";
    exit_code = kExitOk;
  });
}

}  // namespace epsmith::cli
