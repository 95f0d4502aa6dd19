// Which ATen op names are other names of one op, as LibTorch's JIT normalizes them.
#pragma once

#include <string>
#include <string_view>

namespace epsmith {

// Note [Op aliases from the JIT's normalization]
// Some ATen ops are another name of one op: divide of div, swapaxes and swapdims of
// transpose, moveaxis of movedim, clip of clamp, arccos of acos, absolute of abs, and more.
// A bug met through either name is one bug, so a root cause names the op by one of them
// (fuzz/root_cause.h). No schema says which names alias which: LibTorch's JIT does, in the
// alias map its NormalizeOps pass applies to every scripted and traced graph
// (torch/csrc/jit/passes/normalize_ops.cpp). The map itself is not exported, so it is asked
// of the pass: a graph of one node per aten name the dispatcher has, normalized, read back.
// The same call answers on 1.13 and 2.13 (2.13's map has a few more names).
//
// The name `name` (an aten op's base name: no namespace, no overload, "divide") stands for,
// or `name` itself where it is no alias.
std::string canonicalOpName(std::string_view name);

}  // namespace epsmith
