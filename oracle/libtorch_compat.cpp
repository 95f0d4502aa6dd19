// See libtorch_compat.h.
#include "oracle/libtorch_compat.h"

#include <caffe2/serialize/versions.h>

#include "ir/program.h"

namespace epsmith::compat {

void stampWithThisLibTorch(ExportedProgram& p) {
  p.torch_version = libtorchFullVersion();
#ifdef EPSMITH_EXPORT_SCHEMA_MAJOR
  p.schema_version = {EPSMITH_EXPORT_SCHEMA_MAJOR, EPSMITH_EXPORT_SCHEMA_MINOR};
#else
  p.schema_version = SchemaVersion{};
#endif
  // torch._C._get_max_operator_version(), which the serializer writes as aten's opset.
  p.opset_version = {{"aten", static_cast<int64_t>(caffe2::serialize::kProducedFileFormatVersion)}};
}

}  // namespace epsmith::compat
