// The contract between tools/main.cpp and one subcommand file: each file adds its
// subcommand to the app and, when it runs, stores the process exit code.
#pragma once

#include <CLI/CLI.hpp>

namespace epsmith::cli {

// Exit codes shared by every subcommand.
constexpr int kExitOk = 0;
constexpr int kExitFindings = 1;  // the input was read and something was found (a violation, a mismatch)
constexpr int kExitBadInput = 2;  // unreadable input, bad flags

using AddCommand = void (*)(CLI::App& app, int& exit_code);

// One row per subcommand (tools/commands.def keeps them in one place).
#define EPSMITH_COMMAND(name, function) void function(CLI::App& app, int& exit_code);
#include "tools/commands.def"
#undef EPSMITH_COMMAND

}  // namespace epsmith::cli
