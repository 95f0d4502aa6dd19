// See fresh_fill.h.
#include "oracle/fresh_fill.h"

#include "oracle/libtorch_compat.h"

#include <c10/core/CPUAllocator.h>

#include <atomic>
#include <cstring>
#include <mutex>

namespace epsmith {
namespace {

std::atomic<int> g_fill{-1};  // the byte fresh blocks get; -1: none

class FillingCpuAllocator final : public compat::ForwardingAllocator {
 public:
  using ForwardingAllocator::ForwardingAllocator;

 protected:
  c10::DataPtr allocateFrom(c10::Allocator& base, size_t bytes) const override {
    const int fill = g_fill.load(std::memory_order_relaxed);
    if (fill < 0 || bytes == 0) return base.allocate(bytes);
    // The storage keeps the size asked for; the room after it is only ever read past it.
    c10::DataPtr block = base.allocate(bytes + kFilledPastEnd);
    if (block.get()) std::memset(block.get(), fill, bytes + kFilledPastEnd);
    return block;
  }

 private:
  // As much as one vector load reads past the last element a kernel means to read.
  static constexpr size_t kFilledPastEnd = 64;
};

}  // namespace

void installFreshTensorFills() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Never destroyed: tensors may outlive static destructors. The blocks keep the base
    // allocator's deleter, so they are freed the same way whichever allocator made them.
    static auto* filling = new FillingCpuAllocator(c10::GetCPUAllocator());
    c10::SetCPUAllocator(filling, /*priority=*/UINT8_MAX);
  });
}

FreshTensorFill::FreshTensorFill(uint8_t byte) {
  installFreshTensorFills();
  previous_ = g_fill.exchange(byte);
}

FreshTensorFill::~FreshTensorFill() { g_fill.store(previous_); }

}  // namespace epsmith
