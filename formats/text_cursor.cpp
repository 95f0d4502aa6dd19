// Character-level reading for the text-form parser.
#include "formats/text_cursor.h"

#include <cctype>
#include <charconv>

#include "formats/utf8.h"

namespace epsmith::text {

void Cursor::advance() {
  if (text_[pos_] == '\n') {
    ++loc_.line;
    loc_.col = 1;
  } else {
    ++loc_.col;
  }
  ++pos_;
}

void Cursor::skipSpaceRun() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '#') {
      while (pos_ < text_.size() && text_[pos_] != '\n') advance();
    } else if (c == '\n') {
      advance();
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++pos_;
      ++loc_.col;
    } else {
      break;
    }
  }
}

void Cursor::expect(char c, std::string_view what) {
  if (tryConsume(c)) return;
  char got = peek();
  std::string seen = got ? std::string("'") + got + "'" : std::string("end of input");
  fail("expected '" + std::string(1, c) + "' " + std::string(what) + ", found " + seen);
}

bool Cursor::tryKeyword(std::string_view word) {
  skipSpace();
  if (text_.substr(pos_, word.size()) != word) return false;
  size_t end = pos_ + word.size();
  if (end < text_.size() && isIdentChar(text_[end])) return false;
  for (size_t i = 0; i < word.size(); ++i) advance();
  return true;
}

std::string Cursor::ident(std::string_view what) {
  skipSpace();
  size_t start = pos_;
  while (pos_ < text_.size() && isIdentChar(text_[pos_])) advance();
  if (start == pos_) fail("expected " + std::string(what));
  return std::string(text_.substr(start, pos_ - start));
}

std::string Cursor::word(std::string_view what) {
  skipSpace();
  size_t start = pos_;
  while (pos_ < text_.size() && (isIdentChar(text_[pos_]) || text_[pos_] == '.' || text_[pos_] == ':')) {
    advance();
  }
  if (start == pos_) fail("expected " + std::string(what));
  return std::string(text_.substr(start, pos_ - start));
}

std::string Cursor::string(std::string_view what) {
  if (peek() != '"') fail("expected a string (" + std::string(what) + ")");
  Loc start = loc_;
  advance();
  // Nearly every literal has no escape: up to its closing quote at once.
  size_t end = pos_;
  while (end < text_.size() && text_[end] != '"' && text_[end] != '\\' && text_[end] != '\n') ++end;
  if (end < text_.size() && text_[end] == '"') {
    std::string out(text_.substr(pos_, end - pos_));
    loc_.col += static_cast<int>(end + 1 - pos_);  // no line break among them
    pos_ = end + 1;
    return out;
  }
  std::string out;
  auto hex4 = [&]() -> uint32_t {
    if (pos_ + 4 > text_.size()) fail("truncated \\u escape");
    uint32_t v = 0;
    auto r = std::from_chars(text_.data() + pos_, text_.data() + pos_ + 4, v, 16);
    if (r.ptr != text_.data() + pos_ + 4) fail("malformed \\u escape");
    for (int i = 0; i < 4; ++i) advance();
    return v;
  };
  while (true) {
    // The run of plain characters up to the next quote, backslash or line break, at once
    // (a treespec literal is hundreds of them between its escaped quotes).
    size_t run = pos_;
    while (run < text_.size() && text_[run] != '"' && text_[run] != '\\' && text_[run] != '\n') ++run;
    out.append(text_.data() + pos_, run - pos_);
    loc_.col += static_cast<int>(run - pos_);
    pos_ = run;
    if (pos_ >= text_.size() || text_[pos_] == '\n') failAt(start, "unterminated string");
    Loc char_at = loc_;
    char c = text_[pos_];
    advance();
    if (c == '"') break;
    if (pos_ >= text_.size()) failAt(start, "unterminated string");
    char e = text_[pos_];
    advance();
    switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'u': {
        uint32_t cp = hex4();
        if (cp >= 0xd800 && cp < 0xdc00 && text_.substr(pos_, 2) == "\\u") {
          advance();
          advance();
          uint32_t low = hex4();
          if (low < 0xdc00 || low >= 0xe000) fail("invalid surrogate pair");
          cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        }
        appendUtf8(out, cp);
        break;
      }
      default: failAt(char_at, std::string("unknown escape \\") + e);
    }
  }
  return out;
}

std::string Cursor::numberToken() {
  skipSpace();
  size_t start = pos_;
  if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) advance();
  if (text_.substr(pos_, 3) == "inf" || text_.substr(pos_, 3) == "nan") {
    for (int i = 0; i < 3; ++i) advance();
  } else {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      bool exp_sign = (c == '-' || c == '+') && pos_ > start && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E');
      if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || exp_sign) {
        advance();
      } else {
        break;
      }
    }
  }
  if (start == pos_) fail("expected a number");
  return std::string(text_.substr(start, pos_ - start));
}

int64_t Cursor::integer(std::string_view what) {
  Loc at = (skipSpace(), loc_);
  std::string tok = numberToken();
  int64_t v = 0;
  const char* first = tok.data() + (tok[0] == '+' ? 1 : 0);
  auto r = std::from_chars(first, tok.data() + tok.size(), v);
  if (r.ec == std::errc::result_out_of_range) failAt(at, "integer " + tok + " out of range");
  if (r.ec != std::errc() || r.ptr != tok.data() + tok.size()) {
    failAt(at, "expected an integer (" + std::string(what) + "), found " + tok);
  }
  return v;
}

std::string Cursor::nodeName() {
  expect('%', "before a node name");
  if (rawPeek() == '"') return string("node name");
  if (!isIdentChar(rawPeek())) fail("expected a node name after '%'");
  return ident("node name");
}

std::string_view Cursor::rawUntil(std::string_view stops) {
  skipSpace();
  size_t start = pos_;
  int depth = 0;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (depth == 0 && stops.find(c) != std::string_view::npos) break;
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == '\n') break;
    advance();
  }
  size_t end = pos_;
  while (end > start && (text_[end - 1] == ' ' || text_[end - 1] == '\t')) --end;
  return text_.substr(start, end - start);
}

std::string_view Cursor::plainToken() {
  skipSpace();
  const size_t start = pos_;
  while (pos_ < text_.size() && (isIdentChar(text_[pos_]) || text_[pos_] == '-' || text_[pos_] == '+' ||
                                 text_[pos_] == '.' || text_[pos_] == ':')) {
    ++pos_;
    ++loc_.col;  // none of these is a line break
  }
  return text_.substr(start, pos_ - start);
}

}  // namespace epsmith::text
