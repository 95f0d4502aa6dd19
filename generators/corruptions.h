// Program corruptions: one targeted edit per verifier check id, each breaking exactly the
// rule that check enforces (drop a meta.val, swap two placeholders' spec names, take a
// persistent buffer out of the state dict, put add_ in an ATEN program, ...). Applied to
// generated programs they form the verifier's kill matrix: every corruption must be
// reported, first, with its own check id (tests/generators/corruptions_test.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "generators/random_source.h"
#include "ir/program.h"
#include "verifier/check_ids.h"

namespace epsmith {

struct Corruption {
  CheckId check;
  std::string_view what;  // one line: the edit
  // Edits `p`; false (and `p` untouched) when the program offers no place for this edit
  // (no buffer to take out of the state dict, say).
  bool (*apply)(ExportedProgram& p, RandomSource& random);
  // What the edit may change: the graph (its nodes or attributes) and anything else, or
  // only the rest of the program (the signature, the state, the constants, the module
  // call graph, the verifiers). Undoing a Program edit is copying the rest back
  // (ExportedProgram::copyAllButGraph), much cheaper than a fresh clone.
  enum class Scope : uint8_t { Graph, Program };
  Scope scope;
};

// Note [Corruptions undone]
// D6 applies several corruptions to one copy of a program, and a fresh clone for each costs
// more than the verification it serves. A Program edit is undone by copying the rest of the
// program back. A Graph edit adds nodes and attributes, or changes the fields of one node
// (its target, an argument, its meta.val); none erases, renames or moves a node. So the copy
// is made the program again by erasing what was added, copying the fields back into the
// nodes that no longer agree with the program's (ir/program_diff.h), and copying the rest
// back. What is not restored is the graph's memory of the names it handed out: a later
// corruption's new node may be called corrupt_get_1 where a fresh clone would say
// corrupt_get. tests/generators/corruptions_test.cpp checks that every corruption, applied
// after others were undone, leaves a copy that programDiff finds equal to the program.
class CorruptionUndo {
 public:
  // `work` must be a fresh clone of `original`; both must outlive this object.
  CorruptionUndo(ExportedProgram& work, const ExportedProgram& original);
  // Makes `work` equal to `original` again after `c` was applied to it.
  void undo(const Corruption& c);

 private:
  void restoreGraph();
  ExportedProgram& work_;
  const ExportedProgram& original_;
  std::vector<Node*> nodes_;  // work's nodes as cloned, in order: the k-th is a copy of the original's k-th
};

// One per check id, in check-id order.
const std::vector<Corruption>& corruptions();
const Corruption& corruptionFor(CheckId check);

// Applies to a copy of `p` each corruption with a place in it, at most `limit` (0: all, in
// check-id order; else in an order drawn from `seed`, Note [Corruptions drawn per case] in
// fuzz/checks.cpp) or only `only`'s, and calls
// `f(corrupted, corruption)` before undoing it; `f` returns false to stop. Returns how many
// were applied.
template <typename F>
int eachCorruption(const ExportedProgram& p, uint64_t seed, int limit, std::optional<CheckId> only, F&& f) {
  SeededSource random(seed);
  const auto& all = corruptions();
  std::vector<size_t> order(all.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (limit > 0) {
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[random.below(i)]);
  }
  int applied = 0;
  // One copy of `p` to corrupt: a corruption with no place leaves it untouched, and each
  // that is applied is undone after its verification (Note [Corruptions undone]).
  std::optional<ExportedProgram> work;
  std::optional<CorruptionUndo> undo;
  for (size_t index : order) {
    if (limit > 0 && applied == limit) break;
    const Corruption& c = all[index];
    if (only && c.check != *only) continue;
    if (!work) {
      work = p.clone();
      undo.emplace(*work, p);
    }
    if (!c.apply(*work, random)) continue;
    ++applied;
    const bool go_on = f(std::as_const(*work), c);
    undo->undo(c);
    if (!go_on) break;
  }
  return applied;
}

// Removes every `_set_grad_enabled` call of `p`, so that what it wrote under no_grad it
// writes with grad mode on: a parameter written so is a program export refuses
// (Note [Parameters written under grad]).
void dropGradRegions(ExportedProgram& p);

}  // namespace epsmith
