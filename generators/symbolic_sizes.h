// Symbolic sizes: a generated program whose user input dimension is a symbol with a range,
// as torch.export writes a module exported with a `Dim`, and the inputs of a program with
// symbolic sizes at another size inside its range.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "generators/random_source.h"
#include "ir/program.h"

namespace epsmith {

// The symbol the generator names (torch.export's are "s" and a number too).
inline constexpr const char* kGeneratedSymbol = "s0";

// Note [Symbolic sizes of generated programs]: in `percent` of programs, makes one user
// input dimension (with every other of its size, where the program runs so) the symbol
// kGeneratedSymbol: every value's sizes, strides and offset that follow it become affine
// in it, and range_constraints bound it by the sizes at which the program runs. A program
// whose values do not follow the size so stays as it is. Drawn after everything else.
void addSymbolicSize(ExportedProgram& p, uint32_t percent, RandomSource& random);

// The program's example inputs with every dimension that is `symbol` alone made `size`
// long, their elements tiled from the old ones; an error naming the input when one is not
// a contiguous tensor of its own storage (the only kind the tiling remakes).
std::optional<std::string> resizeInputs(ExportedProgram& p, const std::string& symbol, int64_t size);

// For a program with symbolic sizes: gives each symbol a size drawn from `random` (its
// example size, a range's edge, or one inside it; no further than three past the example
// where the range is open) and resizes the example inputs to it, so that the checks of a
// case run at that size. Nothing for a program without them.
void drawCaseSizes(ExportedProgram& p, RandomSource& random);

}  // namespace epsmith
