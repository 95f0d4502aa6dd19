// Reproducer scripts (repro/python_repro.h) against an independent oracle: the module a script
// rebuilds, run eagerly by torch in a fresh process, computes bit for bit what epsmith's own
// eager run of the program computes, for generated programs of every shape the generator
// makes; bad input gets a located error. Skipped where no Python torch is beside the build.
#include <gtest/gtest.h>

#include <ATen/ops/allclose.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "functionalizer/functionalize.h"
#include "fuzz/programs.h"
#include "fuzz/upstream.h"
#include "generators/graph_generator.h"
#include "generators/op_catalog.h"
#include "generators/random_source.h"
#include "generators/result_values.h"
#include "generators/symbolic_sizes.h"
#include "oracle/compare.h"
#include "oracle/program_io.h"
#include "oracle/run.h"
#include "oracle/torch_peer.h"
#include "repro/python_repro.h"
#include "tests/repro/script_runs.h"
#include "oracle/aten_bridge.h"
#include "oracle/libtorch_compat.h"
#include "tests/support/generator_config.h"
#include "tests/support/program_text.h"

namespace epsmith {
namespace {

namespace fs = std::filesystem;
using test::compareEagerRuns;
using test::freshDirectory;
using test::Generated;
using test::generatedPrograms;
using test::programsPerConfig;
using test::readFile;
using test::runPython;
using test::writeFile;

TEST(ReproScripts, EagerRunsEqualEpsmithsBitForBit) {
  if (auto why = torchPeerUnavailable()) GTEST_SKIP() << "no Python torch to run scripts with: " << *why;
  compat::WarningHandlerGuard quiet(silentWarningHandler());
  const std::vector<Generated> programs = generatedPrograms(programsPerConfig());
  const int compared = compareEagerRuns(programs);
  std::cout << "[          ] " << compared << " of " << programs.size() << " programs' results equal bit for bit\n";
  EXPECT_GE(compared, static_cast<int>(programs.size()) * 9 / 10);
}

// torch.export's own form of a grad region, a wrap_with_set_grad_enabled subgraph, becomes
// a `with torch.no_grad():` block that computes what epsmith's run of the subgraph does; and
// D1's functionalizer takes the module's writes in it.
TEST(ReproScripts, ExportedGradRegionsRunAsEpsmithRunsThem) {
  if (auto why = torchPeerUnavailable()) GTEST_SKIP() << "no Python torch to run scripts with: " << *why;
  const fs::path dir = freshDirectory("epsmith-repro-hop");
  std::string output;
  ASSERT_EQ(runPython(std::string(EPSMITH_SOURCE_DIR) + "/tests/repro/export_grad_region.py '" +
                          (dir / "m.pt2").string() + "'",
                      output),
            0)
      << output;
  auto p = loadProgram((dir / "m.pt2").string());
  ASSERT_TRUE(p.ok()) << p.error().str();
  auto script = writeReproScript(p.value(), {ReproPath::Decompose, "a test"});
  ASSERT_TRUE(script.ok()) << script.error().str();
  EXPECT_NE(script->find("        with torch.no_grad():\n            mul_"), std::string::npos) << script.value();
  // D1 takes it: the writes under no_grad become mutation outputs, as run_decompositions
  // makes them (Note [Grad regions inlined before functionalization]).
  auto f = functionalize(p.value());
  ASSERT_TRUE(f.ok()) << f.error().str();
  std::vector<std::string> kinds;
  for (const auto& spec : f->signature.output_specs)
    kinds.push_back(std::string(outputKindName(spec.kind)) + " " + spec.target.value_or(""));
  EXPECT_EQ(kinds, (std::vector<std::string>{"parameter_mutation w", "buffer_mutation n", "user_output "}));
  Verdict v = compareResults(runProgram(p.value(), RunOptions(RunMode::Eager)),
                             runProgram(f.value(), RunOptions(RunMode::Exported)));
  EXPECT_TRUE(v.match()) << verdictKindName(v.kind) << " at " << v.where << "\n" << v.report;
  std::vector<Generated> one;
  one.push_back({"exported", std::move(p.value())});
  EXPECT_EQ(compareEagerRuns(one), 1);
  fs::remove_all(dir);
}

// A generated torch.cond becomes torch.cond over two branch functions, and the script's
// eager run (torch.cond runs the branch its predicate picks) computes what epsmith's does.
// A handful of programs: torch.cond compiles its branches on its first eager call.
TEST(ReproScripts, CondsRunAsEpsmithRunsThem) {
  if (auto why = torchPeerUnavailable()) GTEST_SKIP() << "no Python torch to run scripts with: " << *why;
  compat::WarningHandlerGuard quiet(silentWarningHandler());
  const OpCatalog catalog = OpCatalog::build().value();
  GeneratorConfig conds = test::withSources({{NodeSource::AtenCall, 1}, {NodeSource::Cond, 1}});
  std::vector<Generated> programs;
  for (uint64_t seed = 1; seed <= 40 && programs.size() < 6; ++seed) {
    SeededSource random(seed);
    auto p = generateInDialect(catalog, conds, random);
    ASSERT_TRUE(p.ok()) << p.error().str();
    bool has_cond = false;
    for (const Node& n : p.value().graph().nodes()) has_cond = has_cond || n.target.name() == "cond";
    if (has_cond) programs.push_back({"cond seed " + std::to_string(seed), std::move(p.value())});
  }
  ASSERT_EQ(programs.size(), 6u);
  auto script = writeReproScript(programs[0].program, {ReproPath::Decompose, "a test"});
  ASSERT_TRUE(script.ok()) << script.error().str();
  EXPECT_NE(script->find(" = torch.cond("), std::string::npos) << script.value();
  EXPECT_NE(script->find("        def true_graph_0("), std::string::npos) << script.value();
  EXPECT_EQ(compareEagerRuns(programs), 6);
}

// A generated autocast region becomes a `with torch.autocast(...)` block, and the script's
// eager run (the region's calls cast as autocast casts them) computes what epsmith's does.
TEST(ReproScripts, AutocastRegionsRunAsEpsmithRunsThem) {
  if (auto why = torchPeerUnavailable()) GTEST_SKIP() << "no Python torch to run scripts with: " << *why;
  compat::WarningHandlerGuard quiet(silentWarningHandler());
  CatalogConfig matmuls;  // ops autocast casts to its dtype, and others
  matmuls.allow = {R"(^aten::(mm|addmm_?|linear|matmul|bmm|add_?|sin|cos|mul)(\..*)?$)"};
  const OpCatalog catalog = OpCatalog::build(matmuls).value();
  GeneratorConfig regions = test::withSources({{NodeSource::AtenCall, 1}, {NodeSource::AutocastRegion, 1}});
  std::vector<Generated> programs;
  for (uint64_t seed = 1; seed <= 40 && programs.size() < 8; ++seed) {
    SeededSource random(seed);
    auto p = generateInDialect(catalog, regions, random);
    ASSERT_TRUE(p.ok()) << p.error().str();
    bool has_region = false;
    for (const Node& n : p.value().graph().nodes()) has_region = has_region || n.target.name() == "wrap_with_autocast";
    if (has_region) programs.push_back({"autocast seed " + std::to_string(seed), std::move(p.value())});
  }
  ASSERT_EQ(programs.size(), 8u);
  auto script = writeReproScript(programs[0].program, {ReproPath::Decompose, "a test"});
  ASSERT_TRUE(script.ok()) << script.error().str();
  EXPECT_NE(script->find("        with torch.autocast(\"cpu\", dtype=torch."), std::string::npos) << script.value();
  EXPECT_EQ(compareEagerRuns(programs), 8);
}

// The generated programs of `source` (with aten-call) whose result of higher-order op `hop`
// the program reads, up to `wanted` of seeds 1-80.
std::vector<Generated> readingHigherOrder(NodeSource source, const std::string& hop, size_t wanted) {
  const OpCatalog catalog = OpCatalog::build().value();
  const GeneratorConfig config = test::withSources({{NodeSource::AtenCall, 1}, {source, 1}});
  std::vector<Generated> programs;
  for (uint64_t seed = 1; seed <= 80 && programs.size() < wanted; ++seed) {
    SeededSource random(seed);
    auto p = generateInDialect(catalog, config, random);
    EXPECT_TRUE(p.ok()) << p.error().str();
    if (!p.ok()) continue;
    bool read = false;
    for (const Node& n : p.value().graph().nodes()) {
      if (n.target.kind() != Target::Kind::Builtin || n.target.builtinOp() != BuiltinOp::GetItem) continue;
      const Node* from = n.args[0].get<arg::Tensor>() ? n.args[0].get<arg::Tensor>()->node : nullptr;
      read = read || (from && from->target.name() == hop && !p.value().graph().users(&n).empty());
    }
    if (read) programs.push_back({hop + " seed " + std::to_string(seed), std::move(p.value())});
  }
  return programs;
}

// A generated while_loop becomes torch._higher_order_ops.while_loop over two functions, and
// the script's eager run (torch's own loop) computes what epsmith's does.
TEST(ReproScripts, WhileLoopsRunAsEpsmithRunsThem) {
  if (auto why = torchPeerUnavailable()) GTEST_SKIP() << "no Python torch to run scripts with: " << *why;
  compat::WarningHandlerGuard quiet(silentWarningHandler());
  const std::vector<Generated> programs = readingHigherOrder(NodeSource::WhileLoop, "while_loop", 6);
  ASSERT_EQ(programs.size(), 6u);
  auto script = writeReproScript(programs[0].program, {ReproPath::Decompose, "a test"});
  ASSERT_TRUE(script.ok()) << script.error().str();
  EXPECT_NE(script->find(" = torch._higher_order_ops.while_loop("), std::string::npos) << script.value();
  EXPECT_NE(script->find("        def while_loop_body_graph_0("), std::string::npos) << script.value();
  EXPECT_EQ(compareEagerRuns(programs), 6);
}

// A generated map becomes torch._higher_order_ops.map over a function of an element, and a
// scan torch._higher_order_ops.scan over a combine function; the scripts' eager runs
// (torch's own map_dense and generic_scan) compute what epsmith's do.
TEST(ReproScripts, MapsAndScansRunAsEpsmithRunsThem) {
  if (auto why = torchPeerUnavailable()) GTEST_SKIP() << "no Python torch to run scripts with: " << *why;
  compat::WarningHandlerGuard quiet(silentWarningHandler());
  const std::vector<Generated> maps = readingHigherOrder(NodeSource::Map, "map_impl", 5);
  const std::vector<Generated> scans = readingHigherOrder(NodeSource::Scan, "scan", 5);
  ASSERT_EQ(maps.size(), 5u);
  ASSERT_EQ(scans.size(), 5u);
  auto script = writeReproScript(maps[0].program, {ReproPath::Decompose, "a test"});
  ASSERT_TRUE(script.ok()) << script.error().str();
  EXPECT_NE(script->find(" = torch._higher_order_ops.map(body_graph_0, "), std::string::npos) << script.value();
  script = writeReproScript(scans[0].program, {ReproPath::Decompose, "a test"});
  ASSERT_TRUE(script.ok()) << script.error().str();
  EXPECT_NE(script->find("torch._higher_order_ops.scan(scan_combine_graph_0, "), std::string::npos) << script.value();
  EXPECT_EQ(compareEagerRuns(maps), 5);
  EXPECT_EQ(compareEagerRuns(scans), 5);
}

// State a generated program keeps in submodules (Note [Module trees of generated programs])
// is registered on submodules of the script's module, and its eager run computes what
// epsmith's does, writes into that state included.
TEST(ReproScripts, ModuleTreesRunAsEpsmithRunsThem) {
  if (auto why = torchPeerUnavailable()) GTEST_SKIP() << "no Python torch to run scripts with: " << *why;
  compat::WarningHandlerGuard quiet(silentWarningHandler());
  const OpCatalog catalog = OpCatalog::build().value();
  GeneratorConfig tree;
  tree.module_tree_percent = 100;
  std::vector<Generated> programs;
  for (uint64_t seed = 1; seed <= 40 && programs.size() < 4; ++seed) {
    SeededSource random(seed);
    auto p = generateInDialect(catalog, tree, random);
    ASSERT_TRUE(p.ok()) << p.error().str();
    bool moved = false;
    for (const auto& spec : p.value().signature.input_specs)
      moved = moved || spec.target.value_or("").find("layer.inner.") == 0;
    if (moved) programs.push_back({"module tree seed " + std::to_string(seed), std::move(p.value())});
  }
  ASSERT_EQ(programs.size(), 4u);
  EXPECT_EQ(compareEagerRuns(programs), 4);
}

// A program with a symbolic size (Note [Symbolic sizes of generated programs]) is exported
// by its script with a Dim per symbol, bounded as the program's range, and dynamic_shapes
// naming the dimensions (Note [Symbolic sizes in scripts]); torch.export takes them, at the
// example size and at the size a case draws, without a constraint violation or any other
// raise in export (what the exported module computes is the checks' business: a
// difference there is a finding, which a test must not depend on).
TEST(ReproScripts, SymbolicSizesExportWithTheirDims) {
  if (auto why = torchPeerUnavailable()) GTEST_SKIP() << "no Python torch to run scripts with: " << *why;
  compat::WarningHandlerGuard quiet(silentWarningHandler());
  const OpCatalog catalog = OpCatalog::build().value();
  // Flat programs, as a program with a higher-order call stays static.
  GeneratorConfig symbolic = test::withSources({{NodeSource::AtenCall, 1}});
  symbolic.symbolic_size_percent = 100;
  const fs::path scripts = freshDirectory("epsmith-repro-dims");
  int written = 0;
  for (uint64_t seed = 1; seed <= 40 && written < 4; ++seed) {
    SeededSource random(seed);
    auto p = generateInDialect(catalog, symbolic, random);
    ASSERT_TRUE(p.ok()) << p.error().str();
    if (p.value().range_constraints.empty()) continue;
    if (written % 2) drawCaseSizes(p.value(), random);
    auto script = writeReproScript(p.value(), {ReproPath::Export, "a test"});
    ASSERT_TRUE(script.ok()) << script.error().str();
    EXPECT_NE(script.value().find("s0 = torch.export.Dim(\"s0\", min="), std::string::npos) << script.value();
    EXPECT_NE(script.value().find(", dynamic_shapes=("), std::string::npos) << script.value();
    const fs::path path = scripts / ("seed" + std::to_string(seed) + ".py");
    writeFile(path, script.value());
    std::string output;
    const int status = runPython("'" + path.string() + "'", output);
    EXPECT_TRUE(status == 0 || status == 1) << "seed " << seed << ":\n" << output << "\n" << script.value();
    EXPECT_EQ(output.find("the path raised"), std::string::npos) << "seed " << seed << ":\n" << output;
    ++written;
  }
  EXPECT_EQ(written, 4);
  fs::remove_all(scripts);
}

// A with_effects call, which functionalization makes of a module's _print
// (Note [Effects as export makes them]), becomes that call again, and the script's eager run
// computes what epsmith's run of the functional program does.
TEST(ReproScripts, EffectsRunAsEpsmithRunsThem) {
  if (auto why = torchPeerUnavailable()) GTEST_SKIP() << "no Python torch to run scripts with: " << *why;
  compat::WarningHandlerGuard quiet(silentWarningHandler());
  const OpCatalog catalog = OpCatalog::build().value();
  GeneratorConfig effects;
  effects.effects_percent = 100;
  effects.dialect = IrDialect::Aten;
  std::vector<Generated> programs;
  for (uint64_t seed = 1; seed <= 40 && programs.size() < 4; ++seed) {
    SeededSource random(seed);
    auto p = generateInDialect(catalog, effects, random);
    ASSERT_TRUE(p.ok()) << p.error().str();
    bool threaded = false;
    for (const Node& n : p.value().graph().nodes()) threaded = threaded || n.target.name() == "with_effects";
    if (threaded) programs.push_back({"effects seed " + std::to_string(seed), std::move(p.value())});
  }
  ASSERT_EQ(programs.size(), 4u);
  auto script = writeReproScript(programs[0].program, {ReproPath::Decompose, "a test"});
  ASSERT_TRUE(script.ok()) << script.error().str();
  EXPECT_NE(script->find(" = (None, torch.ops.aten._print.default(\"epsmith\"))"), std::string::npos) << script.value();
  EXPECT_EQ(compareEagerRuns(programs), 4);
}

ExportedProgram example(const char* name) {
  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/examples/" + name);
  EXPECT_TRUE(p.ok()) << p.error().str();
  return std::move(p.value());
}

// The script of `p` for `check`, run with `fault` planted in torch
// (tests/repro/planted_torch_fault.py): its exit status, its output in `output`.
int runScript(const ExportedProgram& p, std::string_view check, const std::string& fault, std::string& output,
              ReproLooksFor looks_for = ReproLooksFor::AnyDifference) {
  auto path = reproPathOf(check);
  EXPECT_TRUE(path.ok()) << check;
  auto script = reproScriptOf(p, {path.value(), std::string(check) + " test", looks_for});
  EXPECT_TRUE(script.ok()) << script.error().str();
  const fs::path dir = freshDirectory("epsmith-repro-planted");
  writeFile(dir / "repro.py", script.value());
  const int status = runPython(std::string(EPSMITH_SOURCE_DIR) + "/tests/repro/planted_torch_fault.py " + fault + " '" +
                                   (dir / "repro.py").string() + "'",
                               output);
  fs::remove_all(dir);
  return status;
}

// Each path's script exits 0 where torch agrees with eager and 1 where a fault planted on
// its path makes it disagree: a refusing functionalization kernel for torch.func.functionalize
// (D2) and run_decompositions (D8), a module() that adds one for D5 and D7.
TEST(ReproScripts, ExitOneExactlyWhenTheBugShows) {
  if (auto why = torchPeerUnavailable()) GTEST_SKIP() << "no Python torch to run scripts with: " << *why;
  const ExportedProgram p = example("linear_counter.ept");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"D2", "functionalize:mm"}, {"D8", "functionalize:mm"}, {"D5", "module:plus-one"}, {"D7", "module:plus-one"}};
  for (const auto& [check, fault] : cases) {
    std::string output;
    EXPECT_EQ(runScript(p, check, "none", output), 0) << check << ":\n" << output;
    EXPECT_NE(output.find("the bug does not show"), std::string::npos) << output;
    EXPECT_EQ(runScript(p, check, fault, output), 1) << check << " with " << fault << ":\n" << output;
    EXPECT_NE(output.find("torch "), std::string::npos) << output;  // the release it ran on
  }
}

// Note [A script on a release without its op]: where torch lacks an op the program calls,
// the script says it cannot run here (exit 2) rather than that the bug does not show, in
// both of its forms.
TEST(ReproScripts, AReleaseWithoutAnOpTheProgramCallsCannotRunIt) {
  if (auto why = torchPeerUnavailable()) GTEST_SKIP() << "no Python torch to run scripts with: " << *why;
  const ExportedProgram p = example("linear_counter.ept");
  for (const ReproLooksFor looks_for : {ReproLooksFor::AnyDifference, ReproLooksFor::AnException}) {
    std::string output;
    EXPECT_EQ(runScript(p, "D2", "missing:mm", output, looks_for), 2) << output;
    EXPECT_NE(output.find("cannot run here: '_OpNamespace' 'aten' object has no attribute 'mm'"), std::string::npos)
        << output;
  }
}

// Note [The functional form in scripts]: a D1 script runs the program and its functional
// form, both eagerly, on the same module and inputs. They agree where torch computes an op's
// functional form as its in-place one; a CPU kernel planted for add.Scalar alone, which only
// the functional form calls (add_.Scalar is its own op), makes the script show it. A
// program the functionalizer refuses has no such script, and says why.
TEST(ReproScripts, TheFunctionalFormRunsBesideTheProgram) {
  if (auto why = torchPeerUnavailable()) GTEST_SKIP() << "no Python torch to run scripts with: " << *why;
  const ExportedProgram p = example("linear_counter.ept");
  auto script = reproScriptOf(p, {ReproPath::FunctionalForm, "a test"});
  ASSERT_TRUE(script.ok()) << script.error().str();
  EXPECT_NE(script->find("class F(M):"), std::string::npos) << script.value();
  EXPECT_NE(script->find("torch.ops.aten.add.Scalar(self.calls, 1)"), std::string::npos) << script.value();
  EXPECT_NE(script->find("self.calls.copy_("), std::string::npos) << script.value();  // the buffer written back
  for (ReproLooksFor looks_for : {ReproLooksFor::AnyDifference, ReproLooksFor::AnException}) {
    std::string output;
    EXPECT_EQ(runScript(p, "D1", "none", output, looks_for), 0) << output;
    EXPECT_EQ(runScript(p, "D1", "cpu:add.Scalar", output, looks_for), 1) << output;
    EXPECT_NE(output.find("eager ran; the path raised RuntimeError: planted fault"), std::string::npos) << output;
  }
  EXPECT_FALSE(writeReproScript(p, {ReproPath::FunctionalForm, "a test"}).ok());  // no functional form given
  ExportedProgram refused = test::parse(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[3] = placeholder
  %t: f32[3, 1] = aten::unsqueeze_(%x, 1)
  return (%t)
}
signature {
  input user_input %x
  output user_input_mutation %t -> "x"
}
storages {
  $0: f32[3] = [1.0, 2.0, 3.0]
}
example_inputs {
  $0 f32[3]
}
)EPT");
  auto none = reproScriptOf(refused, {ReproPath::FunctionalForm, "a test"});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("epsmith's functionalizer refuses the program"), std::string::npos)
      << none.error().str();
}

// A mutable op LibTorch composes of others (not_equal_, arcsin.out) is called through its
// decomposition in a D2 script, so that torch.func.functionalize, which refuses the op
// itself, functionalizes what the C++ pass did; other paths call it as written.
TEST(ReproScripts, FunctionalizeScriptsDecomposeCompositeWrites) {
  const ExportedProgram p = test::parse(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[3] = placeholder
  %o: f32[3] = placeholder
  %c: f32[3] = aten::clone(%x)
  %ne: f32[3] = aten::not_equal_.Scalar(%c, 0.5)
  %a: f32[3] = aten::arcsin.out(%x, out=%o)
  return (%a, %ne)
}
signature {
  input user_input %x
  input user_input %o
  output user_input_mutation %a -> "o"
  output user_output %ne
}
storages {
  $0: f32[3] = [0.5, -0.25, 2.0]
  $1: f32[3] = [0.0, 0.0, 0.0]
}
example_inputs {
  $0 f32[3]
  $1 f32[3]
}
)EPT");
  auto d2 = writeReproScript(p, {ReproPath::Functionalize, "a test"});
  auto d8 = writeReproScript(p, {ReproPath::Decompose, "a test"});
  ASSERT_TRUE(d2.ok() && d8.ok());
  EXPECT_NE(d2->find("torch.ops.aten.not_equal_.Scalar.decompose(c, 0.5)"), std::string::npos) << d2.value();
  EXPECT_NE(d2->find("torch.ops.aten.arcsin.out.decompose(x, out=o)"), std::string::npos) << d2.value();
  EXPECT_NE(d2->find("torch.ops.aten.clone.default(x)"), std::string::npos) << d2.value();
  EXPECT_EQ(d8->find(".decompose("), std::string::npos) << d8.value();
  if (auto why = torchPeerUnavailable()) GTEST_SKIP() << "no Python torch to run scripts with: " << *why;
  std::string output;
  EXPECT_EQ(runScript(p, "D2", "none", output), 0) << output;
  EXPECT_NE(output.find("the bug does not show"), std::string::npos) << output;
}

// A script that looks for an exception in one run compares no values: it is shorter, says
// which run raised, and passes where both runs go through, whatever their values.
TEST(ReproScripts, ScriptsThatLookForAnExceptionCompareNoValues) {
  const ExportedProgram p = example("linear_counter.ept");
  auto any = writeReproScript(p, {ReproPath::Functionalize, "a test"});
  auto raised = writeReproScript(p, {ReproPath::Functionalize, "a test", ReproLooksFor::AnException});
  ASSERT_TRUE(any.ok() && raised.ok());
  EXPECT_EQ(raised->find("def same("), std::string::npos) << raised.value();
  EXPECT_EQ(raised->find("ref"), std::string::npos) << raised.value();
  EXPECT_NE(any->find("def same("), std::string::npos);
  const auto lines = [](const std::string& s) { return std::count(s.begin(), s.end(), '\n'); };
  EXPECT_LE(lines(raised.value()) + 25, lines(any.value()));
  if (auto why = torchPeerUnavailable()) GTEST_SKIP() << "no Python torch to run scripts with: " << *why;
  for (const auto& [check, fault] :
       std::vector<std::pair<std::string, std::string>>{{"D2", "functionalize:mm"}, {"D8", "functionalize:mm"}}) {
    std::string output;
    EXPECT_EQ(runScript(p, check, "none", output, ReproLooksFor::AnException), 0) << check << ":\n" << output;
    EXPECT_NE(output.find("no exception in one run alone"), std::string::npos) << output;
    EXPECT_EQ(runScript(p, check, fault, output, ReproLooksFor::AnException), 1) << check << ":\n" << output;
    EXPECT_NE(output.find("eager ran; the path raised RuntimeError: planted fault"), std::string::npos) << output;
  }
  // It names the line of the path that raised (Note [Scripts name the step that raised]).
  std::string output;
  EXPECT_EQ(runScript(p, "D8", "functionalize:mm", output, ReproLooksFor::AnException), 1) << output;
  EXPECT_NE(output.find("refused under functionalization in `ep = ep.run_decompositions({})`"), std::string::npos)
      << output;
  EXPECT_EQ(runScript(p, "D8", "export:raise", output, ReproLooksFor::AnException), 1) << output;
  EXPECT_NE(output.find("refused the module in `ep = torch.export.export(m, args)`"), std::string::npos) << output;
  // A wrong value is not what it looks for.
  EXPECT_EQ(runScript(p, "D5", "module:plus-one", output, ReproLooksFor::AnException), 0) << output;
}

// A minimized case (two calls on two inputs, as most are) gets a script short enough to
// paste into an issue: the 60 lines the reproducers issue aims at, for each path.
TEST(ReproScripts, AMinimizedCasesScriptFitsInAnIssue) {
  const ExportedProgram p = test::parse(R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: i64[1, 2] = placeholder
  %y: f32[1] = placeholder
  %slice_inverse: i64[1, 2] = aten::slice_inverse(%x, %x, 0, 0, 0)
  %bitwise_xor_: i64[1, 2] = aten::bitwise_xor_.Scalar(%slice_inverse, 1)
  return (%y)
}
signature {
  input user_input %x
  input user_input %y
  output user_output %y
}
storages {
  $0: i64[2] = [1, 2]
  $1: f32[1] = [-3.0]
}
example_inputs {
  $0 i64[1, 2]
  $1 f32[1]
}
)");
  for (const ReproPath path : {ReproPath::Functionalize, ReproPath::Export, ReproPath::Decompose}) {
    auto script = writeReproScript(p, {path, "a test", ReproLooksFor::AnException});
    ASSERT_TRUE(script.ok()) << script.error().str();
    EXPECT_LE(std::count(script->begin(), script->end(), '\n'), 60) << script.value();
  }
}

// Note [Preserved submodules in scripts]: a preserved submodule's calls become a module of
// their own, called where its first call was, and the export preserves its signature; one
// whose calls read a value it is not passed keeps no module, and the docstring says why.
TEST(ReproScripts, APreservedSubmoduleIsAModuleOfItsOwn) {
  auto program = [](const std::string& block_output) {
    return test::parse(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[3] = placeholder
  %y: f32[3] = placeholder
  %neg: f32[3] = aten::neg(%x)
  %mul: f32[3] = aten::mul.Tensor(%y, %y)
  %relu: f32[3] = aten::relu(%neg)
  %add: f32[3] = aten::add.Tensor(%mul, %relu)
  return (%add)
}
signature {
  input user_input %x
  input user_input %y
  output user_output %add
}
module_call_graph {
  entry "" inputs=[] outputs=[]
  entry "block" inputs=[%x] outputs=[%)EPT" +
                       block_output + R"EPT(]
}
storages {
  $0: f32[3] = [0.5, -1.25, 3.0]
  $1: f32[3] = [2.0, -0.5, 1.0]
}
example_inputs {
  $0 f32[3]
  $1 f32[3]
}
)EPT");
  };
  const ExportedProgram kept = program("relu");
  auto script = writeReproScript(kept, {ReproPath::Decompose, "a test"});
  ASSERT_TRUE(script.ok()) << script.error().str();
  for (const char* part :
       {"class Block(torch.nn.Module):\n    def forward(self, x):\n        neg = ", "        self.block = Block()\n",
        "        relu = self.block(x)\n        mul = ", "preserve_module_call_signature=(\"block\",)"}) {
    EXPECT_NE(script->find(part), std::string::npos) << part << "\n" << script.value();
  }
  auto not_kept = writeReproScript(program("add"), {ReproPath::Decompose, "a test"});
  ASSERT_TRUE(not_kept.ok()) << not_kept.error().str();
  EXPECT_EQ(not_kept->find("class Block"), std::string::npos) << not_kept.value();
  EXPECT_NE(not_kept->find("which this script does not: 'block': %y is read inside it but not passed to it."),
            std::string::npos)
      << not_kept.value();
  std::string text = printProgramText(kept);  // an entry that returns nothing: no module to call
  const size_t outputs = text.find("outputs=[%relu]", text.find("entry \"block\""));
  ASSERT_NE(outputs, std::string::npos) << text;
  auto returns_nothing =
      writeReproScript(test::parse(text.replace(outputs, 15, "outputs=[]")), {ReproPath::Decompose, "a test"});
  ASSERT_TRUE(returns_nothing.ok()) << returns_nothing.error().str();
  EXPECT_EQ(returns_nothing->find("class Block"), std::string::npos) << returns_nothing.value();
  EXPECT_NE(returns_nothing->find("'block' returns nothing."), std::string::npos) << returns_nothing.value();
  if (auto why = torchPeerUnavailable()) GTEST_SKIP() << "no Python torch to run scripts with: " << *why;
  std::vector<Generated> one;
  one.push_back({"a preserved submodule", test::parse(printProgramText(kept))});
  EXPECT_EQ(compareEagerRuns(one), 1);
  std::string output;
  EXPECT_EQ(runScript(kept, "D8", "none", output), 0) << output;
  EXPECT_NE(output.find("the bug does not show"), std::string::npos) << output;
}

TEST(ReproScripts, CudaPathCannotRunWithoutCuda) {
  if (auto why = torchPeerUnavailable()) GTEST_SKIP() << "no Python torch to run scripts with: " << *why;
  std::string output;
  const int status = runScript(example("linear_counter.ept"), "D3", "none", output);
  if (output.find("CUDA is not available") == std::string::npos) GTEST_SKIP() << "this torch has CUDA: " << output;
  EXPECT_EQ(status, 2) << output;
}

TEST(ReproScripts, ImportOnlyTorchAndTheStandardLibrary) {
  auto script = writeReproScript(example("linear_counter.ept"), {ReproPath::SaveLoad, "a test"});
  ASSERT_TRUE(script.ok()) << script.error().str();
  std::istringstream lines(script.value());
  std::vector<std::string> imports;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("import ", 0) == 0 || line.rfind("from ", 0) == 0) imports.push_back(line);
  }
  EXPECT_EQ(imports, (std::vector<std::string>{"import io", "import sys", "import torch"}));
  EXPECT_NE(script->find("torch.ops.aten.mm.default(x, self.weight)"), std::string::npos) << script.value();
  EXPECT_NE(script->find("self.register_buffer(\"calls\", calls)"), std::string::npos) << script.value();
}

TEST(ReproScripts, NamesThatAreNotPythonAreLocatedErrors) {
  std::string text = printProgramText(example("linear_counter.ept"));
  for (size_t at; (at = text.find("%relu")) != std::string::npos;) text.replace(at, 5, "%lambda");
  ExportedProgram p = test::parse(text);
  auto script = writeReproScript(p, {ReproPath::Decompose, "a test"});
  ASSERT_FALSE(script.ok());
  EXPECT_EQ(script.error().str(), "%lambda: the node name 'lambda' is not a Python identifier");

  ExportedProgram q = example("linear_counter.ept");
  q.signature.input_specs[1].target = "calls-1";
  q.state_dict["calls-1"] = q.state_dict["calls"];
  script = writeReproScript(q, {ReproPath::Decompose, "a test"});
  ASSERT_FALSE(script.ok());
  EXPECT_EQ(script.error().str(), "%b_calls: the state name's part 'calls-1' is not a Python identifier");
}

TEST(ReproScripts, OnlyChecksThatAskPyTorchHaveAPath) {
  for (const char* check : {"D1", "D2", "D3", "D5", "D7", "D8"}) EXPECT_TRUE(reproPathOf(check).ok()) << check;
  for (const char* check : {"D4", "D6"}) {
    auto path = reproPathOf(check);
    ASSERT_FALSE(path.ok());
    EXPECT_NE(path.error().message.find("epsmith's own code"), std::string::npos) << path.error().message;
  }
  EXPECT_FALSE(reproPathOf("D10").ok());
}

}  // namespace
}  // namespace epsmith
