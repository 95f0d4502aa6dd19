// See planted_fault.h.
#include "oracle/planted_fault.h"

#include <ATen/FunctionalTensorWrapper.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string_view>

namespace epsmith {
namespace {

void raisePlantedFault(const c10::OperatorHandle& op, c10::DispatchKeySet, torch::jit::Stack*) {
  TORCH_CHECK(false, "planted fault: '", op.schema().operator_name(),
              "' refused under functionalization (EPSMITH_PLANTED_FAULT)");
}

// Adds one to the floating tensors among `op`'s results on the stack, and puts each result
// back where `place` says (a device, a functional wrapper).
template <typename Place>
void shiftFloatingResults(const c10::OperatorHandle& op, torch::jit::Stack* stack, Place&& place) {
  for (size_t i = stack->size() - op.schema().returns().size(); i < stack->size(); ++i) {
    c10::IValue& r = (*stack)[i];
    if (!r.isTensor()) continue;
    at::Tensor t = r.toTensor();
    if (at::isFloatingType(t.scalar_type())) t = t.add(1);
    r = place(t);
  }
}

// ATen's most generic message, as a new functionalization bug would raise it: what the
// known-bugs list must never take for a known bug by its words alone.
void genericPlantedFault(const c10::OperatorHandle&, c10::DispatchKeySet, torch::jit::Stack*) {
  TORCH_CHECK_INDEX(false, "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
}

// The op computed outside functionalization on its arguments' current values, its floating
// results shifted by one and handed back as fresh functional tensors: a functionalization
// rule that computes a wrong value and raises nothing. A view op's result is then no
// view, which only matters after the value already differs.
void wrongValuePlantedFault(const c10::OperatorHandle& op, c10::DispatchKeySet, torch::jit::Stack* stack) {
  namespace fn = at::functionalization::impl;
  const size_t n = op.schema().arguments().size();
  for (size_t i = stack->size() - n; i < stack->size(); ++i) {
    c10::IValue& a = (*stack)[i];
    if (!a.isTensor() || !fn::isFunctionalTensor(a.toTensor())) continue;
    fn::sync(a.toTensor());
    a = fn::from_functional_tensor(a.toTensor());
  }
  {
    c10::impl::ExcludeDispatchKeyGuard outside(c10::DispatchKey::Functionalize);
    op.callBoxed(stack);
  }
  shiftFloatingResults(op, stack, [](const at::Tensor& t) { return fn::to_functional_tensor(t); });
}

void crashPlantedFault(const c10::OperatorHandle&, c10::DispatchKeySet, torch::jit::Stack*) { std::raise(SIGSEGV); }

// A result the size of the first tensor argument, every element the byte just past that
// tensor's storage: what a kernel that reads beyond its input sees. Not instrumented, as
// LibTorch's kernels are not: under the asan preset the read is the fault planted, not a
// report.
__attribute__((no_sanitize_address)) void overreadPlantedFault(const c10::OperatorHandle& op, c10::DispatchKeySet,
                                                               torch::jit::Stack* stack) {
  const size_t n = op.schema().arguments().size();
  at::Tensor self;
  for (const c10::IValue& a : torch::jit::last(*stack, n)) {
    if (a.isTensor()) {
      self = a.toTensor();
      break;
    }
  }
  TORCH_CHECK(self.defined(), "planted fault: ", op.schema().operator_name(), " has no tensor argument");
  const c10::Storage& storage = self.storage();
  const auto* data = static_cast<const uint8_t*>(storage.data());
  const uint8_t past = data != nullptr && storage.nbytes() > 0 ? data[storage.nbytes()] : 0;
  at::Tensor out = at::empty(self.sizes(), self.options().requires_grad(false));
  out.fill_(static_cast<int64_t>(past));
  torch::jit::drop(*stack, n);
  torch::jit::push(*stack, std::move(out));
}

// The op computed on the CPU, its floating results shifted by one, back on the device of its
// first tensor argument: a CUDA kernel that disagrees with the CPU's, for D3.
void offByOnePlantedFault(const c10::OperatorHandle& op, c10::DispatchKeySet, torch::jit::Stack* stack) {
  const size_t n = op.schema().arguments().size();
  c10::Device device = c10::kCPU;
  for (size_t i = stack->size() - n; i < stack->size(); ++i) {
    c10::IValue& a = (*stack)[i];
    if (!a.isTensor()) continue;
    if (device == c10::kCPU) device = a.toTensor().device();
    a = a.toTensor().cpu();
  }
  op.callBoxed(stack);
  shiftFloatingResults(op, stack, [&](const at::Tensor& t) { return t.to(device); });
}

// The op's own result, a fixed time late: a kernel that got slower, for `epsmith perf` and
// ci/perf.sh to report. It sits on ADInplaceOrView, which every tensor made outside
// inference mode carries and functional ops fall through, so eager runs and LibTorch's
// functionalization both meet it and the redispatch below finds the real kernel.
void slowPlantedFault(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kPlantedDelayMicros);
  while (std::chrono::steady_clock::now() < until) {}
  op.redispatchBoxed(keys & c10::DispatchKeySet(c10::DispatchKeySet::FULL_AFTER, c10::DispatchKey::ADInplaceOrView),
                     stack);
}

enum class FaultKind { Raise, Generic, WrongValue, Crash, Overread, OffByOne, Slow, Stale };

struct FaultSpelling {
  std::string_view prefix;
  FaultKind kind;
  c10::DispatchKey key;
  const char* what;
};
constexpr FaultSpelling kSpellings[] = {
    {"crash:", FaultKind::Crash, c10::DispatchKey::Functionalize, "a crash in LibTorch's functionalization"},
    {"generic:", FaultKind::Generic, c10::DispatchKey::Functionalize,
     "an exception with a generic message in LibTorch's functionalization"},
    {"value:", FaultKind::WrongValue, c10::DispatchKey::Functionalize,
     "a wrong value from LibTorch's functionalization"},
    {"overread:", FaultKind::Overread, c10::DispatchKey::CPU, "an over-reading CPU kernel"},
    {"cuda:", FaultKind::OffByOne, c10::DispatchKey::CUDA, "a CUDA kernel off by one"},
    {"slow:", FaultKind::Slow, c10::DispatchKey::ADInplaceOrView, "a kernel made slower"},
    {"stale:", FaultKind::Stale, c10::DispatchKey::Functionalize,
     "an exception in LibTorch's functionalization from a process's second case on"},
    {"", FaultKind::Raise, c10::DispatchKey::Functionalize, "an exception in LibTorch's functionalization"},
};

torch::CppFunction kernelFor(FaultKind kind) {
  switch (kind) {
    case FaultKind::Crash: return torch::CppFunction::makeFromBoxedFunction<&crashPlantedFault>();
    case FaultKind::Generic: return torch::CppFunction::makeFromBoxedFunction<&genericPlantedFault>();
    case FaultKind::WrongValue: return torch::CppFunction::makeFromBoxedFunction<&wrongValuePlantedFault>();
    case FaultKind::Overread: return torch::CppFunction::makeFromBoxedFunction<&overreadPlantedFault>();
    case FaultKind::OffByOne: return torch::CppFunction::makeFromBoxedFunction<&offByOnePlantedFault>();
    case FaultKind::Slow: return torch::CppFunction::makeFromBoxedFunction<&slowPlantedFault>();
    case FaultKind::Raise:
    case FaultKind::Stale: break;
  }
  return torch::CppFunction::makeFromBoxedFunction<&raisePlantedFault>();
}

// The `stale:` entries, registered when a process begins its second case.
std::vector<std::string>& staleFaults() {
  static std::vector<std::string> entries;
  return entries;
}

// `entry` ("ns::name[.overload]", which names an operator) gets `kind`'s kernel at `key`.
void registerKernel(const std::string& entry, c10::DispatchKey key, FaultKind kind) {
  const size_t sep = entry.find("::");
  const std::string base = entry.substr(0, entry.find('.', sep));
  // Never destroyed: the registration lasts for the process.
  auto* library = new torch::Library(torch::Library::IMPL, base.substr(0, sep), key, __FILE__, __LINE__);
  library->impl(entry.substr(sep + 2).c_str(), kernelFor(kind));
}

// One entry of the list: "[crash:|generic:|value:|overread:|cuda:|slow:|stale:]ns::name[.overload]". False
// when it names no operator.
bool plantOne(std::string entry, std::vector<std::string>& planted) {
  const std::string spelled = entry;
  const FaultSpelling* spelling = &kSpellings[0];
  while (entry.rfind(spelling->prefix, 0) != 0) ++spelling;  // the last prefix is empty
  entry.erase(0, spelling->prefix.size());
  const size_t sep = entry.find("::");
  if (sep == std::string::npos) return false;
  const size_t dot = entry.find('.', sep);
  const std::string base = entry.substr(0, dot);
  const std::string overload = dot == std::string::npos ? "" : entry.substr(dot + 1);
  auto handle = c10::Dispatcher::singleton().findOp({base, overload});
  if (!handle) return false;
  // An in-place or view op has a kernel of its own there (version counters, view tracking):
  // replacing it would change what the op does, not only how long it takes.
  if (spelling->kind == FaultKind::Slow && handle->hasKernelForDispatchKey(c10::DispatchKey::ADInplaceOrView)) {
    std::fprintf(stderr, "epsmith: planted fault: slow: only for functional ops, not %s; not planted\n", entry.c_str());
    return true;
  }
  if (spelling->kind == FaultKind::Stale) {
    staleFaults().push_back(entry);
  } else {
    registerKernel(entry, spelling->key, spelling->kind);
  }
  std::fprintf(stderr, "epsmith: planted fault: %s for %s (EPSMITH_PLANTED_FAULT)\n", spelling->what, entry.c_str());
  planted.push_back(spelled);
  return true;
}

std::vector<std::string> plant() {
  std::vector<std::string> planted;
  const char* spec = std::getenv("EPSMITH_PLANTED_FAULT");
  if (spec == nullptr) return planted;
  const std::string_view list(spec);
  for (size_t start = 0; start <= list.size();) {
    size_t end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    const std::string entry(list.substr(start, end - start));
    const bool peers = entry.rfind("torch", 0) == 0;  // the torch peer's (Note [Planted faults in the peer])
    if (!entry.empty() && !peers && !plantOne(entry, planted)) {
      std::fprintf(stderr, "epsmith: EPSMITH_PLANTED_FAULT: '%s' names no operator; not planted\n", entry.c_str());
    }
    start = end + 1;
  }
  return planted;
}

}  // namespace

void notePlantedCaseBegins() {
  static int begun = 0;
  if (++begun != 2) return;
  for (const std::string& entry : staleFaults())
    registerKernel(entry, c10::DispatchKey::Functionalize, FaultKind::Stale);
}

const std::vector<std::string>& installPlantedFaults() {
  static std::once_flag once;
  static std::vector<std::string> planted;
  std::call_once(once, [] { planted = plant(); });
  return planted;
}

}  // namespace epsmith
