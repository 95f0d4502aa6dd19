// See messages.h.
#include "fuzz/messages.h"

namespace epsmith {

using json = nlohmann::json;

Failing Failing::of(const CheckOutcome& finding) {
  return {std::string(diffCheckName(finding.check)), failureSignature(finding), finding, std::nullopt};
}

Failing Failing::of(const WorkerDeath& death) {
  return {death.phase.empty() ? "worker" : death.phase, deathSignature(death), std::nullopt, death};
}

CheckOptions focusedOn(const Failing& f) { return f.finding ? focusedOn(*f.finding) : CheckOptions{}; }

std::string deathSignature(const WorkerDeath& d) {
  std::string s = (d.phase.empty() ? "worker" : d.phase) + " " + d.kindName();
  if (!d.op.empty()) s += " " + d.op;
  return s;
}

std::string messageText(const json& message) { return message.dump(-1, ' ', false, json::error_handler_t::replace); }

json toJson(const CheckOutcome& o) {
  json j{{"check", diffCheckName(o.check)}, {"status", static_cast<int>(o.status)}, {"report", o.report}};
  if (o.status != CheckOutcome::Status::Finding) return j;
  j["kind"] = o.kind;
  j["where"] = o.where;
  j["op"] = o.op;
  j["variant"] = o.variant;
  return j;
}

CheckOutcome outcomeFrom(const json& j) {
  CheckOutcome o;
  o.check = diffCheckFromName(j.at("check").get<std::string>()).value_or(DiffCheck::D1);
  o.status = static_cast<CheckOutcome::Status>(j.at("status").get<int>());
  o.report = j.at("report").get<std::string>();
  if (o.status != CheckOutcome::Status::Finding) return o;
  o.kind = j.at("kind").get<std::string>();
  o.where = j.at("where").get<std::string>();
  o.op = j.at("op").get<std::string>();
  o.variant = j.at("variant").get<std::string>();
  return o;
}

json toJson(const WorkerDeath& d) {
  return {{"kind", static_cast<int>(d.kind)}, {"code", d.code}, {"phase", d.phase}, {"op", d.op}};
}

WorkerDeath deathFrom(const json& j) {
  WorkerDeath d;
  d.kind = static_cast<WorkerDeath::Kind>(j.at("kind").get<int>());
  d.code = j.at("code").get<int>();
  d.phase = j.at("phase").get<std::string>();
  d.op = j.at("op").get<std::string>();
  return d;
}

json toJson(const Failing& f) {
  json j{{"check", f.check}, {"signature", f.signature}};
  if (f.finding) j["finding"] = toJson(*f.finding);
  if (f.crash) j["crash"] = toJson(*f.crash);
  return j;
}

Failing failingFrom(const json& j) {
  Failing f;
  f.check = j.at("check").get<std::string>();
  f.signature = j.at("signature").get<std::string>();
  if (j.contains("finding")) f.finding = outcomeFrom(j.at("finding"));
  if (j.contains("crash")) f.crash = deathFrom(j.at("crash"));
  return f;
}

json toJson(const PhaseTimes& t) {
  std::vector<double> v(t.seconds.begin(), t.seconds.end());
  v.push_back(t.in_ops);
  return json(v);
}

PhaseTimes timesFrom(const json& j) {
  PhaseTimes t;
  for (size_t i = 0; i < t.seconds.size() && i < j.size(); ++i) t.seconds[i] = j[i].get<double>();
  if (j.size() > t.seconds.size()) t.in_ops = j[t.seconds.size()].get<double>();
  return t;
}

}  // namespace epsmith
