// The graph generator: builds a TRAINING program node by node over live values with
// concrete example tensors, picking ops from the catalog and their arguments from the
// schema, keeping a candidate only if it runs eagerly and recording meta.val from what it
// returned. Nothing about shapes is coded per op.
#pragma once

#include <vector>

#include "generators/node_sources.h"
#include "generators/op_catalog.h"
#include "generators/random_source.h"
#include "generators/screens.h"
#include "ir/diagnostic.h"
#include "ir/program.h"

namespace epsmith {

// Kinds of lifted state an input placeholder may become (the signature generator).
enum class StateKind : uint8_t { Parameter, PersistentBuffer, NonPersistentBuffer, Constant };
constexpr int kNumStateKinds = 4;

struct GeneratorConfig {
  int nodes = 16;      // call_function nodes to aim for
  int min_inputs = 1;  // user inputs
  int max_inputs = 3;
  int max_state = 3;  // lifted placeholders (parameters, buffers, constants) besides them
  int max_rank = 4;
  int max_dim = 8;  // sizes 0..max_dim (zero-size now and then)
  std::vector<ScalarType> dtypes{ScalarType::Float, ScalarType::Double, ScalarType::Long,    ScalarType::Int,
                                 ScalarType::Bool,  ScalarType::Half,   ScalarType::BFloat16};
  uint32_t noncontiguous_percent = 30;  // inputs that are transposed, strided, expanded or offset views
  // Relative weight of each op category for the next node (mutation-heavy by default).
  uint32_t weight_functional = 4;
  uint32_t weight_in_place = 4;
  uint32_t weight_view = 4;
  uint32_t weight_out = 1;
  uint32_t weight_metadata = 1;
  uint32_t weight_factory = 1;
  // Programs that may call ops epsmith's functionalizer refuses
  // (Note [Ops the functionalizer refuses]), and in those the weight of such ops beside the
  // categories above.
  uint32_t refused_percent = 10;
  uint32_t weight_refused = 1;
  // Relative weight of each node source, in NodeSource order (generators/node_sources.def).
  NodeSourceWeights source_weights = defaultNodeSourceWeights();
  // Relative weight of each kind of lifted state, in StateKind order.
  uint32_t state_weights[kNumStateKinds] = {3, 3, 1, 1};
  uint32_t mutable_state_percent = 60;  // parameters and buffers the program may write
  // Programs that call an op with effects (aten::_print), which functionalization threads an
  // effect token through (Note [Effects as export makes them]).
  uint32_t effects_percent = 10;
  uint32_t no_grad_percent = 10;      // per node: a no_grad region opens (or closes)
  uint32_t submodule_percent = 30;    // programs whose module call graph has a submodule entry
  uint32_t module_tree_percent = 30;  // programs whose state lives in submodules
  uint32_t nested_cond_percent = 20;  // per call drawn into a cond branch: a cond of its own
  // Programs with a user input dimension made a symbol with a range, where the program
  // follows it (Note [Symbolic sizes of generated programs]).
  uint32_t symbolic_size_percent = 20;
  // The dialect asked for: the generator makes TRAINING programs, which the callers that
  // want ATEN ones functionalize (fuzz/programs.h).
  IrDialect dialect = IrDialect::Training;
  int attempts_per_node = 40;  // candidates tried before giving up on a node
};

// What making one program took besides the program kept.
struct GenerationStats {
  int programs_given_up = 0;  // a refused call changed a live tensor (graph_generator.cpp)
  int64_t candidates = 0;     // calls drawn
  int64_t kept = 0;           // of them, made nodes of a program
  ScreenCounts refused{};     // of them, refused by each screen (generators/screens.def)
};

// A TRAINING program of about `config.nodes` nodes with its example inputs and state, or an
// error when the catalog leaves nothing to build with. `stats`, when given, is added to.
Expected<ExportedProgram> generateProgram(const OpCatalog& catalog, const GeneratorConfig& config, RandomSource& random,
                                          GenerationStats* stats = nullptr);

}  // namespace epsmith
