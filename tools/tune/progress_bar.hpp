// tune/progress_bar: one line on stderr with the share done, what is being timed, the best so far and the time left;
// redrawn in place on a terminal, printed every 10 seconds otherwise.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

namespace tune {

class ProgressBar {
 public:
  using Clock = std::chrono::steady_clock;
  ProgressBar(Clock::time_point deadline) : deadline_(deadline) {
#if __has_include(<unistd.h>)
    terminal_ = ::isatty(2) != 0;
#endif
  }

  // A new stage: `total` steps, none done yet.
  void start(const std::string& stage, std::size_t total) {
    stage_ = stage;
    total_ = total;
    done_ = 0;
    measured_ = 0;
    started_ = Clock::now();
  }
  void set_best(const std::string& best) { best_ = best; }
  // A step done (measured now) or skipped (measured by an earlier run: does not count towards the speed).
  void step(const std::string& now, bool measured) {
    ++done_;
    if (measured) ++measured_;
    draw(now);
  }
  void end() {
    if (terminal_ && drawn_) std::fputc('\n', stderr);
    drawn_ = false;
  }

 private:
  void draw(const std::string& now) {
    const Clock::time_point at = Clock::now();
    if (!terminal_ && at - last_ < std::chrono::seconds(10) && done_ < total_) return;
    last_ = at;
    const double share = total_ ? static_cast<double>(done_) / total_ : 1.0;
    const int width = 24;
    const int filled = static_cast<int>(share * width);
    const double elapsed = std::chrono::duration<double>(at - started_).count();
    const double budget = std::max(0.0, std::chrono::duration<double>(deadline_ - at).count());
    const double rate = measured_ > 0 ? elapsed / std::max<std::size_t>(measured_, 1) : 0;
    const double left = std::min(budget, rate * (total_ - done_));
    char line[512];
    std::snprintf(line, sizeof line, "%s[%s%s] %3d%% %s %zu/%zu %-36.36s best %s, %s left", terminal_ ? "\r" : "",
                  std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(),
                  static_cast<int>(share * 100), stage_.c_str(), done_, total_, now.c_str(), best_.c_str(),
                  duration(left).c_str());
    std::fputs(line, stderr);
    if (!terminal_) std::fputc('\n', stderr);
    drawn_ = true;
  }
  static std::string duration(double seconds) {
    const int s = static_cast<int>(seconds + 0.5);
    return s >= 60 ? std::to_string(s / 60) + "m" + std::to_string(s % 60) + "s" : std::to_string(s) + "s";
  }

  Clock::time_point deadline_;
  Clock::time_point started_ = Clock::now();
  Clock::time_point last_{};
  std::string stage_, best_ = "-";
  std::size_t total_ = 0, done_ = 0, measured_ = 0;
  bool terminal_ = false;
  bool drawn_ = false;
};

}  // namespace tune
