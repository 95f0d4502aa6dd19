// A std-compatible allocator that carves single objects out of large chunks, so the nodes of
// a graph lie next to each other in memory in creation order (a walk over a million-node
// graph then streams through memory instead of chasing scattered allocations). Freed slots
// are reused; chunks are released when the last allocator copy goes away.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <vector>

namespace epsmith {

class ChunkArena {
 public:
  explicit ChunkArena(size_t slot_size, size_t slots_per_chunk = 512)
      : slot_size_((slot_size + alignof(std::max_align_t) - 1) / alignof(std::max_align_t) * alignof(std::max_align_t)),
        slots_per_chunk_(slots_per_chunk) {}
  ChunkArena(const ChunkArena&) = delete;
  ChunkArena& operator=(const ChunkArena&) = delete;

  void* allocate() {
    if (free_) {
      void* slot = free_;
      free_ = *static_cast<void**>(free_);
      return slot;
    }
    if (used_ == slots_per_chunk_ || chunks_.empty()) {
      chunks_.emplace_back(new std::max_align_t[slot_size_ * slots_per_chunk_ / sizeof(std::max_align_t) + 1]);
      used_ = 0;
    }
    return reinterpret_cast<char*>(chunks_.back().get()) + slot_size_ * used_++;
  }
  void deallocate(void* slot) {
    *static_cast<void**>(slot) = free_;
    free_ = slot;
  }
  size_t slotSize() const { return slot_size_; }

 private:
  size_t slot_size_;
  size_t slots_per_chunk_;
  size_t used_ = 0;
  void* free_ = nullptr;
  std::vector<std::unique_ptr<std::max_align_t[]>> chunks_;
};

// One arena per slot size, shared by all rebound copies of one allocator.
struct ChunkArenas {
  std::vector<std::unique_ptr<ChunkArena>> by_size;
};

template <typename T>
class ChunkAllocator {
 public:
  using value_type = T;
  ChunkAllocator() : arenas_(std::make_shared<ChunkArenas>()) {}
  template <typename U>
  ChunkAllocator(const ChunkAllocator<U>& other) : arenas_(other.arenas_) {}  // NOLINT

  T* allocate(size_t n) {
    if (n != 1) return static_cast<T*>(::operator new(n * sizeof(T)));
    return static_cast<T*>(arena().allocate());
  }
  void deallocate(T* p, size_t n) {
    if (n != 1) {
      ::operator delete(p);
      return;
    }
    arena().deallocate(p);
  }
  template <typename U>
  bool operator==(const ChunkAllocator<U>& o) const {
    return arenas_ == o.arenas_;
  }
  template <typename U>
  bool operator!=(const ChunkAllocator<U>& o) const {
    return !(*this == o);
  }

 private:
  template <typename U>
  friend class ChunkAllocator;
  ChunkArena& arena() {
    for (auto& a : arenas_->by_size) {
      if (a->slotSize() >= sizeof(T) && a->slotSize() < sizeof(T) + alignof(std::max_align_t)) return *a;
    }
    arenas_->by_size.push_back(std::make_unique<ChunkArena>(sizeof(T)));
    return *arenas_->by_size.back();
  }
  std::shared_ptr<ChunkArenas> arenas_;
};

}  // namespace epsmith
