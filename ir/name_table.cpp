// Open addressing with linear probing and backward-shift deletion; see name_table.h.
#include "ir/name_table.h"

#include <cstring>
#include <functional>

namespace epsmith {
namespace {

uint64_t hashOf(std::string_view s) { return std::hash<std::string_view>{}(s); }

bool same(const char* data, uint32_t size, std::string_view name) {
  return size == name.size() && (size == 0 || std::memcmp(data, name.data(), size) == 0);
}

}  // namespace

void NameTable::reserve(size_t names) {
  size_t want = 16;
  while (want < names * 2) want *= 2;
  if (want <= slots_.size()) return;
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.resize(want);
  for (const Slot& s : old) {
    if (!s.uses) continue;
    size_t i = s.hash & (slots_.size() - 1);
    while (slots_[i].uses) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = s;
  }
}

void NameTable::grow() { reserve(slots_.empty() ? 8 : slots_.size()); }

size_t NameTable::find(std::string_view name, uint64_t hash) const {
  if (slots_.empty()) return npos;
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask; slots_[i].uses; i = (i + 1) & mask) {
    if (slots_[i].hash == hash && same(slots_[i].data, slots_[i].size, name)) return i;
  }
  return npos;
}

size_t NameTable::count(std::string_view name) const {
  const size_t i = find(name, hashOf(name));
  return i == npos ? 0 : slots_[i].uses;
}

size_t NameTable::add(std::string_view name) {
  const uint64_t hash = hashOf(name);
  const size_t at = find(name, hash);
  if (at != npos) return ++slots_[at].uses;
  if ((used_ + 1) * 2 > slots_.size()) grow();
  const size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (slots_[i].uses) i = (i + 1) & mask;
  slots_[i] = Slot{hash, name.data(), static_cast<uint32_t>(name.size()), 1};
  ++used_;
  return 1;
}

size_t NameTable::remove(std::string_view name) {
  size_t i = find(name, hashOf(name));
  if (i == npos) return 0;
  if (--slots_[i].uses > 0) return slots_[i].uses;
  // Backward shift: pull later entries of the probe run into the hole unless their home
  // lies cyclically in (hole, entry].
  const size_t mask = slots_.size() - 1;
  for (size_t j = i;;) {
    j = (j + 1) & mask;
    if (!slots_[j].uses) break;
    const size_t home = slots_[j].hash & mask;
    const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
    if (stays) continue;
    slots_[i] = slots_[j];
    i = j;
  }
  slots_[i] = Slot{};
  --used_;
  return 0;
}

const char* NameTable::keyData(std::string_view name) const {
  const size_t i = find(name, hashOf(name));
  return i == npos ? nullptr : slots_[i].data;
}

void NameTable::rekey(std::string_view name) {
  const size_t i = find(name, hashOf(name));
  if (i != npos) slots_[i].data = name.data();
}

}  // namespace epsmith
