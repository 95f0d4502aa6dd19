// See corpus.h.
#include "fuzz/corpus.h"

#include "oracle/libtorch_compat.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <set>

#include "formats/json.h"
#include "formats/json_format.h"
#include "oracle/program_io.h"
#include "fuzz/checks.h"
#include "fuzz/finding_record.h"

namespace epsmith {
namespace fs = std::filesystem;

namespace {

// 2: the expected verdict holds every field of its finding (fuzz/finding_record.h).
constexpr int kCaseFormatVersion = 2;

std::optional<CaseStatus> caseStatusFromName(std::string_view name) {
  for (CaseStatus s : {CaseStatus::Open, CaseStatus::KnownUpstream, CaseStatus::Fixed}) {
    if (caseStatusName(s) == name) return s;
  }
  return std::nullopt;
}

std::string stringOr(const JsonAt& object, std::string_view key, const std::string& fallback) {
  auto v = object.optional(key);
  return v ? v->string() : fallback;
}

int64_t integerOr(const JsonAt& object, std::string_view key, int64_t fallback) {
  auto v = object.optional(key);
  return v ? v->integer() : fallback;
}

void writeProvenance(JsonWriter& w, const Provenance& p) {
  w.beginObject();
  w.key("seed").unsignedInteger(p.seed);
  w.key("config").string(p.config);
  w.key("nodes").integer(p.nodes);
  w.key("libtorch").string(p.libtorch);
  w.key("epsmith").string(p.epsmith);
  w.key("date").string(p.date);
  w.key("nodes_before_minimization").unsignedInteger(p.nodes_before);
  w.key("nodes_after_minimization").unsignedInteger(p.nodes_after);
  w.key("oracle_calls").integer(p.oracle_calls);
  w.endObject();
}

Provenance readProvenance(const JsonAt& p) {
  Provenance out;
  out.seed = p.field("seed").unsignedInteger();
  out.config = stringOr(p, "config", "");
  out.nodes = static_cast<int>(integerOr(p, "nodes", 16));
  out.libtorch = stringOr(p, "libtorch", "");
  out.epsmith = stringOr(p, "epsmith", "");
  out.date = stringOr(p, "date", "");
  out.nodes_before = static_cast<size_t>(integerOr(p, "nodes_before_minimization", 0));
  out.nodes_after = static_cast<size_t>(integerOr(p, "nodes_after_minimization", 0));
  out.oracle_calls = static_cast<int>(integerOr(p, "oracle_calls", 0));
  return out;
}

void readExpected(const JsonAt& e, CaseFile& c) {
  c.check = e.field("check").string();
  c.signature = e.field("signature").string();
  if (auto check = diffCheckFromName(c.check)) c.finding.check = *check;
  readFindingFields(e, c.finding);
}

UpstreamRecord readUpstream(const JsonAt& j) {
  UpstreamRecord r;
  const std::string cls = j.field("class").string();
  if (auto parsed = upstreamClassFromName(cls))
    r.cls = *parsed;
  else
    j.field("class").fail("unknown class " + jsonQuoted(cls) + " (torch-confirmed, cpp-only, unconfirmed)");
  r.torch = stringOr(j, "torch", "");
  r.reason = stringOr(j, "reason", "");
  r.date = stringOr(j, "date", "");
  if (auto releases = j.optional("releases")) {
    for (size_t i = 0; i < releases->size(); ++i) {
      const JsonAt at = (*releases)[i];
      r.releases.push_back({at.field("torch").string(), at.field("outcome").string()});
    }
  }
  return r;
}

}  // namespace

RootCause rootCauseOf(const CaseFile& c) {
  RootCause r{c.check, crashKind(c.finding.kind), messageTemplate(c.finding), {}};
  if (!c.core_ops.empty())
    r.ops = c.core_ops;
  else if (c.program)
    r.ops = coreOps(*c.program);
  else if (!c.finding.op.empty())
    r.ops.push_back(coreOpName(c.finding.op));
  r.class_ops = c.class_ops;
  const bool by_class = std::any_of(r.ops.begin(), r.ops.end(), [](const std::string& op) { return op[0] == '*'; });
  if (r.class_ops.empty() && by_class && c.program) {
    for (const std::string& op : coreOps(*c.program)) {
      if (std::find(r.ops.begin(), r.ops.end(), op) == r.ops.end()) r.class_ops.push_back(op);
    }
  }
  if (c.program) r.traits = programTraits(*c.program);
  return r;
}

std::string crashKind(const std::string& kind) {
  for (const char* memory : {"crash-SIGSEGV", "crash-SIGABRT", "crash-SIGBUS"}) {
    if (kind == memory) return "crash-memory";
  }
  return kind;
}

bool sameFailure(const std::string& now, const std::string& recorded) {
  if (now == recorded) return true;
  // "<check or phase> <kind>[ <op>]"
  const size_t n_kind = now.find(' '), r_kind = recorded.find(' ');
  if (n_kind == std::string::npos || r_kind == std::string::npos || now.compare(0, n_kind, recorded, 0, r_kind) != 0) {
    return false;
  }
  const size_t n_end = std::min(now.find(' ', n_kind + 1), now.size());
  const size_t r_end = std::min(recorded.find(' ', r_kind + 1), recorded.size());
  const std::string now_op = now.substr(n_end), recorded_op = recorded.substr(r_end);
  const std::string now_kind = crashKind(now.substr(n_kind + 1, n_end - n_kind - 1));
  const std::string recorded_kind = crashKind(recorded.substr(r_kind + 1, r_end - r_kind - 1));
  // Note [One memory error, several signals]: the same but for the signal; or a recorded
  // memory crash that now raised in one run at its op, or outside every op; or a recorded
  // exception of one run that now crashes at its op.
  if (now_kind == "crash-memory" && recorded_kind == "crash-memory") return now_op == recorded_op;
  if (recorded_kind == "crash-memory" && now_kind == "exception-in-one") return now_op.empty() || now_op == recorded_op;
  if (recorded_kind == "exception-in-one" && now_kind == "crash-memory")
    return !now_op.empty() && now_op == recorded_op;
  return false;
}

std::string_view caseStatusName(CaseStatus s) {
  switch (s) {
    case CaseStatus::Open: return "open";
    case CaseStatus::KnownUpstream: return "known-upstream";
    case CaseStatus::Fixed: return "fixed";
  }
  return "?";
}

std::string_view upstreamClassName(UpstreamClass c) {
  switch (c) {
    case UpstreamClass::TorchConfirmed: return "torch-confirmed";
    case UpstreamClass::CppOnly: return "cpp-only";
    case UpstreamClass::Unconfirmed: return "unconfirmed";
  }
  return "unconfirmed";
}

std::optional<UpstreamClass> upstreamClassFromName(std::string_view name) {
  for (auto c : {UpstreamClass::TorchConfirmed, UpstreamClass::CppOnly, UpstreamClass::Unconfirmed}) {
    if (upstreamClassName(c) == name) return c;
  }
  return std::nullopt;
}

Expected<std::string> writeCaseFileText(const CaseFile& c) {
  std::string program;
  if (c.program) {
    auto written = programJsonValue(*c.program);
    if (!written.ok()) return written.error();
    program = std::move(written.value());
  }
  JsonWriter w(InvalidUtf8::Replace);  // in this order, so a person reads the verdict first
  w.beginObject();
  w.key("epsmith_case").integer(kCaseFormatVersion);
  w.key("bucket").string(c.bucket);
  w.key("bucket_key").string(c.bucket_key);
  if (!c.core_ops.empty()) w.key("core_ops").strings(c.core_ops);
  if (!c.class_ops.empty()) w.key("class_ops").strings(c.class_ops);
  w.key("status").string(caseStatusName(c.status));
  if (!c.note.empty()) w.key("note").string(c.note);
  w.key("expected").beginObject();
  w.key("check").string(c.check);
  w.key("signature").string(c.signature);
  writeFindingFields(w, c.finding);
  w.endObject();
  writeProvenance(w.key("provenance"), c.provenance);
  if (c.upstream) {
    w.key("upstream").beginObject();
    w.key("class").string(upstreamClassName(c.upstream->cls));
    w.key("torch").string(c.upstream->torch);
    w.key("reason").string(c.upstream->reason);
    w.key("date").string(c.upstream->date);
    if (!c.upstream->releases.empty()) {
      w.key("releases").beginArray();
      for (const ReleaseOutcome& r : c.upstream->releases) {
        w.beginObject();
        w.key("torch").string(r.torch);
        w.key("outcome").string(r.outcome);
        w.endObject();
      }
      w.endArray();
    }
    w.endObject();
  }
  w.key("program");
  if (c.program)
    w.raw(program);
  else
    w.null();
  w.endObject();
  return indentedJson(w.compact());
}

bool isCaseFileText(const std::string& text) {
  const size_t at = text.find("\"epsmith_case\"");
  return at != std::string::npos && at < 64;
}

Expected<CaseFile> parseCaseFile(const std::string& text, const std::string& where) {
  return readJson(text, where, [](const JsonAt& j) -> Expected<CaseFile> {
    j.expectObject();
    auto version = j.optional("epsmith_case");
    if (!version) j.fail("not an epsmith case file (no epsmith_case)");
    if (version->integer() == 1) {
      version->fail("case format 1 keeps only part of its finding; convert it with ci/migrate-cases.py");
    }
    if (version->integer() != kCaseFormatVersion) {
      version->fail("unsupported case format " + std::to_string(version->integer()));
    }
    CaseFile c;
    c.bucket = j.field("bucket").string();
    c.bucket_key = stringOr(j, "bucket_key", "");
    if (auto ops = j.optional("core_ops")) c.core_ops = ops->strings();
    if (auto ops = j.optional("class_ops")) c.class_ops = ops->strings();
    readExpected(j.field("expected"), c);
    const std::string status = stringOr(j, "status", "open");
    if (auto s = caseStatusFromName(status))
      c.status = *s;
    else
      j.field("status").fail("unknown status " + jsonQuoted(status) + " (open, known-upstream, fixed)");
    c.note = stringOr(j, "note", "");
    c.provenance = readProvenance(j.field("provenance"));
    if (auto up = j.optional("upstream")) c.upstream = readUpstream(*up);
    auto program = j.optional("program");
    if (!program) return c;
    auto read = readProgramJsonAt(*program);
    if (read.ok()) {
      c.program = std::move(read.value());
    } else if (!c.provenance.libtorch.empty() && c.provenance.libtorch != libtorchVersion()) {
      c.program_unreadable_here = read.error().str();  // Note [Cases found on another LibTorch]
    } else {
      return read.error();
    }
    return c;
  });
}

Expected<CaseFile> readCaseFile(const std::string& path) {
  auto text = readFileBytes(path);
  if (!text.ok()) return text.error();
  return parseCaseFile(text.value(), path);
}

Expected<std::string> writeCaseAtomically(const std::string& dir, const std::string& name, const CaseFile& c) {
  auto text = writeCaseFileText(c);
  if (!text.ok()) return text.error();
  const fs::path regressions = fs::path(dir) / "regressions";
  const fs::path incoming = regressions / ".incoming";
  std::error_code ec;
  fs::create_directories(incoming, ec);
  if (ec) return Diagnostic{incoming.string(), "cannot create the directory: " + ec.message()};
  // The bucket's directory is made whole under .incoming and renamed into place: rename(2)
  // of a directory onto a non-empty one fails, so a bucket never gets a second file.
  std::string tmpl = (incoming / (c.bucket + ".XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) return Diagnostic{tmpl, std::string("cannot create: ") + std::strerror(errno)};
  const fs::path staged = fs::path(tmpl) / name;
  if (auto error = writeFileAtomically(staged.string(), text.value())) {
    removeTree(tmpl);
    return *error;
  }
  const fs::path target = regressions / c.bucket;
  if (::rename(tmpl.c_str(), target.c_str()) != 0) {
    const int err = errno;
    removeTree(tmpl);
    return Diagnostic{target.string(), std::string("cannot move the case into place: ") + std::strerror(err)};
  }
  return (target / name).string();
}

std::vector<std::string> existingBuckets(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(dir) / "regressions", ec)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory() || name.empty() || name[0] == '.') continue;
    for (const auto& file : fs::directory_iterator(entry.path(), ec)) {
      if (file.path().extension() == ".json") {
        out.push_back(name);
        break;
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Expected<std::vector<std::string>> caseFilesUnder(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& path : paths) {
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) {
      out.push_back(path);
      continue;
    }
    if (!fs::is_directory(path, ec)) return Diagnostic{path, "no such file or directory"};
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (!name.empty() && name[0] == '.') {
        if (it->is_directory()) it.disable_recursion_pending();
        continue;
      }
      const bool known_bugs_list = name == kKnownBugsFile;  // corpus/known.json: not a case
      if (it->is_regular_file() && it->path().extension() == ".json" && !known_bugs_list)
        found.push_back(it->path().string());
    }
    if (ec) return Diagnostic{path, "cannot list: " + ec.message()};
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

std::string libtorchVersion() { return compat::libtorchVersion(); }

std::string utcNow() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace epsmith
