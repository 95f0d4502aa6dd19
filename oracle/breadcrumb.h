// Breadcrumbs: what a process was doing, written where a supervisor can read it after the
// process dies. The campaign's workers point this at a page shared with their parent; the
// oracle notes every ATen op just before it is dispatched, the campaign notes its phase.
// Without an installed breadcrumb every note is a branch and nothing else.
//
// Note [Breadcrumbs for a supervisor]
// A kernel that segfaults, aborts or hangs takes no exception handler with it, so the
// worker cannot say which op it was running; its parent can read the last note instead.
// One writer (the worker's own thread) and one reader who looks only once the writer is dead
// or stopped, so plain copies suffice: every note ends with a NUL, and a crash cannot land
// inside the copy of a note (the copy calls nothing).
#pragma once

#include <string_view>

namespace epsmith {

struct Breadcrumb {
  char phase[32];  // "generate", "D2", "minimize"
  char op[96];     // "aten::add.Tensor": the op most recently dispatched
  // The return addresses of the stack a fatal signal was raised on, innermost first
  // (fuzz/workers.cpp, Note [The frame of a crash]); 0 frames when none was.
  static constexpr int kMaxFrames = 24;
  void* frames[kMaxFrames];
  int frame_count;
};

// Installs `b` (nullptr: none) for this process.
void installBreadcrumb(Breadcrumb* b);
void notePhase(std::string_view phase);
// `name` and, when not empty, '.' and `overload`: "aten::add.Tensor".
void noteOp(std::string_view name, std::string_view overload = {});

}  // namespace epsmith
