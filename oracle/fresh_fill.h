// Fresh CPU tensor memory that holds a chosen byte, for runs that must see different
// garbage where a kernel reads memory it never wrote (Note [Re-runs on a perturbed heap]).
#pragma once

#include <cstdint>

namespace epsmith {

// Note [Fresh tensors hold a fill]
// LibTorch hands out CPU tensor memory uninitialized (at::empty, every kernel's result and
// scratch tensors), and a kernel that reads what it never wrote returns whatever the block
// held before. To tell such a kernel apart, a re-run must change that garbage. glibc's
// M_PERTURB did it for the whole heap, but only under glibc's malloc, and epsmith links
// tcmalloc (Note [tcmalloc in every executable]). So LibTorch's CPU allocator is wrapped,
// once per process, by one that fills each block it hands out with the byte of the
// innermost live FreshTensorFill, and otherwise leaves it as it is. Only tensor memory is
// filled: a kernel's own std::vector scratch is the heap allocator's, as before.
class FreshTensorFill {
 public:
  explicit FreshTensorFill(uint8_t byte);
  ~FreshTensorFill();
  FreshTensorFill(const FreshTensorFill&) = delete;
  FreshTensorFill& operator=(const FreshTensorFill&) = delete;

 private:
  int previous_;
};

}  // namespace epsmith
