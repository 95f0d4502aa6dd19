// torch.export.save's `.pt2` archive, read and written with LibTorch's own zip container
// (caffe2::serialize::PyTorchStreamReader / Writer) and pickler, as
// torch/export/pt2_archive/_package.py lays it out in the installed release (docs/pt2-format.md):
// models/NAME.json (torch's bare ExportedProgram), data/weights/ and data/constants/ (raw
// storage bytes, one record per storage, and a PayloadConfig naming each FQN's record and
// tensor meta), data/sample_inputs/NAME.pt (torch.save of (args, kwargs)).
#pragma once

#include <optional>
#include <string>

#include "ir/diagnostic.h"
#include "ir/program.h"

namespace epsmith {

// The archive's one model ("model", the name torch.export.save uses, or the only one).
// Errors name the archive member and, inside a JSON member, the JSON path:
// `models/model.json: $.graph_module...`, `data/weights/weight_0: ...`.
Expected<ExportedProgram> readProgramPt2(const std::string& bytes);

// `p` as an archive torch.export.load reads: state and constants as raw storage bytes
// (tensors sharing a storage share its record), example inputs pickled. Fails for what a
// .pt2 cannot hold: a program writeProgramJson refuses or whose graphs need the epsmith
// section, a custom-object constant (epsmith keeps only its class), a dtype this LibTorch
// cannot pickle.
Expected<std::string> writeProgramPt2(const ExportedProgram& p);

// Why no .pt2 can hold `p`, where that is so: a custom-object constant, or graphs that only
// the epsmith section of the JSON form carries (the JSON form writes `p` and torch's bare
// object cannot). nullopt for any other program, whose failed write is a bug.
std::optional<std::string> pt2CannotHold(const ExportedProgram& p);

}  // namespace epsmith
