// Synthetic programs of a given size for the benchmarks.
#pragma once

#include <cstdint>

#include "ir/program.h"

namespace epsmith::bench {

// A valid ATEN program of about `nodes` nodes: 4 user inputs, a parameter and a buffer, then
// a chain of unary and binary ATen ops (neg, add, mul, relu, view) reading earlier values.
ExportedProgram chainProgram(int64_t nodes);

// A TRAINING program of about `nodes` nodes that mutates the way models do: blocks of ~11
// nodes over 8×8 float tensors with writes through views of a user input (select +
// add_), writes into intermediates through slices, reads of views after their base changed
// (view replay), buffer updates (add_), out= calls and plain functional ops.
ExportedProgram mutationProgram(int64_t nodes);

}  // namespace epsmith::bench
