// Internal to oracle/: the semantics of torch.export's higher-order ops, which the
// interpreter's registry names (oracle/interpreter.cpp).
#pragma once

#include <ATen/core/ivalue.h>

#include "oracle/interpreter.h"

namespace epsmith::hop_detail {

// The elements of a list or tuple argument (a tensor list, a generic list, a tuple).
std::vector<c10::IValue> elementsOf(const c10::IValue& v);

// cond(pred, true_graph, false_graph, operands): the branch `pred` picks, on the operands.
c10::IValue runCond(HigherOrderCall& call);

// wrap_with_set_grad_enabled(enabled, graph, *operands): how torch.export (2.x) records a
// `with torch.no_grad():` region whose ops it keeps apart, the region in a subgraph.
c10::IValue runWithGradEnabled(HigherOrderCall& call);

// with_effects(token, op, *args): how export's ATEN form orders a call of an op with
// effects (aten::_print, aten::_linalg_check_errors): the op's own call, then a fresh token
// and what the op returned (None for nothing), as torch/_higher_order_ops/effects.py's
// with_effects_dense returns them.
c10::IValue runWithEffects(HigherOrderCall& call);

// while_loop(cond_graph, body_graph, carried_inputs, additional_inputs), as
// torch/_higher_order_ops/while_loop.py's while_loop_dense runs it.
c10::IValue runWhileLoop(HigherOrderCall& call);

// map_impl(body_graph, xs, pos_args), as torch/_higher_order_ops/map.py's map_dense runs
// it: the body on each element of the xs along dimension 0 (select(0, i)) and the pos_args,
// each of its outputs stacked along a new dimension 0; xs of leading size 0 are refused
// as torch's map refuses them. Each output is, as torch's map_impl returns it eagerly
// (2.13), a view of a flat buffer of its elements: an in-place detach_ of one raises.
c10::IValue runMap(HigherOrderCall& call);

// scan(combine_graph, init, xs, additional_inputs), as torch/_higher_order_ops/scan.py's
// generic_scan runs it (dim 0, export's form): the carry starts as init; step i calls the
// combine graph on (carry, each x's element i, additional) and takes the carry from the
// first len(init) outputs, the rest stacked along a new dimension 0; the result is the
// last carry, then the stacked outputs.
c10::IValue runScan(HigherOrderCall& call);

// wrap_with_autocast(device_type, dtype, enabled, cache_enabled, graph, *operands): the
// subgraph under `torch.autocast(device_type, dtype, enabled, cache_enabled)`.
c10::IValue runWithAutocast(HigherOrderCall& call);

}  // namespace epsmith::hop_detail
