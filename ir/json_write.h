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

class ProgramWriter;

// Writes one graph; see "Folding" in docs/json-format.md for the two foldings.
class GraphWriter {
 public:
  GraphWriter(ProgramWriter& w, const Graph& g, std::string gpath, const GraphSignature* sig)
      : w_(w), g_(g), gpath_(std::move(gpath)), sig_(sig) {}
  JsonOut write();

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
  // f(), whose failures without a place (a string that is not UTF-8) are placed at `n`.
  template <typename F>
  JsonOut located(const Node& n, F&& f) {
    try {
      return f();
    } catch (Failure& failure) {
      if (failure.error.where.empty()) failure.error.where = where(n);
      throw;
    }
  }
  void planGetitemFolds();
  int64_t foldableGetitemIndex(const Node& m, const Node& producer, const Val::List& list) const;
  void planGetAttrFolds();
  std::string freshName(const std::string& base);
  std::string ref(const Node* n, const Node& user) const;
  JsonOut argJson(const Argument& a, const Node& user);
  std::optional<JsonOut> outputFor(const std::string& name, const Val& v, const Node& n);
  JsonOut inputJson(const Node& p, size_t index, JsonOut* side);
  JsonOut namedInputs(const Node& n);
  JsonOut nodeJson(const Node& n);
  JsonOut attributeJson(const std::string& name, const Attribute& a);

  ProgramWriter& w_;
  const Graph& g_;
  std::string gpath_;
  const GraphSignature* sig_;
  JsonOut tensor_values_ = JsonOut::object();
  JsonOut sym_int_values_ = JsonOut::object();
  JsonOut sym_bool_values_ = JsonOut::object();
  JsonOut sym_float_values_ = JsonOut::object();
  JsonOut custom_obj_values_ = JsonOut::object();
  std::unordered_set<std::string> taken_;
  std::unordered_map<const Node*, FoldPlan> folds_;
  std::unordered_set<const Node*> folded_getitems_;
  std::unordered_set<const Node*> folded_get_attrs_;
};

class ProgramWriter {
 public:
  explicit ProgramWriter(const ExportedProgram& p) : p_(p) {}
  JsonOut write();
  JsonOut tensorValueJson(const TensorValue& t, const std::string& where, bool storage_optional);
  const JsonOut& subgraphJson(const Graph& g, const std::string& gpath);
  JsonOut& attributes() { return attributes_; }
  JsonOut& graphs() { return graphs_; }

 private:
  void registerStorage(const TensorValue& t);
  void registerAttributeStorages(const Graph& g);
  JsonOut storagesJson() const;
  JsonOut moduleCallGraphJson() const;

  const ExportedProgram& p_;
  std::unordered_map<const Storage*, int64_t> storage_index_;
  std::vector<const Storage*> storages_;
  std::unordered_map<const Graph*, JsonOut> subgraphs_;
  JsonOut attributes_ = JsonOut::object();
  JsonOut graphs_ = JsonOut::object();
};


}  // namespace epsmith::json_detail
