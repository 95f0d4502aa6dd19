// The generator's higher-order sources (grad and autocast regions, conds, while loops,
// maps, scans): programs made as
// torch.export writes them verify, read back from text and JSON as they were, and where the
// native functionalizer takes them it computes what eager does.
#include <gtest/gtest.h>

#include <ATen/core/Tensor.h>

#include <functional>
#include <iostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "formats/json_format.h"
#include "formats/text_format.h"
#include "functionalizer/functionalize.h"
#include "fuzz/programs.h"
#include "generators/graph_generator.h"
#include "ir/grad_regions.h"
#include "ir/subgraphs.h"
#include "ops/op_roles.h"
#include "oracle/compare.h"
#include "oracle/run.h"
#include "tests/support/generator_config.h"
#include "verifier/verifier.h"

namespace epsmith {
namespace {

const OpCatalog& catalog() {
  static const OpCatalog c = OpCatalog::build().value();
  return c;
}

// A generated program with higher-order ops: it verifies, reads back from its text and its
// JSON as it was, and where the functionalizer takes it (a refusal is for an op it refuses
// anywhere, never a subgraph, whose calls are functional) its functional form computes
// what eager does. Whether it was functionalized.
bool roundTripsAndFunctionalizesLikeEager(const ExportedProgram& p, const RunResult& eager) {
  EXPECT_TRUE(verify(p, *findDialect("TRAINING")).empty());
  auto json = writeProgramJson(p);
  const Expected<ExportedProgram> read[] = {parseProgramText(printProgramText(p)),
                                            json.ok() ? readProgramJson(json.value()) : json.error()};
  for (const auto& back : read) {
    if (!back.ok()) {
      ADD_FAILURE() << back.error().str();
      return false;
    }
    EXPECT_EQ(printProgramText(back.value()), printProgramText(p));
    EXPECT_TRUE(compareResults(eager, runProgram(back.value(), RunOptions(RunMode::Eager))).match());
  }
  auto f = functionalize(p);
  if (!f.ok()) {
    EXPECT_EQ(f.error().str().find("subgraph"), std::string::npos) << f.error().str();
    return false;
  }
  Verdict v = compareResults(eager, runProgram(f.value(), RunOptions(RunMode::Exported)));
  EXPECT_TRUE(v.match()) << verdictKindName(v.kind) << " at " << v.where << "\n" << v.report;
  return true;
}

// A grad region as torch.export writes one: wrap_with_set_grad_enabled(False, subgraph,
// *operands), its calls drawn with grad mode off (so a parameter may be written there, as
// eager allows under no_grad). The programs verify and run, read back from their text as
// they were, and the functionalizer takes them, writes in regions included, and computes
// what eager does.
TEST(HigherOrderSources, GradRegionsAreSubgraphsThatRunAsEagerRunsThem) {
  GeneratorConfig regions = test::withSources({{NodeSource::AtenCall, 1}, {NodeSource::GradRegion, 1}});
  regions.refused_percent = 0;
  int with_region = 0, parameter_written = 0, functionalized = 0, with_region_functionalized = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SeededSource random(seed);
    auto generated_program = generateProgram(catalog(), regions, random);
    ASSERT_TRUE(generated_program.ok());
    const ExportedProgram& p = generated_program.value();
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + printProgramText(p));
    for (const Node& n : p.graph().nodes()) {
      if (n.target.kind() != Target::Kind::HigherOrder) continue;
      ASSERT_EQ(n.target.name(), "wrap_with_set_grad_enabled");
      ++with_region;
      const Attribute* sub = p.graph().attribute(n.args.at(1).get<arg::Graph>()->node->attr);
      ASSERT_TRUE(sub && sub->subgraph);
      for (const Node& s : sub->subgraph->nodes()) {
        const auto* self =
            s.atenOp() && s.atenOp()->is_mutable && !s.args.empty() ? s.args[0].get<arg::Tensor>() : nullptr;
        parameter_written += self && self->node->name().rfind("p_", 0) == 0 ? 1 : 0;
      }
    }
    ASSERT_TRUE(verify(p, *findDialect("TRAINING")).empty());
    RunResult eager = runProgram(p, RunOptions(RunMode::Eager));
    ASSERT_TRUE(eager.ok()) << eager.error->str();
    auto back = parseProgramText(printProgramText(p));
    ASSERT_TRUE(back.ok()) << back.error().str();
    EXPECT_TRUE(compareResults(eager, runProgram(back.value(), RunOptions(RunMode::Eager))).match());
    auto f = functionalize(p);
    if (!f.ok()) {  // an op it refuses anywhere; a region that writes is laid out inline
      EXPECT_EQ(f.error().str().find("higher-order"), std::string::npos) << f.error().str();
      continue;
    }
    ++functionalized;
    ++with_region_functionalized;
    Verdict v = compareResults(eager, runProgram(f.value(), RunOptions(RunMode::Exported)));
    EXPECT_TRUE(v.match()) << verdictKindName(v.kind) << " at " << v.where << "\n" << v.report;
  }
  EXPECT_GT(with_region, 40);
  EXPECT_GT(parameter_written, 0);
  EXPECT_GE(with_region_functionalized, 25) << "of 40 programs";
  // Regions of functional calls only: the functionalizer takes them, and must agree.
  GeneratorConfig functional = regions;
  functional.weight_in_place = functional.weight_view = functional.weight_out = 0;
  functional.weight_metadata = functional.weight_factory = 0;
  functional.effects_percent = functional.no_grad_percent = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    SeededSource random(seed);
    auto p = generateProgram(catalog(), functional, random);
    ASSERT_TRUE(p.ok());
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + printProgramText(p.value()));
    auto f = functionalize(p.value());
    if (!f.ok()) {  // a functional op it refuses anywhere (Note [Writes schemas do not declare])
      EXPECT_EQ(f.error().str().find("higher-order"), std::string::npos) << f.error().str();
      continue;
    }
    ++functionalized;
    Verdict v = compareResults(runProgram(p.value(), RunOptions(RunMode::Eager)),
                               runProgram(f.value(), RunOptions(RunMode::Exported)));
    EXPECT_TRUE(v.match()) << verdictKindName(v.kind) << " at " << v.where << "\n" << v.report;
  }
  EXPECT_GE(functionalized, 45);
}

// An autocast region as torch.export writes one: wrap_with_autocast("cpu", D, True, False,
// subgraph, *operands), D bfloat16 or float16, its calls drawn under that autocast, so a
// call autocast casts (mm, linear, conv) comes out in D from float32 operands, as its
// metadata says. The programs verify, read back as they were, and where the functionalizer
// takes them (regions that write laid out inline: Note [Writes inside an autocast region])
// compute what eager does.
TEST(HigherOrderSources, AutocastRegionsAreSubgraphsDrawnUnderAutocast) {
  GeneratorConfig regions = test::withSources({{NodeSource::AtenCall, 1}, {NodeSource::AutocastRegion, 1}});
  CatalogConfig matmuls;  // ops autocast casts to its dtype, the writes that stand beside them
  matmuls.allow = {R"(^aten::(mm|addmm_?|linear|matmul|bmm|add_|sin)(\..*)?$)"};
  const OpCatalog narrow = OpCatalog::build(matmuls).value();
  int with_region = 0, cast_down = 0, writing = 0, writing_functionalized = 0;
  std::set<std::string> dtypes;
  for (uint64_t seed = 1; seed <= 160; ++seed) {
    SeededSource random(seed);
    auto generated_program = generateProgram(seed % 2 ? catalog() : narrow, regions, random);
    ASSERT_TRUE(generated_program.ok());
    const ExportedProgram& p = generated_program.value();
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + printProgramText(p));
    bool writes = false;
    for (const Node& n : p.graph().nodes()) {
      if (n.target.kind() != Target::Kind::HigherOrder) continue;
      ASSERT_EQ(n.target.name(), "wrap_with_autocast");
      ++with_region;
      ASSERT_GE(n.args.size(), 6u);
      EXPECT_EQ(n.args[0].get<arg::String>()->value, "cpu");
      const ScalarType dtype = n.args[1].get<arg::Dtype>()->value;
      dtypes.insert(std::string(shortName(dtype)));
      EXPECT_TRUE(n.args[2].get<arg::Bool>()->value);
      EXPECT_FALSE(n.args[3].get<arg::Bool>()->value);
      const Attribute* sub = p.graph().attribute(n.args[4].get<arg::Graph>()->node->attr);
      ASSERT_TRUE(sub && sub->subgraph);
      for (const Node& s : sub->subgraph->nodes()) {
        if (!s.atenOp()) continue;
        writes = writes || s.atenOp()->is_mutable;
        const TensorMeta* out = s.meta.val.tensor();
        bool all_float = !s.atenOp()->is_mutable;
        int operands = 0;
        s.forEachInput([&](const Node* in) {
          const TensorMeta* t = in->meta.val.tensor();
          all_float = all_float && t && t->dtype == ScalarType::Float;
          ++operands;
        });
        cast_down += out && operands > 0 && all_float && out->dtype == dtype ? 1 : 0;
      }
    }
    RunResult eager = runProgram(p, RunOptions(RunMode::Eager));
    ASSERT_TRUE(eager.ok()) << eager.error->str();
    const bool functionalized = roundTripsAndFunctionalizesLikeEager(p, eager);
    writing += writes ? 1 : 0;
    writing_functionalized += writes && functionalized ? 1 : 0;
  }
  EXPECT_GT(with_region, 80);
  EXPECT_EQ(dtypes, (std::set<std::string>{"bf16", "f16"}));
  EXPECT_GE(cast_down, 5) << "calls that came out in the region's dtype from float32 operands";
  EXPECT_GT(writing_functionalized, writing / 3) << "of " << writing << " programs whose region writes";
  std::cout << "[ COUNTED  ] " << with_region << " regions; " << cast_down << " calls cast down; "
            << writing_functionalized << " of " << writing << " programs whose region writes functionalized\n";
}

// An ATEN program of the generator's never holds the bare autocast calls a writing region
// is functionalized into (torch's schema has no form for them); its functional regions
// stay wrap_with_autocast calls.
TEST(HigherOrderSources, AtenProgramsHoldNoBareAutocastCalls) {
  GeneratorConfig regions = test::withSources({{NodeSource::AtenCall, 10}, {NodeSource::AutocastRegion, 1}});
  regions.dialect = IrDialect::Aten;
  int made = 0, kept_whole = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SeededSource random(seed);
    auto p = generateInDialect(catalog(), regions, random);
    if (!p.ok()) {  // sixteen programs in a row the functionalizer refused, or with a writing region
      std::cout << "[ REFUSED  ] seed " << seed << ": " << p.error().str() << "\n";
      continue;
    }
    ++made;
    forEachGraph(p.value().graph(), [&](const Graph& g) {
      for (const Node& n : g.nodes()) {
        const bool bare = n.target.kind() == Target::Kind::TorchFunction &&
                          (n.target.torchFunctionId() == TorchFunction::EnterAutocast ||
                           n.target.torchFunctionId() == TorchFunction::ExitAutocast);
        EXPECT_FALSE(bare) << "seed " << seed << ": %" << n.name();
        kept_whole += autocastRegionBody(g, n) ? 1 : 0;
      }
    });
  }
  EXPECT_GE(made, 25) << "of 40 seeds";
  EXPECT_GE(kept_whole, 5);
}

// torch.cond as torch.export writes it: a predicate of no dimensions, both branches
// subgraphs over the same operands, functional calls only, each returning a value with the
// other's sizes, strides and dtype, the operands apart in memory (torch.cond refuses
// aliasing ones). The programs verify and run, read back from their text as they were, and
// the functionalizer carries each cond whole and computes what eager does.
TEST(HigherOrderSources, CondsAreTwoFunctionalBranchesThatRunAsEagerRunsThem) {
  GeneratorConfig conds = test::withSources({{NodeSource::AtenCall, 1}, {NodeSource::Cond, 1}});
  conds.refused_percent = 0;
  int with_cond = 0, functionalized = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SeededSource random(seed);
    auto generated_program = generateProgram(catalog(), conds, random);
    ASSERT_TRUE(generated_program.ok());
    const ExportedProgram& p = generated_program.value();
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + printProgramText(p));
    RunResult eager = runProgram(p, RunOptions(RunMode::Eager));
    ASSERT_TRUE(eager.ok()) << eager.error->str();
    for (const Node& n : p.graph().nodes()) {
      if (n.target.kind() != Target::Kind::HigherOrder) continue;
      ASSERT_EQ(n.target.name(), "cond");
      ++with_cond;
      const TensorMeta* pred = n.args.at(0).get<arg::Tensor>()->node->meta.val.tensor();
      ASSERT_TRUE(pred);
      EXPECT_TRUE(pred->sizes.empty() && pred->dtype == ScalarType::Bool);
      const TensorMeta* returned[2] = {};
      for (int b = 0; b < 2; ++b) {
        const Attribute* sub = p.graph().attribute(n.args.at(1 + b).get<arg::Graph>()->node->attr);
        ASSERT_TRUE(sub && sub->subgraph);
        for (const Node& s : sub->subgraph->nodes()) {
          if (s.atenOp()) {
            EXPECT_EQ(opRole(*s.atenOp()).role, OpRole::Functional) << s.name();
          }
        }
        Node* out = sub->subgraph->outputNode();
        ASSERT_TRUE(out && out->args.size() == 1);
        returned[b] = out->args[0].get<arg::Tensor>()->node->meta.val.tensor();
        ASSERT_TRUE(returned[b]);
      }
      EXPECT_EQ(returned[0]->dtype, returned[1]->dtype);
      EXPECT_EQ(returned[0]->sizes, returned[1]->sizes);
      EXPECT_EQ(returned[0]->strides, returned[1]->strides);
    }
    functionalized += roundTripsAndFunctionalizesLikeEager(p, eager) ? 1 : 0;
  }
  EXPECT_GT(with_cond, 20);
  EXPECT_GE(functionalized, 25) << "of 40 programs";
}

// The conds of a program, at any depth: each with the graph that holds it.
void condsIn(const Graph& g, int depth, std::vector<int>* depths) {
  for (const Node& n : g.nodes()) {
    if (n.target.kind() != Target::Kind::HigherOrder || n.target.name() != "cond") continue;
    depths->push_back(depth);
    for (int b = 1; b <= 2; ++b) {
      const Attribute* sub = g.attribute(n.args.at(b).get<arg::Graph>()->node->attr);
      ASSERT_TRUE(sub && sub->subgraph) << n.name() << " has no branch " << b << " in its own graph";
      condsIn(*sub->subgraph, depth + 1, depths);
    }
  }
}

// A cond inside a cond's branch, as a branch function that calls torch.cond makes one: its
// branches attributes of the branch's graph, two deep at most. The programs verify, read
// back from their text and JSON as they were, and functionalize to what eager computes.
TEST(HigherOrderSources, NestedCondsAreBranchesOfBranches) {
  GeneratorConfig conds = test::withSources({{NodeSource::AtenCall, 1}, {NodeSource::Cond, 1}});
  conds.refused_percent = 0;
  conds.nested_cond_percent = 60;
  int nested = 0, functionalized = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    SeededSource random(seed);
    auto generated_program = generateProgram(catalog(), conds, random);
    ASSERT_TRUE(generated_program.ok());
    const ExportedProgram& p = generated_program.value();
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + printProgramText(p));
    std::vector<int> depths;
    condsIn(p.graph(), 0, &depths);
    for (int d : depths) EXPECT_LE(d, 2);
    nested += std::count_if(depths.begin(), depths.end(), [](int d) { return d > 0; }) > 0 ? 1 : 0;
    RunResult eager = runProgram(p, RunOptions(RunMode::Eager));
    ASSERT_TRUE(eager.ok()) << eager.error->str();
    functionalized += roundTripsAndFunctionalizesLikeEager(p, eager) ? 1 : 0;
  }
  EXPECT_GE(nested, 10) << "of 30 programs";
  EXPECT_GE(functionalized, 18) << "of 30 programs";
}

// while_loop as torch.export writes one: carried (scalar_tensor counter, a live value), a
// condition graph returning lt.Scalar(i, n) as it is, a functional body returning the next
// counter and a value laid out as the carried one. The programs verify, read back from
// their text as they were, and functionalize to what eager computes.
TEST(HigherOrderSources, WhileLoopsCarryACounterAndAValueThroughAFunctionalBody) {
  GeneratorConfig loops = test::withSources({{NodeSource::AtenCall, 1}, {NodeSource::WhileLoop, 1}});
  loops.refused_percent = 0;
  int with_loop = 0, functionalized = 0;
  std::set<int64_t> iterations;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SeededSource random(seed);
    auto generated_program = generateProgram(catalog(), loops, random);
    ASSERT_TRUE(generated_program.ok());
    const ExportedProgram& p = generated_program.value();
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + printProgramText(p));
    RunResult eager = runProgram(p, RunOptions(RunMode::Eager));
    ASSERT_TRUE(eager.ok()) << eager.error->str();
    for (const Node& n : p.graph().nodes()) {
      if (n.target.kind() != Target::Kind::HigherOrder) continue;
      ASSERT_EQ(n.target.name(), "while_loop");
      ++with_loop;
      const auto& carried = n.args.at(2).get<arg::TensorList>()->nodes;
      ASSERT_EQ(carried.size(), 2u);
      EXPECT_EQ(carried[0]->target.textName(), "aten::scalar_tensor");
      const Graph& cond = *p.graph().attribute(n.args.at(0).get<arg::Graph>()->node->attr)->subgraph;
      const Graph& body = *p.graph().attribute(n.args.at(1).get<arg::Graph>()->node->attr)->subgraph;
      EXPECT_TRUE(cond.returns_one_value);
      const Node* test = const_cast<Graph&>(cond).outputNode()->args.at(0).get<arg::Tensor>()->node;
      EXPECT_EQ(test->target.textName(), "aten::lt.Scalar");
      iterations.insert(test->args.at(1).get<arg::Int>()->value);
      for (const Node& s : body.nodes()) {
        if (s.atenOp()) {
          EXPECT_EQ(opRole(*s.atenOp()).role, OpRole::Functional) << s.name();
        }
      }
      const Node* out = const_cast<Graph&>(body).outputNode();
      ASSERT_TRUE(out && out->args.size() == 2);
      const TensorMeta* next = out->args[1].get<arg::Tensor>()->node->meta.val.tensor();
      const TensorMeta* was = body.placeholders().at(1)->meta.val.tensor();
      ASSERT_TRUE(next && was);
      EXPECT_EQ(next->dtype, was->dtype);
      EXPECT_EQ(next->sizes, was->sizes);
      EXPECT_EQ(next->strides, was->strides);
    }
    functionalized += roundTripsAndFunctionalizesLikeEager(p, eager) ? 1 : 0;
  }
  EXPECT_GT(with_loop, 20);
  EXPECT_GE(functionalized, 25) << "of 40 programs";
  EXPECT_EQ(iterations, (std::set<int64_t>{0, 1, 2, 3}));
}

// map and scan as torch.export writes them: a map's body and a scan's combine function are
// functional calls over an element of a contiguous operand of leading size 1 or more; a
// map's results stack what the body returns, a scan's first result has the carry's
// metadata. The programs verify, run, read back, and functionalize to what eager computes.
TEST(HigherOrderSources, MapsAndScansRunTheirFunctionsOverTheElementsOfAnOperand) {
  for (const auto& [source, hop] : {std::pair{NodeSource::Map, "map_impl"}, std::pair{NodeSource::Scan, "scan"}}) {
    GeneratorConfig config = test::withSources({{NodeSource::AtenCall, 1}, {source, 1}});
    config.refused_percent = 0;
    int with_hop = 0, functionalized = 0;
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      SeededSource random(seed);
      auto generated_program = generateProgram(catalog(), config, random);
      ASSERT_TRUE(generated_program.ok());
      const ExportedProgram& p = generated_program.value();
      SCOPED_TRACE(std::string(hop) + " seed " + std::to_string(seed) + "\n" + printProgramText(p));
      RunResult eager = runProgram(p, RunOptions(RunMode::Eager));
      ASSERT_TRUE(eager.ok()) << eager.error->str();
      for (const Node& n : p.graph().nodes()) {
        if (n.target.kind() != Target::Kind::HigherOrder) continue;
        ASSERT_EQ(n.target.name(), hop);
        ++with_hop;
        const Graph& fn = *p.graph().attribute(n.args.at(0).get<arg::Graph>()->node->attr)->subgraph;
        for (const Node& s : fn.nodes()) {
          if (s.atenOp()) {
            EXPECT_EQ(opRole(*s.atenOp()).role, OpRole::Functional) << s.name();
          }
        }
        // The placeholders hold the operands as they were when the call was made (a
        // metadata mutation since may have changed a node's own meta).
        const auto placeholders = fn.placeholders();
        const auto* results = n.meta.val.list();
        ASSERT_TRUE(results && !results->empty());
        const Node* out = const_cast<Graph&>(fn).outputNode();
        if (source == NodeSource::Scan) {
          const TensorMeta* carry = placeholders.at(0)->meta.val.tensor();
          EXPECT_EQ((*results)[0].tensor()->sizes, carry->sizes);
          EXPECT_EQ((*results)[0].tensor()->dtype, carry->dtype);
        }
        // every stacked result: the function's value for one element, a row per element
        const size_t first_stacked = source == NodeSource::Map ? 0 : 1;
        for (size_t k = first_stacked; k < results->size(); ++k) {
          const TensorMeta* stacked = (*results)[k].tensor();
          const TensorMeta* row = out->args.at(k).get<arg::Tensor>()->node->meta.val.tensor();
          ASSERT_TRUE(stacked && row);
          EXPECT_EQ(stacked->sizes.size(), row->sizes.size() + 1);
          const SymIntValue& rows = stacked->sizes[0];  // symbolic where the program is made so
          EXPECT_GE(rows.isConcrete() ? rows.concrete() : std::get<int64_t>(*rows.expr().hint), 1);
          EXPECT_EQ(stacked->sizes[0], (*results)[first_stacked].tensor()->sizes[0]);
        }
      }
      functionalized += roundTripsAndFunctionalizesLikeEager(p, eager) ? 1 : 0;
    }
    EXPECT_GT(with_hop, 15) << hop;
    EXPECT_GE(functionalized, 20) << hop << ": of 40 programs";
  }
}

// The 100 seeds from 50 before each of `seeds`.
std::vector<uint64_t> seedsAround(std::initializer_list<uint64_t> seeds) {
  std::vector<uint64_t> out;
  for (uint64_t s : seeds) {
    for (uint64_t k = s - 50; k < s + 50; ++k) out.push_back(k);
  }
  return out;
}

// The calls of `g`'s cond branches, loop bodies, map bodies and scan functions, at every
// depth: what torch.cond, while_loop, map and scan trace.
void forEachTracedCall(const Graph& g, const std::function<void(const Node&)>& fn, bool traced = false) {
  for (const Node& n : g.nodes()) {
    if (traced && n.atenOp()) fn(n);
    const std::string& hop = n.target.kind() == Target::Kind::HigherOrder ? n.target.name() : "";
    const bool traces = hop == "cond" || hop == "while_loop" || hop == "map_impl" || hop == "scan";
    for (const Argument& a : n.args) {
      const auto* sub = a.get<arg::Graph>();
      const Attribute* attr = sub && sub->node ? g.attribute(sub->node->attr) : nullptr;
      if (attr && attr->subgraph) forEachTracedCall(*attr->subgraph, fn, traced || traces);
    }
  }
}

// The higher-order sources drawn together, as a campaign with them on draws them: every
// program is made and verifies. A subgraph placeholder holds its operand's metadata, so an
// operand no metadata can describe must not be taken (seed 29672 took an int64 input that a
// write through a float view had filled past what metadata holds, and its placeholder had
// none), and a source left with no operand makes nothing (seed 14054 drew a region's calls
// from no values at all, and crashed). Each program writes in torch's schema, its get_attrs
// just before their calls (the default config's seed 99 printed between them).
// No cond branch or loop body calls an op whose result's sizes its input's data decide,
// which their tracing refuses (2.14.1's eager torch.cond raises
// UncapturedHigherOrderOpError on unique_dim_consecutive).
TEST(HigherOrderSources, DrawnTogetherEveryProgramVerifies) {
  const GeneratorConfig mixed = test::withSources({{NodeSource::AtenCall, 6},
                                                   {NodeSource::GradRegion, 1},
                                                   {NodeSource::Cond, 1},
                                                   {NodeSource::WhileLoop, 1},
                                                   {NodeSource::AutocastRegion, 1},
                                                   {NodeSource::Map, 1},
                                                   {NodeSource::Scan, 1}});
  int with_subgraphs = 0, traced_calls = 0;
  for (uint64_t seed : seedsAround({99, 14054, 29672})) {
    SeededSource random(seed);
    auto p = generateProgram(catalog(), mixed, random);
    ASSERT_TRUE(p.ok()) << "seed " << seed;
    with_subgraphs += p.value().graph().attributes().empty() ? 0 : 1;
    forEachTracedCall(p.value().graph(), [&](const Node& n) {
      ++traced_calls;
      EXPECT_FALSE(n.atenOp()->hasTag(OpInfo::kDynamicOutputShape)) << "seed " << seed << ": %" << n.name();
    });
    const auto diagnostics = verify(p.value(), *findDialect("TRAINING"));
    EXPECT_TRUE(diagnostics.empty()) << "seed " << seed << ": " << diagnostics.front().str();
    // torch's schema holds it, as a .pt2 must: each subgraph a graph argument of its call.
    const auto in_torch_schema = exportedProgramJson(p.value());
    EXPECT_TRUE(in_torch_schema.ok()) << "seed " << seed << ": " << in_torch_schema.error().str();
  }
  EXPECT_GT(with_subgraphs, 150) << "of 300 programs";
  EXPECT_GT(traced_calls, 300);
}

}  // namespace
}  // namespace epsmith
