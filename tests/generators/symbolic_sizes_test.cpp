// Generated programs with symbolic sizes (Note [Symbolic sizes of generated programs]),
// checked against eager runs at every size of their range: the expressions the generator
// writes must be the geometry LibTorch computes there.
#include "generators/symbolic_sizes.h"

#include <gtest/gtest.h>

#include <ATen/core/Tensor.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "formats/json_format.h"
#include "formats/text_format.h"
#include "functionalizer/functionalize.h"
#include "generators/graph_generator.h"
#include "ir/grad_regions.h"
#include "ir/subgraphs.h"
#include "oracle/aten_bridge.h"
#include "oracle/compare.h"
#include "oracle/libtorch_compat.h"
#include "oracle/run.h"
#include "tests/support/program_text.h"
#include "verifier/verifier.h"

namespace epsmith {
namespace {

const OpCatalog& catalog() {
  static const OpCatalog c = OpCatalog::build().value();
  return c;
}

GeneratorConfig symbolic(uint32_t percent = 100) {
  GeneratorConfig config;
  config.symbolic_size_percent = percent;
  return config;
}

bool hasSymbolicSize(const TensorMeta& t) {
  return std::any_of(t.sizes.begin(), t.sizes.end(), [](const SymIntValue& s) { return !s.isConcrete(); });
}

// An affine expression in sympy's repr (Symbol, Mul(Integer(a), ·), Add(·, Integer(b)))
// at s0 = `s`, read independently of the generator's writer.
int64_t evalAffine(const std::string& e, int64_t s) {
  auto inner = [&](size_t prefix) { return e.substr(prefix, e.size() - prefix - 1); };
  if (e.rfind("Symbol('s0'", 0) == 0) return s;
  if (e.rfind("Mul(Integer(", 0) == 0) {
    const std::string rest = inner(4);
    const size_t comma = rest.find("), ");
    return std::stoll(rest.substr(8, comma - 8)) * evalAffine(rest.substr(comma + 3), s);
  }
  if (e.rfind("Add(", 0) == 0) {
    const std::string rest = inner(4);
    const size_t last = rest.rfind(", Integer(");
    const std::string b = rest.substr(last + 10, rest.size() - last - 11);
    return evalAffine(rest.substr(0, last), s) + std::stoll(b);
  }
  ADD_FAILURE() << "not an affine expression of s0: " << e;
  return -1;
}

int64_t at(const SymIntValue& v, int64_t s) { return v.isConcrete() ? v.concrete() : evalAffine(v.expr().expr, s); }

// The example size of s0 (a placeholder's hint).
int64_t exampleSize(const ExportedProgram& p) {
  for (const Node& n : p.graph().nodes()) {
    const TensorMeta* t = n.meta.val.tensor();
    if (n.op() != OpKind::Placeholder || !t) continue;
    for (const auto& size : t->sizes) {
      if (!size.isConcrete()) return std::get<int64_t>(*size.expr().hint);
    }
  }
  ADD_FAILURE() << "no placeholder is symbolic";
  return 0;
}

// Runs `p` eagerly with s0 = `size` and expects every call's tensor to have the sizes its
// meta gives at that size, and for `p` as generated (RunMode::Eager) its strides and
// offset too (a functionalized program's computed values have strides of the kernels'
// choosing, which its meta does not promise).
RunResult runAtSize(const ExportedProgram& p, int64_t size, RunMode mode = RunMode::Eager) {
  ExportedProgram q = p.clone();
  const auto error = resizeInputs(q, kGeneratedSymbol, size);
  EXPECT_FALSE(error) << *error;
  RunOptions options(mode);
  options.observe_untaken = true;  // a cond's other branch, a loop body run no times
  int checked = 0;
  options.observe = [&](const Node& n, const c10::IValue& v) {
    if (const auto* read = n.meta.val.get<Val::SymInt>()) {  // Note [Sizes read as values]
      ASSERT_TRUE(v.isInt()) << n.name();
      EXPECT_EQ(v.toInt(), evalAffine(read->expr.expr, size)) << "%" << n.name() << ": " << read->expr.expr;
      ++checked;
      return;
    }
    const TensorMeta* meta = n.meta.val.tensor();
    if (!meta || !v.isTensor()) return;
    const at::Tensor t = v.toTensor();
    ASSERT_EQ(static_cast<size_t>(t.dim()), meta->sizes.size()) << n.name();
    for (size_t d = 0; d < meta->sizes.size(); ++d) {
      EXPECT_EQ(t.size(static_cast<int64_t>(d)), at(meta->sizes[d], size)) << "%" << n.name() << " dim " << d;
      if (mode == RunMode::Eager && t.size(static_cast<int64_t>(d)) > 1) {
        EXPECT_EQ(t.stride(static_cast<int64_t>(d)), at(meta->strides[d], size)) << "%" << n.name() << " dim " << d;
      }
    }
    if (mode == RunMode::Eager) {
      EXPECT_EQ(t.storage_offset(), at(meta->storage_offset, size)) << "%" << n.name();
    }
    ++checked;
  };
  RunResult r = runProgram(q, options);
  EXPECT_TRUE(r.ok()) << "at s0 = " << size << ": " << r.error->str();
  return r;
}

// The programs of seeds 1 to 40 made symbolic with `symbolic-size 100`, each with its seed.
std::vector<std::pair<uint64_t, ExportedProgram>> symbolicPrograms() {
  std::vector<std::pair<uint64_t, ExportedProgram>> out;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    SeededSource random(seed);
    auto generated = generateProgram(catalog(), symbolic(), random);
    EXPECT_TRUE(generated.ok());
    if (generated.ok() && generated.value().range_constraints.count(kGeneratedSymbol))
      out.emplace_back(seed, std::move(generated.value()));
  }
  return out;
}

// At the range's lower edge, the example size and the upper edge (or two past the example
// where the range is open), each call's sizes, strides and offset are what its expressions
// say, and no size is under 2; above a closed range the run refuses the inputs, naming
// the range.
TEST(SymbolicSizes, ValuesFollowTheSymbolAcrossItsRange) {
  int made = 0, bounded = 0, below_example = 0, derived = 0, in_regions = 0;
  for (const auto& [seed, p] : symbolicPrograms()) {
    auto range = p.range_constraints.find(kGeneratedSymbol);
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + printProgramText(p));
    ++made;
    EXPECT_TRUE(verify(p, *findDialect("TRAINING")).empty());
    const int64_t example = exampleSize(p);
    ASSERT_TRUE(range->second.min_val);
    const int64_t lo = *range->second.min_val;
    EXPECT_GE(lo, 2);
    EXPECT_LE(lo, example);
    below_example += lo < example;
    const int64_t top = range->second.max_val.value_or(example + 2);
    for (int64_t size : std::set<int64_t>{lo, example, top}) runAtSize(p, size);
    if (range->second.max_val) {
      ++bounded;
      ExportedProgram q = p.clone();
      ASSERT_FALSE(resizeInputs(q, kGeneratedSymbol, top + 1));
      RunResult above = runProgram(q, RunOptions(RunMode::Eager));
      ASSERT_FALSE(above.ok());
      EXPECT_NE(above.error->message.find("outside s0's range"), std::string::npos) << above.error->message;
    }
    for (const auto& [name, attr] : p.graph().attributes()) {
      if (!attr.subgraph) continue;
      for (const Node& n : attr.subgraph->nodes())
        in_regions += n.meta.val.tensor() && hasSymbolicSize(*n.meta.val.tensor());
    }
    for (const Node& n : p.graph().nodes()) {
      const TensorMeta* t = n.meta.val.tensor();
      if (n.op() != OpKind::CallFunction || !t) continue;
      for (const auto& stride : t->strides) derived += !stride.isConcrete() && !soleSymbol(stride.expr().expr);
      for (const auto& size : t->sizes) {
        if (size.isConcrete()) continue;
        derived += !soleSymbol(size.expr().expr).has_value();
        // export specializes sizes of 0 and 1: no range lets a size that follows s0 reach them
        EXPECT_GE(evalAffine(size.expr().expr, lo), 2) << "%" << n.name() << ": " << size.expr().expr;
      }
    }
  }
  EXPECT_GE(made, 12) << "of 60 programs";
  EXPECT_GT(bounded, 0);
  EXPECT_GT(below_example, 0);
  EXPECT_GT(derived, 0) << "no size or stride is an expression other than s0 itself";
  EXPECT_GT(in_regions, 0) << "no value inside a grad or autocast region follows s0";
}

// The symbolic programs read back from their text and JSON as they were, and where the
// functionalizer takes them, their functional form computes what eager does at another
// size of the range, as D1 runs it in a campaign's case.
TEST(SymbolicSizes, ReadBackAndFunctionalizeLikeEagerAtOtherSizes) {
  int made = 0, functionalized = 0;
  for (const auto& [seed, p] : symbolicPrograms()) {
    auto range = p.range_constraints.find(kGeneratedSymbol);
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + printProgramText(p));
    ++made;
    auto json = writeProgramJson(p);
    ASSERT_TRUE(json.ok());
    for (const auto& back : {parseProgramText(printProgramText(p)), readProgramJson(json.value())}) {
      ASSERT_TRUE(back.ok()) << back.error().str();
      EXPECT_EQ(printProgramText(back.value()), printProgramText(p));
      EXPECT_EQ(back.value().range_constraints.at(kGeneratedSymbol).min_val, range->second.min_val);
      EXPECT_EQ(back.value().range_constraints.at(kGeneratedSymbol).max_val, range->second.max_val);
    }
    auto f = functionalize(p);
    if (!f.ok()) continue;
    ++functionalized;
    const int64_t other = exampleSize(p) + 1;
    const RunResult eager = runAtSize(p, other);
    const RunResult functional = runAtSize(f.value(), other, RunMode::Exported);
    Verdict v = compareResults(eager, functional);
    EXPECT_TRUE(v.match()) << verdictKindName(v.kind) << " at " << v.where << "\n" << v.report;
  }
  EXPECT_GE(made, 12);
  EXPECT_GE(functionalized, made / 2) << "of " << made << " symbolic programs";
}

// Higher-order ops run their subgraphs on their operands, and a run observes every
// subgraph's values (a cond's branch not taken and a loop body that runs no iteration
// once more: Note [Subgraphs observed where they do not run]): with conds, while loops,
// maps and scans drawn often, programs that have them are made symbolic too, the values
// inside their subgraphs following the symbol where the operands do. At the range's edges
// and the example each call's metadata (every subgraph's, the branches not taken
// included) is what its expressions say, and where the functionalizer takes the program
// its functional form computes what eager does at another size.
TEST(SymbolicSizes, HigherOrderOpsFollowTheSymbolInsideTheirSubgraphs) {
  GeneratorConfig config = symbolic();
  for (NodeSource source : {NodeSource::Cond, NodeSource::WhileLoop, NodeSource::Map, NodeSource::Scan})
    config.source_weights[static_cast<size_t>(source)] = 6;
  std::map<std::string, int> made;  // higher-order op → symbolic programs that call it
  int inside = 0, functionalized = 0, programs = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    SeededSource random(seed);
    auto generated = generateProgram(catalog(), config, random);
    ASSERT_TRUE(generated.ok()) << generated.error().str();
    const ExportedProgram& p = generated.value();
    auto range = p.range_constraints.find(kGeneratedSymbol);
    if (range == p.range_constraints.end()) continue;
    std::set<std::string> hops;
    forEachGraph(p.graph(), [&](const Graph& g) {
      for (const Node& n : g.nodes()) {
        if (n.target.kind() == Target::Kind::HigherOrder) hops.insert(std::string(n.target.name()));
      }
    });
    if (hops.empty()) continue;
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + printProgramText(p));
    ++programs;
    for (const auto& hop : hops) ++made[hop];
    EXPECT_TRUE(verify(p, *findDialect("TRAINING")).empty());
    const int64_t example = exampleSize(p);
    const int64_t lo = *range->second.min_val;
    for (int64_t size : std::set<int64_t>{lo, example, range->second.max_val.value_or(example + 2)}) runAtSize(p, size);
    for (const auto& [name, attr] : p.graph().attributes()) {
      if (!attr.subgraph) continue;
      forEachGraph(*attr.subgraph, [&](const Graph& g) {
        for (const Node& n : g.nodes()) inside += n.meta.val.tensor() && hasSymbolicSize(*n.meta.val.tensor());
      });
    }
    auto f = functionalize(p);
    if (!f.ok()) continue;
    ++functionalized;
    const RunResult eager = runAtSize(p, example + 1);
    const RunResult functional = runAtSize(f.value(), example + 1, RunMode::Exported);
    Verdict v = compareResults(eager, functional);
    EXPECT_TRUE(v.match()) << verdictKindName(v.kind) << " at " << v.where << "\n" << v.report;
  }
  for (const char* hop : {"cond", "while_loop", "map_impl"}) EXPECT_GE(made[hop], 2) << hop << ", of 60 programs";
  EXPECT_GT(inside, 0) << "no value inside a subgraph follows s0";
  EXPECT_GE(functionalized, programs / 2) << "of " << programs << " symbolic programs with a higher-order op";
}

// `x` of 4 rows (the only dimension of 2 or more), written by `write` before its result
// is returned: a program to make symbolic by hand.
ExportedProgram writesX(const std::string& write, const std::string& result) {
  return test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[4, 1] = placeholder
  %y: f32[1] = placeholder
  %w: )" + result + " = " +
                     write + R"(
  return (%w)
}
signature {
  input user_input %x
  input user_input %y
  output user_output %w
}
storages {
  $0: f32[4] = [1.0, -2.0, 3.0, -4.0]
  $1: f32[1] = [0.5]
}
example_inputs {
  $0 f32[4, 1]
  $1 f32[1]
}
)");
}

// An out= call that resizes a tensor whose size follows the symbol grows or shrinks it in
// place depending on the size, which no range expresses: such a program stays static,
// while the same write without a resize makes it symbolic.
TEST(SymbolicSizes, AResizeOfASymbolicTensorKeepsTheProgramStatic) {
  compat::WarningHandlerGuard quiet(silentWarningHandler());  // the resize's deprecation
  SeededSource random(1);
  ExportedProgram in_place = writesX("aten::abs.out(%x, out=%x)", "f32[4, 1]");
  addSymbolicSize(in_place, 100, random);
  EXPECT_EQ(in_place.range_constraints.count(kGeneratedSymbol), 1u) << printProgramText(in_place);
  ExportedProgram resized = writesX("aten::abs.out(%y, out=%x)", "f32[1]");
  ASSERT_TRUE(runProgram(resized, RunOptions(RunMode::Eager)).ok());
  addSymbolicSize(resized, 100, random);
  EXPECT_TRUE(resized.range_constraints.empty()) << printProgramText(resized);
}

// Whether `n` reads a size as a value (Note [Sizes read as values]): its value is a SymInt.
bool readsASize(const Node& n) { return n.meta.val.get<Val::SymInt>() != nullptr; }

// The symbol is the program's last draw: the same seed without it makes the same calls,
// but for the reads of the size it passes to them.
TEST(SymbolicSizes, DrawnLastSoTheCallsAreTheSame) {
  int differ = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SeededSource with(seed), without(seed);
    auto a = generateProgram(catalog(), symbolic(), with);
    auto b = generateProgram(catalog(), symbolic(0), without);
    ASSERT_TRUE(a.ok() && b.ok());
    std::vector<std::string> calls[2];
    for (int i = 0; i < 2; ++i) {
      for (const Node& n : (i ? b : a).value().graph().nodes()) {
        if (!readsASize(n)) calls[i].push_back(n.name() + " " + n.target.textName());
      }
    }
    EXPECT_EQ(calls[0], calls[1]) << "seed " << seed;
    differ += printProgramText(a.value()) != printProgramText(b.value());
  }
  EXPECT_GT(differ, 0) << "no program was made symbolic";
}

// A module passing its input's size on (a view to it, a tensor twice its length, a slice
// one short of it) reads it as export writes the read: one sym_size, arithmetic on it,
// and the calls taking those nodes; the values then follow the symbol at every size of
// the range, the reads' own values included (runAtSize), and the program reads back from
// its text and functionalizes to what eager computes at another size.
TEST(SymbolicSizes, SizesPassedOnAreReadAsValues) {
  SeededSource random(1);
  ExportedProgram p = test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[4, 1] = placeholder
  %view: f32[1, 4, 1] = aten::view(%x, [1, 4, 1])
  %new_zeros: f32[8] = aten::new_zeros(%x, [8])
  %slice: f32[3, 1] = aten::slice.Tensor(%x, 0, 0, 3)
  %sum: f32[] = aten::sum(%slice)
  %add: f32[8] = aten::add.Tensor(%new_zeros, %sum)
  return (%view, %add)
}
signature {
  input user_input %x
  output user_output %view
  output user_output %add
}
storages {
  $0: f32[4] = [1.0, -2.0, 3.0, -4.0]
}
example_inputs {
  $0 f32[4, 1]
}
)");
  addSymbolicSize(p, 100, random);
  const std::string text = printProgramText(p);
  SCOPED_TRACE(text);
  ASSERT_EQ(p.range_constraints.count(kGeneratedSymbol), 1u);
  EXPECT_NE(text.find("= aten::sym_size.int(%x, 0)"), std::string::npos);
  EXPECT_NE(text.find("aten::view(%x, sym_ints[1, %sym_size_int, 1])"), std::string::npos);
  EXPECT_NE(text.find("= operator.mul(sym_int(%sym_size_int), 2)"), std::string::npos);
  EXPECT_NE(text.find("= operator.sub(sym_int(%sym_size_int), 1)"), std::string::npos);
  EXPECT_TRUE(verify(p, *findDialect("TRAINING")).empty());
  const int64_t lo = *p.range_constraints.at(kGeneratedSymbol).min_val;
  EXPECT_EQ(lo, 3) << "s0 - 1 rows must stay 2 or more";
  for (int64_t size : {lo, int64_t{4}, int64_t{6}}) runAtSize(p, size);
  auto back = parseProgramText(text);
  ASSERT_TRUE(back.ok()) << back.error().str();
  EXPECT_EQ(printProgramText(back.value()), text);
  auto f = functionalize(p);
  ASSERT_TRUE(f.ok()) << f.error().str();
  Verdict v = compareResults(runAtSize(p, 6), runAtSize(f.value(), 6, RunMode::Exported));
  EXPECT_TRUE(v.match()) << verdictKindName(v.kind) << " at " << v.where << "\n" << v.report;
}

// Over many seeds, some symbolic programs read the size as a value, and those follow the
// symbol at their range's edges as every symbolic program does.
TEST(SymbolicSizes, GeneratedProgramsReadSizesAsValues) {
  int reading = 0;
  for (uint64_t seed = 1; seed <= 300 && reading < 6; ++seed) {
    SeededSource random(seed);
    auto generated = generateProgram(catalog(), symbolic(), random);
    ASSERT_TRUE(generated.ok());
    const ExportedProgram& p = generated.value();
    const auto& nodes = p.graph().nodes();
    if (std::none_of(nodes.begin(), nodes.end(), readsASize)) continue;
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + printProgramText(p));
    ++reading;
    EXPECT_TRUE(verify(p, *findDialect("TRAINING")).empty());
    const auto& range = p.range_constraints.at(kGeneratedSymbol);
    const int64_t example = exampleSize(p);
    for (int64_t size : std::set<int64_t>{*range.min_val, example, range.max_val.value_or(example + 2)})
      runAtSize(p, size);
  }
  EXPECT_GE(reading, 6) << "symbolic programs that read a size as a value, of 300 seeds";
}

// A case draws the size its checks run at from its seed: over many seeds, the range's
// edges and the example size each come up, and the inputs are resized to the size drawn.
TEST(SymbolicSizes, CasesDrawTheirSizeInsideTheRange) {
  SeededSource random(7);
  ExportedProgram p;
  for (uint64_t seed = 1;; ++seed) {
    SeededSource r(seed);
    p = std::move(generateProgram(catalog(), symbolic(), r).value());
    auto range = p.range_constraints.find(kGeneratedSymbol);
    if (range != p.range_constraints.end() && *range->second.min_val < exampleSize(p)) break;
    ASSERT_LT(seed, 100u) << "no symbolic program whose range starts below its example size";
  }
  const int64_t example = exampleSize(p);
  const int64_t lo = *p.range_constraints.at(kGeneratedSymbol).min_val;
  const int64_t top = p.range_constraints.at(kGeneratedSymbol).max_val.value_or(example + 2);
  std::set<int64_t> drawn;
  for (int i = 0; i < 60; ++i) {
    ExportedProgram q = p.clone();
    drawCaseSizes(q, random);
    RunResult r = runProgram(q, RunOptions(RunMode::Eager));
    EXPECT_TRUE(r.ok()) << r.error->str();
    int64_t size = -1;
    for (size_t in = 0; in < q.example_inputs.size(); ++in) {
      if (q.example_inputs[in].tensor.sizes != p.example_inputs[in].tensor.sizes) {
        size = -2;  // the resized input's size below
        for (size_t d = 0; d < q.example_inputs[in].tensor.sizes.size(); ++d) {
          if (q.example_inputs[in].tensor.sizes[d] != p.example_inputs[in].tensor.sizes[d])
            size = q.example_inputs[in].tensor.sizes[d];
        }
      }
    }
    drawn.insert(size == -1 ? example : size);
  }
  EXPECT_TRUE(drawn.count(lo) && drawn.count(example) && drawn.count(top)) << "lo " << lo << " top " << top;
  for (int64_t s : drawn) {
    EXPECT_GE(s, lo);
    EXPECT_LE(s, top);
  }
}

}  // namespace
}  // namespace epsmith
