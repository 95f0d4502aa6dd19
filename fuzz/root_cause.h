// What makes two findings one bug: their root cause (Note [Root causes]).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz/checks.h"
#include "fuzz/workers.h"
#include "ir/program.h"
#include "oracle/tolerance.h"

namespace epsmith {

// Note [Root causes]
// A campaign files one bucket per root cause, keyed from the finding's fields and its
// minimized program, never from its report:
//   - the check ("D2"), or the phase a worker died in ("generate");
//   - the kind, a memory crash's signals as one (crashKind);
//   - the message template: what the check saw in one line (an exception's message, a
//     violation's check id; for a mismatch its kind, and for a dtype mismatch the two
//     dtypes) with what varies from program to program taken out (numbers, int lists, op
//     and dtype names);
//   - the core ops: the ATen ops of the minimized program that the failure needs, each
//     named without its overload and its in-place or out= form, so that add_.Tensor,
//     add.out and add.Scalar are `add` (a kernel's or a functionalization rule's bug shows
//     through every form of its op), and reshape_as is `reshape`
//     (Note [Ops that take another tensor's sizes]); an op the failure needs only by its
//     kind is named by its class, one it does not need at all is left out
//     (Note [Ops a failure does not depend on]).
// Merged: "Dimension out of range (... got 1)" at squeeze_.dim and at squeeze.dim after the
// same transpose_ (one message template, ops {squeeze, transpose}); a value mismatch of
// std.out and of std.correction, in bf16 or in f32, at an output or at a mutated input; a
// write through an unfold view by tan_ or by exp_
// (Note [Ops a failure does not depend on]). Apart: the same message through another op that the failure needs by name (the
// minimizer keeps only what the failure needs, so another op is another path to it).
// Upstream bugs that every op leads to (a lost metadata mutation) are merged by pattern
// instead, in the known-bugs list (fuzz/known_bugs.h).
struct RootCause {
  RootCause() = default;
  RootCause(std::string check_, std::string kind_, std::string message_, std::vector<std::string> ops_)
      : check(std::move(check_)), kind(std::move(kind_)), message(std::move(message_)), ops(std::move(ops_)) {}
  std::string check;
  std::string kind;              // crashKind'ed
  std::string message;           // the template
  std::vector<std::string> ops;  // core op names, sorted and distinct
  // The core names of the ops `ops` names by their class: a known bug's ops match them too
  // (Note [Known bugs]); not in the key.
  std::vector<std::string> class_ops;
  // What the minimized program is, beyond its ops (Note [Program traits]); not in the key.
  std::vector<std::string> traits;
  std::string str() const;  // "D2|exception-in-one|Dimension out of range ...|squeeze,transpose"
  // A directory name: check, kind and a hash of the rest: "d2-exception-in-one-3fa2c1d0".
  std::string id() const;
  std::string family() const;  // check, kind and message: its root causes differ in ops
};

// "aten::add_.Tensor", "aten::add.out", "aten::add.Tensor" → "add"; "aten::__iand__.Tensor"
// → "__iand__" (dunder names keep their underscores); "aten::divide_.Scalar" → "div"
// (Note [Op aliases from the JIT's normalization]).
std::string coreOpName(std::string_view aten_name);
// The core op names of `p`'s graph (ATen calls only), sorted and distinct.
std::vector<std::string> coreOps(const ExportedProgram& p);

// `message` without where in a subgraph a call raised it ("in the region, %fill_: ", "in the
// loop's body, %x: ", nested ones too): one bug raises alike inside and outside a region, a
// branch or a loop, and torch running the program's script names no such place.
std::string_view outsideSubgraphs(std::string_view message);
// The template of a check's finding (its `message`, or for a finding recorded before
// findings kept one, what its report says).
std::string messageTemplate(const CheckOutcome& o);
// The template of a worker's death: the frame it died in where that is known
// (Note [The frame of a crash]), "in libtorch_cpu.so", "" otherwise.
std::string messageTemplate(const WorkerDeath& d);
// `message` with numbers as N (a sign and a decimal point included; digits in a name, as
// in Caffe2, stay), bracketed lists of numbers as [...], op names as aten::* and dtype
// names (Float, CPUHalfType) as DTYPE, cut at 160 bytes.
std::string normalizedMessage(std::string_view message);
// Why a check skipped a case, as a template to count cases by: normalizedMessage, with node
// names (%add_) as %NODE and quoted names ('x0') as 'NAME'.
std::string skipReasonTemplate(std::string_view reason);
// Note [The slice of a mismatch]
// A mismatch names no op, so which root cause it is shows only once it is minimized
// (Note [Mismatches are minimized before they are counted], campaign.cpp). Before that, the
// ops its differing value can depend on are known from the program: those the value is
// computed from, and those that write into it or into what it is computed from (an
// in-place op on a tensor the output aliases, an out= call into it), and what they read;
// whether a write comes before or after a read is not asked, so the slice may hold more.
// A campaign counts a mismatch under a root cause met before when the slice holds every op
// that root cause names, and minimizes it only otherwise.
// The core op names of the slice of `p` that the value at `where` ("output 1", "input
// user_input:x0") depends on; every op of `p` where `where` names no output or input.
std::vector<std::string> sliceOps(const ExportedProgram& p, const std::string& where);
// The least precise floating dtype that a call of that slice reads or makes: what the value
// at `where` was computed in at worst, and how many calls of the slice compute a result in
// it; nullopt where none is, or `where` names no output or input
// (Note [Values compared at the precision they were computed in]).
std::optional<ComputedIn> computedIn(const ExportedProgram& p, const std::string& where);

// Note [Program traits]
// Some upstream bugs are a shape of program more than a message or an op. LibTorch's
// functionalization does not carry a resize to the views taken before it of the tensor
// resized (pytorch/pytorch#81385, a known limitation since PR #77714 gave resize_ its
// functionalization rule): an out= call or resize_ that changes the sizes of a tensor with
// a live view, or of a view, leaves the op that next reads the view to raise, each with its
// own message (`shape '[...]' is invalid`, `index N is out of bounds`, ...), so neither the
// template nor the core ops tie the findings together. A trait names such a shape, read
// from the minimized program; a known-bugs entry may require traits (fuzz/known_bugs.h),
// and the root-cause key leaves them out. A trait holds of a program where it holds of its
// calls where they run: a grad region's laid out inline under its grad mode (a write there
// into a subgraph placeholder is a write into the operand), a branch's or loop body's in
// its own graph.
//   "resizes-a-viewed-tensor": a call writes an argument (out=, resize_, resize_as_, set_)
//   whose sizes it changes, and that argument is a view (itself, or what an in-place or
//   out= call that wrote one returned), or a view of its storage is taken before the call
//   and read after it (itself, or what an in-place or out= call that wrote it returned).
//   "writes-an-undeclared-alias": a call writes a tensor that an op whose schema hides an
//   alias made (or the out= form of one: conj_physical.out's out, which LibTorch's
//   functionalization gives the input itself), or a view of one (the functional set's
//   result shares its source's storage, unsafe_split's pieces their input's), or writes
//   the storage of such an op's argument (the base of the view it split) between the op
//   and a read of its result: functionalization follows the schema, eager the storage.
//   "sets-another-dtype": set_ (or the functional set) takes a source of another dtype
//   than its self: eager's self takes the source's dtype, LibTorch 2.x's functionalization
//   keeps its own, and the op that next reads it computes or raises in the wrong dtype.
//   "sets-from-a-source-with-an-offset": set_.source_Tensor_storage_offset (or its
//   functional set) of a source that starts at a storage offset: eager counts the offset
//   it is given from the source's (x = base[3:]; x.set_(x, -2, [2]) starts at element 1),
//   LibTorch 2.x's C++ functionalization from 0, where it raises "invalid storage offset"
//   or reads outside the storage and dies.
//   "writes-a-view-copy-out": an out= call of the copying form of a view op
//   (squeeze_copy.out, alias_copy.out, unsqueeze_copy.out). LibTorch 1.13's eager kernels
//   for these copy the result into `out` without resizing it (broadcasting, or raising
//   where it cannot), where its C++ functionalization resizes `out` to the result, so
//   whatever next reads `out` raises about its rank or sizes, or differs.
//   "mutates-metadata-in-place": an in-place op applies a view to its self (squeeze_,
//   unsqueeze_, transpose_, t_, as_strided_), which LibTorch's C++ functionalization may
//   lose, so that whatever op next reads the tensor raises about its rank or sizes, each
//   with its own message.
//   "writes-through-an-unfold-with-gaps": a call writes through an unfold whose windows
//   leave elements of its input uncovered (windows of size 0, a step longer than the
//   window, a tail shorter than one), or through a view of one. LibTorch's
//   functionalization carries the write back with unfold_backward, which zeroes the
//   uncovered elements that eager leaves alone, and whatever next reads them differs or
//   raises (a division by zero). Other empty views (a slice, a narrow) are carried right.
//   "writes-through-an-expand": an in-place op writes through an expand view (expand,
//   expand_as, broadcast_to) or a view of one. LibTorch 2.x's functionalization carries
//   the write back to the base as base + sum_to(written - base), which rounds where eager
//   is exact and makes NaN where the base holds NaN or inf; whatever next reads it
//   differs, or raises on the NaN (histc's range, binary_cross_entropy's).
//   "writes-through-a-bool-view": an in-place op writes through a view.dtype to bool of a
//   tensor of another dtype, or a view of one (even a piece of no elements). LibTorch 2.x's
//   functionalization copies the view back through bool values, not bytes, so each byte of
//   the base keeps only whether it was 0 (-0.5 reads back as 2.35e-38).
//   "resizes-after-set": an out= call changes the sizes of a tensor that an earlier set_
//   pointed at its source's storage, and the source is read after it: eager resizes only
//   the tensor written, LibTorch 2.x's functionalization the source as well (x.set_(e),
//   kaiser_window.out(0, out=x), then e reads as [0]).
//   "composite-reads-an-out-resize": an out= call changes the sizes of its out, and an op
//   that LibTorch implements as CompositeImplicitAutograd (numpy_T, movedim, flatten)
//   reads the out, the call's result, or another name an in-place call gives either
//   (sinc_ of the out, then movedim; eye(1, out=) of what m.cos_() returned, then
//   vsplit of m), afterwards: run_decompositions (2.13) decomposes
//   the op from the out's old sizes and raises on the new ones ("Dimension out of range",
//   "shape '[80]' is invalid"); ops with kernels of their own (t, permute) read it right.
//   "resizes-an-input": an out= call, resize_, set_ or in-place view (unsqueeze_) changes
//   the sizes of a graph input or of a view of one: a metadata mutation of an input, which
//   torch.export refuses to make and run_decompositions (2.13) takes, writing the result
//   back into the input with copy_, which raises on the new sizes or broadcasts them.
//   epsmith's functionalizer refuses such a program with export's reason, and D8 compares
//   the refusals; where it refuses earlier for a reason of its own (an op it has no
//   functional form for), D8 compares the runs, and this trait names the program.
//   "resizes-after-a-metadata-mutation": an out= call changes the sizes of a tensor whose
//   storage an earlier in-place metadata mutation applying a view changed (w.unsqueeze_(0),
//   then elu.out(e, out=w) with e of another shape): eager's out takes the result's sizes;
//   LibTorch's functionalization, and run_decompositions with it, puts the result in the
//   base through the inverse view and replays the view on it, so w comes out [1, 0] where
//   eager's is [0].
//   "requires-grad-of-a-factory-view": requires_grad_ of a tensor that eager makes as a
//   view although its schema says fresh, or of a view of one (a periodic window): an
//   in-place write through a view of it then runs in eager and raises under LibTorch's
//   functionalization (Note [Factories eager returns as views]).
//   "views-as-another-dtype": view.dtype or view_copy.dtype. LibTorch 1.13's C++
//   functionalization carries such a view neither way right: a write through it reaches
//   the base converted, not as the same bits (bf16 viewed as f16, 0 subtracted in place:
//   the base is 1.25 off), and the value it regenerates after a write has other strides,
//   where the view's element-size checks raise. 2.13 agrees with eager on these.
//   "detaches-a-view": detach (or detach_) of a view (or of what an in-place call on one
//   returned, or of what an op that hides an alias returned: atleast_2d). LibTorch 1.13's C++
//   functionalization takes a write through such a detach for a write of the whole base:
//   the second piece of vsplit(x, [1, 3]) of an x of [2, 1, 1, 1], detached and negated in
//   place, leaves x as that one negated element, of sizes [1, 1, 1, 1], and every view of
//   x reads it so.
//   "reshape-copies-a-written-tensor": reshape, flatten, ravel or contiguous of a tensor
//   whose layout makes eager copy it, after an in-place write to its storage. LibTorch's
//   C++ functionalization decides whether such a call views from the layout of its own
//   value, which after the write is laid out anew, and views where eager copied: a later
//   write to the base reaches the result (ravel of a moved-axis view, then round_ of the
//   base), or autograd refuses a write through it after no_grad.
//   "writes-under-a-strided-reshape": reshape, flatten, ravel or _reshape_alias that eager
//   makes as a view with strides that are not contiguous (flatten of x[:, :, 0:1]: [3] of
//   stride [3]), and an in-place write through it, or into its storage where it is made or
//   read after the write; or one of contiguous strides made after a write into its storage
//   through a view that is not contiguous (x.mH), or written through by a write into such
//   a view of it (tril_ of flatten(x).mT). LibTorch 1.13's C++ functionalization
//   replays the call as _reshape_alias with eager's strides on its input's functional
//   value, which a write lays out anew, so it reads elements past the value or in another
//   order (and writes them back into the base).
//   "resizes-a-strided-view-to-its-sizes": resize_ of a view whose strides are not
//   contiguous, to the sizes it has. Eager changes nothing; LibTorch's functionalization
//   lays the view out anew, contiguous over its base's elements in order (x.mH resized to
//   its own sizes reads x unpermuted).
//   "takes-an-effect-token": the signature has a token input. torch's unlifting and
//   run_decompositions of a TRAINING program fail to unflatten its inputs, so a check that
//   asks torch meets that before what the program does.
//   "returns-an-empty-tensor-list": a call returns a list of no tensors (unbind of a
//   dimension of size 0). torch.export.load of such a program, torch.export's own saved
//   form included, fails to deserialize that node (2.13: "list index out of range").
//   "addresses-a-written-strided-tensor": as_strided (its copy, or as_strided_scatter) of
//   a tensor that is not contiguous (a transposed input) or starts at a storage offset,
//   whose storage a call writes. as_strided addresses the storage, and after the write
//   LibTorch 2.x's functionalization holds the tensor's value contiguously from offset 0,
//   so the view regenerated from it, or the scatter into it, addresses other elements
//   than eager's.
//   "writes-a-parameter-under-no-grad": an in-place, out= or metadata-mutating call, in a
//   no_grad region, writes a parameter or a view of one. ep.module() after
//   run_decompositions writes the parameter back with grad enabled, where autograd refuses
//   an in-place write into a leaf that requires grad.
//   "submodule-entry-names-an-output": a submodule's entry in the module call graph names
//   a node of the graph among its outputs, as preserve_module_call_signature keeps them.
//   run_decompositions replaces nodes as it decomposes and functionalizes (clamp_, a squeeze
//   of a tensor written later, hardshrink), and its verifier then finds the entry naming a
//   node the graph no longer has.
//   "nests-a-higher-order-op": a higher-order op's subgraph calls a higher-order op (a cond
//   in a cond's branch). torch.export's replace_set_grad_with_hop_pass, which runs on every
//   program with a grad-mode switch, recurses into the branches and looks the inner one's
//   subgraph up on a module that does not hold it (2.13, 2.14.1).
//   "resizes-an-out-that-requires-grad": an out= call changes the sizes of an out that
//   requires grad (one made from a parameter). Eager resizes it; LibTorch's C++
//   functionalization raises "cannot resize variables that require grad".
//   "writes-an-input-whose-elements-overlap": an in-place or out= call writes a graph
//   input, or a view of one, that holds one element at several positions (a stride of 0
//   on a dimension of more than one). Eager writes the one element; functionalization
//   writes a functional copy whose positions are apart, and torch.func.functionalize's
//   copy back into the input refuses it ("more than one element of the written-to tensor
//   refers to a single memory location").
//   "reduces-along-a-stride-0-dimension": a call whose `dim` names a dimension of its self
//   of more than one element and stride 0 (an expand's, a stride-0 input's). CPU median
//   and nanmedian along such a dimension return values that are not in the tensor (2.13.0,
//   2.14.1), so every check's runs disagree, mostly as flaky findings.
//   "writes-inside-an-autocast-region": an in-place or out= call inside a wrap_with_autocast
//   subgraph. Autocast passes the call through uncast; functionalization (torch 2.13.0,
//   2.14.1, Python and C++ alike) runs its functional form through autocast, which casts
//   the ones on its lists (addmm_ computes in bfloat16, cat.out of float16 raises in
//   autocast's prioritize). epsmith's functionalizer does not:
//   Note [Writes inside an autocast region].
inline constexpr const char* kProgramTraits[] = {"resizes-a-viewed-tensor",
                                                 "writes-an-undeclared-alias",
                                                 "sets-another-dtype",
                                                 "mutates-metadata-in-place",
                                                 "writes-through-an-unfold-with-gaps",
                                                 "writes-through-an-expand",
                                                 "resizes-after-set",
                                                 "composite-reads-an-out-resize",
                                                 "writes-through-a-bool-view",
                                                 "resizes-an-input",
                                                 "resizes-after-a-metadata-mutation",
                                                 "requires-grad-of-a-factory-view",
                                                 "sets-from-a-source-with-an-offset",
                                                 "writes-a-view-copy-out",
                                                 "views-as-another-dtype",
                                                 "detaches-a-view",
                                                 "reshape-copies-a-written-tensor",
                                                 "writes-under-a-strided-reshape",
                                                 "resizes-a-strided-view-to-its-sizes",
                                                 "takes-an-effect-token",
                                                 "returns-an-empty-tensor-list",
                                                 "addresses-a-written-strided-tensor",
                                                 "writes-a-parameter-under-no-grad",
                                                 "submodule-entry-names-an-output",
                                                 "nests-a-higher-order-op",
                                                 "resizes-an-out-that-requires-grad",
                                                 "writes-an-input-whose-elements-overlap",
                                                 "reduces-along-a-stride-0-dimension",
                                                 "writes-inside-an-autocast-region"};
std::vector<std::string> programTraits(const ExportedProgram& p);

// Whether a finding of `kind` is a value, shape or dtype mismatch: one that names no op.
bool isMismatchKind(std::string_view kind);

}  // namespace epsmith
