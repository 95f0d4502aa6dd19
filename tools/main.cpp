// The epsmith command line: registers every subcommand of tools/commands.def and runs one.
#include <fstream>
#include <iostream>

#include "epsmith/version.h"
#include "oracle/program_io.h"
#include "fuzz/corpus.h"
#include "oracle/planted_fault.h"
#include "oracle/libtorch_compat.h"
#include "tools/command.h"

namespace epsmith::cli {

std::optional<ExportedProgram> loadOrReport(std::string_view command, const std::string& path, int& exit_code) {
  // A corpus case file holds its program: every command reads it as that program.
  if (formatFromPath(path) == FileFormat::Json) {
    std::ifstream in(path, std::ios::binary);
    std::string head(64, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    if (isCaseFileText(head)) {
      auto c = readCaseFile(path);
      if (c.ok() && c->program) return std::move(*c->program);
      std::string why =
          c.ok() ? path + ": the case keeps no program (it is remade from its seed: epsmith replay " + path + ")"
                 : c.error().str();
      if (c.ok() && !c->program_unreadable_here.empty()) {
        why = path + ": found on LibTorch " + c->provenance.libtorch +
              ", whose program this LibTorch cannot read: " + c->program_unreadable_here;
      }
      std::cerr << "epsmith " << command << ": " << why << "\n";
      exit_code = kExitBadInput;
      return std::nullopt;
    }
  }
  auto program = loadProgram(path);
  if (program.ok()) return std::move(program.value());
  std::cerr << "epsmith " << command << ": " << program.error().str() << "\n";
  exit_code = kExitBadInput;
  return std::nullopt;
}

}  // namespace epsmith::cli

int main(int argc, char** argv) {
  CLI::App app{
      "epsmith: fuzzing and differential testing for PyTorch's export IR.\n"
      "Programs are files in torch.export JSON (.json), the epsmith text form (.ept) or torch.export.save's archive "
      "(.pt2)."};
  app.require_subcommand(1);
  // The LibTorch too: a figure or a finding is about the pair (ci/perf.sh files baselines by it).
  app.set_version_flag("--version", "epsmith " + std::string(epsmith::kEpsmithVersion) + " (LibTorch " +
                                        epsmith::compat::libtorchFullVersion() + ")");
  int exit_code = epsmith::cli::kExitOk;
#define EPSMITH_COMMAND(name, function) epsmith::cli::function(app, exit_code);
#include "tools/commands.def"
#undef EPSMITH_COMMAND
  // Once, here, so that the children every command forks inherit them (Note [Planted faults]).
  epsmith::installPlantedFaults();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? epsmith::cli::kExitOk : epsmith::cli::kExitBadInput;
  }
  return exit_code;
}
