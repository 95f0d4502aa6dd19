// Pieces the JSON reader and writer share: failure signalling, JSON paths, base64, the
// float spellings, metadata keys and torch's string encodings of node metadata.
// Internal to formats/json_*.cpp; the APIs are formats/json_format.h (programs) and formats/json.h.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/json_out.h"
#include "ir/diagnostic.h"
#include "ir/meta.h"
#include "ir/signature.h"
#include "ir/tensor_data.h"

namespace epsmith::json_detail {

constexpr int64_t kFormatVersion = 1;
constexpr int kMaxDepth = 512;

// Thrown inside the reader and writer and caught at the API boundary, never beyond it.
struct Failure {
  Diagnostic error;
};
[[noreturn]] void fail(std::string where, std::string message);

// `$.a.b` / `$.a["x.y"]` / `$.a[3]`.
std::string keyPath(const std::string& path, std::string_view key);
std::string indexPath(const std::string& path, size_t index);
// A JSON string literal of `s` (for messages and paths).
std::string jsonQuoted(std::string_view s);

// The end of the run of plain string bytes that starts at `p`, eight bytes at a time: the
// first that is a quote, a backslash, a control character or non-ASCII, or `end`.
inline const char* skipPlainStringBytes(const char* p, const char* end) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the first byte in the text is the lowest");
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  while (end - p >= 8) {
    uint64_t x;
    std::memcpy(&x, p, 8);
    const uint64_t quote = x ^ (kOnes * '"'), backslash = x ^ (kOnes * '\\');
    // A byte's high bit is set here when the byte is ≥ 0x80, is zero after the xor (a
    // quote or a backslash), or is below 0x20; a borrow only runs on from such a byte.
    const uint64_t special =
        (x | ((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash) | ((x - kOnes * 0x20) & ~x)) & kHigh;
    // The lowest flagged byte is a true one (little-endian: the first in the text).
    if (special) return p + __builtin_ctzll(special) / 8;
    p += 8;
  }
  while (p != end && kPlainStringByte(*p)) ++p;
  return p;
}

// Fails for malformed JSON at byte `pos` of `text`: at `line:column` when `where` is empty,
// else at `where` with the line and column in the message.
[[noreturn]] void failAt(std::string_view text, size_t pos, const std::string& where, const std::string& detail);

// Base64 of `bytes` into base64Size(bytes.size()) bytes at `out`.
constexpr size_t base64Size(size_t bytes) { return (bytes + 2) / 3 * 4; }
void writeBase64(const std::vector<uint8_t>& bytes, char* out);
// Fails (a Diagnostic with no place: the caller knows it) on a malformed string.
Expected<std::vector<uint8_t>> base64Decode(std::string_view text);

// A float as torch writes it, plus the NaN extension: a number, "Infinity", "-Infinity" or
// "NaN".
void floatJson(JsonWriter& w, double v);

// Node metadata keys.
inline constexpr std::string_view kStackTrace = "stack_trace";
inline constexpr std::string_view kModuleStack = "nn_module_stack";
inline constexpr std::string_view kTorchFn = "torch_fn";
inline constexpr std::string_view kExtPrefix = "epsmith.";
inline constexpr std::string_view kExtOp = "epsmith.op";
inline constexpr std::string_view kExtTarget = "epsmith.target";
inline constexpr std::string_view kExtVal = "epsmith.val";
inline constexpr std::string_view kExtUnused = "epsmith.unused_outputs";
inline constexpr std::string_view kExtModuleStack = "epsmith.nn_module_stack";
inline constexpr std::string_view kExtTorchFn = "epsmith.torch_fn";
inline constexpr std::string_view kExtCustom = "epsmith.custom.";
// Custom entries under these keys are written as "epsmith.custom.<key>".
bool isReservedMetaKey(std::string_view key);

// torch's string forms: "key,path,type;key,path,type" and "name;qualname". The decoders
// return nullopt for text that does not split into those parts.
std::string encodeModuleStack(const std::vector<ModuleStackEntry>& stack);
std::optional<std::vector<ModuleStackEntry>> decodeModuleStack(std::string_view text);
std::string encodeTorchFn(const std::pair<std::string, std::string>& fn);
std::optional<std::pair<std::string, std::string>> decodeTorchFn(std::string_view text);

// Graph paths name subgraphs in the epsmith section: "" for the top graph, then attribute
// names joined by "/" (each escaped as a JSON pointer token: "~" → "~0", "/" → "~1").
std::string childGraphPath(const std::string& parent, std::string_view attr_name);

// The name of a graph input written as a literal (`as_int`, ...), which the file does not
// name: the signature's argument name for it, else "arg<index>" (as torch's loader does).
std::string defaultInputName(const GraphSignature* sig, size_t index);

// TensorValue::checkBounds, first ruling out sizes and strides whose extent overflows int64.
std::optional<std::string> checkTensorBounds(const TensorValue& t);

// Names of SpecArg kinds in the generic signature extension ("tensor", "sym_int", ...).
std::string_view specArgKindName(SpecArg::Kind kind);
std::optional<SpecArg::Kind> specArgKindFromName(std::string_view name);

}  // namespace epsmith::json_detail
