// Number formatting and low-precision float conversions for the text form.
#include "formats/scalar_format.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace epsmith {
namespace {

std::string ensureFloatLooking(std::string s) {
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // "n": inf / nan
  return s;
}

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// Shortest decimal text of a value held in a 16-bit float format that reads back exactly.
std::string shortest16(float value, uint16_t bits, uint16_t (*encode)(float)) {
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    auto r = std::to_chars(buf, buf + sizeof buf, static_cast<double>(value), std::chars_format::general, precision);
    double back = 0;
    std::from_chars(buf, r.ptr, back);
    if (encode(static_cast<float>(back)) == bits) return ensureFloatLooking(std::string(buf, r.ptr));
  }
  return formatFloat(value);
}

bool isCanonicalNan32(uint32_t bits) { return bits == 0x7fc00000u; }

std::string hexBits(uint64_t bits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "nan:0x%llx", static_cast<unsigned long long>(bits));
  return buf;
}

std::optional<double> parseDouble(std::string_view t) {
  if (t == "inf") return std::numeric_limits<double>::infinity();
  if (t == "-inf") return -std::numeric_limits<double>::infinity();
  if (t == "nan") return std::numeric_limits<double>::quiet_NaN();
  double v = 0;
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return std::nullopt;
  return v;
}

std::optional<uint64_t> parseNanBits(std::string_view t) {
  constexpr std::string_view kPrefix = "nan:0x";
  if (t.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  uint64_t bits = 0;
  auto digits = t.substr(kPrefix.size());
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), bits, 16);
  if (r.ec != std::errc() || r.ptr != digits.data() + digits.size()) return std::nullopt;
  return bits;
}

template <typename T>
std::optional<std::string> parseInt(std::string_view t, uint8_t* out) {
  T v{};
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (r.ec == std::errc::result_out_of_range) return "integer out of range";
  if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return "expected an integer";
  store(out, v);
  return std::nullopt;
}

}  // namespace

std::string formatFloat(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return ensureFloatLooking(std::string(buf, r.ptr));
}

float halfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      bits = sign | ((127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xff;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0));
  int32_t e = static_cast<int32_t>(exp) - 127 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow to inf
  if (e <= 0) {                                                 // subnormal or zero
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half;  // may carry into inf: correct
  return static_cast<uint16_t>(sign | half);
}

float bfloat16ToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToBfloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

void appendInt(std::string& out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

namespace {

// Note [Halves printed directly]
// A storage element that is a whole number or a half with magnitude below 1024 (what the
// generators fill inputs with, and most small results) reads back exactly from "k.0" or
// "k.5" in every floating dtype, and that is also its shortest round-trip text (fixed
// notation is shorter than scientific below 10 000), so it is written without the general
// shortest-text search (which for half and bfloat16 tries precisions one by one). That
// search spells a 16-bit whole number ending in 0 in scientific notation ("1e+01" for 10,
// "1.1e+02" for 110), and bfloat16, with 8 significant bits, reads "5.3e+02" as 528: those
// take it still, and bfloat16 takes this path only below 128.
bool appendHalfStep(std::string& out, double v, bool sixteen_bit = false, double limit = 1024) {
  const double twice = v * 2;
  if (!(std::fabs(v) < limit) || twice != std::trunc(twice)) return false;
  auto steps = static_cast<int64_t>(twice);  // |steps| < 2048
  if (sixteen_bit && steps % 20 == 0 && steps != 0) return false;
  if (std::signbit(v)) out += '-';
  steps = steps < 0 ? -steps : steps;
  appendInt(out, steps / 2);
  out += steps % 2 ? ".5" : ".0";
  return true;
}

}  // namespace

void appendElement(std::string& out, ScalarType dtype, const uint8_t* p) {
  switch (dtype) {
    case ScalarType::Byte: return appendInt(out, load<uint8_t>(p));
    case ScalarType::Char: return appendInt(out, load<int8_t>(p));
    case ScalarType::Short: return appendInt(out, load<int16_t>(p));
    case ScalarType::Int: return appendInt(out, load<int32_t>(p));
    case ScalarType::Long: return appendInt(out, load<int64_t>(p));
    case ScalarType::UInt16: return appendInt(out, load<uint16_t>(p));
    case ScalarType::UInt32: return appendInt(out, load<uint32_t>(p));
    case ScalarType::UInt64: {
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof buf, load<uint64_t>(p));
      out.append(buf, r.ptr);
      return;
    }
    case ScalarType::Bool: out += load<uint8_t>(p) ? "True" : "False"; return;
    case ScalarType::Float:
      if (appendHalfStep(out, load<float>(p))) return;
      break;
    case ScalarType::Double:
      if (appendHalfStep(out, load<double>(p))) return;
      break;
    case ScalarType::Half:
      if (appendHalfStep(out, halfToFloat(load<uint16_t>(p)), /*sixteen_bit=*/true)) return;
      break;
    case ScalarType::BFloat16:
      if (appendHalfStep(out, bfloat16ToFloat(load<uint16_t>(p)), /*sixteen_bit=*/true, /*limit=*/128)) return;
      break;
    default: break;
  }
  out += formatElement(dtype, p);
}

std::string formatElement(ScalarType dtype, const uint8_t* p) {
  switch (dtype) {
    case ScalarType::Byte: return std::to_string(load<uint8_t>(p));
    case ScalarType::Char: return std::to_string(load<int8_t>(p));
    case ScalarType::Short: return std::to_string(load<int16_t>(p));
    case ScalarType::Int: return std::to_string(load<int32_t>(p));
    case ScalarType::Long: return std::to_string(load<int64_t>(p));
    case ScalarType::UInt16: return std::to_string(load<uint16_t>(p));
    case ScalarType::UInt32: return std::to_string(load<uint32_t>(p));
    case ScalarType::UInt64: return std::to_string(load<uint64_t>(p));
    case ScalarType::Bool: return load<uint8_t>(p) ? "True" : "False";
    case ScalarType::Float: {
      auto bits = load<uint32_t>(p);
      float v = load<float>(p);
      if (std::isnan(v) && !isCanonicalNan32(bits)) return hexBits(bits);
      if (std::isnan(v)) return "nan";
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, v);
      return std::isinf(v) ? formatFloat(v) : ensureFloatLooking(std::string(buf, r.ptr));
    }
    case ScalarType::Double: {
      auto bits = load<uint64_t>(p);
      double v = load<double>(p);
      if (std::isnan(v) && bits != 0x7ff8000000000000ull) return hexBits(bits);
      return formatFloat(v);
    }
    case ScalarType::Half: {
      auto bits = load<uint16_t>(p);
      float v = halfToFloat(bits);
      if (std::isnan(v)) return bits == 0x7e00u ? "nan" : hexBits(bits);
      if (std::isinf(v)) return formatFloat(v);
      return shortest16(v, bits, floatToHalf);
    }
    case ScalarType::BFloat16: {
      auto bits = load<uint16_t>(p);
      float v = bfloat16ToFloat(bits);
      if (std::isnan(v)) return bits == 0x7fc0u ? "nan" : hexBits(bits);
      if (std::isinf(v)) return formatFloat(v);
      return shortest16(v, bits, floatToBfloat16);
    }
    case ScalarType::ComplexHalf:
      return "complex(" + formatElement(ScalarType::Half, p) + ", " + formatElement(ScalarType::Half, p + 2) + ")";
    case ScalarType::ComplexFloat:
      return "complex(" + formatElement(ScalarType::Float, p) + ", " + formatElement(ScalarType::Float, p + 4) + ")";
    case ScalarType::ComplexDouble:
      return "complex(" + formatElement(ScalarType::Double, p) + ", " + formatElement(ScalarType::Double, p + 8) + ")";
    default: {  // float8 and unknown: raw bits
      char buf[16];
      std::snprintf(buf, sizeof buf, "0x%02x", load<uint8_t>(p));
      return buf;
    }
  }
}

namespace {

// "k.0" / "k.5" with at most four digits before the point, as appendHalfStep writes them:
// the value, exact in every floating dtype (Note [Halves printed directly]).
std::optional<double> halfStep(std::string_view t) {
  const bool negative = !t.empty() && t[0] == '-';
  if (negative) t.remove_prefix(1);
  if (t.size() < 3 || t.size() > 6 || t[t.size() - 2] != '.' || (t.back() != '0' && t.back() != '5')) {
    return std::nullopt;
  }
  int whole = 0;
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    if (t[i] < '0' || t[i] > '9') return std::nullopt;
    whole = whole * 10 + (t[i] - '0');
  }
  const double v = whole + (t.back() == '5' ? 0.5 : 0.0);
  return negative ? -v : v;
}

}  // namespace

std::optional<std::string> parseRealElement(ScalarType dtype, std::string_view t, uint8_t* out) {
  if (isFloatingPoint(dtype)) {
    if (auto v = halfStep(t)) {
      switch (dtype) {
        case ScalarType::Double: store<double>(out, *v); return std::nullopt;
        case ScalarType::Float: store<float>(out, static_cast<float>(*v)); return std::nullopt;
        case ScalarType::Half: store<uint16_t>(out, floatToHalf(static_cast<float>(*v))); return std::nullopt;
        case ScalarType::BFloat16: store<uint16_t>(out, floatToBfloat16(static_cast<float>(*v))); return std::nullopt;
        default: break;
      }
    }
  }
  switch (dtype) {
    case ScalarType::Byte: return parseInt<uint8_t>(t, out);
    case ScalarType::Char: return parseInt<int8_t>(t, out);
    case ScalarType::Short: return parseInt<int16_t>(t, out);
    case ScalarType::Int: return parseInt<int32_t>(t, out);
    case ScalarType::Long: return parseInt<int64_t>(t, out);
    case ScalarType::UInt16: return parseInt<uint16_t>(t, out);
    case ScalarType::UInt32: return parseInt<uint32_t>(t, out);
    case ScalarType::UInt64: return parseInt<uint64_t>(t, out);
    case ScalarType::Bool:
      if (t != "True" && t != "False") return "expected True or False";
      store<uint8_t>(out, t == "True" ? 1 : 0);
      return std::nullopt;
    case ScalarType::Float:
    case ScalarType::Double:
    case ScalarType::Half:
    case ScalarType::BFloat16: {
      if (auto bits = parseNanBits(t)) {
        switch (dtype) {
          case ScalarType::Double: store<uint64_t>(out, *bits); break;
          case ScalarType::Float: store<uint32_t>(out, static_cast<uint32_t>(*bits)); break;
          default: store<uint16_t>(out, static_cast<uint16_t>(*bits)); break;
        }
        return std::nullopt;
      }
      if (dtype == ScalarType::Float && t != "inf" && t != "-inf" && t != "nan") {
        float f = 0;  // parse as float directly: no double rounding
        auto r = std::from_chars(t.data(), t.data() + t.size(), f);
        if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return "expected a number";
        store<float>(out, f);
        return std::nullopt;
      }
      auto v = parseDouble(t);
      if (!v) return "expected a number";
      switch (dtype) {
        case ScalarType::Double: store<double>(out, *v); break;
        case ScalarType::Float: store<float>(out, static_cast<float>(*v)); break;
        case ScalarType::Half: store<uint16_t>(out, floatToHalf(static_cast<float>(*v))); break;
        default: store<uint16_t>(out, floatToBfloat16(static_cast<float>(*v))); break;
      }
      return std::nullopt;
    }
    default: {
      if (t.substr(0, 2) != "0x") return "expected raw bits 0xNN";
      auto digits = t.substr(2);
      uint8_t v = 0;
      auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v, 16);
      if (r.ec != std::errc() || r.ptr != digits.data() + digits.size()) return "expected raw bits 0xNN";
      store(out, v);
      return std::nullopt;
    }
  }
}

std::string quote(std::string_view s) {
  // Runs of bytes that need no escape are appended whole (specs of pytree trees are long).
  auto plain = [](unsigned char c) { return c >= 0x20 && c != 0x7f && c != '"' && c != '\\'; };
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (size_t i = 0; i < s.size();) {
    size_t j = i;
    while (j < s.size() && plain(static_cast<unsigned char>(s[j]))) ++j;
    out.append(s.data() + i, j - i);
    if (j == s.size()) break;
    i = j + 1;
    const auto c = static_cast<unsigned char>(s[j]);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default: {  // the other control characters
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      }
    }
  }
  out += '"';
  return out;
}

}  // namespace epsmith
