// See known_bugs.h.
#include "fuzz/known_bugs.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "formats/json.h"
#include "fuzz/corpus.h"

namespace epsmith {
namespace {

constexpr int kKnownBugsVersion = 1;

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

KnownBug readEntry(const JsonAt& j) {
  j.allowOnly({"id", "check", "kind", "template", "message", "ops", "traits", "libtorch", "issue", "why", "repro"});
  KnownBug b;
  b.id = j.field("id").string();
  b.checks = oneOrMore(j, "check");
  b.kinds = oneOrMore(j, "kind");
  for (std::string& k : b.kinds) k = crashKind(k);
  b.template_is = stringOr(j, "template");
  b.message = stringOr(j, "message");
  try {  // std::regex reports a bad pattern only by throwing
    b.message_regex = std::regex(b.message, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    j.field("message").fail(std::string("bad regex: ") + e.what());
  }
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
  b.libtorch = stringsOr(j, "libtorch");
  b.issue = stringOr(j, "issue");
  b.why = stringOr(j, "why");
  b.repro = stringOr(j, "repro");
  if (b.issue.empty() && b.why.empty()) j.fail("an entry needs its \"issue\" or a \"why\"");
  return b;
}

bool appliesTo(const KnownBug& b, const std::string& version) {
  if (b.libtorch.empty()) return true;
  return std::any_of(b.libtorch.begin(), b.libtorch.end(),
                     [&](const std::string& prefix) { return version.rfind(prefix, 0) == 0; });
}

}  // namespace

Expected<KnownBugs> KnownBugs::parse(std::string_view text, const std::string& where) {
  return readJson(text, where, [](const JsonAt& j) {
    j.allowOnly({"epsmith_known_bugs", "bugs"});
    const JsonAt version = j.field("epsmith_known_bugs");
    if (version.integer() != kKnownBugsVersion) version.fail("unknown version (this epsmith reads 1)");
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

const KnownBug* KnownBugs::match(const RootCause& root, const std::string& version) const {
  for (const KnownBug& b : bugs_) {
    if (!appliesTo(b, version)) continue;
    if (!b.checks.empty() && std::find(b.checks.begin(), b.checks.end(), root.check) == b.checks.end()) continue;
    if (!b.kinds.empty() && std::find(b.kinds.begin(), b.kinds.end(), root.kind) == b.kinds.end()) continue;
    if (!b.template_is.empty() && b.template_is != root.message) continue;
    if (!b.message.empty() && !std::regex_search(root.message, b.message_regex)) continue;
    auto named = [&](const std::vector<std::string>& ops) {
      return std::any_of(ops.begin(), ops.end(),
                         [&](const std::string& op) { return std::find(b.ops.begin(), b.ops.end(), op) != b.ops.end(); });
    };
    const bool op_matches = b.ops.empty() || named(root.ops) || named(root.class_ops);
    const bool has_traits = std::all_of(b.traits.begin(), b.traits.end(), [&](const std::string& t) {
      return std::find(root.traits.begin(), root.traits.end(), t) != root.traits.end();
    });
    if (op_matches && has_traits) return &b;
  }
  return nullptr;
}

}  // namespace epsmith
