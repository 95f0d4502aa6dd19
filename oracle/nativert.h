// C++ runtimes that load .pt2 archives, as D9 asks them (fuzz/nativert_check.h): NativeRT,
// LibTorch 2.x's own (torch/nativert, `torch::nativert::ModelRunnerHandle`), where the
// LibTorch built against has it (Note [Where NativeRT is]).
#pragma once

#include <ATen/core/ivalue.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/diagnostic.h"

namespace epsmith {

// One run of a model from an archive: its user outputs, or the stage that failed and why.
struct ArchiveRun {
  enum class Stage : uint8_t { Ran, Load, Run };
  Stage stage = Stage::Ran;
  std::string error;                 // Load, Run: the runtime's message
  std::vector<c10::IValue> outputs;  // Ran: the user outputs, in the signature's order
};

// A runtime that loads model `model` of the archive at `path` and runs it on the flat user
// inputs, in the signature's order (parameters, buffers and constants come from the
// archive). The inputs are handed over: what the model writes into one stays visible through
// the caller's handles of the same tensors.
class ArchiveRuntime {
 public:
  virtual ~ArchiveRuntime() = default;
  // How a finding names it: "NativeRT (LibTorch 2.x, default ExecutorConfig)".
  virtual std::string name() const = 0;
  virtual ArchiveRun run(const std::string& path, const std::string& model, std::vector<c10::IValue> inputs) = 0;
};

// An archive on disk for a runtime to load (ModelRunnerHandle takes a path), at
// temporaryArchivePath of this process so that forked workers never share one; removed when
// it goes.
class TemporaryArchive {
 public:
  explicit TemporaryArchive(const std::string& bytes);
  ~TemporaryArchive();
  TemporaryArchive(const TemporaryArchive&) = delete;
  TemporaryArchive& operator=(const TemporaryArchive&) = delete;
  const std::string& path() const { return path_; }
  const std::optional<Diagnostic>& error() const { return error_; }

 private:
  std::string path_;
  std::optional<Diagnostic> error_;
};

// Where process `pid`'s TemporaryArchive lies: in $TMPDIR, else /tmp. A worker that dies
// in the runtime (the crashes D9 looks for) leaves its archive behind, so whoever reaps it
// removes that file.
std::string temporaryArchivePath(long pid);

// NativeRT's ModelRunnerHandle where this LibTorch has it; null otherwise, with the reason
// in `why_not`.
ArchiveRuntime* nativeRuntime(std::string* why_not);

}  // namespace epsmith
