// The JSON program file: torch.export's serialized ExportedProgram (schema.py 8.20, 2.13's) plus an
// "epsmith" section with the state, constants, example inputs and whatever torch's schema
// cannot carry. docs/json-format.md describes the file; this header is the whole API.
#pragma once

#include <string>
#include <string_view>

#include "ir/diagnostic.h"
#include "ir/program.h"

namespace epsmith {

// Parses a program file. Every problem (malformed JSON, a wrong field type, an unknown
// operator, a call its schema cannot bind, an undefined name, a bad tensor payload) is a
// Diagnostic whose `where` is a JSON path (`$.exported_program.graph_module.graph.nodes[3]`)
// or, for malformed JSON, `line:column`.
Expected<ExportedProgram> readProgramJson(std::string_view text);

// Writes `p` deterministically: for every program, write(read(write(p))) == write(p) and
// read(write(p)) is structurally equal to `p`. Fails (a Diagnostic naming the node, such as
// `%add` or `true_graph_0/%add`) only for programs no file can hold: a graph without exactly
// one output node at its end, duplicate node names, a reference to nothing or to a node of
// another graph, an ATen call its schema cannot bind, or a tensor that does not fit its
// storage. Files are indented one space per level; the compact layout (no whitespace) is
// the same JSON, for readers that are programs (check D4 reads every program back).
enum class JsonLayout { Indented, Compact };
Expected<std::string> writeProgramJson(const ExportedProgram& p, JsonLayout layout = JsonLayout::Indented);

// torch's bare ExportedProgram object, as a .pt2 archive holds it (models/NAME.json): the
// `exported_program` section alone, compact; the state, constants and example inputs travel
// beside it. Fails, besides where writeProgramJson does, for a program whose graphs need the
// epsmith section (an input or attribute torch's schema has no form for).
Expected<std::string> exportedProgramJson(const ExportedProgram& p);
// Reads such an object; the program's state_dict, constants and example inputs are empty.
Expected<ExportedProgram> readExportedProgramJson(std::string_view text);

}  // namespace epsmith
