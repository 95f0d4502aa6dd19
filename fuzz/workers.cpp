// See workers.h. Messages on the pipes are a 4-byte length and the bytes.
#include "fuzz/workers.h"

#include <ATen/Parallel.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "oracle/breadcrumb.h"
#include "oracle/nativert.h"
#include "oracle/run.h"

namespace epsmith {
namespace {

using Clock = std::chrono::steady_clock;

bool writeAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool readAll(int fd, char* data, size_t n) {
  while (n > 0) {
    const ssize_t r = ::read(fd, data, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    data += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

bool writeMessage(int fd, const std::string& message) {
  const uint32_t n = static_cast<uint32_t>(message.size());
  return writeAll(fd, reinterpret_cast<const char*>(&n), sizeof n) && writeAll(fd, message.data(), message.size());
}

bool readMessage(int fd, std::string* message) {
  uint32_t n = 0;
  if (!readAll(fd, reinterpret_cast<char*>(&n), sizeof n)) return false;
  message->resize(n);
  return readAll(fd, message->data(), n);
}

// /proc/<pid>/statm: size and resident pages.
std::pair<size_t, size_t> memoryOf(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/statm", static_cast<int>(pid));
  FILE* f = std::fopen(path, "r");
  if (!f) return {0, 0};
  unsigned long size = 0, resident = 0;
  const int got = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  if (got != 2) return {0, 0};
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return {size * page, resident * page};
}

std::string signalName(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGBUS: return "SIGBUS";
    case SIGKILL: return "SIGKILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGTERM: return "SIGTERM";
    default: return "signal-" + std::to_string(sig);
  }
}

Breadcrumb* crumbs(void* shared) { return static_cast<Breadcrumb*>(shared); }

// Note [The frame of a crash]
// A worker killed by a signal leaves its phase and op (Note [Breadcrumbs for a supervisor]),
// but one LibTorch bug reached through many ops crashes in the same function, and two bugs
// of one op in two. So each worker records, in a fatal signal's handler, the return
// addresses of the stack the signal was raised on (backtrace(3), warmed up at start so the
// handler does not load libgcc; on an alternate stack, for overflows) and dies of the same
// signal. Forked workers share their parent's mappings of every library loaded before the
// fork, so the parent names the addresses with dladdr: the crash's frame is the first one
// outside the handler, the C library and the unwinder, demangled and without its
// arguments ("c10::TensorImpl::storage"). An address no exported symbol covers (a static
// function, a library the worker loaded itself) is named by its object's file name alone,
// so a key never holds an address. The frame goes into a crash's message template
// (Note [Root causes]).
thread_local Breadcrumb* t_crash_crumb = nullptr;

extern "C" void recordFramesAndDie(int sig) {
  if (Breadcrumb* b = t_crash_crumb) b->frame_count = ::backtrace(b->frames, Breadcrumb::kMaxFrames);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void recordFramesOnFatalSignals(Breadcrumb* crumb) {
  t_crash_crumb = crumb;
  void* warm[1];
  ::backtrace(warm, 1);
  static std::vector<char> alt(size_t{64} << 10);
  stack_t ss{};
  ss.ss_sp = alt.data();
  ss.ss_size = alt.size();
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = recordFramesAndDie;
  sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
  ::sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) ::sigaction(sig, &sa, nullptr);
}

// Whether the object at `file` is the C library or the unwinder: frames the crash passed
// through on its way to the handler, not where it happened.
bool systemObject(std::string_view file) {
  const std::string_view name = file.substr(file.rfind('/') == std::string_view::npos ? 0 : file.rfind('/') + 1);
  return name.rfind("libc.so", 0) == 0 || name.rfind("libc-", 0) == 0 || name.rfind("libgcc_s", 0) == 0 ||
         name.rfind("libpthread", 0) == 0 || name.rfind("ld-linux", 0) == 0;
}

std::string crashFrame(const Breadcrumb& crumb) {
  const int n = std::min(crumb.frame_count, Breadcrumb::kMaxFrames);
  for (int i = 0; i < n; ++i) {
    Dl_info info{};
    if (::dladdr(crumb.frames[i], &info) == 0 || !info.dli_fname) continue;
    if (systemObject(info.dli_fname)) continue;
    // The handler, and under the sanitizers their interceptor of backtrace(3), which the
    // binary itself exports.
    const std::string_view sname = info.dli_sname ? info.dli_sname : "";
    if (sname == "recordFramesAndDie" || sname == "backtrace" || sname.rfind("__interceptor_", 0) == 0) continue;
    if (!info.dli_sname) {
      const std::string_view file(info.dli_fname);
      const size_t slash = file.rfind('/');
      if (i == 0) continue;  // the handler itself, in a binary that exports nothing
      return std::string(slash == std::string_view::npos ? file : file.substr(slash + 1));
    }
    int status = 0;
    char* demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
    std::string name = status == 0 && demangled ? demangled : info.dli_sname;
    std::free(demangled);
    return name.substr(0, name.find('('));
  }
  return "";
}

}  // namespace

std::string WorkerDeath::kindName() const {
  switch (kind) {
    case Kind::Signal: return "crash-" + signalName(code);
    case Kind::Exit: return "exit-" + std::to_string(code);
    case Kind::Timeout: return "timeout";
    case Kind::OutOfMemory: return "out-of-memory";
  }
  return "?";
}

WorkerPool::WorkerPool(int jobs, ServeFn serve, WorkerLimits limits, std::function<void()> init)
    : workers_(static_cast<size_t>(std::max(jobs, 1))),
      serve_(std::move(serve)),
      limits_(limits),
      init_(std::move(init)) {
  // A worker that dies while the parent writes to it must not take the parent along.
  ::signal(SIGPIPE, SIG_IGN);
  shared_ =
      ::mmap(nullptr, sizeof(Breadcrumb) * workers_.size(), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared_ == MAP_FAILED) throw std::runtime_error(std::string("mmap: ") + std::strerror(errno));
}

WorkerPool::~WorkerPool() {
  for (size_t w = 0; w < workers_.size(); ++w) stop(w);
  ::munmap(shared_, sizeof(Breadcrumb) * workers_.size());
}

void WorkerPool::start(size_t w) {
  int down[2], up[2];
  if (::pipe2(down, O_CLOEXEC) != 0 || ::pipe2(up, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // The worker: it dies with its parent, knows only its own pipes, and leaves through
    // _exit (the parent's static destructors and atexit handlers are not its to run).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    // Interrupting the campaign (^C reaches the whole process group) is the parent's to
    // handle: it finishes the requests under way and then ends its workers.
    ::signal(SIGINT, SIG_IGN);
    ::signal(SIGTERM, SIG_DFL);
    if (::getppid() != parent) ::_exit(0);
    // What kernels print to standard output (reference LAPACK's "Parameter 8 to routine
    // SGESDD was incorrect") is not the campaign's output; standard error stays, for the
    // last words of a worker that aborts.
    if (int devnull = ::open("/dev/null", O_WRONLY); devnull >= 0) {
      ::dup2(devnull, STDOUT_FILENO);
      ::close(devnull);
    }
    ::close(down[1]);
    ::close(up[0]);
    for (const Worker& other : workers_) {
      if (other.pid > 0) {
        ::close(other.to_child);
        ::close(other.from_child);
      }
    }
    // One intra-op thread: the parent's OpenMP pool, if its kernels started one, is not
    // in the child (fork copies only the calling thread), and a kernel that splits its
    // work would wait on those threads forever.
    at::set_num_threads(1);
    Breadcrumb* crumb = &crumbs(shared_)[w];
    installBreadcrumb(crumb);
    recordFramesOnFatalSignals(crumb);
    try {
      if (init_) init_();
      // A memory backstop besides the parent's watch: allocations past it fail at once
      // (LibTorch raises), where resident growth would only be seen at the next look. Not
      // where CUDA is: its driver reserves address space for its unified memory far past
      // what it uses, and under such a cap every CUDA call fails "out of memory" (seen on
      // an H200 machine); the parent's watch of resident memory stays.
      if (!cudaAvailable()) {
        const size_t mapped = memoryOf(::getpid()).first;
        rlimit limit{mapped + 2 * limits_.rss_limit_bytes, mapped + 2 * limits_.rss_limit_bytes};
        ::setrlimit(RLIMIT_AS, &limit);
      }
      std::string request;
      while (readMessage(down[0], &request)) {
        notePhase("");
        if (!writeMessage(up[1], serve_(request))) break;
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "epsmith worker: %s\n", e.what());
      ::_exit(3);
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(0);
  }
  ::close(down[0]);
  ::close(up[1]);
  Worker& worker = workers_[w];
  worker.pid = pid;
  worker.to_child = down[1];
  worker.from_child = up[0];
  worker.served = 0;
}

void WorkerPool::restart(size_t w) {
  start(w);
  Worker& worker = workers_[w];
  worker.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(worker.queue.front().seconds));
  // A worker that died at once shows up as a failed write here, or as EOF at wait().
  for (const Request& r : worker.queue) writeMessage(worker.to_child, r.text);
}

std::string WorkerPool::finishFront(size_t w) {
  Worker& worker = workers_[w];
  std::string request = std::move(worker.queue.front().text);
  worker.queue.pop_front();
  if (!worker.queue.empty()) {
    worker.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(worker.queue.front().seconds));
  }
  return request;
}

void WorkerPool::stop(size_t w) {
  Worker& worker = workers_[w];
  if (worker.pid <= 0) return;
  ::close(worker.to_child);
  ::close(worker.from_child);
  ::kill(worker.pid, SIGKILL);
  int status = 0;
  while (::waitpid(worker.pid, &status, 0) < 0 && errno == EINTR) {}
  ::unlink(temporaryArchivePath(worker.pid).c_str());
  worker.pid = -1;
}

void WorkerPool::renew(int w) {
  Worker& worker = workers_[static_cast<size_t>(w)];
  if (!worker.queue.empty()) throw std::logic_error("renewing a busy worker");
  stop(static_cast<size_t>(w));  // send() starts the fresh one
}

void WorkerPool::send(int w, std::string request, double deadline_seconds) {
  const size_t i = static_cast<size_t>(w);
  Worker& worker = workers_[i];
  const double seconds = deadline_seconds < 0 ? limits_.seconds_per_request : deadline_seconds;
  worker.queue.push_back({std::move(request), seconds});
  if (worker.pid <= 0) return restart(i);
  if (worker.queue.size() == 1) {
    worker.deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }
  // A worker that died while idle shows up as a failed write here, or as EOF at wait().
  writeMessage(worker.to_child, worker.queue.back().text);
}

WorkerDeath WorkerPool::reap(size_t w, std::optional<WorkerDeath::Kind> killed_for) {
  Worker& worker = workers_[w];
  if (killed_for) ::kill(worker.pid, SIGKILL);
  int status = 0;
  while (::waitpid(worker.pid, &status, 0) < 0 && errno == EINTR) {}
  ::unlink(temporaryArchivePath(worker.pid).c_str());
  WorkerDeath death;
  if (killed_for) {
    death.kind = *killed_for;
  } else if (WIFSIGNALED(status)) {
    death.kind = WorkerDeath::Kind::Signal;
    death.code = WTERMSIG(status);
  } else {
    death.kind = WorkerDeath::Kind::Exit;
    death.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  const Breadcrumb& crumb = crumbs(shared_)[w];
  death.phase.assign(crumb.phase, ::strnlen(crumb.phase, sizeof crumb.phase));
  death.op.assign(crumb.op, ::strnlen(crumb.op, sizeof crumb.op));
  if (death.kind == WorkerDeath::Kind::Signal) death.frame = crashFrame(crumb);
  ::close(worker.to_child);
  ::close(worker.from_child);
  worker.pid = -1;
  ++restarts_;
  return death;
}

// Note [Recycled workers]
// One worker serving case after case grows: LibTorch 1.13 leaks a little per run (autograd
// nodes of in-place ops on leaves that require grad form cycles; valgrind finds them), our
// caches fill, and glibc's heap fragments — about 20 MB of resident memory per 50 000 cases
// in a campaign without worker deaths. Replacing a worker after requests_per_worker
// requests bounds that, as libFuzzer-style harnesses bound a persistent process, for the
// price of a fork every few tens of seconds. A request queued behind the last one
// (Note [Requests queued ahead]) goes to the replacement, which does over whatever the retired
// worker had begun of it: one case in ten thousand.
std::vector<WorkerPool::Event> WorkerPool::wait(int timeout_ms) {
  std::vector<Event> events;
  std::vector<pollfd> fds;
  std::vector<size_t> which;
  auto now = Clock::now();
  int wait_ms = timeout_ms;
  for (size_t w = 0; w < workers_.size(); ++w) {
    if (workers_[w].queue.empty()) continue;
    fds.push_back({workers_[w].from_child, POLLIN, 0});
    which.push_back(w);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(workers_[w].deadline - now).count();
    wait_ms = static_cast<int>(std::max<long>(0, std::min<long>(wait_ms, left + 1)));
  }
  // Memory is looked at between replies, so a busy worker is looked at this often.
  wait_ms = std::min(wait_ms, 100);
  if (fds.empty()) return events;
  int ready = ::poll(fds.data(), fds.size(), wait_ms);
  if (ready < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
  now = Clock::now();
  for (size_t k = 0; k < fds.size(); ++k) {
    const size_t w = which[k];
    Worker& worker = workers_[w];
    Event e;
    e.worker = static_cast<int>(w);
    // A death takes the front request with it; the rest go to its replacement.
    auto died = [&](std::optional<WorkerDeath::Kind> killed_for) {
      e.death = reap(w, killed_for);
      e.request = finishFront(w);
      if (!worker.queue.empty()) restart(w);
      events.push_back(std::move(e));
    };
    if (ready > 0 && (fds[k].revents & (POLLIN | POLLHUP | POLLERR))) {
      std::string reply;
      if (!readMessage(worker.from_child, &reply)) {
        died(std::nullopt);
        continue;
      }
      e.reply = std::move(reply);
      e.request = finishFront(w);
      events.push_back(std::move(e));
      if (limits_.requests_per_worker > 0 && ++worker.served >= limits_.requests_per_worker) {
        stop(w);  // the next send() starts a fresh one, or now, for requests already queued
        ++recycled_;
        if (!worker.queue.empty()) restart(w);
      }
      continue;
    }
    if (now >= worker.deadline) {
      died(WorkerDeath::Kind::Timeout);
    } else if (now - worker.memory_checked >= std::chrono::milliseconds(100) &&
               (worker.memory_checked = now, memoryOf(worker.pid).second > limits_.rss_limit_bytes)) {
      died(WorkerDeath::Kind::OutOfMemory);
    }
  }
  return events;
}

size_t WorkerPool::rssBytes() const {
  size_t total = 0;
  for (const Worker& w : workers_) {
    if (w.pid > 0) total += memoryOf(w.pid).second;
  }
  return total;
}

IsolatedOutcome runIsolated(const std::function<std::string()>& fn, const WorkerLimits& limits,
                            std::function<void()> init) {
  WorkerPool pool(
      1, [&](const std::string&) { return fn(); }, limits, std::move(init));
  pool.send(0, "");
  for (;;) {
    for (auto& e : pool.wait(1000)) {
      IsolatedOutcome out;
      out.result = std::move(e.reply);
      out.death = std::move(e.death);
      return out;
    }
  }
}

}  // namespace epsmith
