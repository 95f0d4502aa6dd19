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
// innermost live FreshTensorFill, and otherwise leaves it as it is; a filled block also
// holds the byte for 64 bytes past its end, where a kernel that reads past the storage of
// a tensor the run made reads (as past an input's, Note [Over-reads see a fill]). Only
// tensor memory is filled: a kernel's own std::vector scratch is the heap allocator's
// (M_PERTURB still fills it under glibc's malloc; under tcmalloc nothing does). The byte is the
// whole process's, and fills nest first in, last out: for a process's one running thread,
// as campaign workers and replay children are.
class FreshTensorFill {
 public:
  explicit FreshTensorFill(uint8_t byte);
  ~FreshTensorFill();
  FreshTensorFill(const FreshTensorFill&) = delete;
  FreshTensorFill& operator=(const FreshTensorFill&) = delete;

 private:
  int previous_;
};

// Installs the wrapping allocator, filling nothing until a FreshTensorFill lives. LibTorch
// allows allocators to be set only while no other thread allocates: call it as a process
// is set up (prepareCaseProcess does); a FreshTensorFill made first installs it then.
void installFreshTensorFills();

}  // namespace epsmith
