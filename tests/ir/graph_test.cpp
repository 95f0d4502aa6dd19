// The graph editing API: insertion, unique names, replacing uses, erasing, order checks and
// deep copies, on programs written in the text form.
#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <map>
#include <cmath>
#include <limits>
#include <random>
#include <type_traits>

#include "formats/text_format.h"
#include "ir/inline_vector.h"
#include "ir/meta.h"
#include "ops/op_registry.h"
#include "ops/targets.h"
#include "tests/support/program_text.h"

namespace epsmith {
namespace {

using test::parse;

std::string graphText(const Graph& g) {
  std::string out;
  for (const auto& n : g.nodes()) out += formatNode(n) + "\n";
  return out;
}

constexpr const char* kChain = R"EPT(graph {
  %x: f32[2] = placeholder
  %relu: f32[2] = aten::relu(%x)
  %neg: f32[2] = aten::neg(%relu)
  return (%neg)
})EPT";

TEST(GraphEditing, InsertBeforeAndRewireGivesTheDocumentedResult) {
  auto p = parse(kChain);
  Graph& g = p.graph();
  Node* relu = g.find("relu");
  Node* neg = g.find("neg");
  // Insert %relu_1 = aten::relu(%relu) before %neg and make %neg read it.
  Node* again = g.insertBefore(neg, OpKind::CallFunction, "relu");
  EXPECT_EQ(again->name(), "relu_1");
  again->target = Target::aten(findOpByName("aten::relu"));
  again->args = {arg::Tensor{relu}};
  again->meta.val = relu->meta.val;
  neg->args[0] = arg::Tensor{again};
  EXPECT_EQ(graphText(g),
            "%x: f32[2] = placeholder\n"
            "%relu: f32[2] = aten::relu(%x)\n"
            "%relu_1: f32[2] = aten::relu(%relu)\n"
            "%neg: f32[2] = aten::neg(%relu_1)\n"
            "return (%neg)\n");
  EXPECT_EQ(g.firstOutOfOrderUse(), nullptr);
}

TEST(GraphEditing, ReplaceAllUsesThenEraseRemovesANode) {
  auto p = parse(kChain);
  Graph& g = p.graph();
  Node* x = g.find("x");
  Node* relu = g.find("relu");
  EXPECT_EQ(g.users(relu), std::vector<Node*>{g.find("neg")});
  EXPECT_EQ(g.replaceAllUsesWith(relu, x), 1u);
  EXPECT_TRUE(g.users(relu).empty());
  g.erase(relu);
  EXPECT_EQ(g.find("relu"), nullptr);
  EXPECT_EQ(graphText(g), "%x: f32[2] = placeholder\n%neg: f32[2] = aten::neg(%x)\nreturn (%neg)\n");
  // The freed name can be taken again.
  EXPECT_EQ(g.uniqueName("relu"), "relu");
}

TEST(GraphEditing, RenameKeepsNamesUnique) {
  auto p = parse(kChain);
  Graph& g = p.graph();
  EXPECT_EQ(g.rename(g.find("neg"), "relu"), "relu_1");
  EXPECT_EQ(g.rename(g.find("relu_1"), "relu_1"), "relu_1");
  EXPECT_EQ(g.rename(g.find("relu"), "y"), "y");
  EXPECT_NE(g.find("y"), nullptr);
  EXPECT_EQ(g.uniqueName("relu"), "relu");
}

TEST(GraphEditing, AppendAfterTheOutputIsAnOrderProblemTheGraphCanHold) {
  auto p = parse(kChain);
  Graph& g = p.graph();
  Node* late = g.append(OpKind::CallFunction, "late");
  late->target = Target::aten(findOpByName("aten::neg"));
  late->args = {arg::Tensor{g.find("x")}};
  EXPECT_EQ(g.outputNode(), nullptr);  // the output is no longer last
  g.find("neg")->args[0] = arg::Tensor{late};
  EXPECT_EQ(g.firstOutOfOrderUse(), g.find("neg"));
}

TEST(GraphEditing, InsertAfterPlacesTheNodeRightAfter) {
  auto p = parse(kChain);
  Graph& g = p.graph();
  Node* n = g.insertAfter(g.find("x"), OpKind::Placeholder, "y");
  EXPECT_EQ(g.find("x")->next(), n);
  EXPECT_EQ(n->next(), g.find("relu"));
  EXPECT_EQ(n->prev(), g.find("x"));
  EXPECT_EQ(g.placeholders().size(), 2u);
}

TEST(GraphEditing, CloneIsDeepAndRemapsReferences) {
  auto p = parse(R"EPT(graph {
  %pred: b8[] = placeholder
  %x: f32[2] = placeholder
  %t = get_attr("true_graph_0")
  %f = get_attr("false_graph_0")
  %cond: (f32[2],) = higher_order.cond(%pred, graph(%t), graph(%f), [%x])
  %getitem: f32[2] = operator.getitem(%cond, 0)
  return (%getitem)
  attr "false_graph_0" = graph {
    %a: f32[2] = placeholder
    %neg: f32[2] = aten::neg(%a)
    return (%neg)
  }
  attr "true_graph_0" = graph {
    %a: f32[2] = placeholder
    %relu: f32[2] = aten::relu(%a)
    return (%relu)
  }
})EPT");
  ExportedProgram copy = p.clone();
  EXPECT_EQ(printProgramText(copy), printProgramText(p));
  const Node* cond = copy.graph().find("cond");
  EXPECT_EQ(cond->args[1].get<arg::Graph>()->node, copy.graph().find("t"));
  EXPECT_NE(cond->args[1].get<arg::Graph>()->node, p.graph().find("t"));
  // Editing the copy leaves the original alone.
  copy.graph().attributes().erase("true_graph_0");
  EXPECT_NE(p.graph().attribute("true_graph_0"), nullptr);
  EXPECT_EQ(p.graph().attribute("true_graph_0")->subgraph->size(), 3u);
}

// Note [Ops found by name without allocating]: every spelling of an op finds the one
// OpInfo (callers compare ops by address), whichever spelling came first.
TEST(OpRegistry, EverySpellingOfAnOpFindsTheSameOpInfo) {
  const OpInfo* relu = findOpByName("aten::relu.");  // first in this test; maybe not in the binary
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(findOpByName("aten::relu"), relu);
  EXPECT_EQ(findOpByName("aten::relu.default"), relu);
  EXPECT_EQ(findOp("aten::relu", ""), relu);
  EXPECT_EQ(findOp("aten::relu", "default"), relu);
  EXPECT_EQ(relu->name(), "aten::relu");
  EXPECT_EQ(relu->exportName(), "torch.ops.aten.relu.default");
  const OpInfo* mul = findOp("aten::mul", "Tensor");
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(findOpByName("aten::mul.Tensor"), mul);
  EXPECT_EQ(mul->name(), "aten::mul.Tensor");
  EXPECT_EQ(mul->exportName(), "torch.ops.aten.mul.Tensor");
  EXPECT_EQ(findOp("aten::mul", "NoSuchOverload"), nullptr);
  EXPECT_EQ(findOp("aten::mul", "NoSuchOverload"), nullptr);  // the negative entry, kept
  EXPECT_EQ(findOpByName("relu"), nullptr);
}

// Op indices are dense and distinct, so a PerOpMemo holds one slot per op; it computes a
// value once per op, and a computation may consult the memo about another op.
TEST(OpRegistry, IndicesAreDenseAndAMemoComputesOncePerOp) {
  const auto& all = allOps();
  std::vector<bool> seen(all.size());
  for (const OpInfo* op : all) {
    ASSERT_LT(op->index, all.size()) << op->name();
    EXPECT_FALSE(seen[op->index]) << op->name() << " shares its index";
    seen[op->index] = true;
  }
  const OpInfo* relu = findOpByName("aten::relu");
  const OpInfo* relu_ = findOpByName("aten::relu_");
  ASSERT_TRUE(relu && relu_);
  PerOpMemo<std::string> memo;
  int computed = 0;
  std::function<std::string(const OpInfo&)> describe = [&](const OpInfo& op) {
    return memo.get(op, [&] {
      ++computed;
      // The in-place op's answer asks for the functional one's (a later index, maybe).
      return &op == relu_ ? describe(*relu) + "_" : op.name();
    });
  };
  EXPECT_EQ(describe(*relu_), "aten::relu_");
  EXPECT_EQ(computed, 2);
  EXPECT_EQ(describe(*relu), "aten::relu");
  EXPECT_EQ(describe(*relu_), "aten::relu_");
  EXPECT_EQ(computed, 2);
}

// The readers' first try: an op already resolved, by its own name or its export name,
// and nothing for other spellings (those go through Target::parse's checks).
TEST(OpRegistry, AResolvedOpIsFoundByEitherOfItsExactSpellings) {
  const OpInfo* mul = findOp("aten::mul", "Tensor");
  const OpInfo* relu = findOp("aten::relu", "");
  ASSERT_TRUE(mul && relu);
  for (const OpInfo* op : {mul, relu}) {
    EXPECT_EQ(findResolvedOp(op->name()), op);
    EXPECT_EQ(findResolvedOp(op->exportName()), op);
  }
  EXPECT_EQ(findResolvedOp("aten::relu.default"), nullptr);  // another spelling
  EXPECT_EQ(findResolvedOp("aten::relu."), nullptr);
  EXPECT_EQ(findResolvedOp("torch.ops.aten.relu"), nullptr);
  EXPECT_EQ(findResolvedOp("aten::mul.NoSuchOverload"), nullptr);
  EXPECT_EQ(findResolvedOp(""), nullptr);
  EXPECT_EQ(parseTarget("aten::relu.default").value(), Target::aten(relu));  // still read by the parser
}

// Each thread remembers the ops it resolved last (Note [Spellings remembered per thread]):
// a table of 1 024 slots that every op of the dispatcher's 3 000 and more shares, so
// spellings collide. Asked twice, in both spellings, every op comes back as itself, and
// spellings of no op find nothing, before and after the table is full.
TEST(OpRegistry, EveryOpIsFoundByItsSpellingsAgainAndAgain) {
  const auto& ops = allOps();
  ASSERT_GT(ops.size(), 2048u);
  for (int round = 0; round < 2; ++round) {
    for (const OpInfo* op : ops) {
      ASSERT_EQ(findResolvedOp(op->name()), op) << op->name();
      ASSERT_EQ(findResolvedOp(op->exportName()), op) << op->exportName();
      ASSERT_EQ(findOpByName(op->name()), op) << op->name();
      ASSERT_EQ(findOp(op->qualified_name, op->overload), op) << op->name();
    }
    EXPECT_EQ(findResolvedOp("aten::relu.default"), nullptr);
    EXPECT_EQ(findResolvedOp("torch.ops.aten.relu"), nullptr);
    EXPECT_EQ(findOpByName("aten::no_such_op"), nullptr);
    EXPECT_EQ(findOp("aten::mul", "NoSuchOverload"), nullptr);
  }
  // Other spellings of one op still find it, not another op that shares its slot.
  EXPECT_EQ(findOpByName("aten::relu.default"), findOp("aten::relu", ""));
  EXPECT_EQ(findOp("aten::relu", "default"), findOp("aten::relu", ""));
}

TEST(OpRegistry, SchemasComeFromTheDispatcher) {
  const OpInfo* add_ = findOpByName("aten::add_.Tensor");
  ASSERT_NE(add_, nullptr);
  EXPECT_TRUE(add_->is_mutable);
  EXPECT_TRUE(add_->arguments[0].is_write);
  EXPECT_TRUE(add_->arguments[2].kwarg_only);
  EXPECT_TRUE(add_->arguments[2].has_default);
  EXPECT_EQ(add_->arguments[2].type, ParamType::Scalar);
  EXPECT_EQ(add_->exportName(), "torch.ops.aten.add_.Tensor");
  const OpInfo* view = findOpByName("aten::view");
  ASSERT_NE(view, nullptr);
  EXPECT_FALSE(view->is_mutable);
  EXPECT_TRUE(view->returns[0].is_alias);
  EXPECT_EQ(view->arguments[1].type, ParamType::SymIntList);
  EXPECT_EQ(findOpByName("aten::relu")->overload, "");
  EXPECT_EQ(findOp("aten::relu", "default"), findOpByName("aten::relu"));
  EXPECT_EQ(findOpByName("aten::no_such_op"), nullptr);
  // LibTorch 1.13 registers about 3200 schemas.
  EXPECT_GT(allOps().size(), 2500u);
}

TEST(Targets, EverySpellingResolves) {
  EXPECT_EQ(parseTarget("torch.ops.aten.add.Tensor")->op(), findOpByName("aten::add.Tensor"));
  EXPECT_EQ(parseTarget("torch.ops.aten.relu.default")->op(), findOpByName("aten::relu"));
  EXPECT_EQ(parseTarget("_operator.getitem")->builtinOp(), BuiltinOp::GetItem);
  EXPECT_EQ(parseTarget("operator.getitem")->builtinOp(), BuiltinOp::GetItem);
  EXPECT_EQ(parseTarget("builtins.round")->builtinOp(), BuiltinOp::Round);
  EXPECT_EQ(parseTarget("math.trunc")->textName(), "math.trunc");
  EXPECT_EQ(parseTarget("torch.sym_max")->kind(), Target::Kind::TorchFunction);
  EXPECT_EQ(parseTarget("torch.ops.higher_order.cond")->textName(), "higher_order.cond");
  EXPECT_EQ(parseTarget("operator.matmul")->kind(), Target::Kind::Other);
  auto nope = parseTarget("torch.ops.aten.nope.default");
  ASSERT_FALSE(nope);
  EXPECT_EQ(nope.error().message, "unknown operator aten::nope");
  EXPECT_FALSE(parseTarget("aten::add..x"));
  EXPECT_FALSE(parseTarget("not a name"));
  for (int i = 0; i < kNumBuiltinOps; ++i) {
    auto op = static_cast<BuiltinOp>(i);
    EXPECT_EQ(parseTarget(std::string(builtinExportName(op)))->builtinOp(), op);
  }
  for (int i = 0; i < kNumTorchFunctions; ++i) {
    auto fn = static_cast<TorchFunction>(i);
    EXPECT_EQ(parseTarget(std::string(torchFunctionName(fn)))->torchFunctionId(), fn);
  }
}

}  // namespace
}  // namespace epsmith

namespace epsmith {
namespace {

// The name table against a plain map under a seeded mix of adds and removes of names that
// collide in their probe runs (many short names in a small table).
TEST(NameTable, AgreesWithAReferenceMapUnderAddsAndRemoves) {
  NameTable table;
  std::map<std::string, size_t> reference;
  std::deque<std::string> owners;  // stable characters for the table's views
  uint64_t state = 12345;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (int step = 0; step < 20000; ++step) {
    const std::string name = "n" + std::to_string(next() % 300);
    if (next() % 3 != 0) {
      owners.push_back(name);
      EXPECT_EQ(table.add(owners.back()), ++reference[name]);
    } else if (reference.count(name)) {
      size_t left = table.remove(name);
      if (--reference[name] == 0) reference.erase(name);
      EXPECT_EQ(left, reference.count(name) ? reference[name] : 0u);
    }
    if (step % 997 == 0) {
      for (int k = 0; k < 300; ++k) {
        const std::string probe = "n" + std::to_string(k);
        ASSERT_EQ(table.count(probe), reference.count(probe) ? reference[probe] : 0u) << probe;
      }
    }
  }
}

TEST(NameTable, GraphKeepsDuplicateNamesCountedAcrossEraseAndRename) {
  Graph g;
  Node* a = g.appendRaw(OpKind::Placeholder, "x");
  Node* b = g.appendRaw(OpKind::Placeholder, "x");
  EXPECT_TRUE(g.hasDuplicateNames());
  g.erase(a);  // the table's key may have viewed a's name: it must move to b's
  EXPECT_FALSE(g.hasDuplicateNames());
  EXPECT_TRUE(g.hasName("x"));
  EXPECT_EQ(g.uniqueName("x"), "x_1");
  g.rename(b, "y");
  EXPECT_FALSE(g.hasName("x"));
  EXPECT_TRUE(g.hasName("y"));
  EXPECT_EQ(g.uniqueName("x"), "x");
}

}  // namespace
}  // namespace epsmith

namespace epsmith {
namespace {

// Note [Sizes kept inline]: an InlineVector does what a std::vector does under the same
// edits, whether its elements sit inline or have moved to the heap, and copies and moves
// leave the source as std::vector's would (a moved-from vector empty).
TEST(InlineVector, EditsAsStdVectorDoes) {
  std::mt19937 random(5);
  for (int trial = 0; trial < 200; ++trial) {
    InlineVector<int64_t, 3> v;
    std::vector<int64_t> expected;
    for (int step = 0; step < 40; ++step) {
      const int64_t x = static_cast<int64_t>(random() % 100);
      switch (random() % 9) {
        case 0:
        case 1:
          v.push_back(x);
          expected.push_back(x);
          break;
        case 2:
          v.emplace_back(x);
          expected.emplace_back(x);
          break;
        case 3:
          if (!expected.empty()) {
            v.pop_back();
            expected.pop_back();
          }
          break;
        case 4: {
          const size_t at = expected.empty() ? 0 : random() % (expected.size() + 1);
          v.insert(v.begin() + at, x);
          expected.insert(expected.begin() + static_cast<std::ptrdiff_t>(at), x);
          break;
        }
        case 5:
          if (!expected.empty()) {
            const size_t at = random() % expected.size();
            v.erase(v.begin() + at);
            expected.erase(expected.begin() + static_cast<std::ptrdiff_t>(at));
          }
          break;
        case 6: {
          const size_t n = random() % 8;
          v.resize(n, x);
          expected.resize(n, x);
          break;
        }
        case 7: {  // copy, then move, through both constructors and assignments
          InlineVector<int64_t, 3> copy(v);
          InlineVector<int64_t, 3> moved(std::move(copy));
          EXPECT_TRUE(copy.empty());
          InlineVector<int64_t, 3> assigned;
          assigned = moved;
          v = std::move(assigned);
          EXPECT_TRUE(assigned.empty());
          break;
        }
        default: {
          std::vector<int64_t> source(random() % 7, x);
          v.assign(source.begin(), source.end());
          expected = source;
        }
      }
      ASSERT_EQ(std::vector<int64_t>(v.begin(), v.end()), expected) << "trial " << trial << " step " << step;
      ASSERT_EQ(v.size(), expected.size());
      ASSERT_GE(v.capacity(), v.size());
    }
    EXPECT_TRUE((v == InlineVector<int64_t, 3>(expected.begin(), expected.end())));
  }
  // An element of its own as the fill of a resize that moves it to a bigger block.
  InlineVector<int64_t, 2> heap{7, 8, 9};
  heap.resize(100, heap[0]);
  EXPECT_EQ(heap[99], 7);
  heap.assign(300, heap[1]);
  EXPECT_EQ(heap[299], 8);
  InlineVector<int64_t, 3> a{1, 2, 3, 4}, b{1, 2, 3};
  EXPECT_NE(a, b);
  b.push_back(a[1]);  // an element of its own pushed as it grows: a copy is taken first
  b.push_back(b[0]);
  EXPECT_EQ(std::vector<int64_t>(b.begin(), b.end()), (std::vector<int64_t>{1, 2, 3, 2, 1}));
}

// A symbolic size is an interned expression: equal expressions share one copy, copies of a
// SymIntValue are its bytes, and a TensorMeta holding some compares by the expressions.
TEST(InlineVector, SymbolicSizesAreInterned) {
  static_assert(std::is_trivially_copyable_v<SymIntValue>, "copied as bytes");
  SymIntValue a(SymExpr{"s0 + 1", std::variant<int64_t, bool, double>(int64_t{3})});
  SymIntValue b(SymExpr{"s0 + 1", std::variant<int64_t, bool, double>(int64_t{3})});
  SymIntValue c(SymExpr{"s0 + 1", std::nullopt});
  EXPECT_EQ(&a.expr(), &b.expr());
  EXPECT_NE(&a.expr(), &c.expr());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, SymIntValue(3));
  TensorMeta m = TensorMeta::contiguous(ScalarType::Float, {2, 3, 4, 5, 6, 7});  // past the inline rank
  ASSERT_GT(m.sizes.size(), kInlineRank);
  m.sizes[0] = a;
  TensorMeta copy = m;
  EXPECT_EQ(copy, m);
  EXPECT_EQ(copy.sizes[0].expr().expr, "s0 + 1");
  copy.sizes[0] = c;
  EXPECT_NE(copy, m);
  // Interned by spelling, to the bit: -0.0 is not 0.0, and a NaN hint is one expression.
  using Hint = std::variant<int64_t, bool, double>;
  const SymIntValue zero(SymExpr{"s1", Hint(0.0)}), negative_zero(SymExpr{"s1", Hint(-0.0)});
  EXPECT_NE(&zero.expr(), &negative_zero.expr());
  EXPECT_TRUE(std::signbit(std::get<double>(*negative_zero.expr().hint)));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(&SymIntValue(SymExpr{"s2", Hint(nan)}).expr(), &SymIntValue(SymExpr{"s2", Hint(nan)}).expr());
}

}  // namespace
}  // namespace epsmith
