// Internal to the verifier: the diagnostic sink shared by the graph and signature checks,
// and Python-style renderings used in messages.
#pragma once

#include <string>
#include <vector>

#include "ir/signature.h"
#include "verifier/verifier.h"

namespace epsmith::verifier_detail {

// Collects diagnostics. When only the first is wanted, later reports are dropped and
// done() lets the walk skip what is left at its phase boundaries; every check already
// tolerates what an earlier one reported (the walk reports everything otherwise).
class Sink {
 public:
  Sink(std::vector<Violation>& out, bool first_only) : out_(out), first_only_(first_only) {}
  void report(CheckId id, std::string where, std::string message) {
    if (done()) return;
    out_.push_back({id, std::move(where), std::move(message)});
  }
  bool done() const { return first_only_ && !out_.empty(); }

 private:
  std::vector<Violation>& out_;
  bool first_only_;
};

// Python reprs: 'x', {'a': 'b'}, ['a', 'b'], TensorArgument(name='x').
std::string pyStr(const std::string& s);
std::string pyRepr(const OrderedMap& m);
std::string pyRepr(const std::vector<std::string>& v);
std::string pyRepr(const ConstantValue& v);
std::string pyRepr(const std::vector<UserInputEntry>& v);
std::string pyRepr(const SpecArg& a);

struct GraphFacts {
  std::vector<const Node*> placeholders;  // of the top graph, in order, for the signature check
  std::vector<Violation> epsmith_only;    // checks Python does not make, reported last
};
GraphFacts checkGraphs(const ExportedProgram& p, const Dialect& dialect, Sink& sink);
void checkModuleCallGraph(const ExportedProgram& p, Sink& sink);
void checkSignature(const ExportedProgram& p, const std::vector<const Node*>& placeholders, Sink& sink);

}  // namespace epsmith::verifier_detail
