// Reads a program file: the torch ExportedProgram fields, then the epsmith section
// (storages, state, constants, example inputs); graphs are in formats/json_read_graph.cpp.
#include "formats/json_read.h"

#include <limits>

#include "formats/json.h"
#include "formats/json_format.h"

namespace epsmith {
namespace json_detail {
namespace {

constexpr int kMaxSubgraphDepth = 64;

ModuleCallEntry readModuleCallEntry(const At& a) {
  a.allowOnly({"fqn", "signature"});
  ModuleCallEntry e;
  e.fqn = a.field("fqn").string();
  if (auto s = a.optional("signature")) {
    s->allowOnly({"inputs", "outputs", "in_spec", "out_spec", "forward_arg_names"});
    ModuleCallSignature sig;
    At inputs = s->field("inputs");
    for (size_t i = 0; i < inputs.size(); ++i) sig.inputs.push_back(readSpecArg(inputs[i]));
    At outputs = s->field("outputs");
    for (size_t i = 0; i < outputs.size(); ++i) sig.outputs.push_back(readSpecArg(outputs[i]));
    sig.in_spec = s->field("in_spec").string();
    sig.out_spec = s->field("out_spec").string();
    if (auto names = s->optional("forward_arg_names")) sig.forward_arg_names = names->strings();
    e.signature = std::move(sig);
  }
  return e;
}

}  // namespace

void ProgramReader::enterSubgraph(const At& where) {
  if (++depth_ > kMaxSubgraphDepth) {
    where.fail("subgraphs nested deeper than " + std::to_string(kMaxSubgraphDepth) + " levels");
  }
}

void ProgramReader::readStorages(const At& a) {
  for (size_t i = 0; i < a.size(); ++i) {
    At s = a[i];
    s.allowOnly({"dtype", "numel", "data"});
    auto storage = std::make_shared<Storage>();
    storage->dtype = readDtype(s.field("dtype"));
    At numel_at = s.field("numel");
    int64_t numel = numel_at.integer();
    int64_t size = elementSize(storage->dtype);
    if (numel < 0) numel_at.fail("negative numel " + std::to_string(numel));
    if (size == 0 && numel != 0) numel_at.fail("a storage of unknown dtype holds no elements");
    if (size != 0 && numel > std::numeric_limits<int64_t>::max() / size) {
      numel_at.fail("numel " + std::to_string(numel) + " is too large");
    }
    At data = s.field("data");
    auto bytes = base64Decode(data.string());
    if (!bytes) data.fail(bytes.error().message);
    if (static_cast<int64_t>(bytes->size()) != numel * size) {
      data.fail("payload has " + std::to_string(bytes->size()) + " bytes but numel " + std::to_string(numel) + " of " +
                std::string(torchName(storage->dtype)) + " needs " + std::to_string(numel * size));
    }
    storage->bytes = std::move(*bytes);
    storages_.push_back(std::move(storage));
  }
}

TensorValue ProgramReader::tensorValue(const At& a, bool storage_optional) const {
  a.allowOnly({"storage", "sizes", "strides", "storage_offset", "requires_grad"});
  TensorValue t;
  At storage = a.field("storage");
  if (storage.isNull()) {
    if (!storage_optional) storage.fail("this tensor needs a storage");
  } else {
    int64_t index = storage.integer();
    if (index < 0 || index >= static_cast<int64_t>(storages_.size())) {
      storage.fail("storage index " + std::to_string(index) + " out of range (the file has " +
                   std::to_string(storages_.size()) + " storages)");
    }
    t.storage = storages_[index];
  }
  t.sizes = a.field("sizes").integers();
  t.strides = a.field("strides").integers();
  t.storage_offset = a.field("storage_offset").integer();
  t.requires_grad = a.field("requires_grad").boolean();
  if (t.storage) {
    if (auto error = checkTensorBounds(t)) a.fail(*error);
  }
  return t;
}

std::optional<At> ProgramReader::sideEntry(const std::optional<At>& table, const std::string& gpath,
                                           std::set<std::string>& used) {
  if (!table) return std::nullopt;
  const JsonValue* entry = table->json().find(gpath);
  if (!entry) return std::nullopt;
  used.insert(gpath);
  return At(*entry, keyPath(table->path(), gpath));
}

std::optional<At> ProgramReader::graphSideInfo(const std::string& gpath) {
  return sideEntry(graphs_, gpath, used_graphs_);
}

std::optional<At> ProgramReader::graphAttributes(const std::string& gpath) {
  return sideEntry(attributes_, gpath, used_attributes_);
}

void ProgramReader::checkAllUsed(const std::optional<At>& table, const std::set<std::string>& used) const {
  if (!table) return;
  table->forEachEntry([&](const std::string& gpath, const At& entry) {
    if (!used.count(gpath)) entry.fail("no graph has the path " + jsonQuoted(gpath));
  });
}

void ProgramReader::readState(const At& eps, ExportedProgram& p) const {
  if (auto state = eps.optional("state_dict")) {
    state->forEachEntry([&](const std::string& fqn, const At& v) {
      v.allowOnly({"is_param", "tensor"});
      StateEntry e;
      e.is_parameter = v.field("is_param").boolean();
      e.tensor = tensorValue(v.field("tensor"), /*storage_optional=*/false);
      p.state_dict.emplace(fqn, std::move(e));
    });
  }
  if (auto constants = eps.optional("constants")) {
    constants->forEachEntry([&](const std::string& name, const At& v) {
      auto [tag, x] = v.unionOf("constant", {"as_tensor", "as_custom_obj"});
      Constant c;
      if (tag == "as_tensor") {
        c.tensor = tensorValue(x, /*storage_optional=*/false);
      } else {
        x.allowOnly({"class_fqn"});
        c.class_fqn = x.field("class_fqn").string();
      }
      p.constants.emplace(name, std::move(c));
    });
  }
  if (auto inputs = eps.optional("example_inputs")) {
    for (size_t i = 0; i < inputs->size(); ++i) {
      auto [tag, x] = (*inputs)[i].unionOf("example input", {"as_tensor", "as_int", "as_float", "as_bool", "as_none"});
      InputValue in;
      if (tag == "as_tensor") {
        in.kind = InputValue::Kind::Tensor;
        in.tensor = tensorValue(x, /*storage_optional=*/false);
      } else if (tag == "as_int") {
        in.kind = InputValue::Kind::Int;
        in.i = x.integer();
      } else if (tag == "as_float") {
        in.kind = InputValue::Kind::Float;
        in.f = x.number();
      } else if (tag == "as_bool") {
        in.kind = InputValue::Kind::Bool;
        in.b = x.boolean();
      }
      p.example_inputs.push_back(std::move(in));
    }
  }
}

// The epsmith section's tables the graphs read from (storages, subgraphs, attributes);
// its state is read once the program is (readState).
void ProgramReader::readSideTables(const At& eps) {
  eps.allowOnly({"format_version", "storages", "state_dict", "constants", "example_inputs", "attributes", "graphs"});
  At version = eps.field("format_version");
  if (version.integer() != kFormatVersion) {
    version.fail("unsupported format_version " + std::to_string(version.integer()) + " (this reader knows " +
                 std::to_string(kFormatVersion) + ")");
  }
  if (auto storages = eps.optional("storages")) readStorages(*storages);
  graphs_ = eps.optional("graphs");
  if (graphs_) graphs_->expectObject();
  attributes_ = eps.optional("attributes");
  if (attributes_) attributes_->expectObject();
}

void ProgramReader::readGraphModule(const At& gm, ExportedProgram& p) {
  gm.allowOnly({"graph", "signature", "module_call_graph", "metadata", "treespec_namedtuple_fields"});
  p.signature = readSignature(gm.field("signature"));
  readGraph(*this, gm.field("graph"), "", &p.signature, p.graph());
  At calls = gm.field("module_call_graph");
  for (size_t i = 0; i < calls.size(); ++i) p.module_call_graph.push_back(readModuleCallEntry(calls[i]));
  if (auto md = gm.optional("metadata")) {
    md->forEachEntry([&](const std::string& k, const At& v) { p.metadata[k] = v.string(); });
  }
  if (auto named = gm.optional("treespec_namedtuple_fields")) {
    named->forEachEntry([&](const std::string& type, const At& v) {
      v.allowOnly({"field_names"});
      p.treespec_namedtuple_fields[type] = v.field("field_names").strings();
    });
  }
}

// exported_program's fields beside the graph module.
void ProgramReader::readVersions(const At& ep, ExportedProgram& p) {
  p.opset_version.clear();
  ep.field("opset_version").forEachEntry([&](const std::string& ns, const At& v) {
    p.opset_version[ns] = v.integer();
  });
  ep.field("range_constraints").forEachEntry([&](const std::string& symbol, const At& v) {
    v.allowOnly({"min_val", "max_val"});
    RangeConstraint range;
    if (auto lo = v.optional("min_val")) range.min_val = lo->integer();
    if (auto hi = v.optional("max_val")) range.max_val = hi->integer();
    p.range_constraints[symbol] = range;
  });
  At version = ep.field("schema_version");
  version.allowOnly({"major", "minor"});
  p.schema_version.major = version.field("major").integer();
  p.schema_version.minor = version.field("minor").integer();
  // A new major version renames or drops fields (schema.py's upgrade rule); minor versions
  // only add them, and a field this reader does not know is refused where it stands.
  if (p.schema_version.major != SchemaVersion{}.major) {
    version.field("major").fail(
        "schema version " + std::to_string(p.schema_version.major) + "." + std::to_string(p.schema_version.minor) +
        " is not readable: epsmith reads major version " + std::to_string(SchemaVersion{}.major));
  }
  auto verifiers = ep.optional("verifiers");
  p.verifiers = verifiers ? verifiers->strings() : std::vector<std::string>{};
  auto torch_version = ep.optional("torch_version");
  p.torch_version = torch_version ? torch_version->string() : "<=2.4";  // schema.py's default
  auto guards = ep.optional("guards_code");
  p.guards_code = guards ? guards->strings() : std::vector<std::string>{};
}

ExportedProgram ProgramReader::read(const JsonValue& root, std::string path) {
  At top(root, std::move(path));
  top.expectObject();
  if (!root.find("exported_program") && root.find("graph_module")) {
    top.fail(
        "missing required field \"exported_program\" (this looks like a bare torch.export "
        "program; wrap it as {\"exported_program\": ...})");
  }
  top.allowOnly({"exported_program", "epsmith"});
  std::optional<At> eps = top.optional("epsmith");
  if (eps) readSideTables(*eps);
  ExportedProgram p;
  readExportedProgram(top.field("exported_program"), p);
  if (eps) readState(*eps, p);
  checkAllUsed(graphs_, used_graphs_);
  checkAllUsed(attributes_, used_attributes_);
  return p;
}

ExportedProgram ProgramReader::readBare(const JsonValue& root, std::string path) {
  At ep(root, std::move(path));
  ep.expectObject();
  if (root.find("exported_program")) {
    ep.fail("this is an epsmith program file, not torch's bare ExportedProgram object");
  }
  ExportedProgram p;
  readExportedProgram(ep, p);
  return p;
}

void ProgramReader::readExportedProgram(const At& ep, ExportedProgram& p) {
  ep.allowOnly({"graph_module", "opset_version", "range_constraints", "schema_version", "verifiers", "torch_version",
                "guards_code"});
  readGraphModule(ep.field("graph_module"), p);
  readVersions(ep, p);
}

}  // namespace json_detail

namespace {

// Reads with `read`, every failure of the reader a Diagnostic.
template <typename F>
Expected<ExportedProgram> programOrError(F&& read) {
  try {
    return read();
  } catch (const json_detail::Failure& f) {
    return f.error;
  } catch (const std::bad_alloc&) {
    return Diagnostic{"", "out of memory while reading JSON"};
  } catch (const std::exception& e) {
    return Diagnostic{"", std::string("internal error while reading JSON: ") + e.what()};
  }
}

}  // namespace

Expected<ExportedProgram> readProgramJson(std::string_view text) {
  return programOrError([&] {
    json_detail::JsonDocument doc = json_detail::parseJson(text, "");
    return json_detail::ProgramReader().read(doc.root(), "$");
  });
}

Expected<ExportedProgram> readExportedProgramJson(std::string_view text) {
  return programOrError([&] {
    json_detail::JsonDocument doc = json_detail::parseJson(text, "");
    return json_detail::ProgramReader().readBare(doc.root(), "$");
  });
}

Expected<ExportedProgram> readProgramJsonAt(const JsonAt& at) {
  return programOrError([&] { return json_detail::ProgramReader().read(at.json(), at.path()); });
}

}  // namespace epsmith
