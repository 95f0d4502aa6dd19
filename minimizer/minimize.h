// The minimizer: one delta engine and small independent delta passes. Each pass proposes
// smaller variants of the current program; the engine keeps a variant when it still
// verifies in its dialect (checked first, free) and the caller's predicate says it still
// fails the same way (an oracle call, counted and bounded). Passes, in order:
//   remove-nodes    drop a call (a trailing run first, then one at a time), its uses
//                   reconnected to its first tensor argument of the same dtype
//   remove-outputs  drop a user output
//   demote-state    a parameter, buffer or constant becomes a user input
//   remove-inputs   drop a placeholder nothing reads
//   shrink-shapes   a user input's dimension to 1, or to half its size
//   simplify-dtypes a user input to float32
//   simplify-scalars  int and float arguments toward 0 and 1
// After each edit every call's meta.val is rebuilt from an eager run (where the program
// still runs), so the minimized program's shapes are the ones it computes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/program.h"

namespace epsmith {

// True when `p` still fails the way being minimized (same check, same kind, same op).
using StillFails = std::function<bool(const ExportedProgram& p)>;

struct MinimizeOptions {
  int max_oracle_calls = 2000;
};

struct MinimizeResult {
  ExportedProgram program;
  int oracle_calls = 0;
  size_t nodes_before = 0, nodes_after = 0;  // call_function nodes
  std::vector<std::string> log;              // one line per accepted step: "remove-nodes: %add"
};

// `p` must fail (the predicate is not asked about it again).
MinimizeResult minimize(const ExportedProgram& p, const StillFails& still_fails, const MinimizeOptions& options = {});

}  // namespace epsmith
