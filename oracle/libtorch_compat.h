// The one place where epsmith meets the differences between the LibTorch releases it builds
// against (2.11 and newer): every other file uses these names.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Allocator.h>
#include <c10/core/GradMode.h>
#include <c10/core/InferenceMode.h>
#include <c10/util/Exception.h>
#include <torch/csrc/api/include/torch/version.h>

#include <cstddef>
#include <optional>
#include <string>

#include "ir/enums.h"

namespace epsmith {
class ExportedProgram;
}  // namespace epsmith

namespace epsmith::compat {

// Note [LibTorch versions epsmith supports]
// 2.11 or newer: 2.13, the CPU torch wheel's, is the default build; 2.14 is the newest
// release pip installs here (a CUDA wheel run on the CPU, C++20); 2.11 is the last whose
// libtorch_cpu links NativeRT (D9) and the CUDA release of the GPU machines D3 runs on.
// Older releases changed the C++ API in steps no build here follows, so CMake refuses them
// at configure time, by name and version; this check catches a build whose headers are not
// a release CMake would accept.
static_assert(TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 11),
              "epsmith supports LibTorch 2.11 or newer");

// "2.13": the release, as corpus cases record it.
inline std::string libtorchVersion() {
  return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR);
}
// "2.13.0": what torch.__version__ says, written into programs' torch_version.
inline std::string libtorchFullVersion() { return libtorchVersion() + "." + std::to_string(TORCH_VERSION_PATCH); }

// Marks `p` as made here: torch_version is this LibTorch's, schema_version the torch.export
// serialized schema of its release (read from its schema.py at configure time), and the aten
// opset torch.export's serializer writes.
void stampWithThisLibTorch(ExportedProgram& p);

// Warning handlers, which c10::WarningUtils holds.
using WarningHandlerGuard = c10::WarningUtils::WarningHandlerGuard;
inline void setWarningHandler(c10::WarningHandler* h) { c10::WarningUtils::set_warning_handler(h); }
class DroppingWarningHandler : public c10::WarningHandler {
 public:
  void process(const c10::Warning&) override {}
};

// An allocator that hands out another allocator's blocks after a hook.
class ForwardingAllocator : public c10::Allocator {
 public:
  explicit ForwardingAllocator(c10::Allocator* base) : base_(base) {}
  c10::DataPtr allocate(size_t bytes) override { return allocateFrom(*base_, bytes); }
  void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }
  c10::DeleterFnPtr raw_deleter() const override { return base_->raw_deleter(); }

 protected:
  // A block of `bytes` from `base`, with whatever the subclass does to it.
  virtual c10::DataPtr allocateFrom(c10::Allocator& base, size_t bytes) const = 0;

 private:
  c10::Allocator* base_;
};

// The dtypes few kernels take (UInt16/32/64, the Float8 types), both ways; nullopt for the
// rest, which aten_bridge.cpp's switch maps.
#define EPSMITH_LATER_DTYPES(_)                       \
  _(UInt16, c10::ScalarType::UInt16)                  \
  _(UInt32, c10::ScalarType::UInt32)                  \
  _(UInt64, c10::ScalarType::UInt64)                  \
  _(Float8E4M3FN, c10::ScalarType::Float8_e4m3fn)     \
  _(Float8E5M2, c10::ScalarType::Float8_e5m2)         \
  _(Float8E4M3FNUZ, c10::ScalarType::Float8_e4m3fnuz) \
  _(Float8E5M2FNUZ, c10::ScalarType::Float8_e5m2fnuz) \
  _(Float8E8M0FNU, c10::ScalarType::Float8_e8m0fnu)

inline std::optional<c10::ScalarType> laterDtype(ScalarType t) {
#define EPSMITH_TO_ATEN(ours, aten) \
  if (t == ScalarType::ours) return aten;
  EPSMITH_LATER_DTYPES(EPSMITH_TO_ATEN)
#undef EPSMITH_TO_ATEN
  (void)t;
  return std::nullopt;
}

inline std::optional<ScalarType> laterDtype(c10::ScalarType t) {
#define EPSMITH_FROM_ATEN(ours, aten) \
  if (t == aten) return ScalarType::ours;
  EPSMITH_LATER_DTYPES(EPSMITH_FROM_ATEN)
#undef EPSMITH_FROM_ATEN
  (void)t;
  return std::nullopt;
}

}  // namespace epsmith::compat
