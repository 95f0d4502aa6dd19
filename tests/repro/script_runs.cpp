// See script_runs.h.
#include "tests/repro/script_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>

#include "fuzz/programs.h"
#include "generators/op_catalog.h"
#include "generators/random_source.h"
#include "generators/result_values.h"
#include "oracle/compare.h"
#include "oracle/run.h"
#include "oracle/torch_peer.h"
#include "repro/python_repro.h"

namespace epsmith::test {

namespace fs = std::filesystem;

fs::path freshDirectory(const std::string& stem) {
  fs::path dir = fs::temp_directory_path() / (stem + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void writeFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `python -I ARGS` in a fresh empty directory, its output in `output`; the exit status.
int runPython(const std::string& args, std::string& output) {
  const fs::path cwd = freshDirectory("epsmith-repro-cwd");
  const fs::path log = cwd / "output.txt";
  const std::string command =
      "cd '" + cwd.string() + "' && '" + torchPython() + "' -I " + args + " >'" + log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  output = readFile(log);
  fs::remove_all(cwd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

namespace {

// Why two values differ in their bits ("" when they do not): dtype, sizes, then bytes.
std::string bitDifference(const c10::IValue& a, const c10::IValue& b) {
  if (a.isTensor() != b.isTensor())
    return "a tensor against a " + std::string(a.isTensor() ? b.tagKind() : a.tagKind());
  if (!a.isTensor()) {
    if (a.isDouble() && b.isDouble()) {
      const double x = a.toDouble(), y = b.toDouble();
      return std::memcmp(&x, &y, sizeof x) == 0 ? "" : "floats " + std::to_string(x) + " and " + std::to_string(y);
    }
    return a == b ? "" : "values of kinds " + a.tagKind() + " and " + b.tagKind();
  }
  const at::Tensor x = a.toTensor().detach().contiguous(), y = b.toTensor().detach().contiguous();
  if (x.scalar_type() != y.scalar_type())
    return std::string("dtypes ") + c10::toString(x.scalar_type()) + " and " + c10::toString(y.scalar_type());
  if (x.sizes() != y.sizes()) return "sizes differ";
  if (x.numel() && std::memcmp(x.data_ptr(), y.data_ptr(), x.numel() * x.element_size()) != 0)
    return "element bits differ";
  return "";
}

// Whether `p` calls an op that factorizes a matrix: LAPACK's results there depend on the
// thread count and on how the blocks are aligned, which two processes need not share (the
// same script's least-squares solution differs in its last bits between one thread and two),
// and the calls after it may make any bit of that difference large (arccosh near 1).
bool factorizes(const ExportedProgram& p) {
  for (const Node& n : p.graph().nodes()) {
    if (n.atenOp() && factorizesMatrix(*n.atenOp())) return true;
  }
  return false;
}

// What epsmith's run and the script's eager run disagree on, one line each; the values of
// a program that factorizes are compared by dtype and sizes only (`unsettled` counts those
// whose elements differ).
std::vector<std::string> disagreements(const RunResult& ours, const RunResult& script, bool lapack, int& unsettled) {
  auto differs = [&](const c10::IValue& a, const c10::IValue& b) {
    std::string d = bitDifference(a, b);
    if (d == "element bits differ" && lapack) {
      ++unsettled;
      d.clear();
    }
    return d;
  };
  std::vector<std::string> out;
  if (ours.outputs.size() != script.outputs.size()) return {"output counts differ"};
  for (size_t i = 0; i < ours.outputs.size(); ++i) {
    if (auto d = differs(ours.outputs[i], script.outputs[i]); !d.empty())
      out.push_back("output " + std::to_string(i) + ": " + d);
  }
  int user = 0;
  for (const auto& [name, tensor] : ours.final_inputs) {
    std::string key = name.rfind("user_input:", 0) == 0 ? "user_input:#" + std::to_string(user++) : name;
    if (key.rfind("constant:", 0) == 0) continue;
    const at::Tensor* theirs = nullptr;
    for (const auto& [k, t] : script.final_inputs) theirs = k == key ? &t : theirs;
    if (!theirs)
      out.push_back(name + ": missing from the script's run");
    else if (auto d = differs(tensor, *theirs); !d.empty())
      out.push_back(name + ": " + d);
  }
  return out;
}

}  // namespace

// Programs of every kind the generator makes: its defaults, grad regions in most programs,
// the functionalized ATEN form (mutation outputs written back), only non-contiguous inputs,
// and the narrow integer dtypes its defaults leave out.
std::vector<Generated> generatedPrograms(int per_config) {
  const OpCatalog catalog = OpCatalog::build().value();
  std::vector<std::pair<std::string, GeneratorConfig>> configs(5);
  configs[0].first = "default";
  configs[1].first = "no-grad";
  configs[1].second.no_grad_percent = 40;
  configs[2].first = "aten";
  configs[2].second.dialect = IrDialect::Aten;
  configs[3].first = "strided";
  configs[3].second.noncontiguous_percent = 100;
  configs[4].first = "narrow";
  configs[4].second.dtypes = {ScalarType::Short, ScalarType::Char, ScalarType::Byte, ScalarType::Bool,
                              ScalarType::Half};
  std::vector<Generated> out;
  for (const auto& [name, config] : configs) {
    for (int seed = 1; seed <= per_config; ++seed) {
      SeededSource random(static_cast<uint64_t>(seed));
      auto p = generateInDialect(catalog, config, random);
      if (p.ok()) out.push_back({name + " seed " + std::to_string(seed), std::move(p.value())});
    }
  }
  return out;
}

int programsPerConfig() {
  const char* n = std::getenv("EPSMITH_REPRO_PROGRAMS");
  return n && *n ? std::max(1, std::atoi(n) / 5) : 200;
}

// The scripts of `programs` run eagerly by torch (tests/repro/eager_driver.py), compared
// with epsmith's runs; returns how many were compared.
int compareEagerRuns(const std::vector<Generated>& programs) {
  int unsettled = 0;
  const fs::path scripts = freshDirectory("epsmith-repro-scripts"), results = freshDirectory("epsmith-repro-results");
  char name[32];
  for (size_t i = 0; i < programs.size(); ++i) {
    // Every other script is a D2 one, which spells mutable composite ops as their
    // decompositions (Note [Composite writes in functionalize scripts]): eager must not tell;
    // and every other pair one that looks for an exception (its make() takes no ref).
    const ReproPath path = i % 2 ? ReproPath::Functionalize : ReproPath::Decompose;
    const ReproLooksFor looks_for = i / 2 % 2 ? ReproLooksFor::AnException : ReproLooksFor::AnyDifference;
    auto script = writeReproScript(programs[i].program, {path, "a test", looks_for});
    EXPECT_TRUE(script.ok()) << programs[i].label << ": " << script.error().str();
    if (!script.ok()) return 0;
    std::snprintf(name, sizeof name, "p%05zu", i);
    writeFile(scripts / (std::string(name) + ".py"), script.value());
  }
  std::string output;
  const int status = runPython(std::string(EPSMITH_SOURCE_DIR) + "/tests/repro/eager_driver.py '" + scripts.string() +
                                   "' '" + results.string() + "'",
                               output);
  EXPECT_EQ(status, 0) << output;
  int compared = 0;
  for (size_t i = 0; i < programs.size() && status == 0; ++i) {
    std::snprintf(name, sizeof name, "p%05zu", i);
    const RunResult ours = runProgram(programs[i].program, RunOptions(RunMode::Exported));
    const fs::path error = results / (std::string(name) + ".error"), pt = results / (std::string(name) + ".pt");
    if (!ours.ok() || fs::exists(error)) {
      EXPECT_EQ(!ours.ok(), fs::exists(error))
          << programs[i].label << ": epsmith " << (ours.ok() ? "ran" : ours.error->str()) << "; the script "
          << (fs::exists(error) ? readFile(error) : "ran");
      continue;
    }
    for (const auto& d :
         disagreements(ours, decodeTorchRun(readFile(pt)), factorizes(programs[i].program), unsettled)) {
      ADD_FAILURE() << programs[i].label << " (" << name << ".py): " << d;
    }
    ++compared;
  }
  if (unsettled)
    std::cout << "[          ] " << unsettled << " values of programs that call LAPACK differ in their elements "
              << "(compared by dtype and sizes: LAPACK's bits follow threads and alignment)\n";
  fs::remove_all(scripts);
  fs::remove_all(results);
  return compared;
}

}  // namespace epsmith::test
