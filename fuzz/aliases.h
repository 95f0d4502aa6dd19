// Which tensors of a program share memory, read from its graph: the views ops take (by
// their schemas' alias annotations) and the writes in-place and out= calls make.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ir/program.h"

namespace epsmith {

// The tensor node bound to `op`'s argument `index` at the call `n`; null where none is.
const Node* boundTensor(const Node& n, const OpInfo& op, int index);
// The argument index the `k`-th result of `n` aliases (a view's, an in-place or out= call's
// result), or -1; a getitem of a list view (split) aliases what the list does.
int aliasedArgument(const Node& n, size_t k);
// Whether `n`'s result is a view of another tensor: a view op's, or an element of one's list.
bool isViewResult(const Node& n);
// Whether `n`'s tensor is a view: a view's result, or what an in-place or out= call returns
// when the tensor it writes is one (dist.out(a, b, out=v) of a view v is v).
bool isViewTensor(const Node& n);
// The node whose storage each node's result shares: its own for a fresh tensor; a view's,
// an in-place, out= or metadata-mutating call's, that of the argument it aliases.
std::map<const Node*, const Node*> storageOwners(const Graph& g);
// Each node's place in `g`'s order, for "before" and "after" between two nodes.
std::map<const Node*, size_t> nodeOrder(const Graph& g);

// Note [Writes eager leaves undefined]
// A write into memory that several elements of a tensor share (an expanded input, an
// expand view, a piece of one: a dimension of more than one element with stride 0) has no
// defined result in eager: torch.Tensor.expand's documentation says in-place operations on
// such a tensor "may result in incorrect behavior", and the order in which a kernel writes
// the shared location decides what lands there. A functionalized program computes such a
// write once per element instead, so D2 (LibTorch's functionalization) and D3 (another
// device's kernels) would report eager's choice, not a bug (or what it leads to: a gather
// by the values eager wrote once and a functional program per element raises in one run
// only), and so would D8 and D9, which run torch's decomposed program and NativeRT's
// against eager: each reports a finding on such a program as a skip, as D1 skips it
// through epsmith's functionalizer, which refuses such writes by the same layout test
// (overlapsItself). They still run it, so that a crash of LibTorch's
// functionalization or kernels counts whatever eager wrote. A reshape (or another op that
// views only where the layout allows) ends the walk from the written tensor to what it
// views: of an expanded tensor
// it is a copy. So is an as_strided_scatter into a view whose elements share memory
// (strides [1, 1, 1, 1]; offsets counted exactly, since ATen's test answers only for a
// stride of 0), and an in-place or out= call that reads the tensor it writes through
// another argument where its answer then depends on its kernel's order
// (Note [In-place calls that read what they write]), where the metadata says so: not
// after a resize or metadata mutation of that storage, which the graph's metadata does
// not follow. So is an out= call that resizes a tensor it also reads as another argument
// (not a view of it): its kernel reads before the resize (count_nonzero.out) or after it
// (binary_cross_entropy.out's weight, min.unary_out's self), which no schema says, and
// LibTorch's functionalization reads before, so D2 would file the kernels' order as its
// bug (a 2.13 campaign's minimizer made min.unary_out(x, out=x) of a resize of a viewed
// tensor, a known bug; the generator makes no such call: outAliasesAnInput). So is an
// out= call two of whose outs share a storage (a 2.13 campaign's minimizer made
// log_sigmoid_forward.output(x, output=x, buffer=x)): which write lands is its kernel's
// order, and epsmith's functionalizer refuses it too. Why `p` makes such a write, naming
// the tensor; nullopt where it makes none.
std::optional<std::string> writeEagerLeavesUndefined(const ExportedProgram& p);

// Whether `p` writes a tensor that an op whose schema hides an alias (OpRoleInfo::hides_alias)
// made, or a view of one; or writes the storage of an argument of such an op that it read
// before the write, with its result read after (eager's hidden alias sees the write).
bool writesAnUndeclaredAlias(const ExportedProgram& p);

// Whether `p` writes in place through an expand view (expand, expand_as, broadcast_to) or
// a view of one.
bool writesThroughAnExpand(const ExportedProgram& p);

// Whether `p` writes in place through an unfold whose windows leave elements of its
// input uncovered (a window of size 0, a step longer than the window, a tail shorter
// than a window), or through a view of one.
bool writesThroughAnUnfoldWithGaps(const ExportedProgram& p);

// Whether `p` calls as_strided (or its copy, or as_strided_scatter) on a tensor that is not
// contiguous and whose storage some call writes.
bool addressesAWrittenStridedTensor(const ExportedProgram& p);

// Whether `t` is what an op whose schema hides an alias returned (atleast_2d's, set's), or
// an element of its list.
bool isHiddenAlias(const Node& t);

// Whether `p` has a reshape, flatten, ravel or _reshape_alias that eager makes as a view
// with strides that are not contiguous, and writes in place through it (or a view of it),
// or into its storage where it is made or read after the write.
bool writesUnderAStridedReshape(const ExportedProgram& p);

// Whether `p` writes in place through a bool view (view.dtype) of a tensor of another
// dtype, or through a view of one.
bool writesThroughABoolView(const ExportedProgram& p);

// Whether `p` calls requires_grad_ on a tensor that eager makes as a view although its
// schema says fresh (a periodic window, Note [Factories eager returns as views]), or on a
// view of one.
bool requiresGradOfAFactoryView(const ExportedProgram& p);

}  // namespace epsmith
