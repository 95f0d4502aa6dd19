// What autograd refuses, found by running a call once on small CPU tensors with and
// without grad: where a functional form needs its inputs detached, and which writes into
// inputs that require grad export refuses.
#pragma once

#include "ir/graph.h"

namespace epsmith {

// Note [out= calls autograd lets through]
// An out= call never records autograd history: LibTorch refuses one whose inputs require
// grad where the op has a derivative, and otherwise runs the kernel below autograd. Its
// functional form, called on the same inputs, goes through autograd, which can refuse
// where the out= call ran: `prod(dtype=int64)` or `sum(dtype=bool)` of an input that
// requires grad trips 1.13's isDifferentiableType assert (2.13 raises "Autograd not support
// dtype"; the probe runs the form and sees either), `select_scatter` into a bool
// tensor of a src that requires grad too, and `binary_cross_entropy_with_logits` refuses a
// weight that requires grad. Reading those inputs through `detach` gives the functional
// form what the out= kernel saw: the same values, and no history to record, as eager
// recorded none. Which forms autograd refuses is in no schema, so the call is run once on
// small CPU tensors with and without grad; only a form refused with grad and run without
// gets the detach, so graphs that run as they are stay as they are.
//
// Whether `call` (a functional call in a scratch graph whose tensor arguments carry their
// eager metadata, some requiring grad) raises under autograd but runs with every input
// detached. Cached per op, argument dtypes and literals, when one of the runs went through
// (Note [Probe answers are the key's alone]).
bool probeAutogradRefuses(const Node& call);

// Note [Writes autograd lets through]
// torch.export refuses a program that writes an input which requires grad with grad mode
// on, but only where autograd does: tracing runs the write, and autograd refuses an
// in-place write into a leaf that requires grad (or a view of one) where the op has a
// derivative. aot_autograd's own refusal ("Found a graph input that requires gradients,
// and received a mutation") is made only when it traces a joint graph, which neither
// export nor run_decompositions({}) does (2.13, torch/_functorch/aot_autograd.py). So a
// write autograd does not differentiate (logical_not_, logical_and_ of a parameter) is
// exported as a parameter mutation, where ge_, fill_ or copy_ of it are refused (a 2.13
// campaign's D8 refusal-parity case, checked with torch.export.export alone). Which ops
// autograd differentiates is in derivatives.yaml, not in the schemas, so the writing call
// is run once on small leaves with grad and once detached.
//
// Whether autograd runs `writer` (an in-place or out= call whose tensor arguments carry
// their metadata, the written one a leaf that requires grad) with grad mode on. False
// where the probe cannot tell. Cached per op, argument dtypes and literals.
bool probeAutogradTakesWrite(const Node& writer);

}  // namespace epsmith
