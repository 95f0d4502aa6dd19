// The graph generator: builds a TRAINING program node by node over live values with
// concrete example tensors, picking ops from the catalog and their arguments from the
// schema, keeping a candidate only if it runs eagerly and recording meta.val from what it
// returned. Nothing about shapes is coded per op.
#pragma once

#include <vector>

#include "generators/op_catalog.h"
#include "generators/random_source.h"
#include "ir/diagnostic.h"
#include "ir/program.h"

namespace epsmith {

struct GeneratorConfig {
  int nodes = 16;        // call_function nodes to aim for
  int min_inputs = 1;
  int max_inputs = 3;
  int max_rank = 4;
  int max_dim = 8;       // sizes 0..max_dim (zero-size now and then)
  std::vector<ScalarType> dtypes{ScalarType::Float, ScalarType::Double, ScalarType::Long,
                                 ScalarType::Int, ScalarType::Bool, ScalarType::Half, ScalarType::BFloat16};
  uint32_t noncontiguous_percent = 30;  // inputs that are transposed, strided or offset views
  // Relative weight of each op category for the next node (mutation-heavy by default).
  uint32_t weight_functional = 4;
  uint32_t weight_in_place = 4;
  uint32_t weight_view = 4;
  uint32_t weight_out = 1;
  uint32_t weight_metadata = 1;
  uint32_t weight_factory = 1;
  int attempts_per_node = 40;  // candidates tried before giving up on a node
};

// A program of about `config.nodes` nodes with its example inputs, or an error when the
// catalog leaves nothing to build with.
Expected<ExportedProgram> generateProgram(const OpCatalog& catalog, const GeneratorConfig& config,
                                          RandomSource& random);

}  // namespace epsmith
