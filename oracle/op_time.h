// Time spent inside ATen kernels. The interpreter charges every dispatcher call it makes
// (the kernel, and the exception it raises when it refuses its arguments) to the sink
// installed on the calling thread, whatever the caller is doing: running a program, or
// the generators and the functionalizer trying a single call. A campaign reports that sum
// beside its phases, as the share of a case spent executing ops.
#pragma once

#include <chrono>

namespace epsmith {

// Adds the wall-clock seconds from its making to stop() (or to its end, on an early
// return) to `*seconds`; nothing when `seconds` is null.
class ScopedSeconds {
 public:
  explicit ScopedSeconds(double* seconds) : seconds_(seconds) {
    if (seconds_) started_ = std::chrono::steady_clock::now();
  }
  ~ScopedSeconds() { stop(); }
  ScopedSeconds(const ScopedSeconds&) = delete;
  ScopedSeconds& operator=(const ScopedSeconds&) = delete;
  void stop() {
    if (seconds_) *seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    seconds_ = nullptr;
  }

 private:
  double* seconds_;
  std::chrono::steady_clock::time_point started_;
};

// Adds the op time of its lifetime to `*seconds` (sinks nest: the inner one takes it).
class OpTimeSink {
 public:
  explicit OpTimeSink(double* seconds);
  ~OpTimeSink();
  OpTimeSink(const OpTimeSink&) = delete;
  OpTimeSink& operator=(const OpTimeSink&) = delete;

 private:
  double* previous_;
};

// The sink of this thread, or null.
double* opTimeSink();

}  // namespace epsmith
