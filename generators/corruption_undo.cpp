// CorruptionUndo (generators/corruptions.h, Note [Corruptions undone]): puts a corrupted
// copy of a program back the way it was cloned, node by node, so that D6 corrupts one copy.
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "generators/corruptions.h"
#include "ir/program_diff.h"

namespace epsmith {

CorruptionUndo::CorruptionUndo(ExportedProgram& work, const ExportedProgram& original)
    : work_(work), original_(original) {
  nodes_.reserve(work.graph().size());
  for (auto& n : work.graph().nodes()) nodes_.push_back(&n);
}

void CorruptionUndo::undo(const Corruption& c) {
  if (c.scope == Corruption::Scope::Graph) restoreGraph();
  work_.copyAllButGraph(original_);
}

void CorruptionUndo::restoreGraph() {
  Graph& g = work_.graph();
  const Graph& from = original_.graph();
  // Walk the copy beside the original: a node of the copy that is not the next cloned one
  // was added; a cloned one that no longer agrees gets its fields back.
  std::vector<Node*> added;
  std::vector<std::pair<Node*, const Node*>> changed;
  size_t k = 0;
  auto source = from.nodes().begin();
  for (auto& n : g.nodes()) {
    if (k < nodes_.size() && &n == nodes_[k]) {
      if (!nodesAgree(n, *source)) changed.emplace_back(&n, &*source);
      ++k;
      ++source;
    } else {
      added.push_back(&n);
    }
  }
  // A node of the copy reads the copy's counterpart of what the original's reads.
  auto counterpart = [&](Node*& ref) {
    size_t i = 0;
    for (auto it = from.nodes().begin(); it != from.nodes().end(); ++it, ++i) {
      if (&*it == ref) {
        ref = nodes_[i];
        return;
      }
    }
  };
  for (auto [node, original] : changed) {
    // What no corruption does, and copying fields back could not undo.
    if (node->name() != original->name() || node->op() != original->op()) {
      std::fprintf(stderr, "epsmith internal error: a corruption renamed %%%s or changed its op\n",
                   original->name().c_str());
      std::abort();
    }
    node->target = original->target;
    node->attr = original->attr;
    node->args = original->args;
    node->kwargs = original->kwargs;
    node->meta = original->meta;
    node->forEachInputRef(counterpart);
  }
  for (auto it = added.rbegin(); it != added.rend(); ++it) g.erase(*it);
  // Attributes a corruption added go; the program's own are copied back whole (programs
  // seldom have any, and a corruption is not trusted to have left them alone).
  for (auto it = g.attributes().begin(); it != g.attributes().end();) {
    it = from.attributes().count(it->first) ? std::next(it) : g.attributes().erase(it);
  }
  for (const auto& [name, attribute] : from.attributes()) g.attributes()[name] = attribute.clone();
}

}  // namespace epsmith
