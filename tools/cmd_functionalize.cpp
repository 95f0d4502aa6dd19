// `epsmith functionalize IN [-o OUT] [--no-grad]`: the native functionalizer. Prints the
// functional ATEN program in text form (or writes it to OUT, format by extension); a program
// it must refuse prints the reason and exits 1; unreadable input exits 2.
#include <iostream>

#include "oracle/program_io.h"
#include "formats/text_format.h"
#include "functionalizer/functionalize.h"
#include "tools/command.h"

namespace epsmith::cli {

void addFunctionalizeCommand(CLI::App& app, int& exit_code) {
  auto* cmd =
      app.add_subcommand("functionalize", "Turn a TRAINING program with mutations into a functional ATEN program");
  struct Options {
    std::string in;
    std::string out;
    bool no_grad = false;
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("IN", opts->in, "program file (.json, .ept or .pt2)")->required();
  cmd->add_option("-o,--output", opts->out, "write the result here (.json, .ept or .pt2) instead of printing it");
  cmd->add_flag("--no-grad", opts->no_grad, "functionalize as if called under torch.no_grad()");
  cmd->callback([opts, &exit_code] {
    if (!opts->out.empty() && !formatFromPath(opts->out)) {
      std::cerr << "epsmith functionalize: " << opts->out << ": unknown extension (use .json, .ept or .pt2)\n";
      exit_code = kExitBadInput;
      return;
    }
    auto program = loadOrReport("functionalize", opts->in, exit_code);
    if (!program) return;
    FunctionalizeOptions options;
    options.grad_enabled = !opts->no_grad;
    auto result = functionalize(program.value(), options);
    if (!result.ok()) {
      std::cerr << "epsmith functionalize: " << opts->in << ": " << result.error().str() << "\n";
      exit_code = kExitFindings;
      return;
    }
    if (opts->out.empty()) {
      std::cout << printProgramText(result.value());
    } else if (auto error = saveProgram(opts->out, result.value())) {
      std::cerr << "epsmith functionalize: " << error->str() << "\n";
      exit_code = kExitBadInput;
      return;
    }
    exit_code = kExitOk;
  });
}

}  // namespace epsmith::cli
