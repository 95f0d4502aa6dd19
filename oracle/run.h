// Run modes of the oracle over a whole program: eager on the lifted inputs, the exported
// calling convention (exported_program.py's _graph_module_flat_inputs and
// _postprocess_graph_module_outputs), LibTorch's own functionalization, on CPU or CUDA.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "ir/program.h"
#include "oracle/run_result.h"

namespace epsmith {

class Interpreter;

enum class RunMode : uint8_t {
  Eager,                  // run the graph on the lifted inputs; in-place writes are the effect
  Exported,               // as Eager, then write mutation outputs back (the calling convention)
  LibTorchFunctionalize,  // as Exported, with every input wrapped by LibTorch's functional tensor
};
std::string_view runModeName(RunMode m);  // "eager", "exported", "libtorch-functionalize"
std::optional<RunMode> runModeFromName(std::string_view name);

enum class GradMode : uint8_t { Enabled, NoGrad, Inference };

struct RunOptions {
  RunOptions(RunMode m = RunMode::Exported, Device d = {}, GradMode g = GradMode::Enabled)  // NOLINT
      : mode(m), device(std::move(d)), grad(g) {}
  RunMode mode;
  Device device;  // cpu; "cuda" needs a CUDA build of LibTorch
  GradMode grad;
  // Sees each call's value as it is computed (the minimizer rebuilds meta.val from it).
  ValueObserver observe;
  // Also shows `observe` the subgraphs a run would not run: a cond's branch not taken, a
  // while loop's body where it ran no iteration, each run once more on the same operands,
  // its values discarded (Note [Subgraphs observed where they do not run]).
  bool observe_untaken = false;
  // The byte past each input storage's end (Note [Over-reads see a fill]); -1: none.
  int overread_fill = -1;
  // The program's graph already planned (Note [One plan for the runs of a program]), or
  // null to plan it for this run; a plan made for another device than `device` is not
  // used (Note [Programs moved to a device]).
  const Interpreter* plan = nullptr;
  // Where to add the seconds the run itself took, making the inputs left out: the graph
  // and, for the modes that apply them, its mutations (`epsmith perf` times with it).
  double* run_seconds = nullptr;
};

// Lifts parameters, buffers (non-persistent ones from constants), constants and tokens in
// input-spec order before `user_inputs` (one per USER_INPUT spec), runs the program and
// returns user outputs and the final value of every parameter, buffer and user input.
// Never throws for a program that loads: problems become RunResult::error.
RunResult runProgram(const ExportedProgram& p, const std::vector<InputValue>& user_inputs,
                     const RunOptions& options = {});
// With the program's example inputs.
RunResult runProgram(const ExportedProgram& p, const RunOptions& options = {});

// Whether this LibTorch build can run on CUDA right now.
bool cudaAvailable();

// Whether a CUDA error message is one that leaves the process's CUDA context unusable
// (Note [CUDA errors that end the process]); a CUDA run that raises one ends the process.
bool leavesCudaUnusable(std::string_view message);

}  // namespace epsmith
