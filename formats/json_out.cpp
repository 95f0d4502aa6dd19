// JSON written front to back; see formats/json_out.h.
#include "formats/json_out.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "formats/json_detail.h"
#include "formats/utf8.h"

namespace epsmith::json_detail {

void JsonWriter::Text::grow(size_t n) {
  const size_t capacity = std::max(size_ + n, std::max<size_t>(2 * capacity_, 256));
  char* data = new char[capacity];
  if (size_) std::memcpy(data, data_, size_);
  delete[] data_;
  data_ = data;
  capacity_ = capacity;
}

void JsonWriter::quoted(std::string_view s) {
  static const char* kHex = "0123456789abcdef";
  const auto* bytes = reinterpret_cast<const unsigned char*>(s.data());
  const size_t plain = static_cast<size_t>(skipPlainStringBytes(s.data(), s.data() + s.size()) - s.data());
  if (plain == s.size()) {  // nearly every string: nothing to escape, one copy
    char* o = text_.room(s.size() + 2);
    o[0] = '"';
    if (!s.empty()) std::memcpy(o + 1, s.data(), s.size());
    o[s.size() + 1] = '"';
    text_.commit(s.size() + 2);
    return;
  }
  text_.push('"');
  size_t i = 0;
  while (i < s.size()) {
    // The run of characters that need no escape, appended at once.
    const size_t j = static_cast<size_t>(skipPlainStringBytes(s.data() + i, s.data() + s.size()) - s.data());
    text_.append(s.data() + i, j - i);
    i = j;
    if (i == s.size()) break;
    const unsigned char c = bytes[i];
    if (c >= 0x80) {
      size_t n = utf8SequenceLength(bytes + i, s.size() - i);
      if (n == 0 && invalid_ == InvalidUtf8::Replace) {
        text_.append("\xEF\xBF\xBD", 3);  // U+FFFD
        ++i;
        continue;
      }
      if (n == 0) {
        fail("", "a string is not valid UTF-8 at its byte " + std::to_string(i) + " (it begins " +
                     jsonQuoted(s.substr(0, std::min<size_t>(i, 40))) + ")");
      }
      text_.append(s.data() + i, n);
      i += n;
      continue;
    }
    text_.push('\\');
    switch (c) {
      case '"': text_.push('"'); break;
      case '\\': text_.push('\\'); break;
      case '\b': text_.push('b'); break;
      case '\f': text_.push('f'); break;
      case '\n': text_.push('n'); break;
      case '\r': text_.push('r'); break;
      case '\t': text_.push('t'); break;
      default: {
        const char escape[5] = {'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        text_.append(escape, sizeof escape);
      }
    }
    ++i;
  }
  text_.push('"');
}

template <typename Int>
void JsonWriter::whole(Int v) {
  separate();
  char* o = text_.room(24);
  auto [end, ec] = std::to_chars(o, o + 24, v);
  text_.commit(static_cast<size_t>(end - o));
  need_comma_ = true;
}

void JsonWriter::integer(int64_t v) { whole(v); }
void JsonWriter::unsignedInteger(uint64_t v) { whole(v); }

void JsonWriter::number(double v) {
  separate();
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  const std::string_view spelled(buf, static_cast<size_t>(end - buf));
  text_.append(buf, spelled.size());
  if (spelled.find_first_of(".e") == std::string_view::npos) text_.append(".0", 2);
  need_comma_ = true;
}

void JsonWriter::string(std::string_view s) {
  separate();
  quoted(s);
  need_comma_ = true;
}

void JsonWriter::base64(const std::vector<uint8_t>& bytes) {
  separate();
  const size_t n = base64Size(bytes.size());
  char* o = text_.room(n + 2);
  o[0] = '"';
  writeBase64(bytes, o + 1);
  o[n + 1] = '"';
  text_.commit(n + 2);
  need_comma_ = true;
}

void JsonWriter::integers(const std::vector<int64_t>& v) {
  beginArray();
  for (int64_t x : v) integer(x);
  endArray();
}

void JsonWriter::booleans(const std::vector<bool>& v) {
  beginArray();
  for (bool x : v) boolean(x);
  endArray();
}

void JsonWriter::strings(const std::vector<std::string>& v) {
  beginArray();
  for (const auto& x : v) string(x);
  endArray();
}

void JsonWriter::raw(std::string_view compact_value) {
  separate();
  text_.append(compact_value.data(), compact_value.size());
  need_comma_ = true;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  separate();
  quoted(k);
  text_.push(':');
  need_comma_ = false;
  return *this;
}

namespace {

// Whether the quote at `q`, inside the string literal opened at `open`, is escaped: an odd
// run of backslashes before it.
bool escapedQuote(const char* open, const char* q) {
  size_t backslashes = 0;
  while (q - 1 - backslashes > open && q[-1 - static_cast<std::ptrdiff_t>(backslashes)] == '\\') ++backslashes;
  return backslashes % 2 == 1;
}

// Walks compact JSON text as the indented layout lays it out: `emit(bytes, n)` for text
// copied as it is, `brk(depth)` for a line break indented `depth` spaces.
template <typename Emit, typename Break>
void layOut(std::string_view text, Emit&& emit, Break&& brk) {
  const char* p = text.data();
  const char* end = p + text.size();
  size_t depth = 0;
  while (p != end) {
    const char* run = p;
    while (p != end && *p != '"' && *p != '{' && *p != '[' && *p != '}' && *p != ']' && *p != ',' && *p != ':') {
      ++p;
    }
    if (p != run) emit(run, static_cast<size_t>(p - run));
    if (p == end) break;
    switch (*p) {
      case '"': {  // a string literal, whole
        const char* q = p;
        do {  // to the next quote that no backslash escapes
          q = static_cast<const char*>(std::memchr(q + 1, '"', static_cast<size_t>(end - q - 1)));
        } while (escapedQuote(p, q));
        emit(p, static_cast<size_t>(q + 1 - p));
        p = q + 1;
        continue;
      }
      case '{':
      case '[':
        if (p[1] == (*p == '{' ? '}' : ']')) {  // empty: "{}" / "[]"
          emit(p, 2);
          p += 2;
          continue;
        }
        emit(p, 1);
        brk(++depth);
        break;
      case '}':
      case ']':
        brk(--depth);
        emit(p, 1);
        break;
      case ',':
        emit(p, 1);
        brk(depth);
        break;
      default: emit(": ", 2);  // ':'
    }
    ++p;
  }
}

}  // namespace

std::string JsonWriter::indented(std::string_view text) {
  // Two passes, one to size the output and one to fill it.
  size_t size = 0;
  layOut(
      text, [&](const char*, size_t n) { size += n; }, [&](size_t depth) { size += 1 + depth; });
  std::string out(size, ' ');
  char* at = out.data();
  layOut(
      text, [&](const char* s, size_t n) { at = std::copy(s, s + n, at); },
      [&](size_t depth) {
        *at = '\n';
        at += 1 + depth;  // the spaces are there already
      });
  return out;
}

}  // namespace epsmith::json_detail
