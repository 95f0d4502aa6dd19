// The minimizer's passes, for minimize.cpp: each proposes variants of a program (smaller,
// or simpler, by one edit). Internal to minimizer/.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/program.h"
#include "minimizer/minimize.h"

namespace epsmith {

// A variant: a description and the edit that makes it from the current program (false when
// the edit does not apply).
struct Variant {
  std::string what;
  std::function<bool(ExportedProgram&)> edit;
};

// Passes over values (value_passes.cpp; they make tensors with LibTorch):
//   shrink-shapes     a user input's dimension to 1, or to half its size
//   simplify-dtypes   a user input to float32
// Each variant rebuilds every call's meta.val from an eager run, and does not apply when
// the program no longer runs.
//   cut-to-input      a call becomes a new user input holding its eager value
//   fold-into-input   a call that first writes a user input goes, the input holding what
//                     it wrote (Note [Folding a write into its input])
std::vector<Variant> shrinkShapes(const ExportedProgram& p);
std::vector<Variant> cutToInputs(const ExportedProgram& p);
std::vector<Variant> foldIntoInputs(const ExportedProgram& p);
std::vector<Variant> simplifyDtypes(const ExportedProgram& p);

// Whether an output writes back into an input, a parameter or a buffer
// (Note [A mutation output names a write]).
inline bool isMutation(const OutputSpec& s) {
  return s.kind == OutputKind::UserInputMutation || s.kind == OutputKind::BufferMutation ||
         s.kind == OutputKind::ParameterMutation;
}
// Whether `p` is in the TRAINING dialect, whose writes happen in its graph.
inline bool isTraining(const ExportedProgram& p) { return p.verifiers.size() == 1 && p.verifiers[0] == "TRAINING"; }

// Renames every signature and module-call-graph reference from `from` to `to`.
void renameReferences(ExportedProgram& p, const std::string& from, const std::string& to);

}  // namespace epsmith
