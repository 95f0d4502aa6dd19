// `epsmith run FILE [--mode eager|exported|libtorch-functionalize] [--device cpu|cuda]`:
// runs a program on its example inputs through the eager oracle and summarises the user
// outputs and every input whose value changed.
#include <ATen/ATen.h>

#include <iostream>
#include <sstream>

#include "ir/program_io.h"
#include "ir/scalar_format.h"
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
  cmd->add_option("FILE", opts->file, "program file (.json or .ept)")->required();
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
    RunResult r = runProgram(program.value(), options);
    std::cout << opts->file << ": " << opts->mode << " on " << opts->device << "\n";
    if (!r.ok()) {
      std::cout << "  raised: " << r.error->str() << "\n";
      exit_code = kExitFindings;
      return;
    }
    for (size_t i = 0; i < r.outputs.size(); ++i) {
      std::cout << "  output " << i << ": " << summarize(r.outputs[i]) << "\n";
    }
    for (const auto& [name, value] : r.final_inputs) {
      auto before = initialValue(program.value(), name);
      bool changed = !before || before->sizes() != value.sizes() || before->scalar_type() != value.scalar_type() ||
                     !at::equal(*before, value);
      if (changed) std::cout << "  mutated " << name << ": " << summarize(value) << "\n";
    }
    exit_code = kExitOk;
  });
}

}  // namespace epsmith::cli
