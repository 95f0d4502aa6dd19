// Walking a graph with the subgraphs its higher-order calls run.
#pragma once

#include "ir/graph.h"

namespace epsmith {

// `fn(graph)` on `g` and then on each subgraph in it, nested ones too (a grad region's, a
// branch's, a loop body's), `g`'s constness kept: what a program calls is in all of them.
template <typename G, typename Fn>
void forEachGraph(G& g, Fn&& fn) {
  fn(g);
  for (auto& [name, attr] : g.attributes()) {
    if (attr.subgraph) forEachGraph(static_cast<G&>(*attr.subgraph), fn);
  }
}

}  // namespace epsmith
