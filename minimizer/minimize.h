// The minimizer: one delta engine and small independent delta passes, on llvm-reduce's
// model (Note [The delta engine]). Each pass enumerates its targets, smaller or simpler
// variants of the current program by one edit each; the engine tries them in chunks,
// keeping a chunk when the result still verifies in its dialect (checked first, free) and
// the caller's predicate says it still fails the same way. Every eager run and every
// predicate call is counted against the budget. Passes, in order:
//   remove-nodes    drop a call, its uses reconnected to its first tensor argument of the
//                   same dtype
//   remove-outputs  drop a user output
//   demote-state    a parameter, buffer or constant becomes a user input
//   remove-inputs   drop a placeholder nothing reads
//   cut-to-input    a call becomes a new user input holding its eager value
//   fold-into-input a call that first writes a user input goes, the input holding what
//                   it wrote
//   shrink-shapes   a user input's dimension to 1, or to half its size
//   simplify-dtypes a user input to float32
//   simplify-scalars  int and float arguments toward 0 and 1
// After each edit every call's meta.val is rebuilt from an eager run (where the program
// still runs), so the minimized program's shapes are the ones it computes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"

namespace epsmith {

// True when `p` still fails the way being minimized (same check, same kind, same op).
using StillFails = std::function<bool(const ExportedProgram& p)>;

// A step's eager work: the edits of the value passes and the refresh of a candidate's vals.
// It returns the candidate, or nullopt when the edits made none that verifies.
using EagerStep = std::function<std::optional<ExportedProgram>()>;
// Runs an EagerStep. A kernel the program calls may end the process, so a caller that
// isolates the predicate's runs (each in a forked child) isolates these the same way: it
// runs the step elsewhere and returns its program, or nullopt when the step died, which
// rejects the candidate.
using StepRunner = std::function<std::optional<ExportedProgram>(const EagerStep& step)>;

struct MinimizeOptions {
  int max_oracle_calls = 2000;  // predicate calls and eager runs, together
  StepRunner run_step;          // unset: eager steps run in this process
};

struct MinimizeResult {
  ExportedProgram program;
  int oracle_calls = 0;                      // predicate calls and eager runs spent
  size_t nodes_before = 0, nodes_after = 0;  // call_function nodes
  std::vector<std::string> log;              // one line per accepted step: "remove-nodes: %add"
};

// `p` must fail (the predicate is not asked about it again).
MinimizeResult minimize(const ExportedProgram& p, const StillFails& still_fails, const MinimizeOptions& options = {});

// Edits for callers that ask what a minimized failure needs (fuzz/generalize.h). Each
// rebuilds every call's meta.val from an eager run and fails (false) where the program no
// longer runs.
// Sets every call's meta.val from an eager run on the example inputs; `p` is unchanged
// where the program raises or makes a value a program cannot hold.
bool refreshVals(ExportedProgram& p);
// Replaces the call `name` by aten::clone of a new user input holding its eager value: the
// ops after it see the same value, still a fresh tensor the program made, whatever made it.
bool standInByClone(ExportedProgram& p, const std::string& name);

}  // namespace epsmith
