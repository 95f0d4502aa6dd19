// JSON → IR values for formats/json_read.cpp: a cursor that knows its JSON path, and decoders of
// tensor metas, node values, signatures and node metadata. Every failure is located.
#pragma once

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/json_detail.h"
#include "formats/json_value.h"
#include "ir/graph.h"
#include "ir/meta.h"
#include "ir/signature.h"

namespace epsmith::json_detail {

// A JSON value and its path (`$.exported_program.graph_module.graph.nodes[3]`). Accessors
// check the JSON type and fail at this path.
//
// Note [Paths found when needed]
// A reader touches every value of a file once and fails at most once, so a cursor does not
// carry its path: it knows its value and the document's root, and path() finds the value
// in the document (a walk of the document, only on the way to an error). Building each
// cursor's path as it was made cost the reader an eighth of its time.
class At {
 public:
  // The root of a document, found at `path`.
  At(const JsonValue& j, std::string path);
  // The root of the document parsed from the string `outer` holds: its paths begin there.
  static At inside(const JsonValue& j, const At& outer);
  const JsonValue& json() const { return *j_; }
  std::string path() const;
  [[noreturn]] void fail(const std::string& message) const;
  bool isNull() const { return j_->isNull(); }

  // Objects.
  void expectObject() const;
  At field(std::string_view key) const;                           // required
  At memberAt(size_t i) const { return At(&(*j_)[i], origin_); }  // an object's i-th member
  std::optional<At> optional(std::string_view key) const;         // absent or null: nullopt
  void allowOnly(std::initializer_list<std::string_view> keys) const;
  // A union: an object with exactly one key, one of `tags`; returns the tag (a view of the
  // document) and its value.
  std::pair<std::string_view, At> unionOf(std::string_view what, const std::vector<std::string_view>& tags) const;
  template <typename F>
  void forEachEntry(F&& f) const {
    expectObject();
    for (const JsonValue& member : *j_) f(std::string(member.key()), At(&member, origin_));
  }

  // Arrays.
  size_t size() const;  // fails unless an array
  At operator[](size_t i) const { return At(&(*j_)[i], origin_); }

  // Scalars. number() also takes "Infinity", "-Infinity" and "NaN".
  int64_t integer() const;
  uint64_t unsignedInteger() const;  // a whole number from 0 to UINT64_MAX
  double number() const;
  bool boolean() const;
  std::string string() const;
  std::string_view view() const;  // string() without the copy
  std::vector<std::string> strings() const;
  std::vector<int64_t> integers() const;

 private:
  struct Origin;  // the document's root and where that root is
  // Shares an Origin among a document's cursors, which never leave their thread, so unlike
  // std::shared_ptr its count is a plain integer (a reader makes thousands of cursors).
  class OriginRef {
   public:
    OriginRef() = default;
    explicit OriginRef(Origin* o);
    OriginRef(const OriginRef& other);
    OriginRef& operator=(const OriginRef& other);
    ~OriginRef();  // inline below: a reader makes and drops a cursor per value it reads
    // Deletes the last reference's Origin: out of line, where the rare path belongs (and
    // where GCC's use-after-free warning does not mistake the count for a use).
    [[gnu::noinline]] static void destroy(Origin* o);
    const Origin* operator->() const { return o_; }
    const Origin& operator*() const { return *o_; }

   private:
    Origin* o_ = nullptr;
  };
  At(const JsonValue* j, OriginRef origin) : j_(j), origin_(std::move(origin)) {}
  const JsonValue* j_;
  OriginRef origin_;
};

struct At::Origin {
  const JsonValue* root;
  std::string path;         // of the root, unless it is inside another document
  std::optional<At> outer;  // the string this document was parsed from
  int64_t users = 0;
};

inline At::OriginRef::OriginRef(Origin* o) : o_(o) { ++o_->users; }
inline At::OriginRef::OriginRef(const OriginRef& other) : o_(other.o_) {
  if (o_) ++o_->users;
}
inline At::OriginRef& At::OriginRef::operator=(const OriginRef& other) {
  if (other.o_) ++other.o_->users;
  if (o_ && --o_->users == 0) destroy(o_);
  o_ = other.o_;
  return *this;
}
inline At::OriginRef::~OriginRef() {
  if (o_ && --o_->users == 0) destroy(o_);
}

// parseJson of the string at `where`, whose path is only found for malformed text.
JsonDocument parseJsonAt(std::string_view text, const At& where);

// TensorArgument / TokenArgument: {"name": str}.
std::string readTensorArgument(const At& a);
ScalarType readDtype(const At& a);
Layout readLayout(const At& a);
MemoryFormat readMemoryFormat(const At& a);
Device readDevice(const At& a);
SymExpr readSymExpr(const At& a);
SymIntValue readSymInt(const At& a);
TensorMeta readTensorMeta(const At& a);
// The "epsmith.val" union.
Val readVal(const At& a);
ConstantValue readConstantValue(const At& a);
SpecArg readSpecArg(const At& a);
GraphSignature readSignature(const At& a);

// Node metadata: torch's entries and custom ones in `meta` (val left Missing), the epsmith
// extensions beside it.
struct MetaRead {
  NodeMeta meta;
  std::optional<OpKind> op;
  std::optional<std::string> target_kind;  // "other" / "higher_order"
  std::optional<Val> val;
  std::optional<std::vector<int64_t>> unused_outputs;
};
MetaRead readMetadata(const At& a);

}  // namespace epsmith::json_detail
