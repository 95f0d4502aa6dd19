// The one place where epsmith meets the differences between the LibTorch releases it builds
// against (1.13, Debian's; 2.x, the torch wheel's): every other file uses these names.
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
// 1.13 (Debian 12's libtorch-dev) and 2.11 or newer: 2.13, the torch wheel's, is the default
// build, and 2.11 is the CUDA release of the GPU machines epsmith's D3 runs on (built against
// its wheel, torch 2.11.0+cu130). The releases between 1.13 and 2.11 changed the C++ API in
// steps no build here has followed, so CMake refuses them at configure time, by name and
// version; this check catches a build whose headers are not a release CMake would accept.
static_assert((TORCH_VERSION_MAJOR == 1 && TORCH_VERSION_MINOR == 13) ||
                  (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 11),
              "epsmith supports LibTorch 1.13 and 2.11 or newer");
inline constexpr bool kLibTorch1 = TORCH_VERSION_MAJOR == 1;

// "2.13": the release, as corpus cases record it.
inline std::string libtorchVersion() {
  return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR);
}
// "2.13.0": what torch.__version__ says, written into programs' torch_version.
inline std::string libtorchFullVersion() {
  return libtorchVersion() + "." + std::to_string(TORCH_VERSION_PATCH);
}

// Marks `p` as made here: torch_version is this LibTorch's, schema_version the torch.export
// serialized schema of its release (read from its schema.py at configure time), and the aten
// opset torch.export's serializer writes.
void stampWithThisLibTorch(ExportedProgram& p);

// Warning handlers: 2.x moved the guard and setter into c10::WarningUtils and passes a
// c10::Warning where 1.13 passed its parts.
#if TORCH_VERSION_MAJOR >= 2
using WarningHandlerGuard = c10::WarningUtils::WarningHandlerGuard;
inline void setWarningHandler(c10::WarningHandler* h) { c10::WarningUtils::set_warning_handler(h); }
class DroppingWarningHandler : public c10::WarningHandler {
 public:
  void process(const c10::Warning&) override {}
};
#else
using WarningHandlerGuard = c10::Warning::WarningHandlerGuard;
inline void setWarningHandler(c10::WarningHandler* h) { c10::Warning::set_warning_handler(h); }
class DroppingWarningHandler : public c10::WarningHandler {
 public:
  void process(const c10::SourceLocation&, const std::string&, bool) override {}
};
#endif

// An allocator that hands out another allocator's blocks after a hook: 2.x made `allocate`
// non-const and added the pure virtual `copy_data`.
class ForwardingAllocator : public c10::Allocator {
 public:
  explicit ForwardingAllocator(c10::Allocator* base) : base_(base) {}
#if TORCH_VERSION_MAJOR >= 2
  c10::DataPtr allocate(size_t bytes) override { return allocateFrom(*base_, bytes); }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
#else
  c10::DataPtr allocate(size_t bytes) const override { return allocateFrom(*base_, bytes); }
#endif
  c10::DeleterFnPtr raw_deleter() const override { return base_->raw_deleter(); }

 protected:
  // A block of `bytes` from `base`, with whatever the subclass does to it.
  virtual c10::DataPtr allocateFrom(c10::Allocator& base, size_t bytes) const = 0;

 private:
  c10::Allocator* base_;
};

// Named tensors are gone from 2.x's Tensor; no tensor epsmith makes has names there.
inline bool hasNames(const at::Tensor& t) {
#if TORCH_VERSION_MAJOR >= 2
  (void)t;
  return false;
#else
  return t.has_names();
#endif
}

// The dtypes 2.x added (UInt16/32/64, the Float8 types), both ways; nullopt where this
// LibTorch has no such dtype.
#if TORCH_VERSION_MAJOR >= 2
#define EPSMITH_LATER_DTYPES(_)                              \
  _(UInt16, c10::ScalarType::UInt16)                         \
  _(UInt32, c10::ScalarType::UInt32)                         \
  _(UInt64, c10::ScalarType::UInt64)                         \
  _(Float8E4M3FN, c10::ScalarType::Float8_e4m3fn)            \
  _(Float8E5M2, c10::ScalarType::Float8_e5m2)                \
  _(Float8E4M3FNUZ, c10::ScalarType::Float8_e4m3fnuz)        \
  _(Float8E5M2FNUZ, c10::ScalarType::Float8_e5m2fnuz)        \
  _(Float8E8M0FNU, c10::ScalarType::Float8_e8m0fnu)
#else
#define EPSMITH_LATER_DTYPES(_)
#endif

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
