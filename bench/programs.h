// Synthetic programs of a given size for the benchmarks.
#pragma once

#include <cstdint>

#include "ir/program.h"

namespace epsmith::bench {

// A valid ATEN program of about `nodes` nodes: 4 user inputs, a parameter and a buffer, then
// a chain of unary and binary ATen ops (neg, add, mul, relu, view) reading earlier values.
ExportedProgram chainProgram(int64_t nodes);

}  // namespace epsmith::bench
