// Shared helpers of the JSON reader and writer; see formats/json_detail.h.
#include "formats/json_detail.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

namespace epsmith::json_detail {
namespace {

// "line:column" (1-based, columns in bytes) of byte `pos` of `text`.
std::pair<size_t, size_t> lineColumn(std::string_view text, size_t pos) {
  pos = std::min(pos, text.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < pos; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, pos - line_start + 1};
}

constexpr std::string_view kBase64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr int base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

bool isIdentifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  }
  return true;
}

// torch's metadata_split: commas split only outside () and [].
std::vector<std::string> splitOutsideBrackets(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  int nesting = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '[' || c == '(') {
      ++nesting;
    } else if (c == ']' || c == ')') {
      --nesting;
    } else if (c == ',' && nesting == 0) {
      out.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  out.emplace_back(text.substr(start));
  return out;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    auto pos = text.find(sep, start);
    out.push_back(text.substr(start, pos - start));
    if (pos == std::string_view::npos) return out;
    start = pos + 1;
  }
}

}  // namespace

void fail(std::string where, std::string message) { throw Failure{Diagnostic{std::move(where), std::move(message)}}; }

std::string jsonQuoted(std::string_view s) {
  JsonWriter w(InvalidUtf8::Replace);
  w.string(s);
  return w.str();
}

std::string keyPath(const std::string& path, std::string_view key) {
  if (isIdentifier(key)) return path + "." + std::string(key);
  return path + "[" + jsonQuoted(key) + "]";
}

std::string indexPath(const std::string& path, size_t index) { return path + "[" + std::to_string(index) + "]"; }

void failAt(std::string_view text, size_t pos, const std::string& where, const std::string& detail) {
  auto [line, column] = lineColumn(text, pos);
  if (where.empty()) {
    fail(std::to_string(line) + ":" + std::to_string(column), "malformed JSON: " + detail);
  }
  fail(where, "malformed JSON at line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + detail);
}

void writeBase64(const std::vector<uint8_t>& bytes, char* o) {
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3, o += 4) {
    uint32_t v = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    o[0] = kBase64[v >> 18];
    o[1] = kBase64[(v >> 12) & 63];
    o[2] = kBase64[(v >> 6) & 63];
    o[3] = kBase64[v & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest == 0) return;
  uint32_t v = uint32_t{bytes[i]} << 16;
  if (rest == 2) v |= uint32_t{bytes[i + 1]} << 8;
  o[0] = kBase64[v >> 18];
  o[1] = kBase64[(v >> 12) & 63];
  o[2] = rest == 2 ? kBase64[(v >> 6) & 63] : '=';
  o[3] = '=';
}

// Each byte's base64 digit, or -1.
struct Base64Digits {
  int8_t digit[256] = {};
  constexpr Base64Digits() {
    for (int c = 0; c < 256; ++c) digit[c] = static_cast<int8_t>(base64Value(static_cast<char>(c)));
  }
};
constexpr Base64Digits kBase64Digits;

Expected<std::vector<uint8_t>> base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return Diagnostic{"", "base64 text has length " + std::to_string(text.size()) + ", not a multiple of 4"};
  }
  size_t padding = 0;
  if (!text.empty() && text.back() == '=') padding = text[text.size() - 2] == '=' ? 2 : 1;
  std::vector<uint8_t> out(text.size() / 4 * 3);
  const auto* in = reinterpret_cast<const unsigned char*>(text.data());
  uint8_t* to = out.data();
  for (size_t i = 0; i < text.size(); i += 4, to += 3) {
    const int a = kBase64Digits.digit[in[i]], b = kBase64Digits.digit[in[i + 1]], c = kBase64Digits.digit[in[i + 2]],
              d = kBase64Digits.digit[in[i + 3]];
    if ((a | b | c | d) < 0) {  // a byte that is no digit: padding at the end, or an error
      for (size_t k = 0; k < 4; ++k) {
        const size_t pos = i + k;
        if (kBase64Digits.digit[in[pos]] < 0 && !(text[pos] == '=' && pos >= text.size() - padding)) {
          return Diagnostic{"", "invalid base64 character " + jsonQuoted(std::string(1, text[pos])) + " at offset " +
                                    std::to_string(pos)};
        }
      }
    }
    const uint32_t v = static_cast<uint32_t>(std::max(a, 0)) << 18 | static_cast<uint32_t>(std::max(b, 0)) << 12 |
                       static_cast<uint32_t>(std::max(c, 0)) << 6 | static_cast<uint32_t>(std::max(d, 0));
    to[0] = static_cast<uint8_t>(v >> 16);
    to[1] = static_cast<uint8_t>(v >> 8);
    to[2] = static_cast<uint8_t>(v);
  }
  out.resize(out.size() - padding);
  return out;
}

void floatJson(JsonWriter& w, double v) {
  if (std::isnan(v)) return w.string("NaN");
  if (std::isinf(v)) return w.string(v > 0 ? "Infinity" : "-Infinity");
  w.number(v);
}

bool isReservedMetaKey(std::string_view key) {
  return key == kStackTrace || key == kModuleStack || key == kTorchFn || key.substr(0, kExtPrefix.size()) == kExtPrefix;
}

std::string encodeModuleStack(const std::vector<ModuleStackEntry>& stack) {
  std::string out;
  for (size_t i = 0; i < stack.size(); ++i) {
    if (i) out += ';';
    out += stack[i].key + "," + stack[i].path + "," + stack[i].type;
  }
  return out;
}

std::optional<std::vector<ModuleStackEntry>> decodeModuleStack(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::vector<ModuleStackEntry> out;
  for (auto item : split(text, ';')) {
    auto parts = splitOutsideBrackets(item);
    if (parts.size() != 3) return std::nullopt;
    out.push_back({parts[0], parts[1], parts[2]});
  }
  return out;
}

std::string encodeTorchFn(const std::pair<std::string, std::string>& fn) { return fn.first + ";" + fn.second; }

std::optional<std::pair<std::string, std::string>> decodeTorchFn(std::string_view text) {
  auto parts = split(text, ';');
  if (parts.size() != 2) return std::nullopt;
  return std::make_pair(std::string(parts[0]), std::string(parts[1]));
}

std::string childGraphPath(const std::string& parent, std::string_view attr_name) {
  std::string token;
  for (char c : attr_name) {
    if (c == '~') {
      token += "~0";
    } else if (c == '/') {
      token += "~1";
    } else {
      token += c;
    }
  }
  return parent.empty() ? token : parent + "/" + token;
}

std::optional<std::string> checkTensorBounds(const TensorValue& t) {
  if (t.storage && t.sizes.size() == t.strides.size()) {
    int64_t extent = t.storage_offset, numel = 1, term = 0;
    bool overflow = false;
    for (size_t i = 0; i < t.sizes.size(); ++i) {
      if (t.sizes[i] < 0 || t.strides[i] < 0) return t.checkBounds();  // names the value
      overflow = overflow || __builtin_mul_overflow(t.sizes[i] ? t.sizes[i] - 1 : 0, t.strides[i], &term) ||
                 __builtin_add_overflow(extent, term, &extent) || __builtin_mul_overflow(numel, t.sizes[i], &numel);
    }
    if (overflow || extent == INT64_MAX) return "tensor sizes and strides overflow int64";
  }
  return t.checkBounds();
}

std::string defaultInputName(const GraphSignature* sig, size_t index) {
  if (sig && index < sig->input_specs.size() && !sig->input_specs[index].arg.name.empty()) {
    return sig->input_specs[index].arg.name;
  }
  return "arg" + std::to_string(index);
}

namespace {
constexpr std::array<std::string_view, 7> kSpecArgKinds{"tensor",     "sym_int", "sym_float", "sym_bool",
                                                        "custom_obj", "token",   "constant"};
}  // namespace

std::string_view specArgKindName(SpecArg::Kind kind) { return kSpecArgKinds[static_cast<int>(kind)]; }

std::optional<SpecArg::Kind> specArgKindFromName(std::string_view name) {
  for (size_t i = 0; i < kSpecArgKinds.size(); ++i) {
    if (kSpecArgKinds[i] == name) return static_cast<SpecArg::Kind>(i);
  }
  return std::nullopt;
}

}  // namespace epsmith::json_detail
