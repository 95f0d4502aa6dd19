// Scripts run by torch beside epsmith's own runs: the harness repro_test.cpp compares
// reproducer scripts with (the scripts' eager runs against epsmith's, bit for bit).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "ir/program.h"

namespace epsmith::test {

// An empty directory under the temporary directory, named from `stem`.
std::filesystem::path freshDirectory(const std::string& stem);
void writeFile(const std::filesystem::path& path, const std::string& text);
std::string readFile(const std::filesystem::path& path);
// `args` run by the torch peer's Python; its exit status, its output in `output`.
int runPython(const std::string& args, std::string& output);

struct Generated {
  std::string label;
  ExportedProgram program;
};

// Programs of every kind the generator makes, `per_config` of each config.
std::vector<Generated> generatedPrograms(int per_config);
// How many programs EPSMITH_REPRO_PROGRAMS asks for in all, divided among the configs.
int programsPerConfig();
// The scripts of `programs` run eagerly by torch, compared with epsmith's runs; how many
// were compared.
int compareEagerRuns(const std::vector<Generated>& programs);

}  // namespace epsmith::test
