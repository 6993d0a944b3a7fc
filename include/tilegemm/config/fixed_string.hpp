// fixed_string: a compile-time string that can be concatenated, used to build OpenCL preambles as constexpr values.
#pragma once

#include <cstddef>
#include <string_view>

namespace tilegemm::detail {

template <std::size_t N>
struct fixed_string {
  char data[N + 1] = {};

  constexpr fixed_string() = default;
  constexpr fixed_string(const char (&text)[N + 1]) {  // NOLINT: implicit from literals on purpose
    for (std::size_t i = 0; i < N; ++i) data[i] = text[i];
  }

  static constexpr std::size_t size() { return N; }
  constexpr const char* c_str() const { return data; }
  constexpr std::string_view view() const { return {data, N}; }
  constexpr operator std::string_view() const { return view(); }  // NOLINT: a piece of program text, as a literal is

  template <std::size_t M>
  constexpr fixed_string<N + M> operator+(const fixed_string<M>& other) const {
    fixed_string<N + M> joined;
    for (std::size_t i = 0; i < N; ++i) joined.data[i] = data[i];
    for (std::size_t i = 0; i < M; ++i) joined.data[N + i] = other.data[i];
    return joined;
  }
  template <std::size_t M>
  constexpr fixed_string<N + M - 1> operator+(const char (&text)[M]) const {
    return *this + fixed_string<M - 1>(text);
  }
};

template <std::size_t M>
fixed_string(const char (&)[M]) -> fixed_string<M - 1>;

// Number of characters in the decimal form of `value`.
constexpr std::size_t decimal_digits(long long value) {
  std::size_t digits = value < 0 ? 2 : 1;
  for (long long rest = value < 0 ? -(value / 10) : value / 10; rest != 0; rest /= 10) ++digits;
  return digits;
}

// The decimal form of a compile-time integer, e.g. to_fixed_string<-42>() == "-42".
template <long long Value>
constexpr auto to_fixed_string() {
  constexpr std::size_t digits = decimal_digits(Value);
  fixed_string<digits> text;
  unsigned long long rest = Value < 0 ? 0ULL - static_cast<unsigned long long>(Value) : Value;
  for (std::size_t i = digits; i-- > (Value < 0 ? 1 : 0);) {
    text.data[i] = static_cast<char>('0' + rest % 10);
    rest /= 10;
  }
  if (Value < 0) text.data[0] = '-';
  return text;
}

// "#define NAME value\n" for a compile-time integer.
template <long long Value, std::size_t N>
constexpr auto define_line(const char (&name)[N]) {
  return fixed_string("#define ") + name + " " + to_fixed_string<Value>() + "\n";
}

}  // namespace tilegemm::detail
