// D5: epsmith's exported run vs PyTorch's ep.module() (torch's unlifted calling convention).
#include "fuzz/check_steps.h"

namespace epsmith::check_detail {

CheckOutcome d5(const ExportedProgram& p, const TorchAnswer& a, const Device& device, const Interpreter* plan,
                PhaseTimes* times) {
  if (auto o = unanswered(DiffCheck::D5, a)) return *o;
  if (!a.reply.module_run) return skip(DiffCheck::D5, "torch cannot load the program (D7 says why)");
  const RunResult exported = run(p, runOf(RunMode::Exported, device, plan), times);
  return compareWithTorch(p, DiffCheck::D5, exported, *a.reply.module_run, "ep.module()", times);
}

CheckOutcome runD5(CheckContext& c) { return d5(c.program, torchAnswer(c), c.options.device, c.plan, c.options.times); }

void focusD5(const CheckOutcome&, CheckOptions&) {}  // it has no variants

}  // namespace epsmith::check_detail
