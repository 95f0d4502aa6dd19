// The contract between tools/main.cpp and one subcommand file: each file adds its
// subcommand to the app and, when it runs, stores the process exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "ir/program.h"

namespace epsmith::cli {

// Exit codes shared by every subcommand.
constexpr int kExitOk = 0;
constexpr int kExitFindings = 1;  // the input was read and something was found (a violation, a mismatch)
constexpr int kExitBadInput = 2;  // unreadable input, bad flags

using AddCommand = void (*)(CLI::App& app, int& exit_code);

// Loads the program at `path`; when it cannot, prints "epsmith COMMAND: <located error>",
// sets the bad-input exit code and returns nullopt.
std::optional<ExportedProgram> loadOrReport(std::string_view command, const std::string& path, int& exit_code);

// One row per subcommand (tools/commands.def keeps them in one place).
#define EPSMITH_COMMAND(name, function) void function(CLI::App& app, int& exit_code);
#include "tools/commands.def"
#undef EPSMITH_COMMAND

}  // namespace epsmith::cli
