// Exact text for numbers and storage elements: shortest round-trip floats, half and bfloat16
// conversions, and string escaping, shared by the text form's printer and parser.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ir/enums.h"

namespace epsmith {

// `v` in decimal, appended to `out` (std::to_string's text, without a string of its own).
void appendInt(std::string& out, int64_t v);

// Shortest text that reads back to exactly `v`, always recognisable as a float
// ("1.0", "1e-05", "inf", "-inf", "nan").
std::string formatFloat(double v);

float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float v);  // round to nearest even
float bfloat16ToFloat(uint16_t bits);
uint16_t floatToBfloat16(float v);  // round to nearest even

// One element of a storage of `dtype` at `bytes` (elementSize(dtype) bytes), as the text
// form writes it; for complex dtypes "complex(re, im)".
std::string formatElement(ScalarType dtype, const uint8_t* bytes);
// The same text, appended to `out` (Note [Halves printed directly]).
void appendElement(std::string& out, ScalarType dtype, const uint8_t* bytes);
// Parses one real element written by formatElement (not complex) into `out`; returns an
// error message, or nullopt on success.
std::optional<std::string> parseRealElement(ScalarType dtype, std::string_view text, uint8_t* out);

// JSON-style quoted string: "a\"b\n".
std::string quote(std::string_view s);

}  // namespace epsmith
