// A JSON value being written, held as its compact text. Internal to ir/json_*.cpp.
//
// Note [JSON written as text]
// The writer built nlohmann's ordered_json tree (a heap block for every object, array,
// string and key), serialized it and then destroyed it: writing a program took as long as
// everything else check D4 does but run it. A JsonOut is the value's text from the start:
// a scalar is its spelling, a container its opening bracket and the members added so far,
// closed when it is added to its parent or printed. Values are built bottom-up, as the
// writer always built them, and each byte is written once; the indented form files use
// (nlohmann's dump(1) layout) is one pass over the finished text. Strings are checked as
// UTF-8 when they are made: an invalid one fails there (json_detail::fail, with no place:
// the writer, which knows the node or table, names it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace epsmith::json_detail {

class JsonOut {
 public:
  JsonOut() : text_("null") {}
  JsonOut(std::nullptr_t) : JsonOut() {}
  JsonOut(bool b) : text_(b ? "true" : "false") {}
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  JsonOut(T v) : text_(std::to_string(v)) {}
  JsonOut(std::string_view s);
  JsonOut(const std::string& s) : JsonOut(std::string_view(s)) {}
  JsonOut(const char* s) : JsonOut(std::string_view(s)) {}
  // Arrays of scalars.
  JsonOut(const std::vector<int64_t>& v);
  JsonOut(const std::vector<bool>& v);
  JsonOut(const std::vector<std::string>& v);

  // A finite double in its shortest round-trip spelling (with ".0" when integral).
  static JsonOut number(double v);
  static JsonOut array() { return JsonOut(Kind::Array); }
  static JsonOut object() { return JsonOut(Kind::Object); }

  // Objects: a member whose key the caller knows is new. Arrays: an element.
  void add(std::string_view key, const JsonOut& value);
  void push_back(const JsonOut& value);

  bool isNull() const { return kind_ == Kind::Scalar && text_ == "null"; }
  // Arrays and objects: no members yet.
  bool empty() const { return count_ == 0; }

  // Compact text, as nlohmann's dump() spells it.
  std::string compact() const;
  // With one space per level and a line per member, as nlohmann's dump(1).
  std::string indented() const;

 private:
  enum class Kind : uint8_t { Scalar, Array, Object };
  explicit JsonOut(Kind kind) : text_(kind == Kind::Array ? "[" : "{"), kind_(kind) {}
  void appendTo(std::string& out) const;
  void separate();

  std::string text_;  // a container's lacks its closing bracket
  Kind kind_ = Kind::Scalar;
  size_t count_ = 0;
};

// Appends `s` as a JSON string literal; fails on text that is not valid UTF-8.
void appendQuoted(std::string& out, std::string_view s);

}  // namespace epsmith::json_detail
