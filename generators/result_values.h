// What the graph generator keeps of a candidate's result: meta.val for the values a program
// can hold, nothing for those it cannot or should not (complex, huge, integers beyond
// ±2^20, integer tensors that require grad). Internal to generators/ (includes ATen).
#pragma once

#include <ATen/ATen.h>

#include "ir/meta.h"
#include "oracle/interpreter.h"

namespace epsmith {

// Whether every element of an integer tensor lies within ±2^20 (true for other dtypes).
bool smallIntegers(const at::Tensor& t);
// meta.val for a call's value; false for values a program cannot hold.
bool valOf(const c10::IValue& v, Val* out);
// Whether a call's second run gave the same result as its first: same kind, sizes, dtypes
// and elements (NaN equal to NaN); an error in the second run is not the same.
bool sameResult(const c10::IValue& first, const Interpreter::Outcome& second);

}  // namespace epsmith
