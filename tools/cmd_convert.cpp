// `epsmith convert IN OUT`: converts between JSON, text and .pt2, by the files' extensions.
#include <iostream>

#include "oracle/program_io.h"
#include "tools/command.h"

namespace epsmith::cli {

void addConvertCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "convert", "Convert a program between JSON (.json), text (.ept) and torch.export.save's archive (.pt2)");
  auto in = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  cmd->add_option("IN", *in, "input program file")->required();
  cmd->add_option("OUT", *out, "output file; its extension picks the format")->required();
  cmd->callback([in, out, &exit_code] {
    if (!formatFromPath(*out)) {
      std::cerr << "epsmith convert: " << *out << ": unknown extension (use .json, .ept or .pt2)\n";
      exit_code = kExitBadInput;
      return;
    }
    auto program = loadOrReport("convert", *in, exit_code);
    if (!program) return;
    if (auto error = saveProgram(*out, program.value())) {
      std::cerr << "epsmith convert: " << error->str() << "\n";
      exit_code = kExitBadInput;
      return;
    }
    exit_code = kExitOk;
  });
}

}  // namespace epsmith::cli
