// Forked workers: the campaign's isolation. Each worker is a child process that serves
// requests (strings) one at a time, in the order they were sent; the parent sends requests,
// waits for replies, and watches each busy worker's clock and memory. A worker that dies (a
// signal, an exit), runs past its request's deadline, or grows past the memory limit is
// killed if need be, reported with the breadcrumb it left (the phase and the last ATen op,
// Note [Breadcrumbs for a supervisor]), and replaced by a fresh one, which is handed the
// requests the dead one had not begun; the campaign goes on.
//
// Note [Requests queued ahead]
// A worker that must wait for its next request after each reply waits for two wakeups
// and the parent's bookkeeping in between: about a tenth of a 16-op case's time. So a
// caller may send a worker its next request before the reply to the last: the worker
// finds it in its pipe as soon as it is done. Only the request at the front of a worker's
// queue is being served; its deadline runs from when it got to the front.
//
// The parent never runs LibTorch ops itself, so forking a fresh worker does not copy a
// process with live thread pools.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace epsmith {

// How a request ended without a reply.
struct WorkerDeath {
  enum class Kind : uint8_t { Signal, Exit, Timeout, OutOfMemory } kind = Kind::Signal;
  int code = 0;       // the signal or exit status
  std::string phase;  // the breadcrumb
  std::string op;
  std::string frame;  // the function a signal was raised in, where the worker could name it
  // "crash-SIGSEGV", "exit-3", "timeout", "out-of-memory": stable, for signatures.
  std::string kindName() const;
};

struct WorkerLimits {
  double seconds_per_request = 10;  // a request's default deadline
  size_t rss_limit_bytes = size_t{2} << 30;
  // A worker is replaced after serving this many requests (0: never), so what LibTorch and
  // the caches keep per request, and the heap's fragmentation, cannot pile up over a
  // campaign of hours (Note [Recycled workers]).
  int requests_per_worker = 10000;
};

// Runs in the worker: the reply to one request. An exception escaping it ends the worker
// with exit status 3 (reported as a death).
using ServeFn = std::function<std::string(const std::string& request)>;

class WorkerPool {
 public:
  // `init` runs once in every fresh worker before it serves (e.g. prepareCaseProcess); a
  // worker runs one intra-op thread from its start.
  WorkerPool(int jobs, ServeFn serve, WorkerLimits limits, std::function<void()> init = {});
  ~WorkerPool();  // kills the workers
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()); }
  bool busy(int w) const { return !workers_[static_cast<size_t>(w)].queue.empty(); }
  // Requests sent to `w` and not answered yet.
  size_t queued(int w) const { return workers_[static_cast<size_t>(w)].queue.size(); }
  // Queues `request` for worker `w` (Note [Requests queued ahead]); `deadline_seconds` < 0
  // uses the limit's, counted from when the worker begins it.
  void send(int w, std::string request, double deadline_seconds = -1);

  struct Event {
    int worker = 0;
    std::string request;
    std::optional<std::string> reply;  // or:
    std::optional<WorkerDeath> death;
  };
  // Replaces idle worker `w` with a fresh process, which has served nothing when it gets
  // the next request sent to `w`.
  void renew(int w);
  // Waits up to `timeout_ms` for replies and deaths of busy workers (all that are ready).
  std::vector<Event> wait(int timeout_ms);
  // The workers' resident memory together, in bytes.
  size_t rssBytes() const;
  // Workers replaced after a death, so far.
  int restarts() const { return restarts_; }
  // Workers replaced after serving requests_per_worker requests, so far.
  int recycled() const { return recycled_; }

 private:
  struct Request {
    std::string text;
    double seconds = 0;  // its time limit
  };
  struct Worker {
    pid_t pid = -1;
    int to_child = -1, from_child = -1;
    int served = 0;                                  // requests answered since it started
    std::deque<Request> queue;                       // sent and unanswered; the front is being served
    std::chrono::steady_clock::time_point deadline;  // of the front request
    std::chrono::steady_clock::time_point memory_checked;
  };
  void start(size_t w);
  void stop(size_t w);
  // A fresh process for `w`, handed every request of its queue again.
  void restart(size_t w);
  // Pops the front request, which ended; the next one's clock starts.
  std::string finishFront(size_t w);
  WorkerDeath reap(size_t w, std::optional<WorkerDeath::Kind> killed_for);

  std::vector<Worker> workers_;
  ServeFn serve_;
  WorkerLimits limits_;
  std::function<void()> init_;
  void* shared_ = nullptr;  // one Breadcrumb per worker, shared with the children
  int restarts_ = 0;
  int recycled_ = 0;
};

// Runs `fn` in a forked child and returns what it wrote to its result, or how it died.
// For one-off isolated runs (minimizing a crash, replaying a case) from a process that has
// already run LibTorch: fn must not rely on threads of the parent.
struct IsolatedOutcome {
  std::optional<std::string> result;
  std::optional<WorkerDeath> death;
};
IsolatedOutcome runIsolated(const std::function<std::string()>& fn, const WorkerLimits& limits,
                            std::function<void()> init = {});

}  // namespace epsmith
