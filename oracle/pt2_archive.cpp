// The .pt2 archive; see pt2_archive.h and docs/pt2-format.md.
#include "oracle/pt2_archive.h"

#include <ATen/core/ivalue.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/csrc/jit/serialization/pickler.h>

#include <cstring>
#include <map>
#include <sstream>
#include <unordered_map>

#include "formats/json.h"
#include "formats/json_format.h"
#include "oracle/aten_bridge.h"
#include "oracle/libtorch_compat.h"

namespace epsmith {
namespace {

// torch/csrc/export/pt2_archive_constants.h of 2.x (the archive spec's version 0), spelled
// out here because 1.13 has no such header; the round trips through torch.export.save and
// load in tests/oracle/pt2_test.py hold them to the installed release's.
constexpr const char* kFormatPath = "archive_format";
constexpr const char* kFormatValue = "pt2";
constexpr const char* kVersionPath = "archive_version";
constexpr const char* kVersionValue = "0";
constexpr const char* kModelsDir = "models/";
constexpr const char* kWeightsDir = "data/weights/";
constexpr const char* kConstantsDir = "data/constants/";
constexpr const char* kSampleInputsDir = "data/sample_inputs/";
constexpr const char* kWeightPrefix = "weight_";
constexpr const char* kTensorConstantPrefix = "tensor_";
constexpr const char* kCustomObjPrefix = "custom_obj_";
constexpr const char* kModelName = "model";  // torch.export.save's

std::string weightsConfigPath(const std::string& model) {
  return std::string(kWeightsDir) + model + "_weights_config.json";
}
std::string constantsConfigPath(const std::string& model) {
  return std::string(kConstantsDir) + model + "_constants_config.json";
}
std::string modelPath(const std::string& model) { return std::string(kModelsDir) + model + ".json"; }
std::string sampleInputsPath(const std::string& model) { return std::string(kSampleInputsDir) + model + ".pt"; }

// A failure at its place, caught at the entry points (docs/design.md, "One error vocabulary").
struct Pt2Failure {
  Diagnostic error;
};
[[noreturn]] void fail(std::string where, std::string message) {
  throw Pt2Failure{{std::move(where), std::move(message)}};
}

// schema.py's PayloadMeta, one per FQN of a PayloadConfig, in the file's order.
// `t`, unpickled from `record`, or the located error where its storage claims bytes it does
// not hold (a pickle can name a storage whose data never arrives; found by the pt2_reader
// libFuzzer target, a segfault copying it).
const at::Tensor& withData(const at::Tensor& t, const std::string& record) {
  if (t.storage().nbytes() > 0 && !t.storage().data()) fail(record, "a tensor's storage holds no data");
  return t;
}

struct Payload {
  std::string where;  // "data/weights/model_weights_config.json: $.config.w"
  std::string path_name;
  bool is_param = false;
  bool use_pickle = false;
  std::optional<TensorMeta> meta;
};
using PayloadConfig = std::vector<std::pair<std::string, Payload>>;

class ArchiveReader {
 public:
  explicit ArchiveReader(const std::string& bytes) : in_(bytes), zip_(&in_) {}

  bool has(const std::string& name) { return zip_.hasRecord(name); }
  std::vector<std::string> names() { return zip_.getAllRecords(); }
  std::string read(const std::string& name) {
    if (!zip_.hasRecord(name)) fail(name, "missing from the archive");
    auto [data, size] = zip_.getRecord(name);
    return std::string(static_cast<const char*>(data.get()), size);
  }

 private:
  std::istringstream in_;
  caffe2::serialize::PyTorchStreamReader zip_;
};

PayloadConfig readPayloadConfig(const std::string& text, const std::string& member) {
  auto config = readJson(text, member, [&](const JsonAt& root) {
    root.allowOnly({"config"});
    PayloadConfig out;
    root.field("config").forEachEntry([&](const std::string& fqn, const JsonAt& v) {
      v.allowOnly({"path_name", "is_param", "use_pickle", "tensor_meta"});
      Payload p;
      p.where = member + ": " + v.path();
      p.path_name = v.field("path_name").string();
      p.is_param = v.field("is_param").boolean();
      p.use_pickle = v.field("use_pickle").boolean();
      if (auto m = v.optional("tensor_meta")) p.meta = readTensorMeta(*m);
      out.emplace_back(fqn, std::move(p));
    });
    return out;
  });
  if (!config.ok()) throw Pt2Failure{config.error()};
  return std::move(config.value());
}

std::vector<int64_t> concrete(const SymIntList& list, const std::string& where) {
  std::vector<int64_t> out;
  for (const auto& v : list) {
    if (!v.isConcrete()) fail(where, "a stored tensor's sizes and strides must be integers");
    out.push_back(v.concrete());
  }
  return out;
}

// The state or constant tensors of one payload config: a record of raw bytes is one
// storage, shared by every FQN that names it (torch groups views of one storage so).
class PayloadTensors {
 public:
  PayloadTensors(ArchiveReader& zip, std::string dir) : zip_(zip), dir_(std::move(dir)) {}

  TensorValue tensor(const Payload& p) {
    const std::string record = dir_ + p.path_name;
    if (p.use_pickle) return pickled(record);
    if (!p.meta) fail(p.where, "a raw tensor payload needs its tensor_meta");
    const TensorMeta& m = *p.meta;
    TensorValue t;
    t.sizes = concrete(m.sizes, p.where + ".tensor_meta.sizes");
    t.strides = concrete(m.strides, p.where + ".tensor_meta.strides");
    t.storage_offset = concrete({m.storage_offset}, p.where + ".tensor_meta.storage_offset")[0];
    t.requires_grad = m.requires_grad;
    t.storage = storage(record, m.dtype, p.where);
    if (t.storage->bytes.empty()) {  // torch writes no bytes for an empty tensor and loads zeros
      t = TensorValue::zeros(m.dtype, t.sizes);
      t.requires_grad = m.requires_grad;
    }
    if (auto error = t.checkBounds()) fail(record, "holds too few bytes for " + p.where + ": " + *error);
    return t;
  }

 private:
  std::shared_ptr<Storage> storage(const std::string& record, ScalarType dtype, const std::string& where) {
    auto it = storages_.find(record);
    if (it != storages_.end()) {
      if (it->second->dtype != dtype) {
        fail(where, "views " + record + " as " + std::string(torchName(dtype)) + ", another FQN as " +
                        std::string(torchName(it->second->dtype)) + ": one storage of two dtypes is not supported");
      }
      return it->second;
    }
    const int64_t size = elementSize(dtype);
    if (size == 0) fail(where, "a stored tensor of dtype " + std::string(torchName(dtype)) + " cannot be read");
    std::string bytes = zip_.read(record);
    if (static_cast<int64_t>(bytes.size()) % size != 0) {
      fail(record, std::to_string(bytes.size()) + " bytes are not a whole number of " + std::string(torchName(dtype)) +
                       " elements (" + std::to_string(size) + " bytes each)");
    }
    auto s = std::make_shared<Storage>();
    s->dtype = dtype;
    s->bytes.assign(bytes.begin(), bytes.end());
    return storages_.emplace(record, std::move(s)).first->second;
  }

  TensorValue pickled(const std::string& record) {
    std::string bytes = zip_.read(record);
    c10::IValue v = torch::jit::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
    if (!v.isTensor()) fail(record, "a pickled payload must be a tensor, not " + v.tagKind());
    return toTensorValue(withData(v.toTensor(), record));
  }

  ArchiveReader& zip_;
  std::string dir_;
  std::map<std::string, std::shared_ptr<Storage>> storages_;
};

void readState(ArchiveReader& zip, const std::string& model, ExportedProgram& p) {
  const std::string member = weightsConfigPath(model);
  PayloadTensors tensors(zip, kWeightsDir);
  for (const auto& [fqn, payload] : readPayloadConfig(zip.read(member), member)) {
    p.state_dict[fqn] = StateEntry{payload.is_param, tensors.tensor(payload)};
  }
}

// The custom object's class, from the input spec that lifts `fqn`.
std::string customObjectClass(const ExportedProgram& p, const std::string& fqn) {
  for (const auto& spec : p.signature.input_specs) {
    if (spec.kind == InputKind::CustomObj && spec.target == fqn) return spec.arg.class_fqn;
  }
  return {};
}

void readConstants(ArchiveReader& zip, const std::string& model, ExportedProgram& p) {
  const std::string member = constantsConfigPath(model);
  PayloadTensors tensors(zip, kConstantsDir);
  for (const auto& [fqn, payload] : readPayloadConfig(zip.read(member), member)) {
    Constant c;
    if (payload.path_name.rfind(kTensorConstantPrefix, 0) == 0) {
      c.tensor = tensors.tensor(payload);
    } else if (payload.path_name.rfind(kCustomObjPrefix, 0) == 0) {
      c.class_fqn = customObjectClass(p, fqn);
      if (c.class_fqn.empty()) fail(payload.where, "a custom object that no input spec lifts");
    } else {
      fail(payload.where + ".path_name", "unsupported constant payload " + jsonQuoted(payload.path_name));
    }
    p.constants[fqn] = std::move(c);
  }
}

// torch.export.save pickles (args, kwargs); epsmith's inputs are their flat leaves, in
// pytree order (tuples and lists in order, dicts in insertion order), as the graph's user
// inputs are.
void flattenInputs(const c10::IValue& v, const std::string& record, StorageMemo& memo, std::vector<InputValue>& out) {
  InputValue in;
  if (v.isTensor()) {
    in.kind = InputValue::Kind::Tensor;
    in.tensor = toTensorValue(withData(v.toTensor(), record), memo);
  } else if (v.isInt()) {
    in.kind = InputValue::Kind::Int, in.i = v.toInt();
  } else if (v.isDouble()) {
    in.kind = InputValue::Kind::Float, in.f = v.toDouble();
  } else if (v.isBool()) {
    in.kind = InputValue::Kind::Bool, in.b = v.toBool();
  } else if (v.isNone()) {
    in.kind = InputValue::Kind::None;
  } else if (v.isTuple()) {
    for (const auto& e : v.toTupleRef().elements()) flattenInputs(e, record, memo, out);
    return;
  } else if (v.isList()) {
    for (const auto& e : v.toListRef()) flattenInputs(e, record, memo, out);
    return;
  } else if (v.isGenericDict()) {
    for (const auto& entry : v.toGenericDict()) flattenInputs(entry.value(), record, memo, out);
    return;
  } else {
    fail(record, "an example input of type " + v.tagKind() + " cannot be read");
  }
  out.push_back(std::move(in));
}

void readExampleInputs(ArchiveReader& zip, const std::string& model, ExportedProgram& p) {
  const std::string record = sampleInputsPath(model);
  if (!zip.has(record)) return;
  std::string bytes = zip.read(record);
  if (bytes.empty()) return;  // torch writes nothing for a program without example inputs
  c10::IValue v = torch::jit::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
  if (!v.isTuple() || v.toTupleRef().elements().size() != 2) fail(record, "expected the tuple (args, kwargs)");
  StorageMemo memo;
  flattenInputs(v, record, memo, p.example_inputs);
}

std::string modelName(ArchiveReader& zip) {
  std::vector<std::string> models;
  for (const auto& name : zip.names()) {
    const std::string suffix = ".json";
    if (name.rfind(kModelsDir, 0) == 0 && name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      models.push_back(name.substr(std::strlen(kModelsDir), name.size() - std::strlen(kModelsDir) - suffix.size()));
    }
  }
  if (models.empty()) fail(kModelsDir, "the archive holds no exported program (no models/NAME.json)");
  for (const auto& m : models) {
    if (m == kModelName) return m;
  }
  if (models.size() > 1)
    fail(kModelsDir, "the archive holds " + std::to_string(models.size()) + " programs and none is \"model\"");
  return models[0];
}

ExportedProgram readArchive(const std::string& bytes) {
  ArchiveReader zip(bytes);
  if (!zip.has(kFormatPath)) fail(kFormatPath, "missing: not a torch.export archive");
  if (const std::string format = zip.read(kFormatPath); format != kFormatValue) {
    fail(kFormatPath, "is " + jsonQuoted(format) + ", not \"pt2\"");
  }
  if (zip.has(kVersionPath)) {
    if (const std::string version = zip.read(kVersionPath); version != kVersionValue) {
      fail(kVersionPath, "archive version " + jsonQuoted(version) + " is not readable: epsmith reads version 0");
    }
  }
  const std::string model = modelName(zip);
  const std::string member = modelPath(model);
  auto program = readExportedProgramJson(zip.read(member));
  if (!program.ok()) {
    Diagnostic e = program.error();
    e.where = e.where.empty() ? member : member + ": " + e.where;
    throw Pt2Failure{e};
  }
  ExportedProgram p = std::move(program.value());
  readState(zip, model, p);
  readConstants(zip, model, p);
  readExampleInputs(zip, model, p);
  return p;
}

// The first line of LibTorch's message (its zip reader names the failing step there).
std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

// What `f` makes, or its failure: ours at its place, LibTorch's (its zip reader, pickler)
// after `what`.
template <typename F>
auto orError(const std::string& what, F&& f) -> Expected<decltype(f())> {
  try {
    return f();
  } catch (const Pt2Failure& failure) {
    return failure.error;
  } catch (const c10::Error& e) {
    return Diagnostic{"", what + firstLine(e.what_without_backtrace())};
  } catch (const std::exception& e) {
    return Diagnostic{"", what + firstLine(e.what())};
  }
}

}  // namespace

Expected<ExportedProgram> readProgramPt2(const std::string& bytes) {
  return orError("not a readable .pt2 archive: ", [&] { return readArchive(bytes); });
}

namespace {

// Records of one payload directory: each storage once, named PREFIX<i> in order.
class PayloadWriter {
 public:
  PayloadWriter(caffe2::serialize::PyTorchStreamWriter& zip, std::string dir, std::string prefix)
      : zip_(zip), dir_(std::move(dir)), prefix_(std::move(prefix)) {
    config_.beginObject();
    config_.key("config").beginObject();
  }

  void tensor(const std::string& fqn, const TensorValue& t, bool is_param) {
    auto [it, fresh] = records_.emplace(t.storage.get(), prefix_ + std::to_string(records_.size()));
    if (fresh) zip_.writeRecord(dir_ + it->second, t.storage->bytes.data(), t.storage->bytes.size());
    TensorMeta m;
    m.dtype = t.dtype();
    for (int64_t s : t.sizes) m.sizes.push_back(s);
    for (int64_t s : t.strides) m.strides.push_back(s);
    m.storage_offset = t.storage_offset;
    m.requires_grad = t.requires_grad;
    config_.key(fqn).beginObject();
    config_.key("path_name").string(it->second);
    config_.key("is_param").boolean(is_param);
    config_.key("use_pickle").boolean(false);
    config_.key("tensor_meta");
    tensorMetaJson(config_, m, fqn);
    config_.endObject();
  }

  void finish(const std::string& config_path) {
    config_.endObject();
    config_.endObject();
    const std::string& json = config_.str();
    zip_.writeRecord(config_path, json.data(), json.size());
  }

 private:
  caffe2::serialize::PyTorchStreamWriter& zip_;
  std::string dir_, prefix_;
  std::unordered_map<const Storage*, std::string> records_;
  JsonWriter config_;
};

// What torch.save writes for `v`: torch::pickle_save's container (data.pkl, a data/<i>
// record per storage), but with untagged dicts and lists: pickle_save tags them with
// torch.jit._pickle.restore_type_tag, which torch.load(weights_only=True), as
// torch.export.load first calls it, refuses.
std::vector<char> torchSave(const c10::IValue& v) {
  std::vector<char> pickled;
  torch::jit::Pickler pickler([&](const char* data, size_t size) { pickled.insert(pickled.end(), data, data + size); },
                              nullptr, nullptr, nullptr, nullptr, /*tag_aggregates=*/false);
  pickler.protocol();
  pickler.pushIValue(v);
  pickler.stop();
  std::vector<char> out;
  caffe2::serialize::PyTorchStreamWriter zip([&](const void* data, size_t size) {
    out.insert(out.end(), static_cast<const char*>(data), static_cast<const char*>(data) + size);
    return size;
  });
  const auto& tensors = pickler.tensorData();
  for (size_t i = 0; i < tensors.size(); ++i) {
    auto writable = torch::jit::getWriteableTensorData(tensors[i]);
    zip.writeRecord("data/" + std::to_string(i), writable.data(), writable.sizeInBytes());
  }
  zip.writeRecord("data.pkl", pickled.data(), pickled.size());
  zip.writeEndOfFile();
  return out;
}

// Note [Example inputs laid out by the call spec]
// torch.export.save pickles the example inputs as (args, kwargs), and ep.module() is called
// with them so; epsmith keeps them flat, as the graph's user inputs are. Written back they
// are laid out by the root entry's in_spec (torch/utils/_pytree.py's JSON: tuples, lists,
// dicts with their keys), so a module with keyword or nested arguments gets each where it
// expects it. A spec this cannot lay out (a namedtuple, a registered class, a leaf count
// that is not the inputs') leaves the flat tuple of positional arguments.
std::optional<c10::IValue> laidOut(const JsonAt& node, const std::vector<c10::IValue>& leaves, size_t* next) {
  const JsonAt type = node.field("type");
  if (type.isNull()) {
    if (*next >= leaves.size()) return std::nullopt;
    return leaves[(*next)++];
  }
  const std::string_view kind = type.view();
  const JsonAt children = node.field("children_spec");
  std::vector<c10::IValue> items;
  for (size_t i = 0; i < children.size(); ++i) {
    auto item = laidOut(children[i], leaves, next);
    if (!item) return std::nullopt;
    items.push_back(std::move(*item));
  }
  if (kind == "builtins.tuple") return c10::ivalue::Tuple::create(std::move(items));
  if (kind == "builtins.list") {
    c10::impl::GenericList list(c10::AnyType::get());
    for (auto& item : items) list.push_back(std::move(item));
    return list;
  }
  if (kind != "builtins.dict") return std::nullopt;
  auto keys = readJson(node.field("context").view(), "", [](const JsonAt& at) { return at.strings(); });
  if (!keys.ok() || keys.value().size() != items.size()) return std::nullopt;
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  for (size_t i = 0; i < items.size(); ++i) dict.insert(keys.value()[i], std::move(items[i]));
  return dict;
}

// (args, kwargs) from the flat inputs by the root entry's in_spec; nullopt where it cannot.
std::optional<c10::IValue> inputsBySpec(const ExportedProgram& p, const std::vector<c10::IValue>& leaves) {
  for (const auto& entry : p.module_call_graph) {
    if (!entry.fqn.empty() || !entry.signature || entry.signature->in_spec.empty()) continue;
    auto tree = readJson(entry.signature->in_spec, "", [&](const JsonAt& at) -> std::optional<c10::IValue> {
      size_t next = 0;
      auto v = laidOut(at[1], leaves, &next);
      if (!v || next != leaves.size() || !v->isTuple() || v->toTupleRef().elements().size() != 2) return std::nullopt;
      const auto& parts = v->toTupleRef().elements();
      if (!parts[0].isTuple() || !parts[1].isGenericDict()) return std::nullopt;
      return v;
    });
    return tree.ok() ? tree.value() : std::nullopt;
  }
  return std::nullopt;
}

std::vector<char> pickledInputs(const ExportedProgram& p) {
  TensorMaterializer materializer;
  std::vector<c10::IValue> args;
  for (const auto& in : p.example_inputs) {
    switch (in.kind) {
      case InputValue::Kind::Tensor: args.emplace_back(materializer.materialize(in.tensor)); break;
      case InputValue::Kind::Int: args.emplace_back(in.i); break;
      case InputValue::Kind::Float: args.emplace_back(in.f); break;
      case InputValue::Kind::Bool: args.emplace_back(in.b); break;
      case InputValue::Kind::None: args.emplace_back(); break;
    }
  }
  if (auto tree = inputsBySpec(p, args)) return torchSave(*tree);
  c10::impl::GenericDict kwargs(c10::StringType::get(), c10::AnyType::get());
  return torchSave(c10::ivalue::Tuple::create({c10::ivalue::Tuple::create(std::move(args)), kwargs}));
}

std::string writeArchive(const ExportedProgram& p) {
  auto json = exportedProgramJson(p);
  if (!json.ok()) throw Pt2Failure{json.error()};
  std::string out;
  caffe2::serialize::PyTorchStreamWriter zip([&](const void* data, size_t size) {
    out.append(static_cast<const char*>(data), size);
    return size;
  });
  zip.setMinVersion(6);  // as torch's PT2ArchiveWriter does
  PayloadWriter weights(zip, kWeightsDir, kWeightPrefix);
  for (const auto& [fqn, entry] : p.state_dict) weights.tensor(fqn, entry.tensor, entry.is_parameter);
  weights.finish(weightsConfigPath(kModelName));
  PayloadWriter constants(zip, kConstantsDir, kTensorConstantPrefix);
  for (const auto& [fqn, c] : p.constants) {
    if (!c.tensor)
      fail("constant " + fqn, "a custom object (" + c.class_fqn + ") cannot be written: epsmith keeps only its class");
    constants.tensor(fqn, *c.tensor, false);
  }
  constants.finish(constantsConfigPath(kModelName));
  zip.writeRecord(modelPath(kModelName), json.value().data(), json.value().size());
  const std::vector<char> inputs = pickledInputs(p);
  zip.writeRecord(sampleInputsPath(kModelName), inputs.data(), inputs.size());
  zip.writeRecord(kFormatPath, kFormatValue, std::strlen(kFormatValue));
  zip.writeRecord(kVersionPath, kVersionValue, std::strlen(kVersionValue));
  zip.writeEndOfFile();
  return out;
}

}  // namespace

Expected<std::string> writeProgramPt2(const ExportedProgram& p) {
  return orError("cannot be written as .pt2: ", [&] { return writeArchive(p); });
}

std::optional<std::string> pt2CannotHold(const ExportedProgram& p) {
  for (const auto& [name, c] : p.constants) {
    if (!c.tensor) return "constant " + name + " is a custom object, kept by class only";
  }
  if (auto bare = exportedProgramJson(p); !bare.ok() && writeProgramJson(p, JsonLayout::Compact).ok()) {
    return bare.error().message;  // what only the epsmith section of the JSON form holds
  }
  return std::nullopt;
}

}  // namespace epsmith
