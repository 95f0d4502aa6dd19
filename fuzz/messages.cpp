// See messages.h.
#include "fuzz/messages.h"

#include "formats/json.h"
#include "formats/json_format.h"
#include "fuzz/finding_record.h"
#include "fuzz/root_cause.h"

namespace epsmith {

Failing Failing::of(const CheckOutcome& finding) {
  return {std::string(diffCheckName(finding.check)), failureSignature(finding), finding, std::nullopt,
          messageTemplate(finding)};
}

Failing Failing::of(const WorkerDeath& death) {
  return {death.phase.empty() ? "worker" : death.phase, deathSignature(death), std::nullopt, death,
          messageTemplate(death)};
}

bool Failing::matches(const CheckOutcome& now) const {
  return now.status == CheckOutcome::Status::Finding && failureSignature(now) == signature &&
         (message.empty() || messageTemplate(now) == message);
}

CheckOptions focusedOn(const Failing& f) { return f.finding ? focusedOn(*f.finding) : CheckOptions{}; }

std::string deathSignature(const WorkerDeath& d) {
  std::string s = (d.phase.empty() ? "worker" : d.phase) + " " + d.kindName();
  if (!d.op.empty()) s += " " + d.op;
  return s;
}

namespace {

// ---- the records, each an object of its fields --------------------------------------------

void write(JsonWriter& w, const CheckOutcome& o) {
  w.beginObject();
  w.key("check").string(diffCheckName(o.check));
  w.key("status").integer(static_cast<int>(o.status));
  if (o.status == CheckOutcome::Status::Finding)
    writeFindingFields(w, o);
  else
    w.key("report").string(o.report);
  w.endObject();
}

CheckOutcome readOutcomeAt(const JsonAt& j) {
  CheckOutcome o;
  const JsonAt check = j.field("check");
  if (auto c = diffCheckFromName(check.view()))
    o.check = *c;
  else
    check.fail("unknown check " + jsonQuoted(check.view()));
  const int64_t status = j.field("status").integer();
  if (status < 0 || status > static_cast<int>(CheckOutcome::Status::Skipped)) j.field("status").fail("unknown status");
  o.status = static_cast<CheckOutcome::Status>(status);
  if (o.status == CheckOutcome::Status::Finding)
    readFindingFields(j, o);
  else
    o.report = j.field("report").string();
  return o;
}

void write(JsonWriter& w, const WorkerDeath& d) {
  w.beginObject();
  w.key("kind").integer(static_cast<int>(d.kind));
  w.key("code").integer(d.code);
  w.key("phase").string(d.phase);
  w.key("op").string(d.op);
  w.key("frame").string(d.frame);
  w.endObject();
}

WorkerDeath readDeathAt(const JsonAt& j) {
  WorkerDeath d;
  const int64_t kind = j.field("kind").integer();
  if (kind < 0 || kind > static_cast<int>(WorkerDeath::Kind::OutOfMemory)) j.field("kind").fail("unknown kind");
  d.kind = static_cast<WorkerDeath::Kind>(kind);
  d.code = static_cast<int>(j.field("code").integer());
  d.phase = j.field("phase").string();
  d.op = j.field("op").string();
  d.frame = j.field("frame").string();
  return d;
}

void write(JsonWriter& w, const Failing& f) {
  w.beginObject();
  w.key("check").string(f.check);
  w.key("signature").string(f.signature);
  if (f.finding) write(w.key("finding"), *f.finding);
  if (f.crash) write(w.key("crash"), *f.crash);
  w.key("message").string(f.message);
  w.endObject();
}

Failing readFailingAt(const JsonAt& j) {
  Failing f;
  f.check = j.field("check").string();
  f.signature = j.field("signature").string();
  if (auto finding = j.optional("finding")) f.finding = readOutcomeAt(*finding);
  if (auto crash = j.optional("crash")) f.crash = readDeathAt(*crash);
  f.message = j.field("message").string();
  return f;
}

// The phases' seconds, then the part in ATen kernels.
void write(JsonWriter& w, const PhaseTimes& t) {
  w.beginArray();
  for (double s : t.seconds) w.number(s);
  w.number(t.in_ops);
  w.endArray();
}

PhaseTimes readTimesAt(const JsonAt& j) {
  PhaseTimes t;
  if (j.size() != t.seconds.size() + 1) j.fail("expected " + std::to_string(t.seconds.size() + 1) + " numbers");
  for (size_t i = 0; i < t.seconds.size(); ++i) t.seconds[i] = j[i].number();
  t.in_ops = j[t.seconds.size()].number();
  return t;
}

void write(JsonWriter& w, const RootCause& k) {
  w.beginObject();
  w.key("check").string(k.check);
  w.key("kind").string(k.kind);
  w.key("message").string(k.message);
  w.key("ops").strings(k.ops);
  w.key("class_ops").strings(k.class_ops);
  w.key("traits").strings(k.traits);
  w.endObject();
}

RootCause readRootCauseAt(const JsonAt& j) {
  RootCause r{j.field("check").string(), j.field("kind").string(), j.field("message").string(),
              j.field("ops").strings()};
  r.class_ops = j.field("class_ops").strings();
  r.traits = j.field("traits").strings();
  return r;
}

size_t sizeAt(const JsonAt& j) {
  const int64_t n = j.integer();
  if (n < 0) j.fail("negative count");
  return static_cast<size_t>(n);
}

template <typename F>
std::string message(F&& body) {
  JsonWriter w(InvalidUtf8::Replace);
  w.beginObject();
  body(w);
  w.endObject();
  return w.str();
}

}  // namespace

// ---- messages ------------------------------------------------------------------------------

std::string writeRequest(const WorkRequest& r) {
  return message([&](JsonWriter& w) {
    w.key("type").string(r.type == WorkRequest::Type::Case ? "case" : "minimize");
    w.key("seed").unsignedInteger(r.seed);
    if (r.failing) write(w.key("failing"), *r.failing);
    if (r.fork_steps) w.key("fork_steps").boolean(true);
  });
}

Expected<WorkRequest> readRequest(std::string_view text) {
  return readJson(text, "request", [](const JsonAt& j) {
    WorkRequest r;
    const JsonAt type = j.field("type");
    if (type.view() == "minimize")
      r.type = WorkRequest::Type::Minimize;
    else if (type.view() != "case")
      type.fail("unknown request " + jsonQuoted(type.view()));
    r.seed = j.field("seed").unsignedInteger();
    if (auto failing = j.optional("failing")) r.failing = readFailingAt(*failing);
    if (r.type == WorkRequest::Type::Minimize && !r.failing) j.field("failing");  // fails: it is required
    if (auto fork = j.optional("fork_steps")) r.fork_steps = fork->boolean();
    return r;
  });
}

std::string writeCaseReply(const CaseResult& r) {
  return message([&](JsonWriter& w) {
    w.key("seed").unsignedInteger(r.seed);
    write(w.key("times"), r.times);
    w.key("nodes").unsignedInteger(r.nodes);
    if (r.generation_error) w.key("generation_error").string(*r.generation_error);
    w.key("outcomes").beginArray();
    for (const auto& o : r.outcomes) write(w, o);
    w.endArray();
  });
}

Expected<CaseResult> readCaseReply(std::string_view text) {
  return readJson(text, "case reply", [](const JsonAt& j) {
    CaseResult r;
    r.seed = j.field("seed").unsignedInteger();
    r.times = readTimesAt(j.field("times"));
    r.nodes = sizeAt(j.field("nodes"));
    if (auto e = j.optional("generation_error")) r.generation_error = e->string();
    const JsonAt outcomes = j.field("outcomes");
    for (size_t i = 0; i < outcomes.size(); ++i) r.outcomes.push_back(readOutcomeAt(outcomes[i]));
    return r;
  });
}

// The minimized program goes as JSON (Note [One JSON stack]); one no file can hold goes
// without it, its finding still filed.
std::string writeMinimizeReply(const MinimizedFinding& m) {
  return message([&](JsonWriter& w) {
    w.key("signature").string(m.signature);
    write(w.key("root"), m.root);
    w.key("check").string(m.check);
    write(w.key("finding"), m.finding);
    w.key("nodes_before").unsignedInteger(m.nodes_before);
    w.key("nodes_after").unsignedInteger(m.nodes_after);
    w.key("oracle_calls").integer(m.oracle_calls);
    w.key("steps").strings(m.steps);
    write(w.key("times"), m.times);
    w.key("flaky").boolean(m.flaky);
    if (!m.program) return;
    if (auto program = programJsonValue(*m.program); program.ok()) w.key("program").raw(program.value());
  });
}

Expected<MinimizedFinding> readMinimizeReply(std::string_view text) {
  return readJson(text, "minimize reply", [](const JsonAt& j) -> Expected<MinimizedFinding> {
    MinimizedFinding m;
    m.signature = j.field("signature").string();
    m.root = readRootCauseAt(j.field("root"));
    m.check = j.field("check").string();
    m.finding = readOutcomeAt(j.field("finding"));
    m.nodes_before = sizeAt(j.field("nodes_before"));
    m.nodes_after = sizeAt(j.field("nodes_after"));
    m.oracle_calls = static_cast<int>(j.field("oracle_calls").integer());
    m.steps = j.field("steps").strings();
    m.times = readTimesAt(j.field("times"));
    m.flaky = j.field("flaky").boolean();
    if (auto program = j.optional("program")) {
      auto read = readProgramJsonAt(*program);
      if (!read.ok()) return read.error();
      m.program = std::move(read.value());
    }
    return m;
  });
}

StepRunner eagerStepsInChildren(const WorkerLimits& limits) {
  return [limits](const EagerStep& step) -> std::optional<ExportedProgram> {
    const IsolatedOutcome o = runIsolated(
        [&] {
          auto candidate = step();
          auto json = candidate ? programJsonValue(*candidate) : Expected<std::string>(std::string());
          return json.ok() ? json.value() : std::string();  // "": no candidate
        },
        limits);
    if (!o.result || o.result->empty()) return std::nullopt;
    auto back = readProgramJson(*o.result);
    if (!back.ok()) return std::nullopt;
    return std::move(back.value());
  };
}

std::string writeOutcome(const CheckOutcome& o) {
  JsonWriter w(InvalidUtf8::Replace);
  write(w, o);
  return w.str();
}

Expected<CheckOutcome> readOutcome(std::string_view text) {
  return readJson(text, "check outcome", [](const JsonAt& j) { return readOutcomeAt(j); });
}

}  // namespace epsmith
