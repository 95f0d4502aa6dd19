// The random sources; see random_source.h.
#include "generators/random_source.h"

namespace epsmith {

size_t RandomSource::weighted(const std::vector<uint32_t>& weights) {
  uint64_t total = 0;
  for (uint32_t w : weights) total += w;
  if (total == 0) return 0;
  uint64_t x = below(total);
  for (size_t i = 0; i < weights.size(); ++i) {
    if (x < weights[i]) return i;
    x -= weights[i];
  }
  return weights.size() - 1;
}

SeededSource::SeededSource(uint64_t seed) {
  for (auto& word : s_) {  // splitmix64
    seed += 0x9e3779b97f4a7c15ull;
    uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    word = z ^ (z >> 31);
  }
}

uint64_t SeededSource::next() {
  auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

uint64_t ByteSource::next() {
  uint64_t v = 0;
  for (int i = 0; i < 8 && pos_ < size_; ++i) v |= static_cast<uint64_t>(data_[pos_++]) << (8 * i);
  return v;
}

}  // namespace epsmith
