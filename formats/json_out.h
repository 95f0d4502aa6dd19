// JSON written front to back into one string; used through formats/json.h.
//
// Note [JSON written as text]
// A tree of values built and then serialized (a heap block for every object, array, string
// and key), or values that each hold their own text and are copied into their parent's
// once per level, cost more than the bytes they write. A JsonWriter appends every byte
// once, in file order, to one string: callers open a container, write its members, close
// it; commas and colons are its own business. Where the file order is not the order the
// writer learns things in (a graph's tensor_values table, filled while its nodes are
// written, comes after them), the part learned early goes to a writer of its own and is
// spliced in whole (`raw`). The indented form files use (one space per level, a line per
// member) is one pass over the finished compact text. Strings are checked as UTF-8 when
// they are written (InvalidUtf8).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace epsmith::json_detail {

// The bytes a JSON string literal holds as they are (printable ASCII but the quote and the
// backslash): the writer escapes the others, the reader looks closer at them.
struct PlainStringBytes {
  bool plain[256] = {};
  constexpr PlainStringBytes() {
    for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
  }
  bool operator()(char c) const { return plain[static_cast<unsigned char>(c)]; }
};
inline constexpr PlainStringBytes kPlainStringByte;

// What the writer does with a string that is not valid UTF-8: programs fail (a name the
// file cannot hold is the program's error); messages and reports, whose strings quote
// kernels that may print any bytes, replace each invalid byte with U+FFFD.
enum class InvalidUtf8 : uint8_t { Fail, Replace };

class JsonWriter {
 public:
  JsonWriter() = default;
  explicit JsonWriter(InvalidUtf8 invalid) : invalid_(invalid) {}
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  // Scalars: a value in an array, after a key in an object, or the whole document.
  void null() { item("null", 4); }
  void boolean(bool b) { b ? item("true", 4) : item("false", 5); }
  void integer(int64_t v);
  void unsignedInteger(uint64_t v);
  // A finite double in its shortest round-trip spelling (with ".0" when integral).
  void number(double v);
  // A string literal; text that is not valid UTF-8 fails or is replaced (InvalidUtf8).
  void string(std::string_view s);
  // Bytes as a base64 string literal (torch's encoding of storage bytes).
  void base64(const std::vector<uint8_t>& bytes);
  // A value or, when there is none, null.
  void stringOrNull(const std::optional<std::string>& s) { s ? string(*s) : null(); }
  void integerOrNull(const std::optional<int64_t>& v) { v ? integer(*v) : null(); }
  void booleanOrNull(const std::optional<bool>& b) { b ? boolean(*b) : null(); }
  // Arrays of scalars.
  void integers(const std::vector<int64_t>& v);
  void booleans(const std::vector<bool>& v);
  void strings(const std::vector<std::string>& v);
  // A value already written as compact JSON (by another JsonWriter).
  void raw(std::string_view compact_value);

  void beginObject() { open('{'); }
  void endObject() { close('}'); }
  void beginArray() { open('['); }
  void endArray() { close(']'); }
  // An object member's key; its value is what is written next.
  JsonWriter& key(std::string_view k);
  // A key spelled in the code (a string literal: "name", "as_tensor"): when it needs no
  // escape, which the compiler can see, one copy of `"key":` with no scan at run time.
  template <size_t N>
  JsonWriter& key(const char (&literal)[N]) {
    const size_t n = std::char_traits<char>::length(literal);
    for (size_t i = 0; i < n; ++i) {
      if (!kPlainStringByte(literal[i])) return key(std::string_view(literal, n));
    }
    char* o = text_.room(n + 4);
    size_t at = 0;
    if (need_comma_) o[at++] = ',';
    o[at++] = '"';
    std::memcpy(o + at, literal, n);
    o[at + n] = '"';
    o[at + n + 1] = ':';
    text_.commit(at + n + 2);
    need_comma_ = false;
    return *this;
  }
  // A member whose key is a name from the program (not the format's own): its value is
  // written first, by `value(JsonWriter&)`, so a value that cannot be written is reported
  // before a key that cannot (as the writer always has), then both are placed.
  template <typename F>
  void member(std::string_view k, F&& value) {
    JsonWriter v(invalid_);
    value(v);
    key(k).raw(v.compact());
  }
  // A string-valued member of that kind.
  void stringMember(std::string_view k, std::string_view s) {
    member(k, [&](JsonWriter& v) { v.string(s); });
  }

  // The compact text: no whitespace outside strings.
  std::string_view compact() const { return text_.view(); }
  std::string str() const { return std::string(text_.view()); }  // a copy of compact()
  // With one space per level and a line per member.
  static std::string indented(std::string_view compact);

 private:
  // A growable run of bytes that, unlike std::string, does not fill what it is about to
  // overwrite, and appends inline.
  class Text {
   public:
    Text() = default;
    Text(const Text&) = delete;
    Text& operator=(const Text&) = delete;
    ~Text() { delete[] data_; }
    // Room for `n` more bytes; the caller writes them and then calls commit(n).
    char* room(size_t n) {
      if (capacity_ - size_ < n) grow(n);
      return data_ + size_;
    }
    void commit(size_t n) { size_ += n; }
    void append(const char* p, size_t n) {
      if (n == 0) return;
      std::memcpy(room(n), p, n);
      size_ += n;
    }
    void push(char c) {
      *room(1) = c;
      ++size_;
    }
    std::string_view view() const { return {data_, size_}; }

   private:
    void grow(size_t n);
    char* data_ = nullptr;
    size_t size_ = 0, capacity_ = 0;
  };

  void separate() {
    if (need_comma_) text_.push(',');
  }
  void item(const char* literal, size_t n) {
    separate();
    text_.append(literal, n);
    need_comma_ = true;
  }
  void open(char bracket) {
    separate();
    text_.push(bracket);
    need_comma_ = false;
  }
  void close(char bracket) {
    text_.push(bracket);
    need_comma_ = true;
  }
  void quoted(std::string_view s);
  template <typename Int>
  void whole(Int v);

  Text text_;
  InvalidUtf8 invalid_ = InvalidUtf8::Fail;
  bool need_comma_ = false;  // a value or a closed container was the last thing written
};

}  // namespace epsmith::json_detail
