// The probe dialect; see probe_dialect.h.
#include "generators/probe_dialect.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ops/op_registry.h"
#include "verifier/verifier.h"

namespace epsmith {
namespace {

class ProbeDialect : public Dialect {
 public:
  ProbeDialect() : Dialect(std::string(probeDialectName())) {}
  std::optional<std::string> checkValidOp(const Target& target) const override {
    if (probeRefuses(target)) return "aten::alias_copy is not part of EPSMITH_PROBE";
    return std::nullopt;
  }
  void checkAdditional(const Graph& g, std::vector<std::string>& problems) const override {
    const Node* out = g.outputNode();
    if (!out) return;
    std::vector<const Node*> seen;
    for (const auto& a : out->args) {
      a.forEachNode([&](const Node* n) {
        if (std::find(seen.begin(), seen.end(), n) != seen.end()) {
          problems.push_back("EPSMITH_PROBE graphs return each value once; " + n->name() + " twice");
        }
        seen.push_back(n);
      });
    }
  }
};

}  // namespace

std::string_view probeDialectName() { return "EPSMITH_PROBE"; }

bool probeRefuses(const Target& target) {
  return target.kind() == Target::Kind::Aten && target.op()->qualified_name == "aten::alias_copy";
}

void useProbeDialect(ExportedProgram& p) {
  static std::once_flag once;
  std::call_once(once, [] { registerDialect(std::make_unique<ProbeDialect>()); });
  p.verifiers = {std::string(probeDialectName())};
}

}  // namespace epsmith
