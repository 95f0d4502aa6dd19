// JSON values written as text; see ir/json_out.h.
#include "ir/json_out.h"

#include <charconv>
#include <cstring>

#include "ir/json_detail.h"
#include "ir/utf8.h"

namespace epsmith::json_detail {

void appendQuoted(std::string& out, std::string_view s) {
  static const char* kHex = "0123456789abcdef";
  out += '"';
  size_t i = 0;
  while (i < s.size()) {
    // The run of characters that need no escape, appended at once.
    size_t j = i;
    while (j < s.size()) {
      auto c = static_cast<unsigned char>(s[j]);
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) break;
      ++j;
    }
    out.append(s.data() + i, j - i);
    i = j;
    if (i == s.size()) break;
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      size_t n = utf8SequenceLength(reinterpret_cast<const unsigned char*>(s.data()) + i, s.size() - i);
      if (n == 0) {
        fail("", "a string is not valid UTF-8 at its byte " + std::to_string(i) + " (it begins " +
                     jsonQuoted(s.substr(0, std::min<size_t>(i, 40))) + ")");
      }
      out.append(s.data() + i, n);
      i += n;
      continue;
    }
    out += '\\';
    switch (c) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '\b': out += 'b'; break;
      case '\f': out += 'f'; break;
      case '\n': out += 'n'; break;
      case '\r': out += 'r'; break;
      case '\t': out += 't'; break;
      default:
        out += "u00";
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
    ++i;
  }
  out += '"';
}

JsonOut::JsonOut(std::string_view s) {
  text_.reserve(s.size() + 2);
  appendQuoted(text_, s);
}

JsonOut::JsonOut(const std::vector<int64_t>& v) : JsonOut(Kind::Array) {
  for (int64_t x : v) push_back(x);
}

JsonOut::JsonOut(const std::vector<bool>& v) : JsonOut(Kind::Array) {
  for (bool x : v) push_back(x);
}

JsonOut::JsonOut(const std::vector<std::string>& v) : JsonOut(Kind::Array) {
  for (const auto& x : v) push_back(x);
}

JsonOut JsonOut::number(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  JsonOut out;
  out.text_.assign(buf, end);
  if (out.text_.find_first_of(".e") == std::string::npos) out.text_ += ".0";
  return out;
}

void JsonOut::separate() {
  if (count_++) text_ += ',';
}

void JsonOut::appendTo(std::string& out) const {
  out += text_;
  if (kind_ == Kind::Array) out += ']';
  if (kind_ == Kind::Object) out += '}';
}

void JsonOut::add(std::string_view key, const JsonOut& value) {
  separate();
  appendQuoted(text_, key);
  text_ += ':';
  value.appendTo(text_);
}

void JsonOut::push_back(const JsonOut& value) {
  separate();
  value.appendTo(text_);
}

std::string JsonOut::compact() const {
  std::string out;
  out.reserve(text_.size() + 1);
  appendTo(out);
  return out;
}

namespace {

// Whether the quote at `q`, inside the string literal opened at `open`, is escaped: an odd
// run of backslashes before it.
bool escapedQuote(const char* open, const char* q) {
  size_t backslashes = 0;
  while (q - 1 - backslashes > open && q[-1 - static_cast<std::ptrdiff_t>(backslashes)] == '\\') ++backslashes;
  return backslashes % 2 == 1;
}

// Walks compact JSON text as nlohmann's dump(1) lays it out: `emit(bytes, n)` for text
// copied as it is, `brk(depth)` for a line break indented `depth` spaces.
template <typename Emit, typename Break>
void layOut(std::string_view text, Emit&& emit, Break&& brk) {
  const char* p = text.data();
  const char* end = p + text.size();
  size_t depth = 0;
  while (p != end) {
    const char* run = p;
    while (p != end && *p != '"' && *p != '{' && *p != '[' && *p != '}' && *p != ']' &&
           *p != ',' && *p != ':') {
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

std::string JsonOut::indented() const {
  const std::string text = compact();
  // Two passes, one to size the output and one to fill it.
  size_t size = 0;
  layOut(text, [&](const char*, size_t n) { size += n; }, [&](size_t depth) { size += 1 + depth; });
  std::string out(size, ' ');
  char* at = out.data();
  layOut(text, [&](const char* s, size_t n) { at = std::copy(s, s + n, at); },
         [&](size_t depth) {
           *at = '\n';
           at += 1 + depth;  // the spaces are there already
         });
  return out;
}

}  // namespace epsmith::json_detail
