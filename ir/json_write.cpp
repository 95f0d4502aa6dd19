// Writes an ExportedProgram as torch.export's JSON (schema.py field order) plus the epsmith
// section; docs/json-format.md is the reference for every choice made here.
#include "ir/json_format.h"
#include "ir/json_write.h"

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

JsonOut ProgramWriter::tensorValueJson(const TensorValue& t, const std::string& where,
                                     bool storage_optional) {
  JsonOut o = JsonOut::object();
  if (!t.storage) {
    if (!storage_optional) fail(where, "tensor has no storage");
    o.add("storage", nullptr);
  } else {
    if (auto error = checkTensorBounds(t)) fail(where, *error);
    o.add("storage", storage_index_.at(t.storage.get()));
  }
  o.add("sizes", t.sizes);
  o.add("strides", t.strides);
  o.add("storage_offset", t.storage_offset);
  o.add("requires_grad", t.requires_grad);
  return o;
}

const JsonOut& ProgramWriter::subgraphJson(const Graph& g, const std::string& gpath) {
  auto it = subgraphs_.find(&g);
  if (it == subgraphs_.end()) {
    JsonOut json = GraphWriter(*this, g, gpath, /*sig=*/nullptr).write();
    it = subgraphs_.emplace(&g, std::move(json)).first;
  }
  return it->second;
}

JsonOut ProgramWriter::storagesJson() const {
  JsonOut list = JsonOut::array();
  for (size_t i = 0; i < storages_.size(); ++i) {
    const Storage& s = *storages_[i];
    const std::string where = indexPath("$.epsmith.storages", i);
    int64_t size = elementSize(s.dtype);
    if (size == 0 ? !s.bytes.empty() : s.bytes.size() % size != 0) {
      fail(where, "storage of " + std::string(torchName(s.dtype)) + " has " +
                      std::to_string(s.bytes.size()) + " bytes, not a whole number of elements");
    }
    JsonOut o = JsonOut::object();
    o.add("dtype", dtypeJson(s.dtype, where));
    o.add("numel", s.numel());
    o.add("data", base64Encode(s.bytes));
    list.push_back(std::move(o));
  }
  return list;
}

JsonOut ProgramWriter::moduleCallGraphJson() const {
  JsonOut list = JsonOut::array();
  for (const auto& entry : p_.module_call_graph) {
    JsonOut o = JsonOut::object();
    o.add("fqn", entry.fqn);
    if (!entry.signature) {
      o.add("signature", nullptr);
    } else {
      const ModuleCallSignature& s = *entry.signature;
      JsonOut sig = JsonOut::object();
      JsonOut inputs = JsonOut::array(), outputs = JsonOut::array();
      for (const auto& a : s.inputs) inputs.push_back(specArgJson(a));
      for (const auto& a : s.outputs) outputs.push_back(specArgJson(a));
      sig.add("inputs", inputs);
      sig.add("outputs", outputs);
      sig.add("in_spec", s.in_spec);
      sig.add("out_spec", s.out_spec);
      sig.add("forward_arg_names", s.forward_arg_names ? JsonOut(*s.forward_arg_names) : JsonOut(nullptr));
      o.add("signature", std::move(sig));
    }
    list.push_back(std::move(o));
  }
  return list;
}

static JsonOut stringMap(const std::map<std::string, std::string>& m) {
  JsonOut o = JsonOut::object();
  for (const auto& [k, v] : m) o.add(k, v);
  return o;
}

JsonOut ProgramWriter::write() {
  for (const auto& [fqn, entry] : p_.state_dict) registerStorage(entry.tensor);
  for (const auto& [name, c] : p_.constants) {
    if (c.tensor) registerStorage(*c.tensor);
  }
  for (const auto& in : p_.example_inputs) {
    if (in.kind == InputValue::Kind::Tensor) registerStorage(in.tensor);
  }
  registerAttributeStorages(p_.graph());

  JsonOut gm = JsonOut::object();
  gm.add("graph", GraphWriter(*this, p_.graph(), "", &p_.signature).write());
  JsonOut sig = JsonOut::object();
  JsonOut input_specs = JsonOut::array(), output_specs = JsonOut::array();
  for (const auto& s : p_.signature.input_specs) input_specs.push_back(inputSpecJson(s));
  for (const auto& s : p_.signature.output_specs) output_specs.push_back(outputSpecJson(s));
  sig.add("input_specs", input_specs);
  sig.add("output_specs", output_specs);
  gm.add("signature", std::move(sig));
  gm.add("module_call_graph", moduleCallGraphJson());
  gm.add("metadata", stringMap(p_.metadata));
  JsonOut namedtuples = JsonOut::object();
  for (const auto& [type, fields] : p_.treespec_namedtuple_fields) {
    namedtuples.add(type, oneKey("field_names", fields));
  }
  gm.add("treespec_namedtuple_fields", std::move(namedtuples));

  JsonOut ep = JsonOut::object();
  ep.add("graph_module", std::move(gm));
  JsonOut opset = JsonOut::object();
  for (const auto& [ns, version] : p_.opset_version) opset.add(ns, version);
  ep.add("opset_version", std::move(opset));
  JsonOut ranges = JsonOut::object();
  for (const auto& [symbol, range] : p_.range_constraints) {
    JsonOut r = JsonOut::object();
    r.add("min_val", range.min_val ? JsonOut(*range.min_val) : JsonOut(nullptr));
    r.add("max_val", range.max_val ? JsonOut(*range.max_val) : JsonOut(nullptr));
    ranges.add(symbol, std::move(r));
  }
  ep.add("range_constraints", std::move(ranges));
  JsonOut version = JsonOut::object();
  version.add("major", p_.schema_version.major);
  version.add("minor", p_.schema_version.minor);
  ep.add("schema_version", std::move(version));
  ep.add("verifiers", p_.verifiers);
  ep.add("torch_version", p_.torch_version);
  ep.add("guards_code", p_.guards_code);

  JsonOut eps = JsonOut::object();
  eps.add("format_version", kFormatVersion);
  eps.add("storages", storagesJson());
  JsonOut state = JsonOut::object();
  for (const auto& [fqn, entry] : p_.state_dict) {
    JsonOut o = JsonOut::object();
    o.add("is_param", entry.is_parameter);
    o.add("tensor", tensorValueJson(entry.tensor, keyPath("$.epsmith.state_dict", fqn) + ".tensor",
                                  /*storage_optional=*/false));
    state.add(fqn, std::move(o));
  }
  eps.add("state_dict", std::move(state));
  JsonOut constants = JsonOut::object();
  for (const auto& [name, c] : p_.constants) {
    const std::string where = keyPath("$.epsmith.constants", name);
    if (c.tensor && !c.class_fqn.empty()) fail(where, "constant has both a tensor and a class");
    constants.add(name,
              c.tensor ? oneKey("as_tensor", tensorValueJson(*c.tensor, where + ".as_tensor", false))
                       : oneKey("as_custom_obj", oneKey("class_fqn", c.class_fqn)));
  }
  eps.add("constants", std::move(constants));
  JsonOut inputs = JsonOut::array();
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
  eps.add("example_inputs", std::move(inputs));
  eps.add("attributes", std::move(attributes_));
  eps.add("graphs", std::move(graphs_));

  JsonOut root = JsonOut::object();
  root.add("exported_program", std::move(ep));
  root.add("epsmith", std::move(eps));
  return root;
}

}  // namespace json_detail

Expected<std::string> writeProgramJson(const ExportedProgram& p, JsonLayout layout) {
  try {
    json_detail::JsonOut root = json_detail::ProgramWriter(p).write();
    return (layout == JsonLayout::Indented ? root.indented() : root.compact()) + "\n";
  } catch (const json_detail::Failure& f) {
    if (f.error.where.empty()) return LoadError{"$", f.error.message};  // a string outside the graphs
    return f.error;
  } catch (const std::exception& e) {
    return LoadError{"", std::string("internal error while writing JSON: ") + e.what()};
  }
}

}  // namespace epsmith
