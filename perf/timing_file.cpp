// See perf.h: the timing file (docs/perf.md, "The timing file"), written and read with the
// project's one JSON stack.
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "formats/json.h"
#include "oracle/program_io.h"
#include "perf/perf.h"

namespace epsmith::perf {
namespace {

constexpr int64_t kTimingFileVersion = 1;

// Nanoseconds are below what a clock read costs: more digits would be noise in the file.
double toNanos(double micros) { return std::round(micros * 1000) / 1000; }

void writeMode(JsonWriter& w, const ModeTiming& m) {
  w.beginObject();
  if (!m.error.empty()) w.stringMember("error", m.error);
  w.key("micros").beginArray();
  for (double v : m.micros) w.number(toNanos(v));
  w.endArray();
  w.key("ops").beginObject();
  for (const auto& [op, rounds] : m.op_micros) {
    w.key(op).beginArray();
    for (double v : rounds) w.number(toNanos(v));
    w.endArray();
  }
  w.endObject();
  w.endObject();
}

void writeProgram(JsonWriter& w, const ProgramTiming& t) {
  char digest[17];
  std::snprintf(digest, sizeof digest, "%016" PRIx64, t.digest);
  w.beginObject();
  w.stringMember("id", t.id);
  w.stringMember("reproduce", t.reproduce);
  w.stringMember("digest", digest);
  if (!t.error.empty()) w.stringMember("error", t.error);
  w.key("modes").beginObject();
  for (const auto& [name, m] : t.modes) {
    w.key(name);
    writeMode(w, m);
  }
  w.endObject();
  w.endObject();
}

ModeTiming readMode(const JsonAt& j) {
  j.allowOnly({"error", "micros", "ops"});
  ModeTiming m;
  if (auto e = j.optional("error")) m.error = e->string();
  const JsonAt micros = j.field("micros");
  for (size_t i = 0; i < micros.size(); ++i) m.micros.push_back(micros[i].number());
  j.field("ops").forEachEntry([&](const std::string& op, const JsonAt& v) {
    for (size_t i = 0; i < v.size(); ++i) m.op_micros[op].push_back(v[i].number());
  });
  return m;
}

ProgramTiming readProgram(const JsonAt& j) {
  j.allowOnly({"id", "reproduce", "digest", "error", "modes"});
  ProgramTiming t;
  t.id = j.field("id").string();
  t.reproduce = j.field("reproduce").string();
  const JsonAt digest = j.field("digest");
  const std::string hex = digest.string();
  char* end = nullptr;
  errno = 0;
  t.digest = std::strtoull(hex.c_str(), &end, 16);
  if (hex.empty() || hex.size() > 16 || *end != '\0' || errno) {
    digest.fail("expected up to 16 hexadecimal digits, got " + jsonQuoted(hex));
  }
  if (auto e = j.optional("error")) t.error = e->string();
  j.field("modes").forEachEntry([&](const std::string& name, const JsonAt& v) {
    if (!modeFromName(name)) v.fail("unknown mode " + jsonQuoted(name));
    t.modes[name] = readMode(v);
  });
  return t;
}

}  // namespace

std::string timingJson(const ProgramTiming& t) {
  JsonWriter w;
  writeProgram(w, t);
  return w.str();
}

Expected<ProgramTiming> readProgramTiming(std::string_view json) {
  return readJson(json, "", [](const JsonAt& j) { return readProgram(j); });
}

std::string timingFileJson(const TimingFile& f) {
  JsonWriter w;
  w.beginObject();
  w.key("epsmith_perf").integer(kTimingFileVersion);
  w.stringMember("libtorch", f.libtorch);
  w.stringMember("label", f.label);
  w.key("warmup").integer(f.options.warmup);
  w.key("reps").integer(f.options.reps);
  w.key("rounds").integer(f.options.rounds);
  w.key("modes").beginArray();
  for (Mode m : f.options.modes) w.string(modeName(m));
  w.endArray();
  w.key("unavailable").beginObject();
  for (const auto& [mode, why] : f.unavailable) w.key(mode).string(why);
  w.endObject();
  w.key("programs").beginArray();
  for (const ProgramTiming& t : f.programs) writeProgram(w, t);
  w.endArray();
  w.endObject();
  return JsonWriter::indented(w.compact()) + "\n";
}

Expected<TimingFile> readTimingFile(const std::string& path) {
  auto text = readFileBytes(path);
  if (!text.ok()) return text.error();
  return readJson(text.value(), path, [](const JsonAt& j) {
    j.allowOnly({"epsmith_perf", "libtorch", "label", "warmup", "reps", "rounds", "modes", "unavailable", "programs"});
    const JsonAt version = j.field("epsmith_perf");
    if (version.integer() != kTimingFileVersion) {
      version.fail("a timing file of version " + std::to_string(version.integer()) + ", this epsmith reads version " +
                   std::to_string(kTimingFileVersion));
    }
    TimingFile f;
    f.libtorch = j.field("libtorch").string();
    f.label = j.field("label").string();
    f.options.warmup = static_cast<int>(j.field("warmup").integer());
    f.options.reps = static_cast<int>(j.field("reps").integer());
    f.options.rounds = static_cast<int>(j.field("rounds").integer());
    f.options.modes.clear();
    const JsonAt modes = j.field("modes");
    for (size_t i = 0; i < modes.size(); ++i) {
      auto m = modeFromName(modes[i].view());
      if (!m) modes[i].fail("unknown mode " + jsonQuoted(modes[i].string()));
      f.options.modes.push_back(*m);
    }
    j.field("unavailable").forEachEntry([&](const std::string& mode, const JsonAt& v) {
      f.unavailable[mode] = v.string();
    });
    const JsonAt programs = j.field("programs");
    for (size_t i = 0; i < programs.size(); ++i) f.programs.push_back(readProgram(programs[i]));
    return f;
  });
}

}  // namespace epsmith::perf
