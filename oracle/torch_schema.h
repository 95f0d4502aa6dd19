// LibTorch's own C++ types for the torch.export serialized schema
// (torch/csrc/utils/generated_serialization_types.h, 2.x), the JSON -> ExportedProgram path
// that C++ runtimes such as NativeRT load programs through, asked about the JSON epsmith
// writes (Note [Schema conformance in C++]).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace epsmith {

// Whether the LibTorch built against ships the generated serialization types (2.x does,
// 1.13 does not).
bool torchSchemaTypesAvailable();

// The first way a serialized ExportedProgram (the JSON `exportedProgramJson` writes, the
// .pt2's model member) departs from LibTorch's generated types: rejected by their reader, a
// field they do not have, a field they have that it omits, a value that does not come back.
// Nothing where it conforms, or where the types are not available.
std::optional<std::string> torchSchemaDisagreement(std::string_view exported_program_json);

}  // namespace epsmith
