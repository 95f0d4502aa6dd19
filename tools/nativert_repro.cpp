// Runs a .pt2's model with NativeRT on the archive's own sample inputs and prints what it
// returns: the C++ half of a D9 finding's reproducer (docs/fuzzing.md, "NativeRT: D9"); the
// Python half is torch.export.load(path).module()(*args) on the same inputs. Needs a
// LibTorch that links NativeRT (PyPI's torch 2.11: the nativert preset builds this).
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/nativert/ModelRunnerHandle.h>

#include <iostream>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: nativert_repro ARCHIVE.pt2\n";
    return 2;
  }
  caffe2::serialize::PyTorchStreamReader archive(argv[1]);
  auto [data, size] = archive.getRecord("data/sample_inputs/model.pt");
  const char* bytes = static_cast<const char*>(data.get());
  const c10::IValue sample = torch::jit::pickle_load(std::vector<char>(bytes, bytes + size));
  const auto& args = sample.toTupleRef().elements()[0].toTupleRef().elements();
  torch::nativert::ModelRunnerHandle runner(argv[1], "model");
  std::vector<c10::IValue> inputs(args.begin(), args.end());
  for (const auto& out : runner.runWithFlatInputsAndOutputs(std::move(inputs))) std::cout << out << "\n";
}
