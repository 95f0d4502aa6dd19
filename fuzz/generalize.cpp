// See generalize.h.
#include "fuzz/generalize.h"

#include <algorithm>
#include <set>

#include "fuzz/root_cause.h"
#include "ir/subgraphs.h"
#include "minimizer/minimize.h"
#include "ops/op_registry.h"
#include "ops/op_roles.h"

namespace epsmith {
namespace {

constexpr size_t kNeighborsTried = 2;

std::string_view viewFamilyName(ViewFamily f) {
  switch (f) {
    case ViewFamily::None: return "";
    case ViewFamily::Reshape: return "reshape";
    case ViewFamily::Identity: return "identity";
    case ViewFamily::Permute: return "permute";
    case ViewFamily::Slice: return "slice";
    case ViewFamily::Narrow: return "narrow";
    case ViewFamily::Select: return "select";
    case ViewFamily::Diagonal: return "diagonal";
    case ViewFamily::AsStrided: return "as_strided";
    case ViewFamily::Unfold: return "unfold";
    case ViewFamily::Expand: return "expand";
    case ViewFamily::SplitList: return "split";
    case ViewFamily::UnbindList: return "unbind";
    case ViewFamily::Other: return "other";
  }
  return "?";
}

void appendParam(std::string& s, const ParamInfo& p) {
  s += paramTypeName(p.type);
  s += p.optional ? "?" : "";
  s += p.has_default ? "=" : "";
  s += p.is_write ? "!" : (p.is_alias ? "a" : "");
  if (p.kwarg_only) s += "*" + p.name;  // passed by name: the name must match
  s += ",";
}

// What a call needs of an op to stand in for another: its role and view family, and its
// arguments' and returns' kinds.
std::string shapeOf(const OpInfo& op) {
  const OpRoleInfo& role = opRole(op);
  std::string s = std::string(opRoleName(role.role)) + "/" + std::string(viewFamilyName(role.view)) + "(";
  for (const ParamInfo& a : op.arguments) appendParam(s, a);
  s += ")->(";
  for (const ParamInfo& r : op.returns) appendParam(s, r);
  return s + ")";
}

bool calledInASubgraph(const ExportedProgram& p, const OpInfo& op) {
  bool called = false;
  forEachGraph(p.graph(), [&](const Graph& g) {
    if (&g == &p.graph()) return;
    for (const Node& n : g.nodes()) called = called || n.atenOp() == &op;
  });
  return called;
}

// `p` with every call of `from` calling `to`, its vals refreshed by an eager run; nullopt
// where that run fails (the stand-in does not take these inputs).
std::optional<ExportedProgram> replaced(const ExportedProgram& p, const OpInfo& from, const OpInfo& to) {
  ExportedProgram candidate = p.clone();
  forEachGraph(candidate.graph(), [&](Graph& g) {
    for (Node& n : g.nodes()) {
      if (n.atenOp() == &from) n.target = Target::aten(&to);
    }
  });
  if (!refreshVals(candidate)) return std::nullopt;
  return candidate;
}

// `p` with every call of the functional `op` made a clone of an input holding its value
// (standInByClone): whatever made the value, the program goes on the same way. Not where a
// subgraph calls `op`: a stand-in input is the program's, not the subgraph's.
std::optional<ExportedProgram> clonedValues(const ExportedProgram& p, const OpInfo& op) {
  if (opRole(op).role != OpRole::Functional || calledInASubgraph(p, op)) return std::nullopt;
  ExportedProgram candidate = p.clone();
  std::vector<std::string> calls;
  for (const Node& n : candidate.graph().nodes()) {
    if (n.atenOp() == &op) {
      calls.push_back(n.name());
    }
  }
  for (const std::string& name : calls) {
    if (!standInByClone(candidate, name)) return std::nullopt;
  }
  return candidate;
}

}  // namespace

OpShapes::OpShapes(const OpCatalog& catalog) {
  for (const CatalogEntry& e : catalog.entries()) {
    if (e.generatable()) by_shape_[shapeOf(*e.op)].push_back(e.op);
  }
}

std::vector<const OpInfo*> OpShapes::neighbors(const OpInfo& op, size_t n) const {
  auto it = by_shape_.find(shapeOf(op));
  if (it == by_shape_.end()) return {};
  const std::vector<const OpInfo*>& same = it->second;
  const std::string own = coreOpName(op.name());
  const auto at = std::find(same.begin(), same.end(), &op);
  const size_t start = at == same.end() ? 0 : static_cast<size_t>(at - same.begin()) + 1;
  std::vector<const OpInfo*> out;
  for (size_t k = 0; k < same.size() && out.size() < n; ++k) {
    const OpInfo* other = same[(start + k) % same.size()];
    if (coreOpName(other->name()) != own) out.push_back(other);
  }
  return out;
}

std::string opClass(const OpInfo& op) {
  const OpRoleInfo& role = opRole(op);
  switch (role.role) {
    case OpRole::View:
    case OpRole::MaybeView: return "*view:" + std::string(viewFamilyName(role.view));
    case OpRole::MetadataMutation: return "*metadata-mutation";
    default: return "*op";
  }
}

GeneralizedOps generalizedOps(const ExportedProgram& p, const OpShapes& shapes, const FailsWith& fails, int* runs) {
  std::set<const OpInfo*> ops;  // a grad region's or a branch's calls are the program's
  forEachGraph(p.graph(), [&](const Graph& g) {
    for (const Node& n : g.nodes()) {
      if (n.atenOp()) ops.insert(n.atenOp());
    }
  });
  static const OpInfo* const clone = findOpByName("aten::clone");
  std::set<std::string> names, classed;
  for (const OpInfo* op : ops) {
    if (clone && op != clone) {  // only the value it made matters: no part of the root cause
      auto candidate = clonedValues(p, *op);
      if (candidate && ++*runs && fails(*candidate, *op, *clone)) continue;
    }
    bool needed = true;
    for (const OpInfo* by : shapes.neighbors(*op, kNeighborsTried)) {
      auto candidate = replaced(p, *op, *by);
      if (!candidate) continue;
      ++*runs;
      if (fails(*candidate, *op, *by)) {
        needed = false;
        break;
      }
    }
    names.insert(needed ? coreOpName(op->name()) : opClass(*op));
    if (!needed) classed.insert(coreOpName(op->name()));
  }
  return {{names.begin(), names.end()}, {classed.begin(), classed.end()}};
}

}  // namespace epsmith
