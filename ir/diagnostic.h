// Load errors: one message naming the place (a JSON path such as `$.graph_module.graph.nodes[3]`
// or a text position `line:column`), returned instead of thrown across component boundaries.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace epsmith {

struct LoadError {
  std::string where;    // "$.graph_module.graph.nodes[2].target" or "12:7"
  std::string message;  // "unknown operator aten::frobnicate"
  std::string str() const { return where.empty() ? message : where + ": " + message; }
};

// A value or the error that prevented it.
template <typename T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}          // NOLINT: implicit success
  Expected(LoadError error) : v_(std::move(error)) {}  // NOLINT: implicit failure
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }
  const LoadError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, LoadError> v_;
};

}  // namespace epsmith
