// The JSON writer's two halves: ProgramWriter (the file, storages, state, side tables) and
// GraphWriter (one graph, with the getitem and get_attr foldings of docs/json-format.md).
// Internal to ir/json_write*.cpp.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/json_encode.h"
#include "ir/program.h"

namespace epsmith::json_detail {

// Appends to an ordered object without ordered_map's linear duplicate search: callers know
// the key is new (node names are checked unique first).
void appendNew(OJson& obj, std::string key, OJson value);

class ProgramWriter;

// Writes one graph; see "Folding" in docs/json-format.md for the two foldings.
class GraphWriter {
 public:
  GraphWriter(ProgramWriter& w, const Graph& g, std::string gpath, const GraphSignature* sig)
      : w_(w), g_(g), gpath_(std::move(gpath)), sig_(sig) {}
  OJson write();

 private:
  struct FoldPlan {
    bool as_tensors = false;
    std::vector<std::string> names;  // per element; empty for None elements
    std::vector<bool> used;          // a folded getitem node stands for the element
  };

  std::string where(const Node& n) const {
    return (gpath_.empty() ? "" : gpath_ + "/") + "%" + n.name();
  }
  void validate();
  void planGetitemFolds();
  int64_t foldableGetitemIndex(const Node& m, const Node& producer, const Val::List& list) const;
  void planGetAttrFolds();
  std::string freshName(const std::string& base);
  std::string ref(const Node* n, const Node& user) const;
  OJson argJson(const Argument& a, const Node& user);
  std::optional<OJson> outputFor(const std::string& name, const Val& v, const Node& n);
  OJson inputJson(const Node& p, size_t index, OJson* side);
  OJson namedInputs(const Node& n);
  OJson nodeJson(const Node& n);
  OJson attributeJson(const std::string& name, const Attribute& a);

  ProgramWriter& w_;
  const Graph& g_;
  std::string gpath_;
  const GraphSignature* sig_;
  OJson tensor_values_ = OJson::object();
  OJson sym_int_values_ = OJson::object();
  OJson sym_bool_values_ = OJson::object();
  OJson sym_float_values_ = OJson::object();
  OJson custom_obj_values_ = OJson::object();
  std::unordered_set<std::string> taken_;
  std::unordered_map<const Node*, FoldPlan> folds_;
  std::unordered_set<const Node*> folded_getitems_;
  std::unordered_set<const Node*> folded_get_attrs_;
};

class ProgramWriter {
 public:
  explicit ProgramWriter(const ExportedProgram& p) : p_(p) {}
  OJson write();
  OJson tensorValueJson(const TensorValue& t, const std::string& where, bool storage_optional);
  const OJson& subgraphJson(const Graph& g, const std::string& gpath);
  OJson& attributes() { return attributes_; }
  OJson& graphs() { return graphs_; }

 private:
  void registerStorage(const TensorValue& t);
  void registerAttributeStorages(const Graph& g);
  OJson storagesJson() const;
  OJson moduleCallGraphJson() const;

  const ExportedProgram& p_;
  std::unordered_map<const Storage*, int64_t> storage_index_;
  std::vector<const Storage*> storages_;
  std::unordered_map<const Graph*, OJson> subgraphs_;
  OJson attributes_ = OJson::object();
  OJson graphs_ = OJson::object();
};


}  // namespace epsmith::json_detail
