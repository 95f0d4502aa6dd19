// Grad regions as torch.export (2.x) writes a `with torch.no_grad():` block: a
// wrap_with_set_grad_enabled call over a subgraph, and that region laid out inline as bare
// `_set_grad_enabled` calls around the subgraph's own (the form older exports wrote). The
// functionalizer lays out the regions it cannot take whole
// (Note [Grad regions inlined before functionalization]); the minimizer tries each. An
// autocast region (wrap_with_autocast) laid out alike, as bare _enter_autocast and
// _exit_autocast calls for the functionalizer, or bare of autocast for the minimizer. And a
// cond's branch, a while loop's body and a map's or scan's function (on a first element)
// laid out the same way, which the minimizer tries.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/graph.h"

namespace epsmith {

// The subgraph a wrap_with_set_grad_enabled call runs; null for any other node.
Graph* gradRegionBody(const Graph& g, const Node& n);

// The grad regions of `g`'s own nodes, each with the grad mode around it, `g` being called
// with grad mode `grad_enabled`.
std::vector<std::pair<Node*, bool>> gradRegionsOf(Graph& g, bool grad_enabled);

// Lays region `hop` out inline: `_set_grad_enabled(enabled)`, its subgraph's calls on its
// operands, `_set_grad_enabled(grad_around)`, its getitems replaced by what the subgraph
// returns, its get_attr and subgraph gone where nothing else names them. A region it cannot
// lay out (a nested higher-order op, a result read other than by a getitem, a mode that is
// not a literal) is an error naming its node, and `g` is then partly changed: callers work
// on a copy.
std::optional<Diagnostic> inlineGradRegion(Graph& g, Node* hop, bool grad_around);

// The subgraph a wrap_with_autocast call runs; null for any other node.
Graph* autocastRegionBody(const Graph& g, const Node& n);

// The autocast regions of `g`'s own nodes, in order.
std::vector<Node*> autocastRegionsOf(Graph& g);

// Lays autocast region `hop` out inline as bare calls: `_enter_autocast(device_type, dtype,
// enabled, cache_enabled)`, its subgraph's calls on its operands, each call that writes
// inside a nested region with autocast off (Note [Writes inside an autocast region]),
// `_exit_autocast`; its getitems replaced by what the subgraph returns. Without
// `keep_autocast`, the calls alone: the program then runs them at their operands' dtypes, a
// simplification the minimizer keeps only where the finding survives it (its metadata
// rebuilt by a run). An error naming the node where it cannot (as inlineGradRegion), and
// `g` partly changed.
std::optional<Diagnostic> inlineAutocastRegion(Graph& g, Node* hop, bool keep_autocast);

// Branch `which` (true: its true_graph) of a cond call; null for any other node.
Graph* condBranch(const Graph& g, const Node& n, bool which);

// Lays branch `which` of cond `hop` out inline: its calls on the cond's operands, the cond's
// getitems replaced by what the branch returns, the cond and its branches' get_attrs and
// subgraphs gone where nothing else names them. The program then computes that branch
// whatever the predicate: a simplification the minimizer keeps only where the finding
// survives it. An error naming the node where it cannot (as inlineGradRegion), and `g`
// partly changed.
std::optional<Diagnostic> inlineCondBranch(Graph& g, Node* hop, bool which);

// The body of a while_loop call; null for any other node.
Graph* loopBody(const Graph& g, const Node& n);

// The condition graph of a while_loop call; null for any other node.
Graph* loopCondition(const Graph& g, const Node& n);

// Lays while_loop `hop` out as `iterations` (0 or 1) runs of its body: none, its getitems
// then read the carried values it was given; one, its body's calls on the carried and
// additional values, the getitems reading what the body returns. A body returns values of
// the carried values' metadata, so the program stays well formed; it computes other
// values, a simplification the minimizer keeps only where the finding survives it. An
// error naming the node where it cannot (as inlineGradRegion), and `g` partly changed.
std::optional<Diagnostic> inlineLoop(Graph& g, Node* hop, int iterations);

// The body of a map_impl call, or the combine function of a scan call; null for any other
// node.
Graph* mappedFunction(const Graph& g, const Node& n);

// The operands higher-order call `n` passes its subgraphs: its arguments after its last
// graph argument, tensor lists flattened (a region's *operands, a cond's operand list, a
// while loop's carried and additional values, a map's xs and args, a scan's init, xs and
// additional inputs).
std::vector<const Node*> subgraphOperands(const Node& n);

// The operands of map_impl or scan call `n` that its function takes one element of, as
// indices [first, past) among the operands after its graph argument: map_impl's xs, scan's
// after its init. {0, 0} for any other node.
std::pair<size_t, size_t> elementOperands(const Node& n);

// The ops an inlined map or scan calls: `select` (select.int) takes an operand's first
// element, `unsqueeze` stacks one result; the ir cannot look ops up, so its callers pass them.
struct StackOps {
  const OpInfo* select = nullptr;
  const OpInfo* unsqueeze = nullptr;
};

// Lays map_impl or scan `hop` out as its function run once, on each xs's first element
// (`select(x, 0, 0)`): a map's getitems then read `unsqueeze(y, 0)` of each value the body
// returns, a scan's its combine function's carries and `unsqueeze(y, 0)` of the rest. The
// program then maps or scans the first element only: a simplification the minimizer keeps
// only where the finding survives it (its metadata rebuilt by a run). An error naming the
// node where it cannot (as inlineGradRegion), and `g` partly changed.
std::optional<Diagnostic> inlineFirstElement(Graph& g, Node* hop, const StackOps& ops);

}  // namespace epsmith
