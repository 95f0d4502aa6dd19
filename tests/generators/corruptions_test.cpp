// The verifier's kill matrix: every corruption (one per check id), applied to generated
// TRAINING and ATEN programs, is reported by the verifier first with exactly its intended
// check id — the error PyTorch would raise. Every check id is killed at least once, and a
// corruption that says it leaves the graph alone does.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <set>

#include "formats/text_format.h"
#include "fuzz/programs.h"
#include "generators/corruptions.h"
#include "generators/graph_generator.h"
#include "ir/program_diff.h"
#include "verifier/verifier.h"

namespace epsmith {
namespace {

const OpCatalog& catalog() {
  static const OpCatalog c = OpCatalog::build().value();
  return c;
}

TEST(Corruptions, OnePerCheckIdInCheckIdOrder) {
  ASSERT_EQ(corruptions().size(), static_cast<size_t>(kNumCheckIds));
  for (int i = 0; i < kNumCheckIds; ++i) {
    EXPECT_EQ(static_cast<int>(corruptions()[static_cast<size_t>(i)].check), i) << checkIdName(static_cast<CheckId>(i));
  }
}

std::vector<ExportedProgram> programs() {
  std::vector<ExportedProgram> out;
  GeneratorConfig config;
  config.nodes = 8;
  config.max_state = 4;
  config.effects_percent = 30;
  for (IrDialect dialect : {IrDialect::Training, IrDialect::Aten}) {
    config.dialect = dialect;
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      SeededSource random(seed);
      auto p = generateInDialect(catalog(), config, random);
      EXPECT_TRUE(p.ok()) << p.error().str();
      if (p.ok()) out.push_back(std::move(p.value()));
    }
  }
  return out;
}

// The JSON form keeps a getitem's opaque value only in epsmith's metadata, and torch
// derives a getitem's value from its producer's: neither an invalid nor a missing value of
// a getitem would reach torch (D7).
TEST(Corruptions, AValCorruptionIsNeverAGetItems) {
  auto isGetItem = [](const Node& n) {
    return n.target.kind() == Target::Kind::Builtin && n.target.builtinOp() == BuiltinOp::GetItem;
  };
  int getitems = 0;
  SeededSource random(11);
  for (const auto& original : programs()) {
    for (const Node& n : original.graph().nodes()) getitems += isGetItem(n);
    for (CheckId id : {CheckId::InvalidVal, CheckId::MissingVal}) {
      for (int draw = 0; draw < 4; ++draw) {
        ExportedProgram p = original.clone();
        if (!corruptionFor(id).apply(p, random)) continue;
        for (const Node& n : p.graph().nodes()) {
          const bool corrupt = std::holds_alternative<Val::Opaque>(n.meta.val.variant()) || n.meta.val.isMissing();
          EXPECT_FALSE(corrupt && isGetItem(n)) << n.name();
        }
      }
    }
  }
  EXPECT_GT(getitems, 0);  // the programs had some to pick
}

// use-before-def draws a (tensor argument, later tensor-valued node) pair uniformly from
// pairs it counts rather than lists: over many draws on one program, every pair, and only
// those, comes up.
TEST(Corruptions, AUseBeforeDefReachesEveryPlace) {
  const ExportedProgram original = programs().front().clone();
  const auto& nodes = original.graph().nodes();
  std::set<std::pair<std::string, std::string>> places, drawn;  // (reader and argument, value read)
  for (auto n = nodes.begin(); n != nodes.end(); ++n) {
    if (n->op() != OpKind::CallFunction) continue;
    for (size_t a = 0; a < n->args.size(); ++a) {
      if (!n->args[a].get<arg::Tensor>()) continue;
      for (auto later = std::next(n); later != nodes.end() && !later->isOutput(); ++later) {
        if (later->meta.val.tensor()) places.emplace(n->name() + "#" + std::to_string(a), later->name());
      }
    }
  }
  ASSERT_FALSE(places.empty());
  SeededSource random(3);
  for (size_t draw = 0; draw < 40 * places.size(); ++draw) {
    ExportedProgram p = original.clone();
    ASSERT_TRUE(corruptionFor(CheckId::UseBeforeDef).apply(p, random));
    auto o = original.graph().nodes().begin();
    for (const Node& n : p.graph().nodes()) {
      for (size_t a = 0; a < n.args.size(); ++a) {
        const auto* now = n.args[a].get<arg::Tensor>();
        const auto* was = o->args[a].get<arg::Tensor>();
        if (now && was && now->node->name() != was->node->name()) {
          drawn.emplace(n.name() + "#" + std::to_string(a), now->node->name());
        }
      }
      ++o;
    }
  }
  EXPECT_EQ(drawn, places);
}

TEST(Corruptions, KillMatrix) {
  const auto generated = programs();
  std::map<CheckId, int> killed;
  std::map<std::string, int> collateral;  // later diagnostics of other ids (information only)
  SeededSource random(7);
  for (const auto& original : generated) {
    ASSERT_TRUE(verify(original).empty()) << printProgramText(original);
    for (const auto& c : corruptions()) {
      ExportedProgram p = original.clone();
      const std::string before = printProgramText(p);
      if (!c.apply(p, random)) {
        EXPECT_EQ(printProgramText(p), before) << checkIdName(c.check) << " edited a program it declined";
        continue;
      }
      if (c.scope == Corruption::Scope::Program) {
        // D6 undoes it by copying all but the graph back: the graph must be untouched.
        ExportedProgram undone = p.clone();
        undone.copyAllButGraph(original);
        EXPECT_EQ(printProgramText(undone), before) << checkIdName(c.check) << " edited the graph";
      }
      auto ds = verify(p);
      ASSERT_FALSE(ds.empty()) << checkIdName(c.check) << " (" << c.what << ") went unnoticed in\n"
                               << printProgramText(p);
      ASSERT_EQ(checkIdName(ds[0].check), checkIdName(c.check)) << c.what << ": " << ds[0].str() << "\n"
                                                                << printProgramText(p);
      ++killed[c.check];
      for (const auto& d : ds) {
        if (d.check != c.check)
          ++collateral[std::string(checkIdName(c.check)) + " -> " + std::string(checkIdName(d.check))];
      }
    }
  }
  for (const auto& c : corruptions()) {
    EXPECT_GT(killed[c.check], 0) << checkIdName(c.check) << " never applied: the generated programs lack its place";
  }
  std::cout << "kill matrix over " << generated.size() << " programs:";
  for (const auto& [check, n] : killed) std::cout << " " << checkIdName(check) << "=" << n;
  std::cout << "\nlater diagnostics of other ids:";
  for (const auto& [pair, n] : collateral) std::cout << " [" << pair << "]=" << n;
  std::cout << "\n";
}

// D6 corrupts one copy of a program again and again (Note [Corruptions undone]): every
// corruption, applied in a random order to a copy on which others were applied and undone,
// is still reported first with its own check id, and after its undo the copy is the
// program again, to programDiff and to the printer (names, order and attributes alike).
TEST(Corruptions, EachIsUndoneOnOneCopy) {
  const auto generated = programs();
  SeededSource random(11);
  std::map<CheckId, int> undone;
  for (const auto& original : generated) {
    ExportedProgram work = original.clone();
    CorruptionUndo undo(work, original);
    const std::string before = printProgramText(original);
    std::vector<const Corruption*> order;
    for (const auto& c : corruptions()) order.push_back(&c);
    for (int round = 0; round < 2; ++round) {  // every corruption twice, in two orders
      for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[random.below(i)]);
      for (const Corruption* c : order) {
        if (!c->apply(work, random)) continue;
        auto ds = verify(work);
        ASSERT_FALSE(ds.empty()) << checkIdName(c->check) << " went unnoticed after earlier undos";
        ASSERT_EQ(checkIdName(ds[0].check), checkIdName(c->check)) << ds[0].str();
        undo.undo(*c);
        ASSERT_EQ(programDiff(work, original), "") << checkIdName(c->check) << " was not undone";
        ASSERT_EQ(printProgramText(work), before) << checkIdName(c->check) << " was not undone";
        ++undone[c->check];
      }
    }
  }
  for (const auto& c : corruptions()) {
    EXPECT_GT(undone[c.check], 0) << checkIdName(c.check) << " never applied";
  }
}

// A program that already has attributes under the names corruptions use for theirs: a
// corruption adds its own beside them, and its undo gives the program's back unchanged.
TEST(Corruptions, TheProgramsOwnAttributesSurvive) {
  auto generated = programs();
  SeededSource random(13);
  int applied = 0;
  for (auto& original : generated) {
    for (const char* name : {"corrupt_subgraph", "corrupt_weight", "corrupt_linear", "corrupt_lowered"}) {
      Attribute a;
      a.kind = Attribute::Kind::Module;
      a.text = std::string("the program's own ") + name;
      original.graph().attributes()[name] = std::move(a);
    }
    ASSERT_TRUE(verify(original).empty()) << printProgramText(original);
    ExportedProgram work = original.clone();
    CorruptionUndo undo(work, original);
    for (const auto& c : corruptions()) {
      if (!c.apply(work, random)) continue;
      ++applied;
      for (const char* name : {"corrupt_subgraph", "corrupt_weight", "corrupt_linear", "corrupt_lowered"}) {
        const Attribute* a = work.graph().attribute(name);
        ASSERT_TRUE(a && a->text == std::string("the program's own ") + name)
            << checkIdName(c.check) << " replaced " << name;
      }
      auto ds = verify(work);
      ASSERT_FALSE(ds.empty());
      ASSERT_EQ(checkIdName(ds[0].check), checkIdName(c.check)) << ds[0].str();
      undo.undo(c);
      ASSERT_EQ(programDiff(work, original), "") << checkIdName(c.check) << " was not undone";
    }
  }
  EXPECT_GT(applied, 100);
}

}  // namespace
}  // namespace epsmith
