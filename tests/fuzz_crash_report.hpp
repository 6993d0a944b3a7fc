// fuzz_crash_report: when the process dies of a signal (a crash in the library or the driver) during a fuzz
// product, that product's replay information is written to stderr first; then the handler that was there before
// (Catch2's) runs. In the sanitizer build, the same when a sanitizer ends the process after its report.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstring>
#include <string>

#include "sanitizers/address_sanitizer.hpp"

namespace tilegemm_fuzz {

class CrashReport {
 public:
  CrashReport() {
    for (std::size_t i = 0; i < signals.size(); ++i) {
      struct sigaction action {};
      action.sa_handler = &CrashReport::report;
      sigemptyset(&action.sa_mask);
      action.sa_flags = SA_ONSTACK;  // Catch2 gives its handlers a stack of their own: use it too
      sigaction(signals[i], &action, &previous()[i]);
    }
#ifdef TILEGEMM_TEST_ADDRESS_SANITIZER
    __sanitizer_set_death_callback(&CrashReport::write_report);
#endif
  }
  ~CrashReport() {
    clear();
    for (std::size_t i = 0; i < signals.size(); ++i) sigaction(signals[i], &previous()[i], nullptr);
#ifdef TILEGEMM_TEST_ADDRESS_SANITIZER
    __sanitizer_set_death_callback(nullptr);
#endif
  }
  CrashReport(const CrashReport&) = delete;
  CrashReport& operator=(const CrashReport&) = delete;

  // The text to write if a signal comes before the next set() or clear().
  void set(const std::string& text) {
    length() = 0;  // a signal while the text changes writes nothing rather than half of it
    const std::size_t n = std::min(text.size(), buffer().size());
    std::memcpy(buffer().data(), text.data(), n);
    length() = static_cast<int>(n);
  }
  void clear() { length() = 0; }

 private:
  static constexpr std::array<int, 5> signals = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

  static std::array<char, 16384>& buffer() {
    static std::array<char, 16384> text;
    return text;
  }
  static volatile std::sig_atomic_t& length() {
    static volatile std::sig_atomic_t n = 0;
    return n;
  }
  static std::array<struct sigaction, 5>& previous() {
    static std::array<struct sigaction, 5> actions{};
    return actions;
  }

  // Only async-signal-safe calls: write, sigaction, raise.
  static void write_report() {
    if (length() == 0) return;
    static const char heading[] = "\ntest_fuzz: crashed (signal or sanitizer) in ";
    ssize_t ignored = write(STDERR_FILENO, heading, sizeof(heading) - 1);
    ignored = write(STDERR_FILENO, buffer().data(), static_cast<std::size_t>(length()));
    (void)ignored;
  }
  static void report(int signal) {
    write_report();
    for (std::size_t i = 0; i < signals.size(); ++i) {
      if (signals[i] == signal) sigaction(signal, &previous()[i], nullptr);
    }
    raise(signal);
  }
};

}  // namespace tilegemm_fuzz
