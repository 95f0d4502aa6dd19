// Time spent inside ATen kernels. The interpreter charges every dispatcher call it makes
// (the kernel, and the exception it raises when it refuses its arguments) to the sink
// installed on the calling thread, whatever the caller is doing: running a program, or
// the generators and the functionalizer trying a single call. A campaign reports that sum
// beside its phases, as the share of a case spent executing ops.
#pragma once

namespace epsmith {

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
