// UTF-8 pieces the text and JSON formats share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace epsmith {

// Appends code point `cp` (at most U+10FFFF, not a surrogate) as UTF-8.
void appendUtf8(std::string& out, uint32_t cp);

// The length of the UTF-8 sequence that begins `s` (`left` bytes on), checked as RFC 3629
// has it (no overlong forms, no surrogates, nothing past U+10FFFF); 0 when invalid.
size_t utf8SequenceLength(const unsigned char* s, size_t left);

}  // namespace epsmith
