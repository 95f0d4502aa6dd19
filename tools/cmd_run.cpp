// `epsmith run FILE [--mode eager|exported|libtorch-functionalize] [--device cpu|cuda]`:
// runs a program on its example inputs through the eager oracle and summarises the user
// outputs and every input whose value changed.
#include <ATen/core/Tensor.h>

#include <cstring>
#include <iostream>
#include <sstream>

#include "oracle/program_io.h"
#include "formats/scalar_format.h"
#include "fuzz/case_runner.h"
#include "fuzz/workers.h"
#include "oracle/aten_bridge.h"
#include "oracle/run.h"
#include "tools/command.h"

namespace epsmith::cli {
namespace {

constexpr int64_t kExcerpt = 8;

std::string summarize(const c10::IValue& v) {
  if (!v.isTensor()) {
    std::ostringstream ss;
    ss << v;
    return ss.str();
  }
  at::Tensor t = v.toTensor().detach().contiguous();
  ScalarType dtype = fromAten(t.scalar_type());
  std::string out(shortName(dtype));
  out += "[";
  for (int64_t d = 0; d < t.dim(); ++d) out += (d ? ", " : "") + std::to_string(t.size(d));
  out += "] = [";
  const auto* bytes = static_cast<const uint8_t*>(t.data_ptr());
  const int64_t n = std::min<int64_t>(t.numel(), kExcerpt);
  for (int64_t i = 0; i < n; ++i) {
    out += (i ? ", " : "") + formatElement(dtype, bytes + i * t.element_size());
  }
  if (t.numel() > kExcerpt) out += ", ... (" + std::to_string(t.numel()) + " elements)";
  return out + "]";
}

// The value an input had before the run, to tell which inputs changed.
std::optional<at::Tensor> initialValue(const ExportedProgram& p, const std::string& name) {
  TensorMaterializer m;
  auto colon = name.find(':');
  std::string kind = name.substr(0, colon), target = name.substr(colon + 1);
  if (kind == "parameter" || kind == "buffer") {
    if (auto it = p.state_dict.find(target); it != p.state_dict.end()) return m.materialize(it->second.tensor);
    if (auto it = p.constants.find(target); it != p.constants.end() && it->second.tensor) {
      return m.materialize(*it->second.tensor);
    }
    return std::nullopt;
  }
  size_t user = 0;
  for (const auto& spec : p.signature.input_specs) {
    if (spec.kind != InputKind::UserInput) continue;
    if (spec.arg.name == target && user < p.example_inputs.size() &&
        p.example_inputs[user].kind == InputValue::Kind::Tensor) {
      return m.materialize(p.example_inputs[user].tensor);
    }
    ++user;
  }
  return std::nullopt;
}

}  // namespace

void addRunCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("run", "Run a program on its example inputs through the eager oracle");
  struct Options {
    std::string file;
    std::string mode = "exported";
    std::string device = "cpu";
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("FILE", opts->file, "program file (.json, .ept or .pt2)")->required();
  cmd->add_option("--mode", opts->mode, "eager | exported | libtorch-functionalize")
      ->check(CLI::IsMember({"eager", "exported", "libtorch-functionalize"}))
      ->capture_default_str();
  cmd->add_option("--device", opts->device, "cpu | cuda")->check(CLI::IsMember({"cpu", "cuda"}))->capture_default_str();
  cmd->callback([opts, &exit_code] {
    auto program = loadOrReport("run", opts->file, exit_code);
    if (!program) return;
    RunOptions options;
    options.mode = *runModeFromName(opts->mode);
    options.device = *Device::parse(opts->device);
    if (options.device.type == "cuda" && !cudaAvailable()) {
      std::cerr << "epsmith run: CUDA not available in this LibTorch build\n";
      exit_code = kExitBadInput;
      return;
    }
    std::cout << opts->file << ": " << opts->mode << " on " << opts->device << "\n";
    // The run happens in a child (as `check`'s checks do, Note [Checks out of harm's way]):
    // a LibTorch memory error ends it, not the command. The child sends back the exit code
    // and the lines to print.
    // On CUDA too: the parent asks for CUDA without initializing it
    // (Note [Asking for CUDA in a child]), so the child may use it.
    WorkerLimits limits;
    limits.seconds_per_request = 24 * 3600;
    auto runAndSay = [&] {
      RunResult r = runProgram(program.value(), options);
      if (!r.ok()) return std::to_string(kExitFindings) + "  raised: " + r.error->str() + "\n";
      std::string lines;
      for (size_t i = 0; i < r.outputs.size(); ++i) {
        lines += "  output " + std::to_string(i) + ": " + summarize(r.outputs[i]) + "\n";
      }
      for (const auto& [name, value] : r.final_inputs) {
        auto before = initialValue(program.value(), name);
        // Bit for bit: a NaN left as it was is not a change.
        bool changed = !before || before->sizes() != value.sizes() || before->scalar_type() != value.scalar_type();
        if (!changed) {
          const at::Tensor a = before->contiguous(), b = value.contiguous();
          changed = a.numel() > 0 &&  // an empty tensor may have no data: memcmp(nullptr) is undefined
                    std::memcmp(a.data_ptr(), b.data_ptr(), static_cast<size_t>(a.numel()) * a.element_size()) != 0;
        }
        if (changed) lines += "  mutated " + name + ": " + summarize(value) + "\n";
      }
      return std::to_string(kExitOk) + lines;
    };
    IsolatedOutcome o = runIsolated(runAndSay, limits);
    if (!o.result || o.result->empty()) {
      std::cout << "  died: " << (o.death ? deathSignature(*o.death) : std::string("the run sent back nothing"))
                << "\n";
      exit_code = kExitFindings;
      return;
    }
    std::cout << o.result->substr(1);
    exit_code = (*o.result)[0] - '0';
  });
}

}  // namespace epsmith::cli
