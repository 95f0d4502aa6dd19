// The placeholders of a program under generation — lifted state and user inputs, in
// torch.export's order — with their example values: the graph generator's first step,
// split out. Internal to generators/ (includes ATen).
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

#include "generators/argument_draws.h"
#include "generators/graph_generator.h"
#include "generators/random_source.h"
#include "ir/program.h"

namespace epsmith {

struct MadeInputs {
  std::vector<Live> pool;              // every placeholder's value, in order
  std::vector<at::Tensor> read_only;   // constants and state drawn immutable
  std::vector<at::Tensor> parameters;  // the parameters' values
  bool effects = false;                // whether the program is to call an op with effects
};

// Appends the placeholders to `p`'s graph, with their signature entries, state, constants
// and example inputs, drawn from `random` as `config` says.
MadeInputs addPlaceholders(ExportedProgram& p, const GeneratorConfig& config, RandomSource& random);

}  // namespace epsmith
