// Forked workers: a worker that segfaults, aborts, hangs, or grows past the memory limit is
// reported with its breadcrumb (phase and op) and replaced, and the pool goes on serving;
// runIsolated does the same for one call; a worker is replaced after its share of requests.
#include <gtest/gtest.h>

#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/ones.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fuzz/workers.h"
#include "oracle/breadcrumb.h"
#include "oracle/nativert.h"

namespace epsmith {
namespace {

// "echo X" answers X; "pid" the worker's pid; "archive R" does R holding an archive;
// "segv"/"abort"/"hang"/"grow" leave a breadcrumb and misbehave.
std::string misbehave(const std::string& request) {
  if (request.rfind("echo ", 0) == 0) return request.substr(5);
  if (request == "pid") return std::to_string(::getpid());
  notePhase("D2");
  noteOp("aten::frobnicate", "out");
  if (request == "segv") std::raise(SIGSEGV);
  if (request == "abort") std::abort();
  if (request == "hang") std::this_thread::sleep_for(std::chrono::seconds(60));
  if (request == "grow") {
    std::vector<std::vector<char>> hoard;
    for (;;) {
      hoard.emplace_back(size_t{16} << 20);
      std::memset(hoard.back().data(), 1, hoard.back().size());
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  if (request == "throw") throw std::runtime_error("boom");
  if (request.rfind("archive ", 0) == 0) {  // dies as a runtime D9 handed an archive would
    TemporaryArchive file("not a zip");
    return misbehave(request.substr(8));
  }
  if (request == "slow") {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    return "slept";
  }
  return "?";
}

WorkerPool::Event roundTrip(WorkerPool& pool, const std::string& request, double deadline_seconds = -1) {
  pool.send(0, request, deadline_seconds);
  for (;;) {
    auto events = pool.wait(1000);
    if (!events.empty()) return events[0];
  }
}

// Under AddressSanitizer a worker forked late in the suite inherits shadow memory and a
// quarantine that alone come near 256 MiB: the hang would be taken for growth.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EPSMITH_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(EPSMITH_TEST_ASAN)
constexpr size_t kRssLimit = size_t{1} << 30;
#else
constexpr size_t kRssLimit = size_t{256} << 20;
#endif

TEST(Workers, DeathsAreReportedWithTheirBreadcrumbAndThePoolGoesOn) {
  WorkerLimits limits;
  limits.seconds_per_request = 0.5;
  limits.rss_limit_bytes = kRssLimit;
  WorkerPool pool(1, misbehave, limits);
  struct Want {
    const char* request;
    WorkerDeath::Kind kind;
    const char* name;
  };
  for (const Want& want :
       {Want{"segv", WorkerDeath::Kind::Signal, "crash-SIGSEGV"},
        Want{"abort", WorkerDeath::Kind::Signal, "crash-SIGABRT"}, Want{"hang", WorkerDeath::Kind::Timeout, "timeout"},
        Want{"grow", WorkerDeath::Kind::OutOfMemory, "out-of-memory"},
        Want{"throw", WorkerDeath::Kind::Exit, "exit-3"}}) {
    SCOPED_TRACE(want.request);
    // Only the hang meets the 0.5 s deadline; the others get time to spare on a busy machine.
    auto e = roundTrip(pool, want.request, want.kind == WorkerDeath::Kind::Timeout ? -1 : 60);
    ASSERT_TRUE(e.death.has_value());
    EXPECT_FALSE(e.reply.has_value());
    EXPECT_EQ(e.request, want.request);
    EXPECT_EQ(e.death->kind, want.kind);
    EXPECT_EQ(e.death->kindName(), want.name);
    EXPECT_EQ(e.death->phase, "D2");
    EXPECT_EQ(e.death->op, "aten::frobnicate.out");
    // Note [The frame of a crash]: a signal's frame is the function that raised it, here a
    // static one of this binary, so the binary's name; never an address. Other deaths have none.
    if (want.kind == WorkerDeath::Kind::Signal) {
      EXPECT_EQ(e.death->frame, "test_fuzz");
    } else {
      EXPECT_EQ(e.death->frame, "");
    }
    auto after = roundTrip(pool, "echo still here");
    ASSERT_TRUE(after.reply.has_value());
    EXPECT_EQ(*after.reply, "still here");
  }
  EXPECT_EQ(pool.restarts(), 5);
}

// A worker that dies while a runtime has its archive (the crashes D9 looks for) or is killed
// at its deadline leaves no file behind: a night's campaign would leave thousands.
TEST(Workers, ADeadWorkersArchiveIsRemoved) {
  WorkerLimits limits;
  limits.seconds_per_request = 0.5;
  limits.rss_limit_bytes = kRssLimit;
  WorkerPool pool(1, misbehave, limits);
  for (const char* request : {"archive segv", "archive hang"}) {
    SCOPED_TRACE(request);
    auto pid = roundTrip(pool, "pid");
    ASSERT_TRUE(pid.reply.has_value());
    const std::string path = temporaryArchivePath(std::stol(*pid.reply));
    auto e = roundTrip(pool, request, std::string(request) == "archive hang" ? -1 : 60);
    ASSERT_TRUE(e.death.has_value());
    EXPECT_NE(::access(path.c_str(), F_OK), 0) << path << " is left behind";
  }
}

TEST(Workers, RepliesComeBackFromEveryWorker) {
  WorkerPool pool(3, misbehave, WorkerLimits{});
  for (int w = 0; w < 3; ++w) pool.send(w, "echo " + std::to_string(w));
  std::vector<std::string> replies(3);
  int got = 0;
  while (got < 3) {
    for (auto& e : pool.wait(1000)) {
      ASSERT_TRUE(e.reply.has_value());
      replies[static_cast<size_t>(e.worker)] = *e.reply;
      ++got;
    }
  }
  EXPECT_EQ(replies, (std::vector<std::string>{"0", "1", "2"}));
}

// Note [Requests queued ahead]: requests sent before the last reply are answered in order;
// a death takes only the request being served, and the requests queued behind it are
// answered by the replacement; a queued request's deadline runs from when it is begun.
TEST(Workers, QueuedRequestsSurviveTheDeathOfTheOneAhead) {
  WorkerLimits limits;
  limits.seconds_per_request = 60;
  WorkerPool pool(1, misbehave, limits);
  pool.send(0, "echo a");
  pool.send(0, "segv");
  pool.send(0, "echo b");
  pool.send(0, "hang", /*deadline_seconds=*/0.5);
  pool.send(0, "echo c");
  EXPECT_EQ(pool.queued(0), 5u);
  std::vector<std::string> seen;
  while (seen.size() < 5) {
    for (auto& e : pool.wait(1000)) {
      seen.push_back(e.request + " -> " + (e.reply ? *e.reply : e.death->kindName()));
    }
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"echo a -> a", "segv -> crash-SIGSEGV", "echo b -> b", "hang -> timeout",
                                            "echo c -> c"}));
  EXPECT_EQ(pool.queued(0), 0u);
  EXPECT_EQ(pool.restarts(), 2);

  // Queued behind 1.5 s of work, a request with a 1 s limit is answered: its clock starts
  // when the worker begins it, not when it was queued.
  pool.send(0, "slow");
  pool.send(0, "echo d", /*deadline_seconds=*/1.0);
  seen.clear();
  while (seen.size() < 2) {
    for (auto& e : pool.wait(1000)) seen.push_back(e.request + " -> " + (e.reply ? *e.reply : e.death->kindName()));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"slow -> slept", "echo d -> d"}));
}

// Note [Recycled workers]: after requests_per_worker replies a worker is replaced, without
// a death and without losing a request.
TEST(Workers, AWorkerIsReplacedAfterItsShareOfRequests) {
  WorkerLimits limits;
  limits.requests_per_worker = 3;
  WorkerPool pool(
      1, [](const std::string&) { return std::to_string(::getpid()); }, limits);
  std::set<std::string> pids;
  for (int i = 0; i < 7; ++i) {
    pool.send(0, "which");
    std::vector<WorkerPool::Event> events;
    while (events.empty()) events = pool.wait(1000);
    ASSERT_TRUE(events[0].reply.has_value());
    pids.insert(*events[0].reply);
  }
  EXPECT_EQ(pids.size(), 3u);  // requests 1-3, 4-6, 7
  EXPECT_EQ(pool.recycled(), 2);
  EXPECT_EQ(pool.restarts(), 0);

  // The same with the requests queued at once: the replacement takes those left.
  WorkerPool queued(
      1, [](const std::string&) { return std::to_string(::getpid()); }, limits);
  for (int i = 0; i < 7; ++i) queued.send(0, "which");
  std::vector<std::string> order;
  while (order.size() < 7) {
    for (auto& e : queued.wait(1000)) {
      ASSERT_TRUE(e.reply.has_value());
      order.push_back(*e.reply);
    }
  }
  EXPECT_EQ(std::set<std::string>(order.begin(), order.end()).size(), 3u);
  EXPECT_EQ(order[0], order[2]);
  EXPECT_NE(order[2], order[3]);
  EXPECT_EQ(order[3], order[5]);
  EXPECT_EQ(queued.recycled(), 2);
}

// A renewed worker is a fresh process: what it serves next finds nothing of what the old
// one served (Note [A finding must come back in a fresh process]).
TEST(Workers, ARenewedWorkerHasServedNothing) {
  static int served_here = 0;  // per process: the parent never serves
  WorkerPool pool(
      1, [](const std::string&) { return std::to_string(++served_here); }, WorkerLimits{});
  EXPECT_EQ(roundTrip(pool, "count").reply, "1");
  EXPECT_EQ(roundTrip(pool, "count").reply, "2");
  pool.renew(0);
  EXPECT_EQ(roundTrip(pool, "count").reply, "1");
  EXPECT_EQ(pool.restarts(), 0);
  EXPECT_EQ(pool.recycled(), 0);
}

TEST(Workers, RunIsolated) {
  auto fine = runIsolated([] { return std::string("result"); }, WorkerLimits{});
  ASSERT_TRUE(fine.result.has_value());
  EXPECT_EQ(*fine.result, "result");
  auto crashed = runIsolated([] { return misbehave("segv"); }, WorkerLimits{});
  ASSERT_TRUE(crashed.death.has_value());
  EXPECT_EQ(crashed.death->kindName(), "crash-SIGSEGV");
  EXPECT_EQ(crashed.death->op, "aten::frobnicate.out");
}

// A parent whose kernels ran on several threads has an OpenMP pool, which fork() does not
// copy: a child's parallel kernel would wait on its threads forever (import-crash's first
// child did, in tril_, once the catalog's trial calls had started the pool).
TEST(Workers, AChildRunsParallelKernelsAfterItsParentDid) {
  const int threads = at::get_num_threads();
  at::set_num_threads(2);
  // Elementwise kernels split a tensor this large between the threads.
  auto kernels = [] { return at::ones({1 << 22}).mul(2).sum().item<double>(); };
  EXPECT_EQ(kernels(), 2.0 * (1 << 22));
  WorkerLimits limits;
  limits.seconds_per_request = 20;
  auto child = runIsolated([&] { return std::to_string(kernels()); }, limits);
  at::set_num_threads(threads);
  ASSERT_FALSE(child.death.has_value()) << child.death->kindName();
  ASSERT_TRUE(child.result.has_value());
  EXPECT_EQ(std::stod(*child.result), 2.0 * (1 << 22));
}

}  // namespace
}  // namespace epsmith
