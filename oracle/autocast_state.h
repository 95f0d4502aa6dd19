// torch.autocast's state for one device type, set by the two forms an exported program
// holds an autocast region in: a wrap_with_autocast call over a subgraph (2.x's
// torch.export) and bare _enter_autocast/_exit_autocast calls around the region's own (the
// form older exports wrote, and the one the functionalizer lays a region out in); and by the
// generator, which draws a region's calls under the autocast they will run under.
#pragma once

#include <ATen/core/ivalue.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

#include <cstddef>
#include <vector>

namespace epsmith::autocast_state {

// torch.autocast's __enter__ and __exit__ (torch/amp/autocast_mode.py) for one device type:
// the state before is restored whatever the region raised.
class AutocastRegion {
 public:
  AutocastRegion(c10::DeviceType device, at::ScalarType dtype, bool enabled, bool cache_enabled);
  ~AutocastRegion();
  AutocastRegion(const AutocastRegion&) = delete;
  AutocastRegion& operator=(const AutocastRegion&) = delete;

 private:
  c10::DeviceType device_;
  bool was_enabled_;
  at::ScalarType was_dtype_;
  bool was_cache_enabled_;
};

// torch.amp.autocast_mode._enter_autocast(device_type, dtype, enabled, cache_enabled):
// enters a region on this thread and returns its handle, which _exit_autocast takes; a
// None dtype or cache flag keeps the current one, as torch.autocast's defaults do.
c10::IValue enterAutocast(const std::vector<c10::IValue>& args);

// torch.amp.autocast_mode._exit_autocast(handle): leaves the innermost region, which must
// be the one `handle` names (regions nest, as `with` blocks do).
void exitAutocast(const std::vector<c10::IValue>& args);

// How many regions _enter_autocast has entered on this thread and not left; the
// interpreter leaves those a run entered when it ends, so a program that does not close
// its regions (or raises inside one) cannot change the autocast state of what runs next.
size_t openAutocastRegions();
void leaveAutocastRegionsDownTo(size_t depth);

}  // namespace epsmith::autocast_state
