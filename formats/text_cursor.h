// Internal to the text-form parser: a character cursor with line:column tracking, comment
// skipping and the token readers the grammar needs. Errors throw TextParseError, which
// parseProgramText turns into a Diagnostic; nothing escapes the parser.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace epsmith::text {

struct Loc {
  int line = 1;
  int col = 1;
  std::string str() const { return std::to_string(line) + ":" + std::to_string(col); }
};

struct TextParseError {
  Loc loc;
  std::string message;
};

// The bytes that start what skipSpace skips: blanks and comments.
struct SpaceOrComment {
  bool byte[256] = {};
  constexpr SpaceOrComment() {
    for (unsigned char c : {' ', '\t', '\n', '\r', '#'}) byte[c] = true;
  }
  bool operator[](unsigned char c) const { return byte[c]; }
};
inline constexpr SpaceOrComment kSpaceOrComment;

class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  // Position of the next significant character (spaces and comments skipped).
  Loc loc() {
    skipSpace();
    return loc_;
  }
  bool atEnd() {
    skipSpace();
    return pos_ >= text_.size();
  }
  // The next significant character (after spaces and comments), or '\0' at the end.
  char peek() {
    skipSpace();
    return rawPeek();
  }
  // The character right at the cursor, without skipping anything.
  char rawPeek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skipSpace() {
    // Most calls find a significant character right away.
    if (pos_ < text_.size() && kSpaceOrComment[static_cast<unsigned char>(text_[pos_])]) skipSpaceRun();
  }
  // `c` is significant (no blank, no '#'): peek() has skipped those, and it is no line break.
  bool tryConsume(char c) {
    if (peek() != c || c == '\0') return false;
    ++pos_;
    ++loc_.col;
    return true;
  }
  void expect(char c, std::string_view what);
  // Consumes `word` if it is next and not followed by an identifier character.
  bool tryKeyword(std::string_view word);
  // [A-Za-z0-9_]+ (error if none).
  std::string ident(std::string_view what);
  // [A-Za-z0-9_.:]+ : targets, dotted names.
  std::string word(std::string_view what);
  // A JSON-style string literal.
  std::string string(std::string_view what);
  // A number token: [+-]?digits[.digits][e[+-]digits], or inf / -inf / nan.
  std::string numberToken();
  int64_t integer(std::string_view what);
  // A node reference %name or %"name" (returns the name).
  std::string nodeName();
  // `{"key": VALUE, ...}`: calls value(key) for each entry, which reads VALUE.
  template <typename F>
  void stringKeyedMap(std::string_view what, F&& value) {
    expect('{', "opening " + std::string(what));
    if (tryConsume('}')) return;
    do {
      std::string key = string(std::string(what) + " key");
      expect(':', "after a " + std::string(what) + " key");
      value(key);
    } while (tryConsume(','));
    expect('}', "closing " + std::string(what));
  }
  // Raw characters up to (not including) the first of `stops` at nesting depth 0 of ().
  std::string_view rawUntil(std::string_view stops);
  // The run of letters, digits, signs and dots at the cursor (a number as the printer
  // spells it, "True", "nan:0x7fc00001"): possibly empty, never past a line break.
  std::string_view plainToken();

  struct Mark {
    size_t pos;
    Loc loc;
  };
  Mark mark() const { return {pos_, loc_}; }
  void reset(const Mark& m) {
    pos_ = m.pos;
    loc_ = m.loc;
  }

  [[noreturn]] void fail(const std::string& message) const { throw TextParseError{loc_, message}; }
  [[noreturn]] static void failAt(Loc loc, const std::string& message) { throw TextParseError{loc, message}; }

 private:
  void skipSpaceRun();
  void advance();
  std::string_view text_;
  size_t pos_ = 0;
  Loc loc_;
};

// [A-Za-z0-9_], as the "C" locale's isalnum and '_'.
inline bool isIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace epsmith::text
