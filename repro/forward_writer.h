// Internal to repro/: the body of the module's forward(), one Python line per call, grad-mode
// regions (bare _set_grad_enabled calls and wrap_with_set_grad_enabled subgraphs alike) as
// `with` blocks.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ir/program.h"

namespace epsmith::repro_detail {

// A failure to write the script, thrown where it is met and caught by writeReproScript, which
// returns it as a Diagnostic.
struct Unwritable : std::runtime_error {
  Unwritable(std::string where_, const std::string& message) : std::runtime_error(message), where(std::move(where_)) {}
  std::string where;
};

// Throws Unwritable unless `name` can be a Python variable or attribute.
void requireIdentifier(const std::string& where, std::string_view name, std::string_view what);
std::string joined(const std::vector<std::string>& parts, std::string_view sep = ", ");

// What the script's head must provide for the lines written.
struct ScriptNeeds {
  bool inf_nan = false;           // the names inf and nan
  std::set<std::string> imports;  // "operator", "math"
};

// Note [Composite writes in functionalize scripts]
// A mutable op LibTorch implements only as a composition (CompositeImplicitAutograd:
// not_equal_, arcsin.out, relu6_, special_round.out) has no functionalization kernel of its
// own: in C++ its composite kernel fills the Functionalize slot, so the ops it calls are
// functionalized, but torch.func.functionalize's interpreter sends it to the fallback, which
// refuses it ("Found a custom (non-ATen) operator whose output has alias annotations";
// torch 2.13 and 2.14.1). A D2 script calls such an op as `op.decompose(...)`, its composite
// kernel, which is what eager runs too, so that torch.func.functionalize meets the bug the
// C++ pass met rather than stopping at that refusal.
struct Submodule;
struct ForwardStyle {
  bool decompose_composite_writes = false;
  // Calls of a preserved submodule: written as one call of it where its first call was.
  const Submodule* submodule = nullptr;
};

// Note [Preserved submodules in scripts]
// A program whose module call graph has an entry beside the root's was exported with that
// submodule's call signature preserved (torch.export's preserve_module_call_signature), and
// run_decompositions treats its calls apart. A script rebuilds it so: a module of its own,
// `self.block`, whose forward() takes the entry's inputs and returns its outputs, holding
// the calls between them (those the outputs need that read only the inputs and each other),
// called where the first of them was; the export passes
// preserve_module_call_signature=("block",). Where that cannot be (a call there reads
// another value, a value made there is read outside, a call between them switches grad mode
// or writes what a later one reads, so that running them together would compute otherwise;
// a second preserved submodule), the script keeps no submodule and its docstring says why:
// it still shows every bug that does not need the preserved call.
struct Submodule {
  std::string fqn;  // "block"
  std::vector<const Node*> inputs;
  std::vector<const Node*> outputs;
  std::set<const Node*> calls;  // the calls its forward() makes
};

// Python names for the graph's values, unique across the script's forward().
class PythonNames {
 public:
  PythonNames();
  // A fresh local name for `node`, from its own name; throws when that is no identifier.
  std::string local(const Node& node);
  // `node` is read as `expression` (a placeholder: "x", "self.weight").
  void bind(const Node& node, std::string expression) { exprs_[&node] = std::move(expression); }
  void reserve(const std::string& name) { taken_.insert(name); }
  const std::string& of(const Node& node) const;

 private:
  std::set<std::string> taken_;
  std::map<const Node*, std::string> exprs_;
};

// forward()'s lines (indented by 8 spaces), the placeholders already bound in `names`, and
// the values the output node returns, as Python expressions.
struct ForwardBody {
  std::vector<std::string> lines;
  std::vector<std::string> returned;
};
ForwardBody writeForwardBody(const Graph& graph, PythonNames& names, ScriptNeeds& needs, ForwardStyle style = {});

// The preserved submodule of `p`'s module call graph; none where it has only the root's
// entry, or, with `not_kept` saying why, where it cannot be written as a module.
std::optional<Submodule> preservedSubmodule(const ExportedProgram& p, std::string* not_kept);
// The submodule's forward() lines, its inputs bound in `names` to its parameters' names.
ForwardBody writeSubmoduleBody(const Graph& graph, const Submodule& s, PythonNames& names, ScriptNeeds& needs,
                               ForwardStyle style);

// The expression of one argument.
std::string pythonArgument(const Argument& a, const PythonNames& names, ScriptNeeds& needs);

}  // namespace epsmith::repro_detail
