// kernels/preamble_lines: "#define NAME value" lines written by constexpr functions, so that one definition of a
// preamble serves both the configurations named at compile time and those read at run time (the tuner's winners).
#pragma once

#include <cstddef>
#include <string_view>

namespace tilegemm::detail {

// A preamble's text in a buffer of fixed capacity: a constexpr value for a compile-time configuration, a local
// for one described at run time. Lines that would not fit are dropped and `overflowed` set (no preamble comes near).
struct PreambleLines {
  static constexpr std::size_t capacity = 1024;
  char data[capacity] = {};
  std::size_t size = 0;
  bool overflowed = false;

  constexpr void add(std::string_view text) {
    if (size + text.size() > capacity) {
      overflowed = true;
      return;
    }
    for (char c : text) data[size++] = c;
  }
  constexpr void define(std::string_view name, long long value) {
    char digits[24] = {};
    std::size_t count = 0;
    unsigned long long rest = value < 0 ? 0ULL - static_cast<unsigned long long>(value) : value;
    do {
      digits[count++] = static_cast<char>('0' + rest % 10);
      rest /= 10;
    } while (rest != 0);
    if (value < 0) digits[count++] = '-';
    char number[24] = {};
    for (std::size_t i = 0; i < count; ++i) number[i] = digits[count - 1 - i];
    add("#define ");
    add(name);
    add(" ");
    add(std::string_view(number, count));
    add("\n");
  }
  constexpr std::string_view view() const { return {data, size}; }
  // Whether a line defines `name`.
  constexpr bool defines(std::string_view name) const {
    const std::string_view text = view();
    for (std::size_t at = text.find("#define "); at != text.npos; at = text.find("#define ", at + 1)) {
      const std::string_view rest = text.substr(at + 8);
      if (rest.substr(0, name.size()) == name && rest.size() > name.size() && rest[name.size()] == ' ') return true;
    }
    return false;
  }
};

}  // namespace tilegemm::detail
