// The project's one error vocabulary: a Diagnostic names what went wrong and where (a JSON
// path such as `$.graph_module.graph.nodes[3]`, a text position `line:column`, a node
// `%add_`, a file), and an operation that can fail returns an Expected of its value, never
// throwing across a component's boundary.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace epsmith {

struct Diagnostic {
  std::string where;    // "$.graph_module.graph.nodes[2].target", "12:7", "%add_"; "" for the whole
  std::string message;  // "unknown operator aten::frobnicate"
  std::string str() const { return where.empty() ? message : where + ": " + message; }
};

// A value or the error that prevented it.
template <typename T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}           // NOLINT: implicit success
  Expected(Diagnostic error) : v_(std::move(error)) {}  // NOLINT: implicit failure
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Diagnostic& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Diagnostic> v_;
};

}  // namespace epsmith
