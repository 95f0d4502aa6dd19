// Writes an ExportedProgram as torch.export's JSON (schema.py field order) plus the epsmith
// section; docs/json-format.md is the reference for every choice made here.
#include "formats/json_format.h"
#include "formats/json_write.h"

#include <functional>
#include <optional>

#include "formats/json.h"

namespace epsmith {
namespace json_detail {

void ProgramWriter::registerStorage(const TensorValue& t) {
  if (t.storage && storage_index_.emplace(t.storage.get(), storages_.size()).second) {
    storages_.push_back(t.storage.get());
  }
}

void ProgramWriter::registerAttributeStorages(const Graph& g) {
  for (const auto& [name, a] : g.attributes()) {
    if (a.tensor) registerStorage(*a.tensor);
    if (a.subgraph) registerAttributeStorages(*a.subgraph);
  }
}

void ProgramWriter::tensorValueJson(JsonWriter& w, const TensorValue& t, const std::string& where,
                                    bool storage_optional) {
  w.beginObject();
  w.key("storage");
  if (!t.storage) {
    if (!storage_optional) fail(where, "tensor has no storage");
    w.null();
  } else {
    if (auto error = checkTensorBounds(t)) fail(where, *error);
    w.integer(storage_index_.at(t.storage.get()));
  }
  w.key("sizes").integers(t.sizes);
  w.key("strides").integers(t.strides);
  w.key("storage_offset").integer(t.storage_offset);
  w.key("requires_grad").boolean(t.requires_grad);
  w.endObject();
}

const std::string& ProgramWriter::subgraphJson(const Graph& g, const std::string& gpath) {
  auto it = subgraphs_.find(&g);
  if (it == subgraphs_.end()) {
    JsonWriter json;
    GraphWriter(*this, g, gpath, /*sig=*/nullptr).write(json);
    it = subgraphs_.emplace(&g, json.str()).first;
  }
  return it->second;
}

void ProgramWriter::storagesJson(JsonWriter& w) const {
  w.beginArray();
  for (size_t i = 0; i < storages_.size(); ++i) {
    const Storage& s = *storages_[i];
    const std::string where = indexPath("$.epsmith.storages", i);
    int64_t size = elementSize(s.dtype);
    if (size == 0 ? !s.bytes.empty() : s.bytes.size() % size != 0) {
      fail(where, "storage of " + std::string(torchName(s.dtype)) + " has " + std::to_string(s.bytes.size()) +
                      " bytes, not a whole number of elements");
    }
    w.beginObject();
    w.key("dtype");
    dtypeJson(w, s.dtype, where);
    w.key("numel").integer(s.numel());
    w.key("data").base64(s.bytes);
    w.endObject();
  }
  w.endArray();
}

void ProgramWriter::moduleCallGraphJson(JsonWriter& w) const {
  w.beginArray();
  for (const auto& entry : p_.module_call_graph) {
    w.beginObject();
    w.key("fqn").string(entry.fqn);
    w.key("signature");
    if (!entry.signature) {
      w.null();
    } else {
      const ModuleCallSignature& s = *entry.signature;
      w.beginObject();
      w.key("inputs").beginArray();
      for (const auto& a : s.inputs) specArgJson(w, a);
      w.endArray();
      w.key("outputs").beginArray();
      for (const auto& a : s.outputs) specArgJson(w, a);
      w.endArray();
      w.key("in_spec").string(s.in_spec);
      w.key("out_spec").string(s.out_spec);
      w.key("forward_arg_names");
      s.forward_arg_names ? w.strings(*s.forward_arg_names) : w.null();
      w.endObject();
    }
    w.endObject();
  }
  w.endArray();
}

static void stringMap(JsonWriter& w, const std::map<std::string, std::string>& m) {
  w.beginObject();
  for (const auto& [k, v] : m) w.stringMember(k, v);
  w.endObject();
}

// torch's exported_program object.
void ProgramWriter::exportedProgramJson(JsonWriter& w) {
  w.beginObject();
  w.key("graph_module").beginObject();
  w.key("graph");
  GraphWriter(*this, p_.graph(), "", &p_.signature).write(w);
  w.key("signature").beginObject();
  w.key("input_specs").beginArray();
  for (const auto& s : p_.signature.input_specs) inputSpecJson(w, s);
  w.endArray();
  w.key("output_specs").beginArray();
  for (const auto& s : p_.signature.output_specs) outputSpecJson(w, s);
  w.endArray();
  w.endObject();
  w.key("module_call_graph");
  moduleCallGraphJson(w);
  w.key("metadata");
  stringMap(w, p_.metadata);
  w.key("treespec_namedtuple_fields").beginObject();
  // Plain references, not structured bindings: lambdas capture them in C++17 (and clang-14).
  for (const auto& type_fields : p_.treespec_namedtuple_fields) {
    const auto& fields = type_fields.second;
    w.member(type_fields.first, [&](JsonWriter& v) { oneKey(v, "field_names", [&] { v.strings(fields); }); });
  }
  w.endObject();
  w.endObject();  // graph_module
  w.key("opset_version").beginObject();
  for (const auto& [ns, version] : p_.opset_version) w.key(ns).integer(version);
  w.endObject();
  w.key("range_constraints").beginObject();
  for (const auto& [symbol, range] : p_.range_constraints) {
    w.key(symbol).beginObject();
    w.key("min_val").integerOrNull(range.min_val);
    w.key("max_val").integerOrNull(range.max_val);
    w.endObject();
  }
  w.endObject();
  w.key("schema_version").beginObject();
  w.key("major").integer(p_.schema_version.major);
  w.key("minor").integer(p_.schema_version.minor);
  w.endObject();
  w.key("verifiers").strings(p_.verifiers);
  w.key("torch_version").string(p_.torch_version);
  w.key("guards_code").strings(p_.guards_code);
  w.endObject();
}

// The epsmith section's state dict and constants.
void ProgramWriter::stateJson(JsonWriter& w) {
  w.key("state_dict").beginObject();
  for (const auto& fqn_entry : p_.state_dict) {
    const std::string& fqn = fqn_entry.first;
    const StateEntry& entry = fqn_entry.second;
    w.member(fqn, [&](JsonWriter& v) {
      v.beginObject();
      v.key("is_param").boolean(entry.is_parameter);
      v.key("tensor");
      tensorValueJson(v, entry.tensor, keyPath("$.epsmith.state_dict", fqn) + ".tensor", /*storage_optional=*/false);
      v.endObject();
    });
  }
  w.endObject();
  w.key("constants").beginObject();
  for (const auto& name_constant : p_.constants) {
    const std::string& name = name_constant.first;
    const Constant& c = name_constant.second;
    if (c.tensor && !c.class_fqn.empty())
      fail(keyPath("$.epsmith.constants", name), "constant has both a tensor and a class");
    w.member(name, [&](JsonWriter& v) {
      if (c.tensor) {
        oneKey(v, "as_tensor",
               [&] { tensorValueJson(v, *c.tensor, keyPath("$.epsmith.constants", name) + ".as_tensor", false); });
      } else {
        oneKey(v, "as_custom_obj", [&] { oneKey(v, "class_fqn", [&] { v.string(c.class_fqn); }); });
      }
    });
  }
  w.endObject();
}

void ProgramWriter::exampleInputsJson(JsonWriter& w) {
  w.beginArray();
  for (size_t i = 0; i < p_.example_inputs.size(); ++i) {
    const InputValue& in = p_.example_inputs[i];
    switch (in.kind) {
      case InputValue::Kind::Tensor:
        oneKey(w, "as_tensor",
               [&] { tensorValueJson(w, in.tensor, indexPath("$.epsmith.example_inputs", i) + ".as_tensor", false); });
        break;
      case InputValue::Kind::Int: oneKey(w, "as_int", [&] { w.integer(in.i); }); break;
      case InputValue::Kind::Float: oneKey(w, "as_float", [&] { floatJson(w, in.f); }); break;
      case InputValue::Kind::Bool: oneKey(w, "as_bool", [&] { w.boolean(in.b); }); break;
      case InputValue::Kind::None: oneKey(w, "as_none", [&] { w.boolean(true); }); break;
    }
  }
  w.endArray();
}

std::string ProgramWriter::write() {
  for (const auto& [fqn, entry] : p_.state_dict) registerStorage(entry.tensor);
  for (const auto& [name, c] : p_.constants) {
    if (c.tensor) registerStorage(*c.tensor);
  }
  for (const auto& in : p_.example_inputs) {
    if (in.kind == InputValue::Kind::Tensor) registerStorage(in.tensor);
  }
  registerAttributeStorages(p_.graph());

  JsonWriter w;
  w.beginObject();
  exportedProgramJson(w.key("exported_program"));
  w.key("epsmith").beginObject();
  w.key("format_version").integer(kFormatVersion);
  w.key("storages");
  storagesJson(w);
  stateJson(w);
  exampleInputsJson(w.key("example_inputs"));
  attributes_.endObject();
  graphs_.endObject();
  w.key("attributes").raw(attributes_.compact());
  w.key("graphs").raw(graphs_.compact());
  w.endObject();  // epsmith
  w.endObject();
  return w.str();
}

namespace {

// Note [Dtypes newer than a schema]
// torch.export's schema 8.17 (torch 2.11) ends at Float8E5M2FNUZ = 32; Float8E8M0FNU,
// UInt32 and UInt64 are in 8.20 (torch 2.12 and 2.13). No release's serializer writes a
// dtype its schema lacks (serialize.py's _TORCH_TO_SERIALIZE_DTYPE has no entry for it), and
// its readers refuse one (2.11's NativeRT: "unknown scalar type35"), so torch.export's own
// form of a program holds only its schema's dtypes; epsmith's JSON form holds any. Which
// minor version between the two added them is not known here: 8.20 is the first taken to.
bool inSchema(ScalarType t, const SchemaVersion& v) {
  const bool newer = t == ScalarType::Float8E8M0FNU || t == ScalarType::UInt32 || t == ScalarType::UInt64;
  return !newer || v.major > 8 || (v.major == 8 && v.minor >= 20);
}

// The first dtype among `g`'s values (its subgraphs' too) that schema `v` lacks.
std::optional<ScalarType> dtypeOutside(const Graph& g, const SchemaVersion& v) {
  std::optional<ScalarType> found;
  std::function<void(const Val&)> visit = [&](const Val& val) {
    if (const TensorMeta* t = val.tensor(); t && !found && !inSchema(t->dtype, v)) found = t->dtype;
    if (const Val::List* list = val.list()) {
      for (const Val& e : *list) visit(e);
    }
  };
  for (const Node& n : g.nodes()) visit(n.meta.val);
  for (const auto& [name, a] : g.attributes()) {
    if (a.subgraph && !found) found = dtypeOutside(*a.subgraph, v);
  }
  return found;
}

}  // namespace

std::string ProgramWriter::writeBare() {
  if (auto t = dtypeOutside(p_.graph(), p_.schema_version)) {
    fail("$", "dtype " + std::string(torchName(*t)) + " is not in torch.export's schema " +
                  std::to_string(p_.schema_version.major) + "." + std::to_string(p_.schema_version.minor) +
                  " (Note [Dtypes newer than a schema]): only an epsmith .json file can carry it");
  }
  registerAttributeStorages(p_.graph());
  JsonWriter w;
  exportedProgramJson(w);
  attributes_.endObject();
  graphs_.endObject();
  if (attributes_.compact() != "{}" || graphs_.compact() != "{}") {
    fail("$",
         "the program has graph inputs or attributes torch's schema cannot hold (docs/json-format.md, "
         "the epsmith section): only an epsmith .json file can carry it");
  }
  return w.str();
}

}  // namespace json_detail

Expected<std::string> exportedProgramJson(const ExportedProgram& p) {
  try {
    return json_detail::ProgramWriter(p).writeBare();
  } catch (const json_detail::Failure& f) {
    if (f.error.where.empty()) return Diagnostic{"$", f.error.message};
    return f.error;
  } catch (const std::exception& e) {
    return Diagnostic{"", std::string("internal error while writing JSON: ") + e.what()};
  }
}

Expected<std::string> programJsonValue(const ExportedProgram& p) {
  try {
    return json_detail::ProgramWriter(p).write();
  } catch (const json_detail::Failure& f) {
    if (f.error.where.empty()) return Diagnostic{"$", f.error.message};  // a string outside the graphs
    return f.error;
  } catch (const std::exception& e) {
    return Diagnostic{"", std::string("internal error while writing JSON: ") + e.what()};
  }
}

Expected<std::string> writeProgramJson(const ExportedProgram& p, JsonLayout layout) {
  auto compact = programJsonValue(p);
  if (!compact.ok() || layout == JsonLayout::Compact) {
    if (compact.ok()) compact.value() += "\n";
    return compact;
  }
  return indentedJson(compact.value());
}

}  // namespace epsmith
