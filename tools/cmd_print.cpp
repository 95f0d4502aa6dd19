// `epsmith print FILE`: the program in text form on stdout.
#include <iostream>

#include "oracle/program_io.h"
#include "formats/text_format.h"
#include "tools/command.h"

namespace epsmith::cli {

void addPrintCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("print", "Print a program (JSON or text) in the text form");
  auto file = std::make_shared<std::string>();
  cmd->add_option("FILE", *file, "program file (.json, .ept or .pt2)")->required();
  cmd->callback([file, &exit_code] {
    auto program = loadOrReport("print", *file, exit_code);
    if (!program) return;
    std::cout << printProgramText(program.value());
    exit_code = kExitOk;
  });
}

}  // namespace epsmith::cli
