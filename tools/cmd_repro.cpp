// `epsmith repro FILE [-o OUT.py] [--check Dn]`: a finding as a self-contained, torch-only
// Python script (docs/repro.md): the program as an nn.Module, its inputs inline, and the
// check's path through PyTorch against eager. A case file names its check; a bare program
// takes --check (D8 when none is given).
#include <fstream>
#include <iostream>
#include <optional>

#include "fuzz/corpus.h"
#include "fuzz/upstream.h"
#include "oracle/program_io.h"
#include "repro/python_repro.h"
#include "tools/command.h"

namespace epsmith::cli {
namespace {

struct ReproOptions {
  std::string file, out, check;
};

// The program and the finding it shows: the case's, or `check` on a bare program.
Expected<std::pair<ExportedProgram, ReproRequest>> readFinding(const ReproOptions& o) {
  auto bytes = readFileBytes(o.file);
  if (!bytes.ok()) return bytes.error();
  std::string check = o.check, case_check;
  std::optional<CaseFile> read_case;
  ExportedProgram program;
  if (isCaseFileText(bytes.value())) {
    auto c = parseCaseFile(bytes.value(), o.file);
    if (!c.ok()) return c.error();
    if (!c->program) return Diagnostic{o.file, "the case keeps no program to write (it is remade from its seed)"};
    case_check = c->check;
    if (check.empty()) check = case_check;
    program = std::move(*c->program);
    read_case = std::move(c.value());
  } else {
    auto p = loadProgram(o.file);
    if (!p.ok()) return p.error();
    program = std::move(p.value());
    if (check.empty()) check = "D8";
  }
  auto path = reproPathOf(check);
  if (!path.ok()) return Diagnostic{o.file, path.error().message};
  // A case's finding is named, and looked for, only where the script runs the case's own
  // check.
  if (read_case && check == case_check)
    return std::make_pair(std::move(program), reproRequestOf(*read_case, path.value()));
  return std::make_pair(std::move(program), ReproRequest{path.value(), "A difference " + check + " looks for"});
}

int repro(const ReproOptions& o) {
  auto finding = readFinding(o);
  if (!finding.ok()) {
    std::cerr << "epsmith repro: " << finding.error().str() << "\n";
    return kExitBadInput;
  }
  auto script = reproScriptOf(finding->first, finding->second);
  if (!script.ok()) {
    std::cerr << "epsmith repro: " << o.file << ": " << script.error().str() << "\n";
    return kExitBadInput;
  }
  if (o.out.empty()) {
    std::cout << script.value();
    return kExitOk;
  }
  std::ofstream out(o.out, std::ios::binary);
  out << script.value();
  if (!out.flush()) {
    std::cerr << "epsmith repro: cannot write " << o.out << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace

void addReproCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("repro", "Write a finding as a self-contained, torch-only Python script");
  auto o = std::make_shared<ReproOptions>();
  cmd->add_option("FILE", o->file, "a case file, or a program (.json, .ept or .pt2)")->required();
  cmd->add_option("-o,--out", o->out, "write the script here (default: standard output)");
  cmd->add_option("--check", o->check,
                  "the check whose path the script runs: D1 (the program's functional form), D2, D3, D5, D7, D8 "
                  "(default: the case's; D8)");
  cmd->callback([o, &exit_code] { exit_code = repro(*o); });
}

}  // namespace epsmith::cli
