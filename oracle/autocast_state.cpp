// See autocast_state.h.
#include "oracle/autocast_state.h"

#include <ATen/autocast_mode.h>
#include <c10/core/Device.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace epsmith::autocast_state {

AutocastRegion::AutocastRegion(c10::DeviceType device, at::ScalarType dtype, bool enabled, bool cache_enabled)
    : device_(device),
      was_enabled_(at::autocast::is_autocast_enabled(device)),
      was_dtype_(at::autocast::get_autocast_dtype(device)),
      was_cache_enabled_(at::autocast::is_autocast_cache_enabled()) {
  at::autocast::set_autocast_enabled(device, enabled);
  at::autocast::set_autocast_dtype(device, dtype);
  at::autocast::increment_nesting();
  at::autocast::set_autocast_cache_enabled(cache_enabled);
}

AutocastRegion::~AutocastRegion() {
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  at::autocast::set_autocast_enabled(device_, was_enabled_);
  at::autocast::set_autocast_dtype(device_, was_dtype_);
  at::autocast::set_autocast_cache_enabled(was_cache_enabled_);
}

namespace {

// The regions bare _enter_autocast calls opened on this thread, innermost last.
std::vector<std::unique_ptr<AutocastRegion>>& openRegions() {
  thread_local std::vector<std::unique_ptr<AutocastRegion>> regions;
  return regions;
}

}  // namespace

c10::IValue enterAutocast(const std::vector<c10::IValue>& a) {
  if (a.size() != 4 || !a[0].isString() || !(a[1].isNone() || a[1].isInt()) || !a[2].isBool() ||
      !(a[3].isNone() || a[3].isBool())) {
    throw std::invalid_argument("_enter_autocast takes (device_type, dtype, enabled, cache_enabled)");
  }
  const c10::DeviceType device = c10::Device(a[0].toStringRef()).type();
  const at::ScalarType dtype =
      a[1].isNone() ? at::autocast::get_autocast_dtype(device) : static_cast<at::ScalarType>(a[1].toInt());
  const bool cache = a[3].isNone() ? at::autocast::is_autocast_cache_enabled() : a[3].toBool();
  auto& regions = openRegions();
  regions.push_back(std::make_unique<AutocastRegion>(device, dtype, a[2].toBool(), cache));
  return static_cast<int64_t>(regions.size());
}

void exitAutocast(const std::vector<c10::IValue>& a) {
  auto& regions = openRegions();
  if (a.size() != 1 || !a[0].isInt()) throw std::invalid_argument("_exit_autocast takes what _enter_autocast returned");
  if (regions.empty() || a[0].toInt() != static_cast<int64_t>(regions.size())) {
    throw std::invalid_argument("_exit_autocast leaves region " + std::to_string(a[0].toInt()) + " where " +
                                std::to_string(regions.size()) + " is the innermost open one");
  }
  regions.pop_back();
}

size_t openAutocastRegions() { return openRegions().size(); }

void leaveAutocastRegionsDownTo(size_t depth) {
  auto& regions = openRegions();
  while (regions.size() > depth) regions.pop_back();
}

}  // namespace epsmith::autocast_state
