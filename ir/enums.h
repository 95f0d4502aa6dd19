// Enumerations of torch.export's serialized schema (ScalarType, Layout, MemoryFormat) and
// Device, with their integer values, short names (f32) and torch names (torch.float32).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace epsmith {

// Values are torch/_export/serde/schema.py's, so JSON integers map one to one.
enum class ScalarType : int {
  Unknown = 0,
  Byte = 1,
  Char = 2,
  Short = 3,
  Int = 4,
  Long = 5,
  Half = 6,
  Float = 7,
  Double = 8,
  ComplexHalf = 9,
  ComplexFloat = 10,
  ComplexDouble = 11,
  Bool = 12,
  BFloat16 = 13,
  UInt16 = 28,
  Float8E4M3FN = 29,
  Float8E5M2 = 30,
  Float8E4M3FNUZ = 31,
  Float8E5M2FNUZ = 32,
  Float8E8M0FNU = 33,
  UInt32 = 34,
  UInt64 = 35,
};

enum class Layout : int {
  Unknown = 0,
  SparseCoo = 1,
  SparseCsr = 2,
  SparseCsc = 3,
  SparseBsr = 4,
  SparseBsc = 5,
  Mkldnn = 6,
  Strided = 7,
};

enum class MemoryFormat : int {
  Unknown = 0,
  Contiguous = 1,
  ChannelsLast = 2,
  ChannelsLast3d = 3,
  Preserve = 4,
};

struct Device {
  std::string type = "cpu";
  std::optional<int64_t> index;

  // "cpu", "cuda:0".
  std::string str() const;
  // Parses "cpu", "cuda", "cuda:1"; nullopt when malformed.
  static std::optional<Device> parse(std::string_view text);
  friend bool operator==(const Device& a, const Device& b) { return a.type == b.type && a.index == b.index; }
  friend bool operator!=(const Device& a, const Device& b) { return !(a == b); }
};

// Each `from*` returns nullopt for a value the schema does not define.
std::optional<ScalarType> scalarTypeFromInt(int64_t value);
std::optional<Layout> layoutFromInt(int64_t value);
std::optional<MemoryFormat> memoryFormatFromInt(int64_t value);

std::string_view shortName(ScalarType t);    // "f32"
std::string_view torchName(ScalarType t);    // "torch.float32"
std::string_view torchName(Layout l);        // "torch.strided"
std::string_view torchName(MemoryFormat m);  // "torch.contiguous_format"
std::optional<ScalarType> scalarTypeFromShortName(std::string_view name);
std::optional<ScalarType> scalarTypeFromTorchName(std::string_view name);
std::optional<Layout> layoutFromTorchName(std::string_view name);
std::optional<MemoryFormat> memoryFormatFromTorchName(std::string_view name);

// Bytes per element; 0 for Unknown.
int64_t elementSize(ScalarType t);
bool isFloatingPoint(ScalarType t);
bool isComplex(ScalarType t);

}  // namespace epsmith
