// The JSON document the program reader walks; see formats/json_value.h.
#include "formats/json_value.h"

#include <algorithm>
#include <charconv>
#include <vector>

#include "formats/json_detail.h"
#include "formats/utf8.h"

namespace epsmith::json_detail {

struct JsonDocument::Storage {
  std::string text;
  std::string unescaped;          // strings that held escapes; never outgrows the text
  std::vector<JsonValue> values;  // children before their parents; the root last
};

JsonDocument::JsonDocument() = default;
JsonDocument::JsonDocument(JsonDocument&&) noexcept = default;
JsonDocument& JsonDocument::operator=(JsonDocument&&) noexcept = default;
JsonDocument::~JsonDocument() = default;

const JsonValue& JsonDocument::root() const { return storage_->values.back(); }

double JsonValue::number() const {
  switch (type_) {
    case Type::Integer: return static_cast<double>(scalar_.integer);
    case Type::Unsigned: return static_cast<double>(scalar_.unsigned_integer);
    default: return scalar_.floating;
  }
}

const JsonValue* JsonValue::find(std::string_view key) const {
  if (!isObject()) return nullptr;
  for (const JsonValue& member : *this) {
    if (sameKey(member.key_, key)) return &member;
  }
  return nullptr;
}

class JsonParser {
 public:
  static JsonDocument document(std::string_view text, const std::string& where) {
    JsonDocument doc;
    doc.storage_ = std::make_unique<JsonDocument::Storage>();
    JsonParser(text, where, *doc.storage_).parse();
    return doc;
  }

 private:
  JsonParser(std::string_view text, const std::string& where, JsonDocument::Storage& out) : where_(where), out_(out) {
    out_.text.assign(text.data(), text.size());
    out_.unescaped.reserve(text.size());
    out_.values.reserve(text.size() / 16 + 1);
    p_ = out_.text.data();
    end_ = p_ + out_.text.size();
  }

  void parse() {
    pending_.emplace_back();
    value(0, 0);
    skipSpace();
    if (p_ != end_) failHere("unexpected " + describeHere() + " after the document's value");
    out_.values.push_back(pending_[0]);
    // The value array is complete: turn child positions into pointers.
    JsonValue* base = out_.values.data();
    for (JsonValue& v : out_.values) {
      if (v.isArray() || v.isObject()) v.scalar_.children = base + v.scalar_.first_child;
    }
  }

  [[noreturn]] void failAt(const char* at, const std::string& detail) const {
    json_detail::failAt(out_.text, static_cast<size_t>(at - out_.text.data()), where_, detail);
  }
  [[noreturn]] void failHere(const std::string& detail) const { failAt(p_, detail); }

  std::string describeHere() const {
    if (p_ == end_) return "end of text";
    unsigned char c = static_cast<unsigned char>(*p_);
    if (c < 0x20 || c >= 0x7f) {
      static const char* kHex = "0123456789abcdef";
      return std::string("byte 0x") + kHex[c >> 4] + kHex[c & 15];
    }
    return "character '" + std::string(1, static_cast<char>(c)) + "'";
  }

  void skipSpace() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  // Note [Values parsed in place]
  // Each value is written straight into its slot of pending_ (its own, default-made by the
  // caller) rather than returned and copied there: the copy read back 48 bytes the callee
  // had just stored piecewise, and that stalled on every value (a third of the parse).
  // A slot is named by its index, as parsing its children may move pending_.
  void value(int depth, size_t slot) {
    skipSpace();
    if (p_ == end_) failHere("unexpected end of text where a value is expected");
    switch (*p_) {
      case '{': return container(depth, '}', JsonValue::Type::Object, slot);
      case '[': return container(depth, ']', JsonValue::Type::Array, slot);
      case '"': {
        const std::string_view text = string();
        JsonValue& v = pending_[slot];
        v.type_ = JsonValue::Type::String;
        v.text_ = text;
        return;
      }
      case 't': literal("true"); return boolean(slot, true);
      case 'f': literal("false"); return boolean(slot, false);
      case 'n': literal("null"); return;  // the slot is already null
      default:
        if (*p_ == '-' || (*p_ >= '0' && *p_ <= '9')) return number(pending_[slot]);
        failHere("unexpected " + describeHere() + " where a value is expected");
    }
  }

  void boolean(size_t slot, bool b) {
    pending_[slot].type_ = JsonValue::Type::Boolean;
    pending_[slot].scalar_.boolean = b;
  }

  void literal(std::string_view word) {
    if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) {
      failHere("invalid literal (expected " + std::string(word) + ")");
    }
    p_ += word.size();
  }

  // Note [Children before their parents]
  // A container's children are parsed onto a stack; when it closes they are moved, side by
  // side, to the end of the value array, where their own children already are. So the
  // array never moves a value once it is placed, and a container knows its children by the
  // position of the first and their count.
  void container(int depth, char close, JsonValue::Type type, size_t slot) {
    const char* open = p_;
    if (depth >= kMaxDepth) failHere("nested deeper than " + std::to_string(kMaxDepth) + " levels");
    ++p_;
    const size_t mark = pending_.size();
    skipSpace();
    if (p_ != end_ && *p_ == close) {
      ++p_;
    } else {
      while (true) {
        std::string_view key;
        const char* key_at = nullptr;
        if (type == JsonValue::Type::Object) {
          skipSpace();
          if (p_ == end_ || *p_ != '"') failHere("unexpected " + describeHere() + " where a key is expected");
          key_at = p_;
          key = string();
          skipSpace();
          if (p_ == end_ || *p_ != ':') failHere("unexpected " + describeHere() + " where ':' is expected");
          ++p_;
        }
        const size_t child = pending_.size();
        pending_.emplace_back().key_ = key;
        if (key_at) key_positions_.push_back(key_at);
        value(depth + 1, child);
        skipSpace();
        if (p_ != end_ && *p_ == ',') {
          ++p_;
          continue;
        }
        if (p_ != end_ && *p_ == close) {
          ++p_;
          break;
        }
        failHere("unexpected " + describeHere() + " where ',' or '" + std::string(1, close) + "' is expected");
      }
    }
    if (pending_.size() - mark > UINT32_MAX) failAt(open, "more than 2^32 elements in one value");
    if (type == JsonValue::Type::Object) checkUniqueKeys(mark);
    JsonValue& v = pending_[slot];
    v.type_ = type;
    v.count_ = static_cast<uint32_t>(pending_.size() - mark);
    v.scalar_.first_child = out_.values.size();
    out_.values.insert(out_.values.end(), pending_.begin() + static_cast<std::ptrdiff_t>(mark), pending_.end());
    pending_.resize(mark);
  }

  // The members of the object just read are pending_[mark...]; their key positions the
  // last of key_positions_.
  void checkUniqueKeys(size_t mark) {
    const size_t n = pending_.size() - mark;
    const char* const* at = key_positions_.data() + key_positions_.size() - n;
    auto duplicate = [&](size_t later) {
      failAt(at[later], "key " + jsonQuoted(pending_[mark + later].key_) + " given twice in one object");
    };
    if (n <= 16) {
      for (size_t i = 1; i < n; ++i) {
        for (size_t j = 0; j < i; ++j) {
          if (sameKey(pending_[mark + i].key_, pending_[mark + j].key_)) duplicate(i);
        }
      }
    } else {
      std::vector<size_t> order(n);
      for (size_t i = 0; i < n; ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const auto &ka = pending_[mark + a].key_, &kb = pending_[mark + b].key_;
        return ka != kb ? ka < kb : a < b;
      });
      for (size_t i = 1; i < n; ++i) {
        if (pending_[mark + order[i]].key_ == pending_[mark + order[i - 1]].key_) duplicate(order[i]);
      }
    }
    key_positions_.resize(key_positions_.size() - n);
  }

  // A string literal at p_ (on its opening quote): a view of the text when it holds no
  // escape, else of its unescaped copy.
  std::string_view string() {
    const char* start = ++p_;
    p_ = skipPlainStringBytes(p_, end_);
    if (p_ != end_ && *p_ == '"') return std::string_view(start, static_cast<size_t>(p_++ - start));
    // Escapes, control characters or non-ASCII bytes: the careful path.
    std::string& out = out_.unescaped;
    const size_t first = out.size();
    out.append(start, static_cast<size_t>(p_ - start));
    bool escaped = false;
    while (true) {
      if (p_ == end_) failAt(start - 1, "unterminated string");
      unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        break;
      }
      if (c < 0x20) failHere("control character " + describeHere() + " in a string (escape it)");
      if (c == '\\') {
        escaped = true;
        escape(out);
      } else if (c < 0x80) {
        out += static_cast<char>(c);
        ++p_;
      } else {
        utf8(out);
      }
    }
    if (!escaped) {  // only non-ASCII text: the text itself will do
      std::string_view view(start, out.size() - first);
      out.resize(first);
      return view;
    }
    return std::string_view(out.data() + first, out.size() - first);
  }

  void escape(std::string& out) {
    const char* at = p_++;
    if (p_ == end_) failAt(at, "unterminated string");
    switch (*p_++) {
      case '"': out += '"'; return;
      case '\\': out += '\\'; return;
      case '/': out += '/'; return;
      case 'b': out += '\b'; return;
      case 'f': out += '\f'; return;
      case 'n': out += '\n'; return;
      case 'r': out += '\r'; return;
      case 't': out += '\t'; return;
      case 'u': break;
      default: failAt(at, "invalid escape in a string");
    }
    uint32_t code = hex4(at);
    if (code >= 0xDC00 && code <= 0xDFFF) failAt(at, "a \\u escape of a low surrogate without its high one");
    if (code >= 0xD800 && code <= 0xDBFF) {
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') {
        failAt(at, "a \\u escape of a high surrogate without its low one");
      }
      p_ += 2;
      uint32_t low = hex4(p_ - 2);
      if (low < 0xDC00 || low > 0xDFFF) failAt(at, "a \\u escape of a high surrogate without its low one");
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    appendUtf8(out, code);
  }

  uint32_t hex4(const char* escape_at) {
    if (end_ - p_ < 4) failAt(escape_at, "a \\u escape needs four hexadecimal digits");
    uint32_t code = 0;
    for (int i = 0; i < 4; ++i) {
      char c = *p_++;
      uint32_t digit;
      if (c >= '0' && c <= '9') {
        digit = static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        digit = static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        digit = static_cast<uint32_t>(c - 'A' + 10);
      } else {
        failAt(escape_at, "a \\u escape needs four hexadecimal digits");
      }
      code = code << 4 | digit;
    }
    return code;
  }

  // One UTF-8 sequence at p_ (its lead byte ≥ 0x80).
  void utf8(std::string& out) {
    size_t n = utf8SequenceLength(reinterpret_cast<const unsigned char*>(p_), static_cast<size_t>(end_ - p_));
    if (n == 0) failHere("invalid UTF-8 in a string");
    out.append(p_, n);
    p_ += n;
  }

  void number(JsonValue& v) {
    const char* start = p_;
    if (*p_ == '-') ++p_;
    auto digits = [&] {
      const char* from = p_;
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
      return p_ - from;
    };
    if (p_ != end_ && *p_ == '0') {
      ++p_;
    } else if (digits() == 0) {
      failAt(start, "invalid number: a digit must follow '-'");
    }
    bool integral = true;
    if (p_ != end_ && *p_ == '.') {
      ++p_;
      integral = false;
      if (digits() == 0) failAt(start, "invalid number: a digit must follow '.'");
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      integral = false;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (digits() == 0) failAt(start, "invalid number: a digit must follow the exponent");
    }
    v.text_ = std::string_view(start, static_cast<size_t>(p_ - start));
    if (integral) {
      auto [ptr, ec] = std::from_chars(start, p_, v.scalar_.integer);
      if (ec == std::errc() && ptr == p_) {
        v.type_ = JsonValue::Type::Integer;
        return;
      }
      if (*start != '-') {
        auto [uptr, uec] = std::from_chars(start, p_, v.scalar_.unsigned_integer);
        if (uec == std::errc() && uptr == p_) {
          v.type_ = JsonValue::Type::Unsigned;
          return;
        }
      }
      // Past 64 bits: a float, as other JSON readers take it.
    }
    auto [ptr, ec] = std::from_chars(start, p_, v.scalar_.floating);
    if (ec == std::errc::result_out_of_range) {
      // from_chars also says this of numbers too small for a double: those are zero.
      if (!tinyExponent(start)) failAt(start, "number " + std::string(v.text_) + " is out of the double range");
      v.scalar_.floating = *start == '-' ? -0.0 : 0.0;
    } else if (ec != std::errc() || ptr != p_) {
      failAt(start, "invalid number " + std::string(v.text_));
    }
    v.type_ = JsonValue::Type::Float;
  }

  // Whether the number at `start` (out of range by from_chars) has a negative exponent,
  // so that it underflowed rather than overflowed.
  bool tinyExponent(const char* start) const {
    for (const char* c = start; c != p_; ++c) {
      if ((*c == 'e' || *c == 'E') && c + 1 != p_ && c[1] == '-') return true;
    }
    return false;
  }

  const std::string& where_;
  JsonDocument::Storage& out_;
  const char* p_ = nullptr;
  const char* end_ = nullptr;
  std::vector<JsonValue> pending_;
  std::vector<const char*> key_positions_;
};

JsonDocument parseJson(std::string_view text, const std::string& where) { return JsonParser::document(text, where); }

}  // namespace epsmith::json_detail
