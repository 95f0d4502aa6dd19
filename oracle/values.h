// What a program can hold as a value: meta.val for what a run computed, nothing for what it
// cannot or should not hold (complex, huge, integers beyond ±2^20, integer tensors that
// require grad). The generator keeps a candidate's result by it, the minimizer rebuilds a
// program's meta.val by it.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include "ir/meta.h"

namespace epsmith {

// Whether every element of an integer tensor lies within ±2^20 (true for other dtypes;
// Note [Integer values kept small]).
bool smallIntegers(const at::Tensor& t);
// meta.val for a call's value; false for values a program cannot hold (complex, more
// than 2^16 elements, lists of more than 256 tensors).
bool valOf(const c10::IValue& v, Val* out);

}  // namespace epsmith
