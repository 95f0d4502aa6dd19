// TensorMeta helpers and structural equality of node values.
#include "ir/meta.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <unordered_map>

namespace epsmith {

namespace {

// The same expression to the bit: a hint of -0.0 is not one of 0.0, and a NaN hint is its
// own (SymExpr's == says otherwise of both, and interning must not merge what a file spells
// differently, nor add a NaN-hinted expression once per read).
bool sameSpelling(const SymExpr& a, const SymExpr& b) {
  if (a.expr != b.expr || a.hint.has_value() != b.hint.has_value()) return false;
  if (!a.hint) return true;
  if (a.hint->index() != b.hint->index()) return false;
  if (const double* x = std::get_if<double>(&*a.hint)) {
    const double y = std::get<double>(*b.hint);
    return std::memcmp(x, &y, sizeof y) == 0;
  }
  return *a.hint == *b.hint;
}

}  // namespace

std::optional<std::string> soleSymbol(const std::string& expr) {
  const std::string prefix = "Symbol('";
  if (expr.rfind(prefix, 0) == 0) {
    const size_t end = expr.find('\'', prefix.size());
    if (end != std::string::npos) return expr.substr(prefix.size(), end - prefix.size());
    return std::nullopt;
  }
  const bool identifier = !expr.empty() && std::all_of(expr.begin(), expr.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  }) && !std::isdigit(static_cast<unsigned char>(expr[0]));
  return identifier ? std::optional<std::string>(expr) : std::nullopt;
}

const SymExpr* internSymExpr(SymExpr e) {
  // Expressions by their text (few: Note [Sizes kept inline]); nodes of a
  // std::unordered_map never move, so the pointers handed out stay valid.
  static std::mutex mu;
  static auto* table = new std::unordered_multimap<std::string, SymExpr>();
  std::lock_guard<std::mutex> lock(mu);
  auto [first, last] = table->equal_range(e.expr);
  for (auto it = first; it != last; ++it) {
    if (sameSpelling(it->second, e)) return &it->second;
  }
  std::string key = e.expr;
  return &table->emplace(std::move(key), std::move(e))->second;
}

SymIntList TensorMeta::contiguousStrides(const SymIntList& sizes) {
  SymIntList strides(sizes.size());
  int64_t running = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = running;
    // Saturates where no tensor could exist (readers refuse such sizes: elementCountOverflows).
    if (sizes[i].isConcrete() && sizes[i].concrete() > 1 &&
        __builtin_mul_overflow(running, sizes[i].concrete(), &running)) {
      running = std::numeric_limits<int64_t>::max();
    }
  }
  return strides;
}

bool TensorMeta::elementCountOverflows(const SymIntList& sizes) {
  int64_t count = 1;
  for (const auto& s : sizes) {
    if (s.isConcrete() && s.concrete() > 1 && __builtin_mul_overflow(count, s.concrete(), &count)) return true;
  }
  return false;
}

TensorMeta TensorMeta::contiguous(ScalarType dtype, std::vector<int64_t> sizes) {
  TensorMeta m;
  m.dtype = dtype;
  m.sizes.assign(sizes.begin(), sizes.end());
  m.strides = contiguousStrides(m.sizes);
  return m;
}

bool TensorMeta::hasContiguousStrides() const { return strides == contiguousStrides(sizes); }

bool operator==(const TensorMeta& a, const TensorMeta& b) {
  return a.dtype == b.dtype && a.sizes == b.sizes && a.strides == b.strides && a.storage_offset == b.storage_offset &&
         a.device == b.device && a.requires_grad == b.requires_grad && a.layout == b.layout;
}

namespace {
template <typename T>
bool sameExpr(const T& a, const T& b) {
  return a.expr == b.expr;
}
}  // namespace

bool operator==(const Val& a, const Val& b) {
  if (a.v_.index() != b.v_.index()) return false;
  return std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        const auto& y = std::get<X>(b.v_);
        if constexpr (std::is_same_v<X, Val::Missing> || std::is_same_v<X, Val::None>) {
          return true;
        } else if constexpr (std::is_same_v<X, Val::SymInt> || std::is_same_v<X, Val::SymFloat> ||
                             std::is_same_v<X, Val::SymBool>) {
          return sameExpr(x, y);
        } else if constexpr (std::is_same_v<X, Val::CustomObj>) {
          return x.class_fqn == y.class_fqn;
        } else if constexpr (std::is_same_v<X, Val::Opaque>) {
          return x.type_name == y.type_name;
        } else if constexpr (std::is_same_v<X, double>) {
          return x == y || (x != x && y != y);  // NaN equals NaN structurally
        } else {
          return x == y;
        }
      },
      a.v_);
}

}  // namespace epsmith
