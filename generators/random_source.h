// Where every random choice of the generators comes from: one interface, two sources — a
// seeded PRNG (campaigns: same seed, same programs) and a byte stream (libFuzzer: its
// mutations of the bytes drive the structural choices; same bytes, same program).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace epsmith {

class RandomSource {
 public:
  virtual ~RandomSource() = default;
  virtual uint64_t next() = 0;  // 64 random bits

  uint64_t below(uint64_t n) { return n <= 1 ? 0 : next() % n; }  // [0, n)
  int64_t range(int64_t lo, int64_t hi) {                         // [lo, hi]
    return hi <= lo ? lo : lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo) + 1));
  }
  bool chance(uint32_t percent) { return below(100) < percent; }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  // An index drawn with the given non-negative weights (0 when they are all 0).
  size_t weighted(const std::vector<uint32_t>& weights);
};

// xoshiro256** seeded through splitmix64.
class SeededSource : public RandomSource {
 public:
  explicit SeededSource(uint64_t seed);
  uint64_t next() override;

 private:
  uint64_t s_[4];
};

// Reads the bytes in order, 8 per draw (little-endian); past the end every draw is 0, so a
// short input still decides a whole program.
class ByteSource : public RandomSource {
 public:
  ByteSource(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint64_t next() override;
  size_t consumed() const { return pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace epsmith
