// A vector of trivially copyable elements that keeps up to N of them in itself and moves to
// the heap only past that: a tensor's sizes and strides (Note [Sizes kept inline] in
// ir/meta.h). The subset of std::vector's interface the IR uses, with the same meaning.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <type_traits>

namespace epsmith {

template <typename T, size_t N>
class InlineVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>, "elements are copied as bytes");
  static_assert(N > 0, "at least one element inline");

 public:
  using value_type = T;
  using size_type = size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;

  InlineVector() = default;
  explicit InlineVector(size_t n, const T& value = T()) { resize(n, value); }
  InlineVector(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
  template <typename It, typename = decltype(*std::declval<It&>()),
            typename = std::enable_if_t<!std::is_integral_v<It>>>
  InlineVector(It first, It last) {
    assign(first, last);
  }
  InlineVector(const InlineVector& other) { assign(other.begin(), other.end()); }
  InlineVector(InlineVector&& other) noexcept { take(other); }
  InlineVector& operator=(const InlineVector& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  InlineVector& operator=(InlineVector&& other) noexcept {
    if (this != &other) {
      delete[] heap_;
      heap_ = nullptr;
      take(other);
    }
    return *this;
  }
  InlineVector& operator=(std::initializer_list<T> values) {
    assign(values.begin(), values.end());
    return *this;
  }
  ~InlineVector() { delete[] heap_; }

  T* data() { return heap_ ? heap_ : inlineData(); }
  const T* data() const { return heap_ ? heap_ : inlineData(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return capacity_; }

  iterator begin() { return data(); }
  iterator end() { return data() + size_; }
  const_iterator begin() const { return data(); }
  const_iterator end() const { return data() + size_; }
  const_iterator cbegin() const { return begin(); }
  const_iterator cend() const { return end(); }
  std::reverse_iterator<iterator> rbegin() { return std::reverse_iterator<iterator>(end()); }
  std::reverse_iterator<iterator> rend() { return std::reverse_iterator<iterator>(begin()); }
  std::reverse_iterator<const_iterator> rbegin() const { return std::reverse_iterator<const_iterator>(end()); }
  std::reverse_iterator<const_iterator> rend() const { return std::reverse_iterator<const_iterator>(begin()); }

  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& at(size_t i) {
    if (i >= size_) throw std::out_of_range("InlineVector::at");
    return data()[i];
  }
  const T& at(size_t i) const {
    if (i >= size_) throw std::out_of_range("InlineVector::at");
    return data()[i];
  }
  T& front() { return data()[0]; }
  const T& front() const { return data()[0]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  void reserve(size_t n) {
    if (n <= capacity_) return;
    if (n > UINT32_MAX) throw std::length_error("InlineVector: more than 2^32 elements");
    T* grown = new T[n];
    if (size_) std::memcpy(static_cast<void*>(grown), data(), size_ * sizeof(T));
    delete[] heap_;
    heap_ = grown;
    capacity_ = n;
  }
  void clear() { size_ = 0; }
  void push_back(const T& value) {
    if (size_ == capacity_) {
      const T copy = value;  // `value` may be one of ours
      reserve(2 * static_cast<size_t>(capacity_));
      data()[size_++] = copy;
      return;
    }
    data()[size_++] = value;
  }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    push_back(T(std::forward<Args>(args)...));
    return back();
  }
  void pop_back() { --size_; }
  void resize(size_t n, const T& value = T()) {
    const T copy = value;  // `value` may be one of ours, and reserve() may free it
    reserve(n);
    for (size_t i = size_; i < n; ++i) data()[i] = copy;
    size_ = n;
  }
  template <typename It>
  void assign(It first, It last) {
    if constexpr (std::is_base_of_v<std::forward_iterator_tag, typename std::iterator_traits<It>::iterator_category>) {
      const auto n = static_cast<size_t>(std::distance(first, last));
      if (n > capacity_) reserve(n);
      T* out = data();
      for (size_t i = 0; i < n; ++i, ++first) out[i] = T(*first);
      size_ = n;
    } else {
      clear();
      for (; first != last; ++first) push_back(T(*first));
    }
  }
  void assign(size_t n, const T& value) {
    const T copy = value;  // as in resize()
    clear();
    resize(n, copy);
  }
  iterator insert(const_iterator pos, const T& value) {
    const size_t at = static_cast<size_t>(pos - begin());
    const T copy = value;
    if (size_ == capacity_) reserve(2 * static_cast<size_t>(capacity_));
    T* d = data();
    std::memmove(static_cast<void*>(d + at + 1), d + at, (size_ - at) * sizeof(T));
    d[at] = copy;
    ++size_;
    return d + at;
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    const size_t from = static_cast<size_t>(first - begin()), to = static_cast<size_t>(last - begin());
    T* d = data();
    std::memmove(static_cast<void*>(d + from), d + to, (size_ - to) * sizeof(T));
    size_ -= to - from;
    return d + from;
  }

  friend bool operator==(const InlineVector& a, const InlineVector& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const InlineVector& a, const InlineVector& b) { return !(a == b); }

 private:
  T* inlineData() { return reinterpret_cast<T*>(inline_); }
  const T* inlineData() const { return reinterpret_cast<const T*>(inline_); }
  // Takes `other`'s elements and leaves it empty (and inline).
  void take(InlineVector& other) {
    size_ = other.size_;
    capacity_ = other.capacity_;
    if (other.heap_) {
      heap_ = other.heap_;
      other.heap_ = nullptr;
    } else {
      heap_ = nullptr;
      if (size_) std::memcpy(inline_, other.inline_, size_ * sizeof(T));
    }
    other.size_ = 0;
    other.capacity_ = N;
  }

  T* heap_ = nullptr;  // null while the elements fit inline
  uint32_t size_ = 0;
  uint32_t capacity_ = N;
  alignas(T) unsigned char inline_[N * sizeof(T)];
};

}  // namespace epsmith
