// See known_bugs.h.
#include "fuzz/known_bugs.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "formats/json.h"
#include "fuzz/corpus.h"

namespace epsmith {
namespace {

constexpr int kKnownBugsVersion = 2;

std::string stringOr(const JsonAt& object, std::string_view key) {
  auto v = object.optional(key);
  return v ? v->string() : std::string();
}

std::vector<std::string> stringsOr(const JsonAt& object, std::string_view key) {
  auto v = object.optional(key);
  return v ? v->strings() : std::vector<std::string>();
}

// A string or a list of them; none where the key is absent.
std::vector<std::string> oneOrMore(const JsonAt& object, std::string_view key) {
  auto v = object.optional(key);
  if (!v) return {};
  return v->json().isArray() ? v->strings() : std::vector<std::string>{v->string()};
}

std::regex regexAt(const JsonAt& j, std::string_view key, const std::string& pattern) {
  try {  // std::regex reports a bad pattern only by throwing
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    j.field(key).fail(std::string("bad regex: ") + e.what());
  }
  return {};
}

bool isRelease(std::string_view r) {
  const size_t dot = r.find('.');
  auto digits = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  return dot != std::string_view::npos && digits(r.substr(0, dot)) && digits(r.substr(dot + 1));
}

std::string releaseAt(const JsonAt& at) {
  std::string r = at.string();
  if (!isRelease(r)) at.fail("'" + r + "' is not a release (major.minor, as \"2.13\")");
  return r;
}

void readPattern(const JsonAt& j, KnownBug& b) {
  b.checks = oneOrMore(j, "check");
  b.kinds = oneOrMore(j, "kind");
  for (std::string& k : b.kinds) k = crashKind(k);
  b.template_is = stringOr(j, "template");
  b.message = stringOr(j, "message");
  b.message_regex = regexAt(j, "message", b.message);
  b.ops = stringsOr(j, "ops");
  // As root causes name them (Note [Op aliases from the JIT's normalization],
  // Note [Ops that take another tensor's sizes]).
  for (std::string& op : b.ops) op = coreOpName(op);
  b.traits = stringsOr(j, "traits");
  for (const std::string& t : b.traits) {
    if (std::none_of(std::begin(kProgramTraits), std::end(kProgramTraits), [&](const char* k) { return t == k; })) {
      std::string known;
      for (const char* k : kProgramTraits) known += (known.empty() ? "" : ", ") + std::string(k);
      j.field("traits").fail("unknown program trait '" + t + "' (" + known + ")");
    }
  }
  b.frame = stringOr(j, "frame");
  b.frame_regex = regexAt(j, "frame", b.frame);
  const bool crashes_only = !b.kinds.empty() && std::all_of(b.kinds.begin(), b.kinds.end(), [](const std::string& k) {
    return k.rfind("crash", 0) == 0;
  });
  if (!b.frame.empty() && !crashes_only) {
    j.field("frame").fail("a frame names where a crash died: every kind must be a crash");
  }
  if (b.ops.empty() && b.traits.empty() && b.frame.empty()) {
    j.fail("an entry names its bug, not only its symptom: it needs \"ops\", \"traits\" or a crash's \"frame\"");
  }
}

void readStanding(const JsonAt& j, KnownBug& b) {
  const JsonAt path = j.field("path");
  const std::string p = path.string();
  if (p == "user")
    b.path = KnownPath::User;
  else if (p == "cpp-only")
    b.path = KnownPath::CppOnly;
  else if (p == "by-design")
    b.path = KnownPath::ByDesign;
  else
    path.fail("'" + p + "' is not a path (user, cpp-only, by-design)");
  b.doc = stringOr(j, "doc");
  if (b.path == KnownPath::ByDesign && b.doc.empty()) j.fail("a by-design entry needs the \"doc\" that says so");
  const JsonAt issue = j.field("issue");
  b.issue = issue.string();
  if (b.issue != "unreported" && b.issue.rfind("https://", 0) != 0) issue.fail("an issue is a link or \"unreported\"");
  const JsonAt seen = j.field("seen");
  for (size_t i = 0; i < seen.size(); ++i) b.seen.push_back(releaseAt(seen[i]));
  if (b.seen.empty()) seen.fail("the releases it was seen on, at least one");
  if (auto c = j.optional("checked")) b.checked = releaseAt(*c);
  if (auto f = j.optional("fixed")) {
    b.fixed = releaseAt(*f);
    for (const std::string& r : b.seen) {
      if (!releaseBefore(r, b.fixed)) f->fail("fixed in " + b.fixed + ", but seen on " + r);
    }
  }
}

KnownBug readEntry(const JsonAt& j) {
  j.allowOnly({"id", "check", "kind", "template", "message", "ops", "traits", "frame", "path", "doc", "issue", "seen",
               "checked", "fixed", "why", "repro"});
  KnownBug b;
  b.id = j.field("id").string();
  readPattern(j, b);
  readStanding(j, b);
  b.why = j.field("why").string();
  b.repro = stringOr(j, "repro");
  return b;
}

bool appliesTo(const KnownBug& b, const std::string& version) {
  const std::string release = releaseOf(version);
  if (!b.fixed.empty() && !releaseBefore(release, b.fixed)) return false;
  return std::find(b.seen.begin(), b.seen.end(), release) != b.seen.end();
}

bool among(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// What names the bug (Note [Known bugs]): before minimization only the raising op can.
bool namesTheBug(const KnownBug& b, const RootCause& root, MatchStage stage) {
  auto named = [&](const std::vector<std::string>& ops) {
    return std::any_of(ops.begin(), ops.end(), [&](const std::string& op) { return among(b.ops, op); });
  };
  if (stage == MatchStage::Raised && (b.ops.empty() || !b.traits.empty())) return false;
  if (!b.ops.empty() && !named(root.ops) && !named(root.class_ops)) return false;
  if (!b.frame.empty() && !std::regex_search(root.message, b.frame_regex)) return false;
  return std::all_of(b.traits.begin(), b.traits.end(), [&](const std::string& t) { return among(root.traits, t); });
}

}  // namespace

std::string_view knownPathName(KnownPath p) {
  switch (p) {
    case KnownPath::User: return "user";
    case KnownPath::CppOnly: return "cpp-only";
    case KnownPath::ByDesign: return "by-design";
  }
  return "user";
}

std::string releaseOf(std::string_view version) {
  const size_t dot = version.find('.');
  if (dot == std::string_view::npos) return std::string(version);
  size_t end = dot + 1;
  while (end < version.size() && version[end] >= '0' && version[end] <= '9') ++end;
  return std::string(version.substr(0, end));
}

bool releaseBefore(std::string_view a, std::string_view b) {
  auto parts = [](std::string_view r) {
    const size_t dot = r.find('.');
    const std::string major(r.substr(0, dot));
    const std::string minor(dot == std::string_view::npos ? "0" : r.substr(dot + 1));
    return std::pair<long, long>(std::strtol(major.c_str(), nullptr, 10), std::strtol(minor.c_str(), nullptr, 10));
  };
  return parts(a) < parts(b);
}

Expected<KnownBugs> KnownBugs::parse(std::string_view text, const std::string& where) {
  return readJson(text, where, [](const JsonAt& j) {
    j.allowOnly({"epsmith_known_bugs", "bugs"});
    const JsonAt version = j.field("epsmith_known_bugs");
    if (version.integer() != kKnownBugsVersion) version.fail("unknown version (this epsmith reads 2)");
    KnownBugs list;
    const JsonAt bugs = j.field("bugs");
    for (size_t i = 0; i < bugs.size(); ++i) {
      list.bugs_.push_back(readEntry(bugs[i]));
      for (size_t k = 0; k + 1 < list.bugs_.size(); ++k) {
        if (list.bugs_[k].id == list.bugs_.back().id) bugs[i].field("id").fail("a second entry with this id");
      }
    }
    return list;
  });
}

Expected<KnownBugs> KnownBugs::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Diagnostic{path, "cannot open the known-bugs list"};
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

const KnownBug* KnownBugs::match(const RootCause& root, const std::string& version, MatchStage stage) const {
  for (const KnownBug& b : bugs_) {
    if (!appliesTo(b, version)) continue;
    if (!b.checks.empty() && !among(b.checks, root.check)) continue;
    if (!b.kinds.empty() && !among(b.kinds, root.kind)) continue;
    if (!b.template_is.empty() && b.template_is != root.message) continue;
    if (!b.message.empty() && !std::regex_search(root.message, b.message_regex)) continue;
    if (namesTheBug(b, root, stage)) return &b;
  }
  return nullptr;
}

}  // namespace epsmith
