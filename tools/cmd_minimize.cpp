// `epsmith minimize IN [-o OUT] [--checks LIST] [--max-calls N]`: runs the checks on IN,
// takes the first finding and minimizes the program while the failure keeps its signature
// (check, kind, and the op that raised). Prints each accepted step, the sizes and the oracle
// calls spent, and the minimized program (or writes it to OUT). Exit 0 when minimized, 1
// when IN shows no finding to minimize, 2 for unreadable input or bad flags.
#include <iostream>

#include "fuzz/checks.h"
#include "ir/program_io.h"
#include "ir/text_format.h"
#include "minimizer/minimize.h"
#include "tools/command.h"

namespace epsmith::cli {

void addMinimizeCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("minimize", "Shrink a program while its first finding (check, kind and variant) still shows");
  struct Options {
    std::string in;
    std::string out;
    std::string checks = "D1,D2,D3,D4,D6";
    int max_calls = 2000;
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("IN", opts->in, "program file (.json or .ept)")->required();
  cmd->add_option("-o,--output", opts->out, "write the minimized program here (.json or .ept)");
  cmd->add_option("--checks", opts->checks, "checks whose first finding is minimized")->capture_default_str();
  cmd->add_option("--max-calls", opts->max_calls, "oracle calls at most")->check(CLI::Range(1, 1000000))->capture_default_str();
  cmd->callback([opts, &exit_code] {
    std::string error;
    auto checks = parseDiffChecks(opts->checks, &error);
    if (!checks) {
      std::cerr << "epsmith minimize: --checks: " << error << "\n";
      exit_code = kExitBadInput;
      return;
    }
    if (!opts->out.empty() && !formatFromPath(opts->out)) {
      std::cerr << "epsmith minimize: " << opts->out << ": unknown extension (use .json or .ept)\n";
      exit_code = kExitBadInput;
      return;
    }
    auto program = loadOrReport("minimize", opts->in, exit_code);
    if (!program) return;
    std::string signature;
    for (const auto& o : runChecks(program.value(), *checks)) {
      if (o.status == CheckOutcome::Status::Finding) {
        signature = failureSignature(o);
        break;
      }
    }
    if (signature.empty()) {
      std::cerr << "epsmith minimize: " << opts->in << ": no check finds anything; nothing to minimize\n";
      exit_code = kExitFindings;
      return;
    }
    std::cout << "minimizing: " << signature << "\n";
    const CheckOptions focus = focusedOn(signature);  // Note [Re-runs focus on the finding]
    const auto still_fails = [&](const ExportedProgram& p) {
      for (const auto& o : runChecks(p, *checks, focus)) {
        if (o.status == CheckOutcome::Status::Finding) return failureSignature(o) == signature;
      }
      return false;
    };
    MinimizeOptions options;
    options.max_oracle_calls = opts->max_calls;
    MinimizeResult r = minimize(program.value(), still_fails, options);
    for (const auto& step : r.log) std::cout << "  " << step << "\n";
    std::cout << r.nodes_before << " -> " << r.nodes_after << " calls, " << r.oracle_calls << " oracle calls\n";
    if (opts->out.empty()) {
      std::cout << printProgramText(r.program);
    } else if (auto e = saveProgram(opts->out, r.program)) {
      std::cerr << "epsmith minimize: " << e->str() << "\n";
      exit_code = kExitBadInput;
      return;
    }
    exit_code = kExitOk;
  });
}

}  // namespace epsmith::cli
