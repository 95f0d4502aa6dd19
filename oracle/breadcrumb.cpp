// See breadcrumb.h.
#include "oracle/breadcrumb.h"

#include <algorithm>
#include <cstring>

namespace epsmith {
namespace {

Breadcrumb* g_breadcrumb = nullptr;

// Copies `parts` one after the other into `out` (cut to fit), NUL-terminated.
template <size_t N>
void copyInto(char (&out)[N], std::string_view a, std::string_view b = {}, std::string_view c = {}) {
  size_t at = 0;
  for (std::string_view part : {a, b, c}) {
    const size_t n = std::min(part.size(), N - 1 - at);
    if (n > 0) std::memcpy(out + at, part.data(), n);  // an empty view's data() may be null: undefined for memcpy
    at += n;
  }
  out[at] = '\0';
}

}  // namespace

void installBreadcrumb(Breadcrumb* b) {
  g_breadcrumb = b;
  if (b) {
    b->phase[0] = '\0';
    b->op[0] = '\0';
    b->frame_count = 0;
  }
}

void notePhase(std::string_view phase) {
  if (g_breadcrumb) copyInto(g_breadcrumb->phase, phase);
}

void noteOp(std::string_view name, std::string_view overload) {
  if (!g_breadcrumb) return;
  if (overload.empty())
    copyInto(g_breadcrumb->op, name);
  else
    copyInto(g_breadcrumb->op, name, ".", overload);
}

}  // namespace epsmith
