// Writes an ExportedProgram as torch.export's JSON (schema.py field order) plus the epsmith
// section; docs/json-format.md is the reference for every choice made here.
#include "ir/json_format.h"
#include "ir/json_write.h"

namespace epsmith {
namespace json_detail {

// Appends to an ordered object without ordered_map's linear duplicate search: callers know
// the key is new (node names are checked unique first).
void appendNew(OJson& obj, std::string key, OJson value) {
  auto& map = obj.get_ref<OJson::object_t&>();
  static_cast<OJson::object_t::Container&>(map).emplace_back(std::move(key), std::move(value));
}

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

OJson ProgramWriter::tensorValueJson(const TensorValue& t, const std::string& where,
                                     bool storage_optional) {
  OJson o = objectWithRoom(8);
  if (!t.storage) {
    if (!storage_optional) fail(where, "tensor has no storage");
    o["storage"] = nullptr;
  } else {
    if (auto error = checkTensorBounds(t)) fail(where, *error);
    o["storage"] = storage_index_.at(t.storage.get());
  }
  o["sizes"] = t.sizes;
  o["strides"] = t.strides;
  o["storage_offset"] = t.storage_offset;
  o["requires_grad"] = t.requires_grad;
  return o;
}

const OJson& ProgramWriter::subgraphJson(const Graph& g, const std::string& gpath) {
  auto it = subgraphs_.find(&g);
  if (it == subgraphs_.end()) {
    OJson json = GraphWriter(*this, g, gpath, /*sig=*/nullptr).write();
    it = subgraphs_.emplace(&g, std::move(json)).first;
  }
  return it->second;
}

OJson ProgramWriter::storagesJson() const {
  OJson list = OJson::array();
  for (size_t i = 0; i < storages_.size(); ++i) {
    const Storage& s = *storages_[i];
    const std::string where = indexPath("$.epsmith.storages", i);
    int64_t size = elementSize(s.dtype);
    if (size == 0 ? !s.bytes.empty() : s.bytes.size() % size != 0) {
      fail(where, "storage of " + std::string(torchName(s.dtype)) + " has " +
                      std::to_string(s.bytes.size()) + " bytes, not a whole number of elements");
    }
    OJson o = objectWithRoom(8);
    o["dtype"] = dtypeJson(s.dtype, where);
    o["numel"] = s.numel();
    o["data"] = base64Encode(s.bytes);
    list.push_back(std::move(o));
  }
  return list;
}

OJson ProgramWriter::moduleCallGraphJson() const {
  OJson list = OJson::array();
  for (const auto& entry : p_.module_call_graph) {
    OJson o = objectWithRoom(8);
    o["fqn"] = entry.fqn;
    if (!entry.signature) {
      o["signature"] = nullptr;
    } else {
      const ModuleCallSignature& s = *entry.signature;
      OJson sig = objectWithRoom(8);
      sig["inputs"] = OJson::array();
      for (const auto& a : s.inputs) sig["inputs"].push_back(specArgJson(a));
      sig["outputs"] = OJson::array();
      for (const auto& a : s.outputs) sig["outputs"].push_back(specArgJson(a));
      sig["in_spec"] = s.in_spec;
      sig["out_spec"] = s.out_spec;
      sig["forward_arg_names"] =
          s.forward_arg_names ? OJson(*s.forward_arg_names) : OJson(nullptr);
      o["signature"] = std::move(sig);
    }
    list.push_back(std::move(o));
  }
  return list;
}

static OJson stringMap(const std::map<std::string, std::string>& m) {
  OJson o = objectWithRoom(8);
  for (const auto& [k, v] : m) appendNew(o, k, v);
  return o;
}

OJson ProgramWriter::write() {
  for (const auto& [fqn, entry] : p_.state_dict) registerStorage(entry.tensor);
  for (const auto& [name, c] : p_.constants) {
    if (c.tensor) registerStorage(*c.tensor);
  }
  for (const auto& in : p_.example_inputs) {
    if (in.kind == InputValue::Kind::Tensor) registerStorage(in.tensor);
  }
  registerAttributeStorages(p_.graph());

  OJson gm = objectWithRoom(8);
  gm["graph"] = GraphWriter(*this, p_.graph(), "", &p_.signature).write();
  OJson sig = objectWithRoom(8);
  sig["input_specs"] = OJson::array();
  for (const auto& s : p_.signature.input_specs) sig["input_specs"].push_back(inputSpecJson(s));
  sig["output_specs"] = OJson::array();
  for (const auto& s : p_.signature.output_specs) sig["output_specs"].push_back(outputSpecJson(s));
  gm["signature"] = std::move(sig);
  gm["module_call_graph"] = moduleCallGraphJson();
  gm["metadata"] = stringMap(p_.metadata);
  OJson namedtuples = objectWithRoom(8);
  for (const auto& [type, fields] : p_.treespec_namedtuple_fields) {
    appendNew(namedtuples, type, oneKey("field_names", fields));
  }
  gm["treespec_namedtuple_fields"] = std::move(namedtuples);

  OJson ep = objectWithRoom(8);
  ep["graph_module"] = std::move(gm);
  OJson opset = objectWithRoom(8);
  for (const auto& [ns, version] : p_.opset_version) appendNew(opset, ns, version);
  ep["opset_version"] = std::move(opset);
  OJson ranges = objectWithRoom(8);
  for (const auto& [symbol, range] : p_.range_constraints) {
    OJson r = objectWithRoom(8);
    r["min_val"] = range.min_val ? OJson(*range.min_val) : OJson(nullptr);
    r["max_val"] = range.max_val ? OJson(*range.max_val) : OJson(nullptr);
    appendNew(ranges, symbol, std::move(r));
  }
  ep["range_constraints"] = std::move(ranges);
  OJson version = objectWithRoom(8);
  version["major"] = p_.schema_version.major;
  version["minor"] = p_.schema_version.minor;
  ep["schema_version"] = std::move(version);
  ep["verifiers"] = p_.verifiers;
  ep["torch_version"] = p_.torch_version;
  ep["guards_code"] = p_.guards_code;

  OJson eps = objectWithRoom(8);
  eps["format_version"] = kFormatVersion;
  eps["storages"] = storagesJson();
  OJson state = objectWithRoom(p_.state_dict.size());
  for (const auto& [fqn, entry] : p_.state_dict) {
    OJson o = objectWithRoom(8);
    o["is_param"] = entry.is_parameter;
    o["tensor"] = tensorValueJson(entry.tensor, keyPath("$.epsmith.state_dict", fqn) + ".tensor",
                                  /*storage_optional=*/false);
    appendNew(state, fqn, std::move(o));
  }
  eps["state_dict"] = std::move(state);
  OJson constants = objectWithRoom(p_.constants.size());
  for (const auto& [name, c] : p_.constants) {
    const std::string where = keyPath("$.epsmith.constants", name);
    if (c.tensor && !c.class_fqn.empty()) fail(where, "constant has both a tensor and a class");
    appendNew(constants, name,
              c.tensor ? oneKey("as_tensor", tensorValueJson(*c.tensor, where + ".as_tensor", false))
                       : oneKey("as_custom_obj", oneKey("class_fqn", c.class_fqn)));
  }
  eps["constants"] = std::move(constants);
  OJson inputs = OJson::array();
  for (size_t i = 0; i < p_.example_inputs.size(); ++i) {
    const InputValue& in = p_.example_inputs[i];
    switch (in.kind) {
      case InputValue::Kind::Tensor:
        inputs.push_back(oneKey(
            "as_tensor", tensorValueJson(in.tensor, indexPath("$.epsmith.example_inputs", i) + ".as_tensor", false)));
        break;
      case InputValue::Kind::Int: inputs.push_back(oneKey("as_int", in.i)); break;
      case InputValue::Kind::Float: inputs.push_back(oneKey("as_float", floatJson(in.f))); break;
      case InputValue::Kind::Bool: inputs.push_back(oneKey("as_bool", in.b)); break;
      case InputValue::Kind::None: inputs.push_back(oneKey("as_none", true)); break;
    }
  }
  eps["example_inputs"] = std::move(inputs);
  eps["attributes"] = std::move(attributes_);
  eps["graphs"] = std::move(graphs_);

  OJson root = objectWithRoom(8);
  root["exported_program"] = std::move(ep);
  root["epsmith"] = std::move(eps);
  return root;
}

namespace {

bool validUtf8(const std::string& s) {
  try {
    (void)OJson(s).dump();
    return true;
  } catch (const OJson::exception&) {
    return false;
  }
}

// The path of the first string (key or value) in `j` that is not valid UTF-8.
std::optional<std::string> invalidUtf8Path(const OJson& j, const std::string& path) {
  if (j.is_string()) {
    if (!validUtf8(j.get_ref<const std::string&>())) return path;
  } else if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      if (!validUtf8(key)) return keyPath(path, key);
      if (auto p = invalidUtf8Path(value, keyPath(path, key))) return p;
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      if (auto p = invalidUtf8Path(j[i], indexPath(path, i))) return p;
    }
  }
  return std::nullopt;
}


}  // namespace
}  // namespace json_detail

Expected<std::string> writeProgramJson(const ExportedProgram& p) {
  try {
    json_detail::OJson root = json_detail::ProgramWriter(p).write();
    try {
      return root.dump(1, ' ', false, json_detail::OJson::error_handler_t::strict) + "\n";
    } catch (const json_detail::OJson::type_error&) {
      return LoadError{json_detail::invalidUtf8Path(root, "$").value_or("$"), "string is not valid UTF-8"};
    }
  } catch (const json_detail::Failure& f) {
    return f.error;
  } catch (const std::exception& e) {
    return LoadError{"", std::string("internal error while writing JSON: ") + e.what()};
  }
}

}  // namespace epsmith
