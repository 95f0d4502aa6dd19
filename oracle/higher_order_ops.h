// Internal to oracle/: the semantics of torch.export's higher-order ops beyond cond and
// grad regions, which the interpreter's registry names (oracle/interpreter.cpp).
#pragma once

#include <ATen/core/ivalue.h>

#include "oracle/interpreter.h"

namespace epsmith::hop_detail {

// The elements of a list or tuple argument (a tensor list, a generic list, a tuple).
std::vector<c10::IValue> elementsOf(const c10::IValue& v);

// while_loop(cond_graph, body_graph, carried_inputs, additional_inputs), as
// torch/_higher_order_ops/while_loop.py's while_loop_dense runs it.
c10::IValue runWhileLoop(HigherOrderCall& call);

// wrap_with_autocast(device_type, dtype, enabled, cache_enabled, graph, *operands): the
// subgraph under `torch.autocast(device_type, dtype, enabled, cache_enabled)`.
c10::IValue runWithAutocast(HigherOrderCall& call);

}  // namespace epsmith::hop_detail
