// Which JSON stack reads and writes programs: ours (formats/json_value.h,
// Note [Our own JSON reader]) against the libraries Debian keeps, on the real work: the JSON
// of programs a campaign makes. Issue 23's rule: one JSON library for everything the project reads and
// writes, a library unless ours is at least 1.5x faster at reading and writing programs.
//
// BM_Parse*: the text into a document, and one walk over every value (the walk the decoder
// makes; without it a lazy parser would look free). BM_Dump*: a document back to text.
// BM_ReadProgram / BM_WriteProgram: our whole path, document and decoding, for scale.
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "formats/json_format.h"
#include "formats/json_value.h"
#include "generators/graph_generator.h"
#include "generators/op_catalog.h"
#include "generators/random_source.h"

#if EPSMITH_BENCH_RAPIDJSON
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#endif

namespace epsmith {
namespace {

// Programs as a default campaign makes them (16 ops), and their JSON as we write it.
struct Corpus {
  std::vector<ExportedProgram> programs;
  std::vector<std::string> texts;
  size_t bytes = 0;
};

const Corpus& corpus() {
  static const Corpus c = [] {
    Corpus out;
    const OpCatalog catalog = OpCatalog::build().value();
    for (uint64_t seed = 1; out.programs.size() < 64; ++seed) {
      SeededSource random(seed);
      auto p = generateProgram(catalog, {}, random);
      if (!p.ok()) continue;
      auto text = writeProgramJson(p.value(), JsonLayout::Compact);
      if (!text.ok()) continue;
      out.bytes += text.value().size();
      out.texts.push_back(std::move(text.value()));
      out.programs.push_back(std::move(p.value()));
    }
    return out;
  }();
  return c;
}

void perProgram(benchmark::State& state) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * corpus().texts.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * corpus().bytes));
}

size_t walk(const json_detail::JsonValue& v) {
  size_t n = 1;
  if (v.isString()) n += v.string().size();
  for (const auto& child : v) n += walk(child);
  return n;
}

void BM_ParseOurs(benchmark::State& state) {
  for (auto _ : state) {
    for (const std::string& text : corpus().texts) {
      json_detail::JsonDocument doc = json_detail::parseJson(text, "program");
      benchmark::DoNotOptimize(walk(doc.root()));
    }
  }
  perProgram(state);
}
BENCHMARK(BM_ParseOurs);

size_t walk(const nlohmann::json& v) {
  size_t n = 1;
  if (v.is_string()) n += v.get_ref<const std::string&>().size();
  if (v.is_structured()) {
    for (const auto& child : v) n += walk(child);
  }
  return n;
}

void BM_ParseNlohmann(benchmark::State& state) {
  for (auto _ : state) {
    for (const std::string& text : corpus().texts) {
      nlohmann::json doc = nlohmann::json::parse(text);
      benchmark::DoNotOptimize(walk(doc));
    }
  }
  perProgram(state);
}
BENCHMARK(BM_ParseNlohmann);

void BM_DumpNlohmann(benchmark::State& state) {
  std::vector<nlohmann::json> docs;
  for (const std::string& text : corpus().texts) docs.push_back(nlohmann::json::parse(text));
  for (auto _ : state) {
    for (const auto& doc : docs) benchmark::DoNotOptimize(doc.dump());
  }
  perProgram(state);
}
BENCHMARK(BM_DumpNlohmann);

#if EPSMITH_BENCH_RAPIDJSON
size_t walk(const rapidjson::Value& v) {
  size_t n = 1;
  if (v.IsString()) n += v.GetStringLength();
  if (v.IsArray()) {
    for (const auto& child : v.GetArray()) n += walk(child);
  } else if (v.IsObject()) {
    for (const auto& member : v.GetObject()) n += walk(member.value);
  }
  return n;
}

void BM_ParseRapidJson(benchmark::State& state) {
  for (auto _ : state) {
    for (const std::string& text : corpus().texts) {
      rapidjson::Document doc;
      doc.Parse<rapidjson::kParseFullPrecisionFlag>(text.data(), text.size());
      benchmark::DoNotOptimize(walk(doc));
    }
  }
  perProgram(state);
}
BENCHMARK(BM_ParseRapidJson);

void BM_DumpRapidJson(benchmark::State& state) {
  std::vector<rapidjson::Document> docs(corpus().texts.size());
  for (size_t i = 0; i < docs.size(); ++i) docs[i].Parse(corpus().texts[i].data(), corpus().texts[i].size());
  for (auto _ : state) {
    for (const auto& doc : docs) {
      rapidjson::StringBuffer out;
      rapidjson::Writer<rapidjson::StringBuffer> writer(out);
      doc.Accept(writer);
      benchmark::DoNotOptimize(out.GetString());
    }
  }
  perProgram(state);
}
BENCHMARK(BM_DumpRapidJson);
#endif

// Our whole read: the document and its decoding into an ExportedProgram.
void BM_ReadProgram(benchmark::State& state) {
  for (auto _ : state) {
    for (const std::string& text : corpus().texts) benchmark::DoNotOptimize(readProgramJson(text));
  }
  perProgram(state);
}
BENCHMARK(BM_ReadProgram);

// Our whole write: an ExportedProgram straight to text, no document in between.
void BM_WriteProgram(benchmark::State& state) {
  for (auto _ : state) {
    for (const auto& p : corpus().programs) benchmark::DoNotOptimize(writeProgramJson(p, JsonLayout::Compact));
  }
  perProgram(state);
}
BENCHMARK(BM_WriteProgram);

}  // namespace
}  // namespace epsmith
