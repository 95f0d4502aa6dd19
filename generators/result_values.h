// The graph generator's screening of candidates and their results (meta.val for the values
// a program can hold is oracle/values.h's valOf): which ops factorize; the
// candidates not generated because eager leaves their result undefined; what a refused call
// may have changed. Internal to generators/ (includes ATen).
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/ops/isfinite.h>

#include <c10/util/FunctionRef.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/argument.h"
#include "ir/graph.h"
#include "ir/program.h"
#include "ir/meta.h"
#include "ops/op_registry.h"
#include "oracle/interpreter.h"
#include "oracle/values.h"

namespace epsmith {

// Whether a call's second run gave the same result as its first: same kind, sizes, dtypes
// and elements (NaN equal to NaN); an error in the second run is not the same.
bool sameResult(const c10::IValue& first, const Interpreter::Outcome& second);

// Whether `op` factorizes a matrix (Note [LAPACK loops on non-finite input]): a linalg op, or one whose name has one of LAPACK's words between its
// underscores, matched whole ("lu" is not relu's, "det" not detach's). Kept per op.
bool factorizesMatrix(const OpInfo& op);

// The candidates not generated, for what eager leaves undefined or a kernel does wrong;
// `valueOf` gives a node's live tensor during generation (null when it has none).
using LiveValueOf = c10::function_ref<const at::Tensor*(const Node*)>;
// A written tensor sharing memory with an argument the op reads, or with another written one.
bool outAliasesAnInput(const OpInfo& op, const std::vector<Argument>& args,
                       const std::vector<std::pair<std::string, Argument>>& kwargs, LiveValueOf valueOf);
// Whether every element of a floating-point tensor is finite (true for other dtypes and for
// empty tensors), as at::isfinite(t).all() says; CPU tensors are read element by element.
bool allFinite(const at::Tensor& t);
// A matrix factorization given a non-finite element (Note [LAPACK loops on non-finite input]).
bool lapackOnNonFinite(const OpInfo& op, const std::vector<Argument>& args,
                       const std::vector<std::pair<std::string, Argument>>& kwargs, LiveValueOf valueOf);
// Note [Factorizations of singular matrices]
// A factorization of finite values that comes out non-finite (the inverse of a singular
// matrix) is as undefined as LAPACK's path to it: inf or NaN by where the pivots fell,
// which the matrix's layout decides. linalg_inv_ex of a transposed singular matrix gave inf
// in eager where the functional program's contiguous copy gave NaN (a D1 case of a 1.13
// campaign); its docs leave the inverse of a singular matrix undefined. Such a call is not
// generated.
//
// Whether `op` factorizes and its `result` holds a non-finite floating-point element.
bool factorizesIntoNonFinite(const OpInfo& op, const c10::IValue& result);

// Note [Products that meet a zero and overflow]
// A floating product whose factors can carry a partial product past the largest finite
// value of the dtype it multiplies in (f32 for f16 and bf16) and also below its least
// subnormal (or that holds an inf and a zero) is inf, 0 or NaN by the order of its factors:
// a vectorized prod keeps a partial product per lane, and one lane's inf times another's
// 0 is NaN. The order is the kernel's walk over the input, which its layout decides: prod
// of a strided f16 tensor that reciprocal_ had written gave 0 in eager where the
// functional program's contiguous copy gave NaN (a 2.13 campaign's D1 case). So prod and
// cumprod are not generated on such an input (its factors counted whole: a product along a
// dim may stay in range, and is dropped too).
// Whether `op` is prod or cumprod of a floating input whose factors can both overflow and
// underflow its product so.
bool multipliesZeroByAnOverflow(const OpInfo& op, const std::vector<Argument>& args, LiveValueOf valueOf);

// Note [The sign of a zero that min or max chose]
// +0 and -0 compare equal, so which of them min and max give back where one operand holds
// each is the kernel's choice, and LibTorch's paths choose differently: 1.13's clamp_max
// of a strided f32 tensor holding 0 by a bound holding -0 gave +0 in eager and -0 on the
// functional program's contiguous copy, which the rsqrt_ after it turned into inf and
// -inf (a 1.13 campaign's D1 case). A program that reads such a zero's sign has no answer
// to compare, and no op says it reads one (rsqrt, reciprocal, div, atan2 and copysign
// do), so the pairwise min and max ops (clamp, clamp_min, clamp_max, minimum, maximum,
// fmin, fmax, max.other, min.other, and their in-place and out= forms) are not generated
// where two of their operands hold zeros of both signs at one position. Reductions (amax,
// max.dim) choose among a tensor's own elements and are not screened.
// Whether `op` is such a min or max whose operands meet +0 and -0 at one position.
bool choosesBetweenSignedZeros(const OpInfo& op, const std::vector<Argument>& args,
                               const std::vector<std::pair<std::string, Argument>>& kwargs, LiveValueOf valueOf);

// Note [Bools of other bytes]
// A bool is one byte that LibTorch's kernels make 0 or 1 and take to be so: a copy turns
// any other byte into 1, where a view of another dtype reads it as it is. view.dtype lets a
// program put other bytes there, by writing through an f16 view of a bool tensor (sgn_
// writes 1.0, bytes 0x00 0x3c) or by viewing bytes as bools, and then its answer is the
// path's: 2.13's functionalization carried the write back to the bool base with a
// select_scatter, a copy, and the f16 view regenerated from it read 1.5e-05 where eager's
// read 1.0 (a 2.13 campaign's D2 case). So neither a view.dtype (or view_copy.dtype) to
// bool of bytes other than 0 and 1 is generated, nor an in-place or out= call that leaves
// such a byte in a bool tensor another dtype views.
// Whether a bool tensor holds a byte other than 0 and 1 (false for other dtypes).
bool holdsBoolsOfOtherBytes(const c10::IValue& v);

// Note [A NaN's sign and payload]
// IEEE 754 leaves the sign and payload of a NaN an operation makes unspecified, and
// LibTorch's paths make different ones: fmod_ of an f16 self by a bf16 zero gives -NaN in
// place and +NaN out of place (torch alone, 2.13), and remainder_ of a NaN differs by
// layout alike. A program that reads those bits has no answer to compare: signbit of a
// NaN, copysign's sign taken from one, and view.dtype of a floating tensor that holds one,
// whose bits come out as numbers of another dtype (two D1 cases of one 2.13 campaign). So a
// call is not generated where the tensor whose sign or bits it reads holds a NaN, nor an
// in-place or out= call that leaves a NaN in a floating tensor an earlier view.dtype
// reinterprets (the generator keeps those). An integer tensor viewed as floating holds
// NaNs of the bits it was given, which no operation made, and the integer tensor reads
// back the bits of what is written through the view: so neither is an in-place or out=
// call generated that leaves a NaN in such a view whose bits it did not hold before.
//
// Whether the call reads the sign or the bits of a NaN it is given.
bool readsANaNsBits(const OpInfo& op, const std::vector<Argument>& args,
                    const std::vector<std::pair<std::string, Argument>>& kwargs, LiveValueOf valueOf);
// Whether `op` is view.dtype or view_copy.dtype: what reinterprets a tensor's bits.
bool viewsAsAnotherDtype(const OpInfo& op);
// Whether a floating-point tensor holds a NaN (false for other dtypes).
bool holdsANaN(const at::Tensor& t);
// Whether floating-point `now` holds a NaN where `before` (its earlier copy) held other bits.
bool holdsANewNaN(const at::Tensor& now, const at::Tensor& before);

// Note [Calls torch's tracing refuses]
// torch.cond and while_loop trace their branches and bodies with fake tensors even when
// called eagerly (2.13.0 and 2.14.1), so a call whose Python meta refuses what the C++
// kernel runs makes eager torch.cond raise where epsmith's interpreter, which runs the
// kernel, does not: `where` with a uint8 condition, which eager still takes (deprecated)
// and torch._refs.where refuses ("expected predicate to be bool"; pytorch#161088, where
// eager is to refuse it too, still takes it on 2.14.1). Export traces a module the same way and never writes such a call, so none is
// drawn into a branch or a body. A program's own graph keeps them: there, what torch's
// stack makes of them is what the checks ask. Derived on LibTorch 2.13.0 and 2.14.1.
//
// Whether torch's tracing refuses the call where eager runs it.
bool tracingRefuses(const OpInfo& op, const std::vector<Argument>& args, LiveValueOf valueOf);

// Note [Results that grow as a product of their inputs]
// A program holds no tensor of more than 2^16 elements (valOf), and a candidate whose
// result is larger is dropped after it ran; but cartesian_prod and meshgrid of a list of
// tensors make as many elements as the product of their sizes, and one of eight tensors of
// eight elements allocates half a gigabyte, which a worker's memory limit ends (a 2.13
// campaign's "generation out-of-memory"). isin of two tensors grows in work rather than
// elements: LibTorch 1.13 took 1.8 s over two of 24 576 elements (2.13: 5 ms), which a
// case's 10 s ended on a loaded machine (a 1.13 campaign's eager timeout), so the product
// of its sizes is capped at 2^24. Which ops grow so is in no schema: for those of this
// table, written on LibTorch 2.13 (isin on 1.13), the size is computed from the inputs',
// and a candidate past the cap is not run.
// Whether `op`, on these arguments, would make more elements than a program holds (or, for
// isin, do more work than a case affords).
bool growsPastTheValueCap(const OpInfo& op, const std::vector<Argument>& args,
                          const std::vector<std::pair<std::string, Argument>>& kwargs, LiveValueOf valueOf);
// Note [Storage a program does not hold]
// The storage of an op's result is its kernel's business: hamming_window(2) returns the
// first two elements of a window of three (a periodic window is the symmetric one of one
// more, narrowed), and as_strided(w, [2], [1], 1) reads the third in eager. The program
// says only that w has two elements; run_decompositions computes w anew in a storage of
// two, where that as_strided raises (setStorage out of bounds: a D8 case of a 2.13
// campaign), and fake tensors hold two as well. So a call that addresses a storage by
// offsets (as_strided, as_strided_, as_strided_copy, as_strided_scatter) stays within
// what the program holds of it: all of an input's storage, which its example value
// carries, or the elements of the op result that made the storage (`held`).
using HeldElements = c10::function_ref<std::pair<int64_t, int64_t>(const at::Tensor&)>;
// Whether `op`, on these arguments, addresses elements of its self's storage outside the
// span [first, end) that `held` gives for it.
bool addressesPastWhatItHolds(const OpInfo& op, const std::vector<Argument>& args,
                              const std::vector<std::pair<std::string, Argument>>& kwargs, LiveValueOf valueOf,
                              HeldElements held);
// An out= or in-place call, run on tensors some of which are not contiguous, that writes
// otherwise (`outs`, as the trial wrote them) than into contiguous copies of them, which
// `intoContiguous` runs the call on, with contiguous copies of what it reads too (nullopt
// where it raised) (Note [Kernels that write by the written tensor's layout]).
bool writesByLayout(const OpInfo& op, const std::vector<at::Tensor>& outs,
                    c10::function_ref<std::optional<std::vector<at::Tensor>>()> intoContiguous);
// Whether `op` is a functional form that writes a copy of its self through indices, which
// the layout screen asks as it asks in-place calls (the same Note).
bool writesThroughIndices(const OpInfo& op);
// Whether `t` has the strides a contiguous tensor of its sizes is made with; a size-1
// dimension of another stride is contiguous by ATen's test but not by this one.
bool hasContiguousStrides(const at::Tensor& t);
// Whether a generated program runs from its example inputs where a metadata mutation could
// make it raise there (Note [Metadata mutations of views replayed]); true for the others.
bool replaysIfItMutatesMetadata(const ExportedProgram& p);
// A triu.out or tril.out whose out the LibTorch at hand would write in the wrong places
// (Note [Triangular outs walked as batch-contiguous]).
bool misplacesTriangularOut(const OpInfo& op, const std::vector<Argument>& args,
                            const std::vector<std::pair<std::string, Argument>>& kwargs, LiveValueOf valueOf);
// Whether the batch dimensions of `t` (all but the last two) are where one dimension of
// stride(-3) over their flattened index puts them (the other size-1 dimensions are no
// matter).
bool batchesFlattenToStride(const at::Tensor& t);
// Whether the LibTorch at hand writes a triangular out whose batches do not flatten in the
// wrong places; asked once, of a probe.
bool triangularOutsMisplaced();
// A call reading an empty tensor: it runs twice, and is kept only if both runs agree
// (Note [Results read from uninitialized memory]).
bool readsAnEmptyTensor(const Node& call, LiveValueOf valueOf);
// A functional resize that grows past its input into uninitialized memory.
bool growsIntoUninitializedMemory(const OpInfo& op, const c10::IValue& result, const Node& call, LiveValueOf valueOf);
// A non-mutating op that handed back one of its arguments although its role does not say so.
bool returnsAnArgumentUndeclared(const OpInfo& op, const c10::IValue& result, const Node& call, LiveValueOf valueOf);

// Note [Tensors past their storage]
// LibTorch 1.13's set_ (and the functional set) of a source of another dtype keeps self's
// dtype and takes the source's storage as it is: an f32 self set to a bool source of as many
// elements has four times the bytes its storage holds. The op that next reads it reads past
// the block and the op that next writes it writes past it, which corrupts the heap of the
// process: generating the program kills `epsmith generate` at a later allocation, and in a
// campaign's worker a later op dies in tcmalloc (a D1 death "in fmod" of a 1.13 campaign,
// which no replay of its minimized program repeated). A call that leaves a tensor reaching
// past its storage (its result, or what it wrote) is not generated; the bug stays known
// (lt113-set-of-another-dtype-reads-past-its-source).
//
// Whether `v` (a tensor, or a list or tuple of them) has a tensor whose elements reach past
// the bytes of its storage.
bool reachesPastItsStorage(const c10::IValue& v);
// The storage offset, in elements, of the last element of a non-empty strided tensor.
int64_t lastElementOffset(const at::Tensor& t);

// Note [A refused call must leave no trace]
// A mutable candidate runs first on copies of what it writes, then for real; the copies
// are plain tensors, though, and the live ones may be leaves that require grad, views of
// them, or views made under no_grad, which autograd refuses to write. A refusal usually
// comes before any write, but not from an op that composes others: linalg_pinv.out
// resizes `out` and then has its copy_ refused, and the live parameter stays resized
// although no node says so. The program made from then on is not what its replay
// computes (seed 2414 made a movedim whose replay raised). So a refused real run is
// checked against the state of what it writes from just before; if it changed anything,
// the generator gives the program up and makes the next one from the same random stream.
//
// A tensor's state as a refused call may have changed it: sizes, strides, offset, the
// storage it uses and that storage's bytes.
class TensorState {
 public:
  explicit TensorState(const at::Tensor& t);
  bool unchanged() const;

 private:
  at::Tensor tensor_;
  std::vector<int64_t> sizes_, strides_;
  int64_t offset_;
  const void* data_;
  std::vector<uint8_t> bytes_;
};

}  // namespace epsmith
