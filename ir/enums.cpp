// Tables behind ir/enums.h: one row per enum value, so names and numbers cannot drift apart.
#include "ir/enums.h"

#include <array>
#include <cctype>
#include <cstdlib>

namespace epsmith {
namespace {

struct DtypeRow {
  ScalarType type;
  std::string_view short_name;
  std::string_view torch_name;
  int64_t element_size;
};

constexpr std::array<DtypeRow, 22> kDtypes{{
    {ScalarType::Unknown, "unknown", "torch.unknown", 0},
    {ScalarType::Byte, "u8", "torch.uint8", 1},
    {ScalarType::Char, "i8", "torch.int8", 1},
    {ScalarType::Short, "i16", "torch.int16", 2},
    {ScalarType::Int, "i32", "torch.int32", 4},
    {ScalarType::Long, "i64", "torch.int64", 8},
    {ScalarType::Half, "f16", "torch.float16", 2},
    {ScalarType::Float, "f32", "torch.float32", 4},
    {ScalarType::Double, "f64", "torch.float64", 8},
    {ScalarType::ComplexHalf, "c32", "torch.complex32", 4},
    {ScalarType::ComplexFloat, "c64", "torch.complex64", 8},
    {ScalarType::ComplexDouble, "c128", "torch.complex128", 16},
    {ScalarType::Bool, "b8", "torch.bool", 1},
    {ScalarType::BFloat16, "bf16", "torch.bfloat16", 2},
    {ScalarType::UInt16, "u16", "torch.uint16", 2},
    {ScalarType::Float8E4M3FN, "f8e4m3fn", "torch.float8_e4m3fn", 1},
    {ScalarType::Float8E5M2, "f8e5m2", "torch.float8_e5m2", 1},
    {ScalarType::Float8E4M3FNUZ, "f8e4m3fnuz", "torch.float8_e4m3fnuz", 1},
    {ScalarType::Float8E5M2FNUZ, "f8e5m2fnuz", "torch.float8_e5m2fnuz", 1},
    {ScalarType::Float8E8M0FNU, "f8e8m0fnu", "torch.float8_e8m0fnu", 1},
    {ScalarType::UInt32, "u32", "torch.uint32", 4},
    {ScalarType::UInt64, "u64", "torch.uint64", 8},
}};

constexpr std::array<std::pair<Layout, std::string_view>, 8> kLayouts{{
    {Layout::Unknown, "torch.unknown_layout"},
    {Layout::SparseCoo, "torch.sparse_coo"},
    {Layout::SparseCsr, "torch.sparse_csr"},
    {Layout::SparseCsc, "torch.sparse_csc"},
    {Layout::SparseBsr, "torch.sparse_bsr"},
    {Layout::SparseBsc, "torch.sparse_bsc"},
    {Layout::Mkldnn, "torch._mkldnn"},
    {Layout::Strided, "torch.strided"},
}};

constexpr std::array<std::pair<MemoryFormat, std::string_view>, 5> kMemoryFormats{{
    {MemoryFormat::Unknown, "torch.unknown_memory_format"},
    {MemoryFormat::Contiguous, "torch.contiguous_format"},
    {MemoryFormat::ChannelsLast, "torch.channels_last"},
    {MemoryFormat::ChannelsLast3d, "torch.channels_last_3d"},
    {MemoryFormat::Preserve, "torch.preserve_format"},
}};

const DtypeRow& row(ScalarType t) {
  for (const auto& r : kDtypes) {
    if (r.type == t) return r;
  }
  return kDtypes[0];
}

}  // namespace

std::string Device::str() const { return index ? type + ":" + std::to_string(*index) : type; }

std::optional<Device> Device::parse(std::string_view text) {
  Device d;
  auto colon = text.find(':');
  d.type = std::string(text.substr(0, colon));
  if (d.type.empty()) return std::nullopt;
  for (char c : d.type) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return std::nullopt;
  }
  if (colon != std::string_view::npos) {
    auto digits = text.substr(colon + 1);
    if (digits.empty() || digits.size() > 9) return std::nullopt;
    int64_t value = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + (c - '0');
    }
    d.index = value;
  }
  return d;
}

std::optional<ScalarType> scalarTypeFromInt(int64_t value) {
  for (const auto& r : kDtypes) {
    if (static_cast<int64_t>(r.type) == value) return r.type;
  }
  return std::nullopt;
}

std::optional<Layout> layoutFromInt(int64_t value) {
  for (const auto& [l, name] : kLayouts) {
    if (static_cast<int64_t>(l) == value) return l;
  }
  return std::nullopt;
}

std::optional<MemoryFormat> memoryFormatFromInt(int64_t value) {
  for (const auto& [m, name] : kMemoryFormats) {
    if (static_cast<int64_t>(m) == value) return m;
  }
  return std::nullopt;
}

std::string_view shortName(ScalarType t) { return row(t).short_name; }
std::string_view torchName(ScalarType t) { return row(t).torch_name; }

std::string_view torchName(Layout l) {
  for (const auto& [v, name] : kLayouts) {
    if (v == l) return name;
  }
  return kLayouts[0].second;
}

std::string_view torchName(MemoryFormat m) {
  for (const auto& [v, name] : kMemoryFormats) {
    if (v == m) return name;
  }
  return kMemoryFormats[0].second;
}

std::optional<ScalarType> scalarTypeFromShortName(std::string_view name) {
  for (const auto& r : kDtypes) {
    if (r.short_name == name) return r.type;
  }
  return std::nullopt;
}

std::optional<ScalarType> scalarTypeFromTorchName(std::string_view name) {
  for (const auto& r : kDtypes) {
    if (r.torch_name == name) return r.type;
  }
  return std::nullopt;
}

std::optional<Layout> layoutFromTorchName(std::string_view name) {
  for (const auto& [v, n] : kLayouts) {
    if (n == name) return v;
  }
  return std::nullopt;
}

std::optional<MemoryFormat> memoryFormatFromTorchName(std::string_view name) {
  for (const auto& [v, n] : kMemoryFormats) {
    if (n == name) return v;
  }
  return std::nullopt;
}

int64_t elementSize(ScalarType t) { return row(t).element_size; }

bool isFloatingPoint(ScalarType t) {
  switch (t) {
    case ScalarType::Half:
    case ScalarType::Float:
    case ScalarType::Double:
    case ScalarType::BFloat16:
    case ScalarType::Float8E4M3FN:
    case ScalarType::Float8E5M2:
    case ScalarType::Float8E4M3FNUZ:
    case ScalarType::Float8E5M2FNUZ:
    case ScalarType::Float8E8M0FNU: return true;
    default: return false;
  }
}

bool isComplex(ScalarType t) {
  return t == ScalarType::ComplexHalf || t == ScalarType::ComplexFloat || t == ScalarType::ComplexDouble;
}

}  // namespace epsmith
