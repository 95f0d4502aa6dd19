// Program corruptions: one targeted edit per verifier check id, each breaking exactly the
// rule that check enforces (drop a meta.val, swap two placeholders' spec names, take a
// persistent buffer out of the state dict, put add_ in an ATEN program, ...). Applied to
// generated programs they form the verifier's kill matrix: every corruption must be
// reported, first, with its own check id (tests/generators/corruptions_test.cpp).
#pragma once

#include <string_view>
#include <vector>

#include "generators/random_source.h"
#include "ir/program.h"
#include "verifier/check_ids.h"

namespace epsmith {

struct Corruption {
  CheckId check;
  std::string_view what;  // one line: the edit
  // Edits `p`; false (and `p` untouched) when the program offers no place for this edit
  // (no buffer to take out of the state dict, say).
  bool (*apply)(ExportedProgram& p, RandomSource& random);
  // What the edit may change: the graph (its nodes or attributes) and anything else, or
  // only the rest of the program (the signature, the state, the constants, the module
  // call graph, the verifiers). Undoing a Program edit is copying the rest back
  // (ExportedProgram::copyAllButGraph), much cheaper than a fresh clone.
  enum class Scope : uint8_t { Graph, Program };
  Scope scope;
};

// One per check id, in check-id order.
const std::vector<Corruption>& corruptions();
const Corruption& corruptionFor(CheckId check);

// The dialect the dialect-op and dialect-graph corruptions switch a program to (registered
// on first use): ATEN's rules, plus it refuses aten::alias_copy and graphs that return one
// value twice.
std::string_view probeDialectName();

}  // namespace epsmith
