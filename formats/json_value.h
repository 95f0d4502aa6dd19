// A parsed JSON document: one pass over the text into a flat array of values, strings left
// in the text unless they hold escapes. Read through formats/json.h's cursor (JsonAt).
//
// Note [Our own JSON reader]
// Every program a campaign makes is read back (check D4), so reading JSON is on the
// campaign's hot path. A DOM of std::map objects and std::string keys and strings (a heap
// block for most values) costs more than decoding the program from it. This document is
// built in one pass with no allocation per value: a value's children sit next to each
// other in one array, and a string is a view of the text unless it holds escapes. What it
// accepts is RFC 8259 JSON and nothing more (no comments, no trailing commas, strings valid
// UTF-8 with no raw control characters, at most kMaxDepth levels of nesting), and it
// refuses a key given twice in one object, which a map-based reader would take silently
// (keeping one of them). Objects keep their keys in file order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace epsmith::json_detail {

// Whether two keys are equal. Keys of one object, and the keys a reader asks for, nearly
// always differ in length or first byte: those decide without a call to memcmp.
inline bool sameKey(std::string_view a, std::string_view b) {
  return a.size() == b.size() && (a.empty() || (a[0] == b[0] && a.compare(b) == 0));
}

class JsonValue {
 public:
  enum class Type : uint8_t { Null, Boolean, Integer, Unsigned, Float, String, Array, Object };

  Type type() const { return type_; }
  bool isNull() const { return type_ == Type::Null; }
  bool isBoolean() const { return type_ == Type::Boolean; }
  bool isString() const { return type_ == Type::String; }
  bool isArray() const { return type_ == Type::Array; }
  bool isObject() const { return type_ == Type::Object; }
  bool isNumber() const { return type_ == Type::Integer || type_ == Type::Unsigned || type_ == Type::Float; }

  // Scalars; each only for its own type.
  bool boolean() const { return scalar_.boolean; }
  int64_t integer() const { return scalar_.integer; }                    // Integer
  uint64_t unsignedInteger() const { return scalar_.unsigned_integer; }  // Unsigned: > INT64_MAX
  double number() const;                                                 // any number
  std::string_view string() const { return text_; }                      // String
  std::string_view token() const { return text_; }                       // a number as the file spells it

  // Arrays and objects: their elements or members, in file order.
  size_t size() const { return isArray() || isObject() ? count_ : 0; }
  const JsonValue& operator[](size_t i) const { return scalar_.children[i]; }
  const JsonValue* begin() const { return size() ? scalar_.children : nullptr; }
  const JsonValue* end() const { return begin() + size(); }
  // An object member's key.
  std::string_view key() const { return key_; }
  // The member of an object with this key, or null.
  const JsonValue* find(std::string_view key) const;

 private:
  friend class JsonParser;
  Type type_ = Type::Null;
  uint32_t count_ = 0;
  union {
    bool boolean;
    int64_t integer;
    uint64_t unsigned_integer;
    double floating;
    const JsonValue* children;
    size_t first_child;  // while parsing: where the children start in the value array
  } scalar_{};
  std::string_view text_;
  std::string_view key_;
};

// A parsed document: it owns its values, their strings and a copy of the text.
class JsonDocument {
 public:
  JsonDocument();
  JsonDocument(JsonDocument&&) noexcept;
  JsonDocument& operator=(JsonDocument&&) noexcept;
  ~JsonDocument();
  const JsonValue& root() const;

 private:
  friend class JsonParser;
  struct Storage;
  std::unique_ptr<Storage> storage_;
};

// Parses JSON text. A malformed text fails (json_detail::fail) at `line:column` when `where`
// is empty, else at `where` with the line and column in the message.
JsonDocument parseJson(std::string_view text, const std::string& where);

}  // namespace epsmith::json_detail
