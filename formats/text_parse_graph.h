// Internal to the text-form parser: values, arguments, tensors, node lines and graph blocks.
// text_parse.cpp adds the program-level sections on top.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/text_cursor.h"
#include "ir/graph.h"
#include "ir/signature.h"

namespace epsmith::text {

// Number and bool tokens (text_parse_values.cpp): a malformed one fails at `at`.
double toDouble(const std::string& tok, Loc at);
int64_t toInt(const std::string& tok, Loc at);
bool looksFloat(const std::string& tok);  // a token toDouble reads rather than toInt
bool startsNumber(char c);
bool boolWord(Cursor& c, bool* out);  // True or False, consumed; false when neither

class GraphParser {
 public:
  explicit GraphParser(Cursor& c) : c_(c) {}

  // After the keyword `graph`: `{ nodes and attrs }`, references resolved.
  std::unique_ptr<Graph> graphBlock(int depth = 0);
  Val val(int depth = 0);
  TensorMeta tensorMeta();
  // `$N DTYPE[SIZES]<...>`, or metadata only when `allow_no_storage` and no `$N`.
  TensorValue tensorValue(bool allow_no_storage = false);
  ConstantValue constant();
  // None, a number (inf, nan included), True/False or a string; nullopt when none is next.
  std::optional<ConstantValue> tryConstant();
  SpecArg specArg();
  // Storage `$N` as referenced (created on first mention, defined by the storages section).
  std::shared_ptr<Storage> storageRef(int64_t id, Loc at);
  void defineStorage(int64_t id, Storage s, Loc at);
  // Ends the parse: every referenced storage is defined, every tensor fits its storage.
  void finishStorages();
  // Tensors whose bounds are checked at the end (their storages may be defined later).
  void deferCheck(const TensorValue* t, Loc at) { checks_.push_back({t, at}); }

 private:
  struct Pending {
    std::string name;
    Loc loc;
  };
  // The nodes a graph block has defined so far, by name (views of the nodes' own names).
  struct Scope {
    std::unordered_map<std::string_view, std::pair<Loc, Node*>> nodes;
    bool forward_references = false;  // some reference waits for a later node
  };
  // The node `name` of the block being read, or a stand-in resolved at its end.
  Node* refTo(std::string name, Loc at);
  Argument argument();
  Argument list(std::string_view tag, Loc at);
  template <typename T>
  arg::SymScalar<T> symScalar(std::string_view what);
  void nodeLine(Graph& g);
  void outputLine(Graph& g);
  // Registers `n`, defined at `at`, in the current scope.
  void define(Node* n, Loc at);
  void attrLine(Graph& g, int depth);
  void callArgs(Node& n);
  void nodeMeta(NodeMeta& meta);
  void resolve(Graph& g);
  SymIntValue symIntValue();
  SymExpr symExpr();

  Cursor& c_;
  Scope* scope_ = nullptr;  // of the innermost graph block being read
  Graph scratch_;           // stand-in nodes for references, resolved at the end of each graph block
  std::map<int64_t, std::pair<std::shared_ptr<Storage>, Loc>> storages_;
  std::map<int64_t, bool> storage_defined_;
  std::vector<std::pair<const TensorValue*, Loc>> checks_;
  struct DtypeCheck {
    std::shared_ptr<Storage> storage;
    ScalarType dtype;
    Loc loc;
  };
  std::vector<DtypeCheck> dtype_checks_;
};

}  // namespace epsmith::text
