// The program-level state a graph reader needs (storages, the epsmith side tables) and the
// graph reader entry point; internal to formats/json_read*.cpp.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "formats/json_decode.h"
#include "ir/program.h"

namespace epsmith::json_detail {

class ProgramReader {
 public:
  // The program object `root`, found at `path` ("$" for a file's root).
  ExportedProgram read(const JsonValue& root, std::string path);
  // torch's bare ExportedProgram object (a .pt2's models/NAME.json), without the epsmith
  // section: state, constants and example inputs stay empty.
  ExportedProgram readBare(const JsonValue& root, std::string path);

  // A TENSOR object; `storage` may be null only where `storage_optional`.
  TensorValue tensorValue(const At& a, bool storage_optional) const;
  // epsmith.graphs[gpath] / epsmith.attributes[gpath], marked as used.
  std::optional<At> graphSideInfo(const std::string& gpath);
  std::optional<At> graphAttributes(const std::string& gpath);
  // Guards recursion through subgraphs; fails past the limit.
  void enterSubgraph(const At& where);
  void leaveSubgraph() { --depth_; }

 private:
  void readStorages(const At& a);
  void readSideTables(const At& eps);
  void readGraphModule(const At& gm, ExportedProgram& p);
  static void readVersions(const At& ep, ExportedProgram& p);
  void readState(const At& eps, ExportedProgram& p) const;
  void readExportedProgram(const At& ep, ExportedProgram& p);
  std::optional<At> sideEntry(const std::optional<At>& table, const std::string& gpath, std::set<std::string>& used);
  void checkAllUsed(const std::optional<At>& table, const std::set<std::string>& used) const;

  std::vector<std::shared_ptr<Storage>> storages_;
  std::optional<At> graphs_, attributes_;
  std::set<std::string> used_graphs_, used_attributes_;
  int depth_ = 0;
};

// Reads a torch Graph object at graph path `gpath` into `g` (empty). `sig` names literal
// inputs (the top graph only).
void readGraph(ProgramReader& r, const At& a, const std::string& gpath, const GraphSignature* sig, Graph& g);

}  // namespace epsmith::json_detail
