// JSON values written as text; see ir/json_out.h.
#include "ir/json_out.h"

#include <charconv>

#include "ir/json_detail.h"

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

std::string JsonOut::indented() const {
  std::string text = compact();
  std::string out;
  out.reserve(text.size() * 2);
  size_t depth = 0;
  auto newline = [&] {
    out += '\n';
    out.append(depth, ' ');
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    switch (c) {
      case '"': {  // copy the literal whole
        size_t j = i + 1;
        while (text[j] != '"') j += text[j] == '\\' ? 2 : 1;
        out.append(text, i, j + 1 - i);
        i = j;
        break;
      }
      case '{':
      case '[':
        if (text[i + 1] == (c == '{' ? '}' : ']')) {
          out += c;
          out += text[++i];
        } else {
          out += c;
          ++depth;
          newline();
        }
        break;
      case '}':
      case ']':
        --depth;
        newline();
        out += c;
        break;
      case ',':
        out += ',';
        newline();
        break;
      case ':': out += ": "; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace epsmith::json_detail
