// The native verifier: every check of torch/_export/verifier.py (Verifier.check,
// _check_graph_module, _verify_exported_program_module_call_graph,
// _verify_exported_program_signature) over the epsmith IR, with stable check ids.
//
// What it checks: graph structure (torch.fx lint), node kinds, meta['val'], allowed operator
// kinds, functional-only ops outside TRAINING, get_attr targets, subgraphs recursively, the
// module call graph and the graph signature against the state dict and constants.
// What it must not check: anything verifier.py does not (shapes, dtypes, whether the program
// runs, whether mutation outputs really hold the mutated values) — those are the oracle's and
// the functionalizer's business. Diagnostics come in the order Python meets the violations,
// so the first is the error Python raises; after a violation the walk goes on where the
// structure allows, so later diagnostics are extra information Python never reaches.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/program.h"
#include "verifier/check_ids.h"

namespace epsmith {

// What verifier.py would raise as a SpecViolationError, with the check's stable id.
struct Violation {
  CheckId check;
  std::string where;        // "%add", "true_graph_0/%add_", "input_specs[2]", "module_call_graph[0]"
  std::string message;      // the facts of PyTorch's message
  std::string str() const;  // "%add: error[non-functional-op]: operator 'aten.add_.Tensor' ..."
};

// A dialect: its name and verifier.py's two extension points. Register new dialects with
// registerDialect; ATEN and TRAINING are built in.
class Dialect {
 public:
  explicit Dialect(std::string name) : name_(std::move(name)) {}
  virtual ~Dialect() = default;
  const std::string& name() const { return name_; }
  // verifier.py: check_valid_op, for the target of every call_function node (ATen
  // overloads, builtins, torch functions, higher-order ops). A message refuses it (check id
  // dialect-op).
  virtual std::optional<std::string> checkValidOp(const Target& target) const;
  // verifier.py: check_additional, once, on the top graph after every graph's nodes were
  // checked (check id dialect-graph).
  virtual void checkAdditional(const Graph& g, std::vector<std::string>& problems) const;

 private:
  std::string name_;
};

// Adds (or replaces) a dialect by name; returns it.
const Dialect& registerDialect(std::unique_ptr<Dialect> dialect);
// "ATEN" (also for ""), "TRAINING", or a registered name; nullptr when unknown.
const Dialect* findDialect(std::string_view name);

struct VerifyOptions {
  bool first_only = false;  // stop at the first violation (what Python reports)
};

// Verifies in `dialect`, or (second form) in every dialect the program's `verifiers` names
// (ATEN when none), one after the other. Never throws for a well-formed IR object. Calls may
// run concurrently on different programs, not on one program (nodes carry a visit stamp).
std::vector<Violation> verify(const ExportedProgram& p, const Dialect& dialect, VerifyOptions options = {});
std::vector<Violation> verify(const ExportedProgram& p, VerifyOptions options = {});

}  // namespace epsmith
