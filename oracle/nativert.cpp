// NativeRT where this LibTorch has it; see nativert.h.
//
// Note [Where NativeRT is]
// LibTorch 2.x ships NativeRT's public header (torch/nativert/ModelRunnerHandle.h) in every
// build, but of PyPI's wheels only torch 2.11's (a CUDA build) compiles NativeRT into
// libtorch_cpu; 2.12, 2.13 and 2.14.1, CPU and CUDA builds alike, define no nativert
// symbol (read 2026-11-28), and its Python binding has no constructor outside fbcode
// builds (torch/nativert/python/Bindings.cpp). So the build asks twice
// (oracle/CMakeLists.txt): where the header is, the runtime below is compiled, so it stays
// compiling against the release at hand; only where a program calling its constructor
// also links is it linked in and D9 run: the `nativert` preset, against that 2.11 wheel's
// LibTorch on the CPU (Note [A CUDA LibTorch on the CPU]), or a LibTorch built from source.
// Elsewhere D9 is skipped with the reason below. ModelRunnerHandle takes the default
// ExecutorConfig (ModelRunner fixes it: static CPU kernels on, one op at a time, no constant
// folding), and libtorch_cpu exports neither ModelRunner's other constructors nor the
// Executor, so no other configuration can be swept through what it exports.
#include "oracle/nativert.h"

#include <c10/util/Exception.h>
#include <c10/util/Logging.h>

#include <algorithm>
#include <cstdlib>
#include <exception>

#include <unistd.h>

#include "oracle/libtorch_compat.h"
#include "oracle/program_io.h"

#if EPSMITH_HAVE_NATIVERT
#include <torch/nativert/ModelRunnerHandle.h>
#endif

namespace epsmith {

std::string temporaryArchivePath(long pid) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/epsmith-archive-" + std::to_string(pid) + ".pt2";
}

TemporaryArchive::TemporaryArchive(const std::string& bytes)
    : path_(temporaryArchivePath(::getpid())), error_(writeFileAtomically(path_, bytes)) {}

TemporaryArchive::~TemporaryArchive() { ::unlink(path_.c_str()); }

#if EPSMITH_HAVE_NATIVERT
namespace {

class NativeRt final : public ArchiveRuntime {
 public:
  // NativeRT logs a warning on every load (which ops have no static kernel): a campaign
  // loads thousands of programs, so only its errors are logged.
  NativeRt() { FLAGS_caffe2_log_level = std::max(FLAGS_caffe2_log_level, 2); }

  std::string name() const override {
    return "NativeRT (LibTorch " + compat::libtorchVersion() + ", default ExecutorConfig)";
  }

  ArchiveRun run(const std::string& path, const std::string& model, std::vector<c10::IValue> inputs) override {
    ArchiveRun r;
    // NativeRT reports what it refuses by throwing (TORCH_CHECK: c10::Error; a kernel's
    // failure: std::runtime_error "Exception while executing node").
    std::unique_ptr<torch::nativert::ModelRunnerHandle> runner;
    try {
      runner = std::make_unique<torch::nativert::ModelRunnerHandle>(path, model);
    } catch (const c10::Error& e) {
      return {ArchiveRun::Stage::Load, e.what_without_backtrace(), {}};
    } catch (const std::exception& e) {
      return {ArchiveRun::Stage::Load, e.what(), {}};
    }
    try {
      r.outputs = runner->runWithFlatInputsAndOutputs(std::move(inputs));
    } catch (const c10::Error& e) {
      return {ArchiveRun::Stage::Run, e.what_without_backtrace(), {}};
    } catch (const std::exception& e) {
      return {ArchiveRun::Stage::Run, e.what(), {}};
    }
    return r;
  }
};

}  // namespace

ArchiveRuntime* nativeRuntime(std::string*) {
  static NativeRt runtime;
  return &runtime;
}

#else

ArchiveRuntime* nativeRuntime(std::string* why_not) {
  if (why_not) {
    *why_not = "this LibTorch (" + compat::libtorchVersion() +
               ") has no NativeRT runtime: its libraries define no torch::nativert::ModelRunnerHandle "
               "(of PyPI's builds only 2.11's has one: the nativert preset)";
  }
  return nullptr;
}

#endif

}  // namespace epsmith
