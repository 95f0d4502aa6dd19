// `epsmith verify FILE [--dialect NAME] [--first]`: the native verifier's diagnostics, one
// per line as `FILE: <where>: error[<check-id>]: <message>`.
#include <iostream>

#include "oracle/program_io.h"
#include "tools/command.h"
#include "verifier/verifier.h"

namespace epsmith::cli {

namespace {
// Python's messages span lines; a diagnostic stays on one greppable line.
std::string oneLine(std::string s) {
  for (auto& c : s) {
    if (c == '\n') c = ' ';
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}
}  // namespace

void addVerifyCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("verify", "Check a program the way torch/_export/verifier.py does");
  struct Options {
    std::string file;
    std::string dialect;
    bool first = false;
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("FILE", opts->file, "program file (.json, .ept or .pt2)")->required();
  cmd->add_option("--dialect", opts->dialect, "ATEN, TRAINING or a registered dialect (default: the program's own)");
  cmd->add_flag("--first", opts->first, "report only the first violation (the error Python raises)");
  cmd->callback([opts, &exit_code] {
    auto program = loadOrReport("verify", opts->file, exit_code);
    if (!program) return;
    const std::string name = opts->dialect.empty() ? program->dialectName() : opts->dialect;
    const Dialect* dialect = findDialect(name);
    if (!dialect) {
      std::cerr << "epsmith verify: unknown dialect '" << name << "' (known: ATEN, TRAINING)\n";
      exit_code = kExitBadInput;
      return;
    }
    auto diagnostics = verify(program.value(), *dialect, VerifyOptions{opts->first});
    for (const auto& d : diagnostics) {
      std::cout << opts->file << ": " << d.where << ": error[" << checkIdName(d.check) << "]: " << oneLine(d.message)
                << "\n";
    }
    if (diagnostics.empty()) std::cout << opts->file << ": ok (" << dialect->name() << ")\n";
    exit_code = diagnostics.empty() ? kExitOk : kExitFindings;
  });
}

}  // namespace epsmith::cli
