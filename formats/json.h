// The project's one JSON stack, for every JSON it reads and writes besides program files
// (json_format.h): case files, the messages between a campaign and its workers,
// summary.json, `ops --json`. Reading goes through a located cursor (JsonAt), so a bad
// file's error names its JSON path (`corpus/x.json: $.provenance.seed: expected an
// integer, got "7"`) or, for malformed text, its line and column; writing goes through
// the same JsonWriter the program files use, front to back into one string.
//
// Note [One JSON stack]
// Every JSON the project reads and writes goes through one reader and one writer.
// bench/formats_bench.cpp measures them against RapidJSON and nlohmann on the real work,
// reading and writing programs (bench/README.md): ours is faster at both, so ours is the
// stack. A document that holds a program (a case file, a worker's minimize reply) embeds
// the program's JSON as it was written (JsonWriter::raw) and reads it where it lies
// (readProgramJsonAt), never through a string to be parsed again.
#pragma once

#include <new>
#include <string>
#include <string_view>
#include <type_traits>

#include "formats/json_decode.h"
#include "formats/json_encode.h"
#include "formats/json_out.h"
#include "ir/diagnostic.h"
#include "ir/program.h"

namespace epsmith {

using JsonAt = json_detail::At;
using JsonWriter = json_detail::JsonWriter;
using json_detail::InvalidUtf8;
using json_detail::jsonQuoted;  // a JSON string literal, invalid UTF-8 replaced: for messages

namespace json_detail {
template <typename T>
struct ExpectedOf {
  using type = Expected<T>;
  static constexpr bool kExpected = false;
};
template <typename T>
struct ExpectedOf<Expected<T>> {
  using type = Expected<T>;
  static constexpr bool kExpected = true;
};
}  // namespace json_detail

// Parses `text` and hands its root (at "$") to `read`, whose JsonAt accessors fail at the
// value they were asked about; `read` may also return an Expected of its own. Returns
// what `read` returns, or the first failure: malformed text at `line:column`, anything
// else at its JSON path, each after "`file`: " when `file` is not empty.
template <typename F, typename R = std::invoke_result_t<F&, const JsonAt&>>
typename json_detail::ExpectedOf<R>::type readJson(std::string_view text, const std::string& file, F&& read) {
  auto located = [&](Diagnostic e) {
    if (!file.empty()) e.where = e.where.empty() ? file : file + ": " + e.where;
    return e;
  };
  try {
    const json_detail::JsonDocument doc = json_detail::parseJson(text, "");
    R result = read(JsonAt(doc.root(), "$"));
    if constexpr (json_detail::ExpectedOf<R>::kExpected) {
      if (!result.ok()) return located(result.error());
    }
    return result;
  } catch (const json_detail::Failure& f) {
    return located(f.error);
  } catch (const std::bad_alloc&) {
    return located(Diagnostic{"", "out of memory while reading JSON"});
  }
}

// schema.py's TensorMeta object, both ways (a .pt2's payload configs hold one per tensor).
using json_detail::readTensorMeta;
using json_detail::tensorMetaJson;

// The program object at `at` inside a larger document (a case file's "program", a worker's
// reply): read where it lies, its errors at paths under `at`'s.
Expected<ExportedProgram> readProgramJsonAt(const JsonAt& at);

// `p` as one compact JSON value, to embed in a larger document (JsonWriter::raw); fails
// as writeProgramJson does.
Expected<std::string> programJsonValue(const ExportedProgram& p);

// Compact JSON (JsonWriter::compact) laid out as files are: one space per level, a line per
// member, and a final newline.
inline std::string indentedJson(std::string_view compact) { return JsonWriter::indented(compact) + "\n"; }

}  // namespace epsmith
