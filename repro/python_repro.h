// A finding as PyTorch's maintainers take one: a self-contained Python script that needs only
// torch, rebuilds the program as an nn.Module with its inputs written inline, and runs the
// check's path with torch's public API against eager (docs/repro.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ir/diagnostic.h"
#include "ir/program.h"

namespace epsmith {

// The path through PyTorch a script runs against eager: one per check that asks PyTorch.
enum class ReproPath : uint8_t {
  Functionalize,  // D2: torch.func.functionalize, Python's entry to the C++ kernels
  Cuda,           // D3: the same module on CUDA
  Export,         // D5: torch.export.export(...).module()
  SaveLoad,       // D7: torch.export.save and load through io.BytesIO, then .module()
  Decompose,      // D8: ... .run_decompositions({}).module()
  NativeRT,       // D9: torch._C._nativert's runner on the saved program
  // D1, where a person judged the finding LibTorch's: the program's functional form, which
  // epsmith's functionalizer writes (Note [The functional form in scripts])
  FunctionalForm,
};

// The path of check `check` ("D8"), or why it has none: epsmith's own checks D4 and D6 test
// epsmith's code, and an unknown name is not a check. D1's findings are epsmith's too unless
// a person judged one LibTorch's: only then does its case get a script (fuzz/upstream.h).
Expected<ReproPath> reproPathOf(std::string_view check);
std::string_view reproPathDescription(ReproPath path);  // "torch.export.export -> ..."

// What the script looks for (Note [Scripts that look for an exception]).
enum class ReproLooksFor : uint8_t {
  AnyDifference,  // outputs, inputs and state by the fp64 rule, and an exception in one run
  AnException,    // an exception in one run alone: a finding of that kind, or a crash
};

struct ReproRequest {
  ReproPath path = ReproPath::Decompose;
  // One line naming what was found ("D8 value-mismatch at aten::prod.int_out"); the
  // script's docstring opens with it.
  std::string finding;
  ReproLooksFor looks_for = ReproLooksFor::AnyDifference;
  // FunctionalForm's functional program (epsmith's functionalizer's output for the program);
  // unused by the other paths.
  const ExportedProgram* functional_form = nullptr;
};

// The script, or a located error naming the node, state entry or input it cannot write
// (an identifier that is not Python's, a higher-order op or argument kind it does not
// spell, a dtype torch.tensor cannot take). Exit codes of the script: 1 when the bug
// shows, 0 when it does not, 2 when it cannot run here.
Expected<std::string> writeReproScript(const ExportedProgram& p, const ReproRequest& request);

}  // namespace epsmith
