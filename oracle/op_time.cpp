// See op_time.h.
#include "oracle/op_time.h"

namespace epsmith {
namespace {

thread_local double* t_sink = nullptr;

}  // namespace

OpTimeSink::OpTimeSink(double* seconds) : previous_(t_sink) { t_sink = seconds; }
OpTimeSink::~OpTimeSink() { t_sink = previous_; }

double* opTimeSink() { return t_sink; }

}  // namespace epsmith
