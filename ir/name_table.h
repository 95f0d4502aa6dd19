// The names in use in a Graph with their counts: an open-addressing table keyed by views
// into the nodes' own name strings, so adding a name allocates nothing and a lookup touches
// one slot (Graph keeps it up to date on every edit; see graph.h).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace epsmith {

class NameTable {
 public:
  void reserve(size_t names);
  size_t count(std::string_view name) const;
  // One more use of `name`, whose characters must outlive the use (a node's own name);
  // returns the count after.
  size_t add(std::string_view name);
  // One use fewer; returns the count after. The key of a name still in use may view the
  // characters being given up: check keyData() and rekey() to a remaining owner.
  size_t remove(std::string_view name);
  const char* keyData(std::string_view name) const;
  void rekey(std::string_view name);  // same characters, another owner

 private:
  struct Slot {
    uint64_t hash = 0;
    const char* data = nullptr;
    uint32_t size = 0;
    uint32_t uses = 0;  // 0: empty
  };
  size_t find(std::string_view name, uint64_t hash) const;  // slot index or npos
  void grow();
  static constexpr size_t npos = ~size_t{0};
  std::vector<Slot> slots_;
  size_t used_ = 0;
};

}  // namespace epsmith
