// The epsmith text form of a program (docs/text-format.md): a printer and a parser with
// exact round trips (print(parse(print(p))) == print(p)) and located errors ("line:col").
#pragma once

#include <string>
#include <string_view>

#include "ir/diagnostic.h"
#include "ir/program.h"

namespace epsmith {

std::string printProgramText(const ExportedProgram& p);
Expected<ExportedProgram> parseProgramText(std::string_view text);

// Fragments in the same notation, for messages and reports.
std::string formatVal(const Val& v);
std::string formatTensorMeta(const TensorMeta& m);
std::string formatArgument(const Argument& a);
// One node line as it appears inside `graph { }`, without indentation or newline.
std::string formatNode(const Node& n);

}  // namespace epsmith
