// The native functionalizer: a TRAINING-dialect program with in-place and out= ops, writes
// through views and input mutations becomes an ATEN-dialect program with the same effect,
// whose graph signature carries the mutations as outputs (AOTAutograd's export rules).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ir/diagnostic.h"
#include "ir/program.h"

namespace epsmith {

struct FunctionalizeOptions {
  // Grad mode the program is called under: false treats every mutation as happening under
  // no_grad (so parameters that require grad may be mutated).
  bool grad_enabled = true;
  // The caller has verified the program as TRAINING already (the differential checks do,
  // before any check runs): the pass does not do it again.
  bool verified_as_training = false;
};

// Never throws for a program that loads. A program it must refuse comes back as a
// Diagnostic: `where` the node that caused it ("%add_"; empty for whole-program reasons),
// `message` PyTorch's export message where there is one, with the facts.
// The result keeps the input specs, state, constants and example inputs; its outputs are
// tokens, then one mutation output per mutated input in input order, then user outputs.
Expected<ExportedProgram> functionalize(const ExportedProgram& program, const FunctionalizeOptions& options = {});

// Whether `refusal`, from functionalize, is one torch.export makes too (an input's metadata
// mutated, aliased inputs mutated), not something only epsmith's functionalizer cannot
// express: such messages end with kExportRefuses. D8 asks run_decompositions to refuse
// those programs too (Note [Refusals export makes]).
inline constexpr std::string_view kExportRefuses = "; export does not allow it";
bool refusedAsExportDoes(const Diagnostic& refusal);

}  // namespace epsmith
