// The program reader's JSON document (formats/json_value.h), against nlohmann's parser as the
// reference: the same texts accepted, the same values read from them, and a located error
// for each kind of malformed text.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <variant>
#include <string>

#include <nlohmann/json.hpp>

#include "formats/json.h"
#include "formats/json_detail.h"
#include "formats/json_out.h"
#include "formats/json_value.h"
#include "tests/formats/json_test_util.h"

namespace epsmith::testing {
namespace {

using json_detail::JsonDocument;
using json_detail::JsonValue;
using Reference = nlohmann::ordered_json;

Reference toReference(const JsonValue& v) {
  switch (v.type()) {
    case JsonValue::Type::Null: return nullptr;
    case JsonValue::Type::Boolean: return v.boolean();
    case JsonValue::Type::Integer: return v.integer();
    case JsonValue::Type::Unsigned: return v.unsignedInteger();
    case JsonValue::Type::Float: return v.number();
    case JsonValue::Type::String: return std::string(v.string());
    case JsonValue::Type::Array: {
      Reference a = Reference::array();
      for (const JsonValue& e : v) a.push_back(toReference(e));
      return a;
    }
    case JsonValue::Type::Object: {
      Reference o = Reference::object();
      for (const JsonValue& m : v) o[std::string(m.key())] = toReference(m);
      return o;
    }
  }
  return nullptr;
}

// Our parse of `text`: its value as nlohmann's type, or the error.
std::variant<Reference, Diagnostic> ours(std::string_view text) {
  try {
    JsonDocument doc = json_detail::parseJson(text, "");
    return toReference(doc.root());
  } catch (const json_detail::Failure& f) {
    return f.error;
  }
}

Diagnostic errorOf(std::string_view text) {
  auto r = ours(text);
  EXPECT_TRUE(std::holds_alternative<Diagnostic>(r)) << "accepted: " << text;
  return std::holds_alternative<Diagnostic>(r) ? std::get<Diagnostic>(r) : Diagnostic{};
}

bool hasDuplicateKeys(const std::string& text) {
  // nlohmann keeps the last of a key given twice; we refuse. Tell those texts apart by
  // parsing with a callback that sees every key of every object.
  std::vector<std::set<std::string>> open;
  bool duplicate = false;
  auto cb = [&](int, Reference::parse_event_t event, Reference& parsed) {
    if (event == Reference::parse_event_t::object_start) open.emplace_back();
    if (event == Reference::parse_event_t::object_end) open.pop_back();
    if (event == Reference::parse_event_t::key && !open.back().insert(parsed.get<std::string>()).second) {
      duplicate = true;
    }
    return true;
  };
  try {
    Reference whole = Reference::parse(text, cb);
    (void)whole;
  } catch (const Reference::exception&) {}
  return duplicate;
}

TEST(JsonDocument, ReadsEveryKindOfValueAsTheReferenceDoes) {
  const std::string text = R"({
    "null": null, "t": true, "f": false,
    "ints": [0, -0, 7, -9223372036854775808, 9223372036854775807, 18446744073709551615],
    "big": 18446744073709551616,
    "floats": [0.5, -1e-3, 1E+2, 1.5e308, 4.9e-324, 1e-400, -0.0],
    "strings": ["", "plain", "\"\\\/\b\f\n\r\t", "\u00e9\u4e2d\ud83d\ude00", "é中😀"],
    "nested": {"a": [[], {}, [{"b": [1, {"c": null}]}]], "z": {}},
    "order": {"zeta": 1, "alpha": 2, "mid": 3}
  })";
  auto r = ours(text);
  ASSERT_TRUE(std::holds_alternative<Reference>(r)) << std::get<Diagnostic>(r).str();
  EXPECT_EQ(std::get<Reference>(r), Reference::parse(text));
  // Keys stay in file order.
  EXPECT_EQ(std::get<Reference>(r)["order"].begin().key(), "zeta");
}

// The scan for a string's end reads eight bytes at a time: a byte that ends the run (a
// quote, a backslash, a control character, non-ASCII) at every offset of a word, among
// plain bytes of every value, is found exactly where the byte-by-byte test finds it.
TEST(JsonDocument, TheWordAtATimeStringScanStopsWhereTheByteTestDoes) {
  std::vector<char> plain;
  for (int c = 0; c < 256; ++c) {
    if (json_detail::kPlainStringByte(static_cast<char>(c))) plain.push_back(static_cast<char>(c));
  }
  std::mt19937 random(7);
  for (int stop = 0; stop < 256; ++stop) {
    if (json_detail::kPlainStringByte(static_cast<char>(stop))) continue;
    for (size_t at = 0; at < 20; ++at) {
      std::string s(at + 1 + random() % 9, ' ');
      for (char& c : s) c = plain[random() % plain.size()];
      s[at] = static_cast<char>(stop);
      const char* end = s.data() + s.size();
      ASSERT_EQ(json_detail::skipPlainStringBytes(s.data(), end) - s.data(), static_cast<std::ptrdiff_t>(at))
          << "byte 0x" << std::hex << stop << " at " << std::dec << at;
    }
  }
  for (size_t n = 0; n < 20; ++n) {  // no stop at all: the end
    std::string s(n, 'a');
    EXPECT_EQ(json_detail::skipPlainStringBytes(s.data(), s.data() + n), s.data() + n);
  }
}

// Base64 decodes four digits at a time: every length and padding, and a byte that is no
// digit at every offset.
TEST(JsonDocument, Base64DecodesWhatItEncodedAndNamesABadByte) {
  std::mt19937 random(11);
  for (size_t n = 0; n < 40; ++n) {
    std::vector<uint8_t> bytes(n);
    for (auto& b : bytes) b = static_cast<uint8_t>(random());
    std::string text(json_detail::base64Size(n), ' ');
    json_detail::writeBase64(bytes, text.data());
    auto back = json_detail::base64Decode(text);
    ASSERT_TRUE(back) << back.error().str();
    EXPECT_EQ(*back, bytes);
    for (size_t at = 0; at < text.size(); ++at) {
      if (text[at] == '=') continue;
      std::string bad = text;
      bad[at] = '!';
      auto refused = json_detail::base64Decode(bad);
      ASSERT_FALSE(refused);
      EXPECT_EQ(refused.error().message, "invalid base64 character \"!\" at offset " + std::to_string(at));
    }
  }
  auto early = json_detail::base64Decode("A=AA");  // padding only at the end
  ASSERT_FALSE(early);
  EXPECT_EQ(early.error().message, "invalid base64 character \"=\" at offset 1");
}

TEST(JsonDocument, IntegersKeepTheirExactValueAndNumbersTheirSpelling) {
  JsonDocument doc = json_detail::parseJson(R"([9007199254740993, -5, 18446744073709551615, 1.50])", "");
  const JsonValue& a = doc.root();
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[0].type(), JsonValue::Type::Integer);
  EXPECT_EQ(a[0].integer(), 9007199254740993);
  EXPECT_EQ(a[1].integer(), -5);
  EXPECT_EQ(a[2].type(), JsonValue::Type::Unsigned);
  EXPECT_EQ(a[2].unsignedInteger(), 18446744073709551615u);
  EXPECT_EQ(a[3].type(), JsonValue::Type::Float);
  EXPECT_EQ(a[3].token(), "1.50");
}

TEST(JsonDocument, MalformedTextsAreRefusedAtTheirPlace) {
  struct Case {
    std::string text, where, fragment;
  };
  const std::vector<Case> cases = {
      {"", "1:1", "unexpected end of text"},
      {"[1, 2", "1:6", "unexpected end of text where ',' or ']'"},
      {"[1,]", "1:4", "where a value is expected"},
      {"{\"a\" 1}", "1:6", "where ':' is expected"},
      {"{\"a\": 1,}", "1:9", "where a key is expected"},
      {"[1] x", "1:5", "after the document's value"},
      {"tru", "1:1", "invalid literal"},
      {"[01]", "1:3", "where ',' or ']'"},
      {"[-]", "1:2", "a digit must follow '-'"},
      {"[1.]", "1:2", "a digit must follow '.'"},
      {"[1e+]", "1:2", "a digit must follow the exponent"},
      {"[1e999]", "1:2", "out of the double range"},
      {"\"abc", "1:1", "unterminated string"},
      {"\"a\\qb\"", "1:3", "invalid escape"},
      {"\"\\u12g4\"", "1:2", "four hexadecimal digits"},
      {"\"\\ud800\"", "1:2", "high surrogate without its low one"},
      {"\"\\udc00\"", "1:2", "low surrogate without its high one"},
      {"\"a\tb\"", "1:3", "control character byte 0x09"},
      {"\"\xc3\"", "1:2", "invalid UTF-8"},
      {"\"\xc0\xaf\"", "1:2", "invalid UTF-8"},          // an overlong '/'
      {"\"\xed\xa0\x80\"", "1:2", "invalid UTF-8"},      // a surrogate spelled in UTF-8
      {"\"\xf4\x90\x80\x80\"", "1:2", "invalid UTF-8"},  // past U+10FFFF
      {"{\"a\": 1,\n \"b\": 2, \"a\": 3}", "2:10", "key \"a\" given twice"},
      {std::string(600, '[') + std::string(600, ']'), "1:513", "nested deeper than 512 levels"},
  };
  for (const Case& c : cases) {
    Diagnostic e = errorOf(c.text);
    EXPECT_EQ(e.where, c.where) << c.text << ": " << e.str();
    EXPECT_NE(e.message.find(c.fragment), std::string::npos) << c.text << ": " << e.str();
    EXPECT_NE(e.message.find("malformed JSON"), std::string::npos) << e.str();
  }
}

TEST(JsonDocument, ADuplicateKeyInABigObjectIsFound) {
  std::string text = "{";
  for (int i = 0; i < 100; ++i) text += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
  text += "\"k42\": 0}";
  EXPECT_NE(errorOf(text).message.find("key \"k42\" given twice"), std::string::npos);
}

TEST(JsonDocument, ALocatedReaderNamesItsPlaceAndTheLineAndColumn) {
  try {
    json_detail::parseJson("[1,\n 2,]", "$.a.b");
    FAIL() << "accepted";
  } catch (const json_detail::Failure& f) {
    EXPECT_EQ(f.error.where, "$.a.b");
    EXPECT_NE(f.error.message.find("line 2, column 4"), std::string::npos) << f.error.str();
  }
}

TEST(JsonWriter, WritesWhatTheReferenceWritesInBothLayouts) {
  json_detail::JsonWriter w;
  w.beginObject();
  w.key("list").beginArray();
  w.null();
  w.boolean(true);
  w.integer(int64_t{-9223372036854775807 - 1});
  w.number(0.1);
  w.number(-2.5e-300);
  w.beginObject();
  w.key("q\"uote").string("back\\slash\\");
  w.key("\\\"").strings({"\"", "\\", "", "tab\tnl\ncr\r\x01\x1f", "é中😀"});
  w.key("empty object").beginObject();
  w.endObject();
  w.key("empty array").beginArray();
  w.endArray();
  w.key("bytes").base64({0, 1, 2, 250, 251});
  w.endObject();
  w.endArray();
  w.key("ints").integers({1, -2, 3});
  w.key("flags").booleans({true, false});
  json_detail::JsonWriter spliced;
  spliced.beginArray();
  spliced.string("x");
  spliced.endArray();
  w.key("raw").raw(spliced.compact());
  w.endObject();

  const Reference expected = Reference::parse(w.compact());
  EXPECT_EQ(w.compact(), expected.dump());
  EXPECT_EQ(json_detail::JsonWriter::indented(w.compact()), expected.dump(1));
  EXPECT_EQ(expected["list"][5]["bytes"], "AAEC+vs=");
  json_detail::JsonWriter hundred;
  hundred.number(100.0);
  EXPECT_EQ(hundred.compact(), "100.0");  // stays a float when read back
}

TEST(JsonWriter, RefusesAStringThatIsNotUtf8) {
  json_detail::JsonWriter w;
  w.beginArray();
  EXPECT_THROW(w.string("ok\xff"), json_detail::Failure);
}

// Messages and reports quote kernels, which may print any bytes: each invalid byte becomes
// U+FFFD, as the reference's "replace" handler makes it, and the text stays JSON.
TEST(JsonWriter, ReplacesWhatIsNotUtf8WhenAskedTo) {
  const std::string bad =
      "a\xff\xc3(b\xe4\xb8\xad"
      "c\xed\xa0\x80";
  json_detail::JsonWriter w(json_detail::InvalidUtf8::Replace);
  w.beginArray();
  w.string(bad);
  w.unsignedInteger(UINT64_MAX);
  w.endArray();
  const Reference expected = Reference::array({Reference(bad), UINT64_MAX});
  EXPECT_EQ(w.compact(), expected.dump(-1, ' ', false, Reference::error_handler_t::replace));
  EXPECT_EQ(Reference::parse(w.compact())[1].get<uint64_t>(), UINT64_MAX);
}

// formats/json.h: a reader's failure names the file, then the JSON path or line:column.
TEST(ReadJson, AFailureNamesTheFileAndThePlace) {
  const std::string text = "{\"a\": [1, \"x\"], \"n\": -1, \"big\": 18446744073709551615}";
  auto big = readJson(text, "f.json", [](const JsonAt& j) { return j.field("big").unsignedInteger(); });
  ASSERT_TRUE(big.ok()) << big.error().str();
  EXPECT_EQ(big.value(), UINT64_MAX);
  auto wrong = readJson(text, "f.json", [](const JsonAt& j) { return j.field("a")[1].integer(); });
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().str(), "f.json: $.a[1]: expected an integer, got string \"x\"");
  auto negative = readJson(text, "f.json", [](const JsonAt& j) { return j.field("n").unsignedInteger(); });
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error().where, "f.json: $.n");
  auto mine = readJson(text, "f.json", [](const JsonAt& j) -> Expected<int> { return Diagnostic{"$.a", "too short"}; });
  ASSERT_FALSE(mine.ok());
  EXPECT_EQ(mine.error().str(), "f.json: $.a: too short");
  auto malformed = readJson("{\n  \"a\": ]", "f.json", [](const JsonAt&) { return 0; });
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.error().where, "f.json: 2:8");
  EXPECT_NE(malformed.error().message.find("malformed JSON"), std::string::npos);
}

// Byte edits of a real program file: wherever the reference accepts the edited text we
// read the same value (unless a key is now given twice, which only we refuse), and
// wherever it refuses, so do we.
TEST(JsonDocument, EditedProgramFilesAreReadAsTheReferenceReadsThem) {
  const std::string original = *writeProgramJson(addProgram());
  const std::string alphabet = "{}[]\":,\\ 0123456789-+.eEtrufalsn\xc3\xa9\x80\xff\t\nuD8dc";
  std::mt19937_64 rng(20261123);
  int accepted = 0, refused = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text = original;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % text.size();
      switch (rng() % 3) {
        case 0: text[pos] = alphabet[rng() % alphabet.size()]; break;
        case 1: text.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
        default: text.erase(pos, 1 + rng() % 4); break;
      }
    }
    std::optional<Reference> expected;
    try {
      expected = Reference::parse(text);
    } catch (const Reference::exception&) {}
    auto got = ours(text);
    if (expected && !hasDuplicateKeys(text)) {
      ASSERT_TRUE(std::holds_alternative<Reference>(got))
          << "refused what the reference reads: " << std::get<Diagnostic>(got).str();
      ASSERT_EQ(std::get<Reference>(got), *expected);
      ++accepted;
    } else if (!expected) {
      ASSERT_TRUE(std::holds_alternative<Diagnostic>(got)) << "accepted what the reference refuses";
      ++refused;
    }
  }
  // Both halves were exercised.
  EXPECT_GT(accepted, 300);
  EXPECT_GT(refused, 300);
}

}  // namespace
}  // namespace epsmith::testing
