// The dtypes a call returns, found by running it once on meta tensors (no data, no kernels):
// what the functionalizer needs to know whether an in-place or out= op's functional variant
// must be cast back to the written tensor's dtype (eager casts on write; `add` of float32 and
// float64 gives float64, `add_` into float32 stays float32).
#pragma once

#include <optional>
#include <vector>

#include "ir/enums.h"
#include "ir/graph.h"

namespace epsmith {

// The dtype of each return of `call` (an ATen call_function node whose tensor arguments all
// carry tensor `meta.val`), or nullopt when the call cannot be probed (symbolic sizes without hints, a
// kernel without a meta implementation that also fails on empty CPU tensors). Results are
// cached per op and argument dtypes/literals, so repeated shapes of calls cost one lookup.
std::optional<std::vector<ScalarType>> probeReturnDtypes(const Node& call);

// Dtype and sizes of each return, cached per op, argument dtypes, sizes and literals: for
// out= calls, whose functional form may make a shape that eager broadcasts into `out`
// (slice_copy.out in 1.13) rather than resizing it.
struct ProbedReturn {
  ScalarType dtype;
  std::vector<int64_t> sizes;
};
std::optional<std::vector<ProbedReturn>> probeReturns(const Node& call);

// Note [out= calls that compute in another dtype]
// When an out= call's out tensor has another dtype than its inputs, eager's kernels differ in
// where they convert: `sum.IntList_out` of f32 into i64 sums in f32 and casts the sum (-5.5
// becomes -5), `cumsum.out` converts each input element first, `logsumexp.out` of bf16 into
// f32 computes in f32, and `prod.out` into bf16 must not ask for a bf16 product (LibTorch has
// no CPU kernel for one). No schema says which. So the functional form is chosen by running
// the out= call and each candidate on small CPU tensors of the inputs' metadata, filled once
// with assorted fractional values of both signs, once with values near 1 that no bf16 or
// f16 holds (on the first alone, `std.correction_out` of f32 into bf16, which rounds its
// inputs first, and a form that rounds only the result agree), and, where an input is of
// an integer dtype, once with odd integers of large magnitude (on small ones a product in
// i64 cast to f32, as 1.13's `prod.out` of i64 into f32 computes, and a product in f32
// agree; a product of large ones wraps in one and overflows in the other) and once with
// small odd integers, all true for bool (no zero: a norm of negative order is 0 of any
// input with one), where the out is f16 or bf16 and an input floating-point, once with
// ones after one large element (a
// sum kept in the out's dtype stops at 256 in bf16: 1.13's `norm.dtype_out` asked for f32
// into bf16 sums in bf16, which the other values left within D1's tolerance), and keeping the
// one closest to what eager writes on all, the first of equals, if it is within D1's
// tolerance where that is the tighter (`logsumexp.out` of f32 into f64 computed in f32
// passes, computed in f64 is closer): the functional op given `dtype=` the out tensor's
// dtype (where it takes one), its result cast, its floating-point inputs cast first, or
// every input of another dtype cast first (`huber_loss.out` of a bool or i64 input into an
// f32 `out` computes in f32, where the functional `huber_loss` makes its result in the
// input's dtype and refuses to cast the f32 loss into it).
// Two more: every input cast to the dtype the inputs promote to (`huber_loss.out` of an i32
// and an f32 input into a bf16 `out` computes in f32, casting only the result), and a
// `dtype=` the call gives replaced by the out tensor's (`norm.dtype_out` asked for bf16 into
// an f32 `out` computes in f32).
// The probe runs, too, for an out= call with an input of no elements, in any dtypes: there
// kernels part from their functional forms (binary_cross_entropy.out of empty inputs
// leaves `out` as it was, the functional form gives NaN, the mean of nothing).
// Where none writes what eager writes on values that tell the candidates apart (a kernel
// that converts mid-computation: `logsumexp.out` of bf16 into f32 takes the exponentials in
// bf16 and sums them in f32), the answer is Unmatched and the functionalizer refuses the
// call rather than emit a program that computes something else.
enum class OutForm : uint8_t {
  DtypeArgument,
  CastResult,
  CastInputs,
  CastEveryInput,
  CastToCommon,
  OutDtype,
  Unmatched
};

// The dtype the tensor arguments of `call` but `out_name` promote to (at::result_type's
// rule: dimensioned tensors before 0-dim ones); nullopt without tensor arguments.
std::optional<ScalarType> commonInputDtype(const Node& call, const std::string& out_name);
// Replaces the `dtype` argument `call` (of `op`) gives, positional or keyword; false when it
// gives none.
bool replaceDtypeArgument(Node& call, const OpInfo& op, ScalarType dtype);

// The form for `out_call` (an out= call with one out tensor, the argument `out_name`) in
// terms of `functional`, its functional variant; Unmatched when no candidate reproduces
// eager on the probe values; nullopt when a call cannot be run (callers keep their default;
// calls of more than 65 536 input elements are not run). Cached per op, argument dtypes, sizes and
// literals, when settled (Note [Probe answers are the key's alone]).
std::optional<OutForm> probeOutForm(const Node& out_call, const OpInfo& functional, const std::string& out_name);

// Note [out= kernels that write past the result they shrink to]
// An out= call that shrinks its out tensor keeps the storage, and the functionalizer keeps
// what the storage held past the result, which views taken earlier see. Most kernels
// resize and then write; huber_loss.out with a reduction writes the unreduced loss into
// `out` in its old shape first, then resizes it to 0-d and copies the reduced loss in, so
// the rest of the storage holds the elementwise loss, which no functional form returns (a
// 2.13 campaign's D1 case, read through a ravel taken before). No schema says which
// kernels do, so the call is run once on probe values with each out tensor's bytes set to
// a pattern, and the pass refuses a call whose kernel changed a byte past the result.
//
// Whether `out_call` (an out= call whose tensor arguments carry their current metadata)
// shrinks an out tensor in place and changes its storage past the new result. Cached per
// op, argument dtypes, sizes and literals.
bool probeWritesPastShrunkOut(const Node& out_call);

}  // namespace epsmith
