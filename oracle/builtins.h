// Python semantics of the verifier's builtin operators and the allowed torch functions on
// IValues (ints, floats, bools, tuples, lists), for symbolic-size arithmetic in graphs.
#pragma once

#include <ATen/core/ivalue.h>

#include <vector>

#include "ir/target.h"

namespace epsmith {

// Throw std::invalid_argument (with Python's wording where it has one) on bad operands.
c10::IValue callBuiltin(BuiltinOp op, const std::vector<c10::IValue>& args);
// torch._C._set_grad_enabled and torch.autograd.grad_mode.set_grad_enabled change the
// thread's grad mode, torch.amp.autocast_mode._enter_autocast and _exit_autocast its
// autocast state (the interpreter restores both at the end of a run).
c10::IValue callTorchFunction(TorchFunction fn, const std::vector<c10::IValue>& args);

}  // namespace epsmith
