// The JSON writer's two halves: ProgramWriter (the file, storages, state, side tables) and
// GraphWriter (one graph, with the getitem and get_attr foldings of docs/json-format.md).
// Internal to formats/json_write*.cpp.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "formats/json_encode.h"
#include "ir/program.h"

namespace epsmith::json_detail {

class ProgramWriter;

// Writes one graph; see "Folding" in docs/json-format.md for the two foldings.
class GraphWriter {
 public:
  GraphWriter(ProgramWriter& w, const Graph& g, std::string gpath, const GraphSignature* sig);
  // The graph object, into `out`.
  void write(JsonWriter& out);

 private:
  struct FoldPlan {
    bool as_tensors = false;
    std::vector<std::string> names;  // per element; empty for None elements
    std::vector<bool> used;          // a folded getitem node stands for the element
  };

  std::string where(const Node& n) const { return (gpath_.empty() ? "" : gpath_ + "/") + "%" + n.name(); }
  void validate();
  bool inputsJson(JsonWriter& out, JsonWriter& side_inputs);
  void sideEntryJson(bool any_side, const JsonWriter& side_inputs);
  void attributesJson();
  // f(), whose failures without a place (a string that is not UTF-8, a dtype no file can
  // hold) are placed at `n`.
  template <typename F>
  void located(const Node& n, F&& f) {
    try {
      f();
    } catch (Failure& failure) {
      if (failure.error.where.empty()) failure.error.where = where(n);
      throw;
    }
  }
  void planGetitemFolds();
  int64_t foldableGetitemIndex(const Node& m, const Node& producer, const Val::List& list) const;
  void planGetAttrFolds();
  std::string freshName(const std::string& base);
  const std::string& ref(const Node* n, const Node& user) const;
  void argJson(JsonWriter& w, const Argument& a, const Node& user);
  void referenceArgJson(JsonWriter& w, const Argument& a, const Node& user);
  // A node output of value `v` called `name`, with its side-table entry (tensor_values,
  // sym_int_values, ...); only for values hasOutputForm accepts.
  void outputFor(JsonWriter& w, const std::string& name, const Val& v);
  // The graph input `p`; its entry in the epsmith "graphs" section, if it needs one, into
  // `side` (else `side` stays untouched).
  void inputJson(JsonWriter& w, const Node& p, size_t index, JsonWriter& side);
  void namedInputs(JsonWriter& w, const Node& n);
  enum class HopFlag { Null, True, False };  // is_hop_single_tensor_return
  struct OutputsWritten {
    HopFlag hop_flag;
    bool val_written;  // false: the value has no output form, so metadata carries it
  };
  std::string targetJson(const Node& n, std::optional<std::string>& target_kind);
  OutputsWritten outputsJson(JsonWriter& w, const Node& n, std::vector<int64_t>& unused);
  void nodeJson(JsonWriter& w, const Node& n);
  void attributeJson(JsonWriter& w, const std::string& name, const Attribute& a);

  ProgramWriter& w_;
  const Graph& g_;
  std::string gpath_;
  const GraphSignature* sig_;
  // The side tables, each an object still open while the nodes are written.
  JsonWriter tensor_values_, sym_int_values_, sym_bool_values_, sym_float_values_, custom_obj_values_;
  std::unordered_set<std::string> fresh_;  // names freshName handed out (the graph's are its own)
  std::unordered_map<const Node*, FoldPlan> folds_;
  std::unordered_set<const Node*> folded_getitems_;
  std::unordered_set<const Node*> folded_get_attrs_;
};

class ProgramWriter {
 public:
  explicit ProgramWriter(const ExportedProgram& p) : p_(p) {
    attributes_.beginObject();
    graphs_.beginObject();
  }
  // The whole file, compact.
  std::string write();
  // torch's exported_program object alone, compact; fails for a program whose graphs need
  // the epsmith section's side tables.
  std::string writeBare();
  void tensorValueJson(JsonWriter& w, const TensorValue& t, const std::string& where, bool storage_optional);
  // A subgraph's object, compact, written the first time it is asked for.
  const std::string& subgraphJson(const Graph& g, const std::string& gpath);
  // The epsmith section's "attributes" and "graphs" objects, open while graphs are written.
  JsonWriter& attributes() { return attributes_; }
  JsonWriter& graphs() { return graphs_; }

 private:
  void registerStorage(const TensorValue& t);
  void registerAttributeStorages(const Graph& g);
  void storagesJson(JsonWriter& w) const;
  void moduleCallGraphJson(JsonWriter& w) const;
  void exportedProgramJson(JsonWriter& w);
  void stateJson(JsonWriter& w);
  void exampleInputsJson(JsonWriter& w);

  const ExportedProgram& p_;
  std::unordered_map<const Storage*, int64_t> storage_index_;
  std::vector<const Storage*> storages_;
  std::unordered_map<const Graph*, std::string> subgraphs_;
  JsonWriter attributes_, graphs_;
};

}  // namespace epsmith::json_detail
