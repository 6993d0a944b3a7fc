// unit/host_threads: the host copy threads run the jobs of several callers at once (one per device of a product over
// several), each part once, each failure to its own caller.
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <tilegemm/runtime/host_threads.hpp>
#include <vector>

#include "catch.hpp"

using tilegemm::detail::HostThreads;

TEST_CASE("host threads: two callers' jobs run at once, every part once", "[unit][host_threads]") {
  HostThreads& threads = HostThreads::instance();
  // Job one's parts wait for job two to have run a part: if jobs took turns, one would wait out its time and fail.
  std::atomic<bool> two_started{false};
  std::atomic<int> waited_out{0};
  std::vector<std::atomic<int>> one_runs(8), two_runs(8);
  std::thread first([&] {
    threads.run(one_runs.size(), [&](std::size_t i) {
      ++one_runs[i];
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (!two_started && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
      if (!two_started) ++waited_out;
    });
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // job one holds the pool first
  threads.run(two_runs.size(), [&](std::size_t i) {
    ++two_runs[i];
    two_started = true;
  });
  first.join();
  CHECK(waited_out == 0);
  for (std::size_t i = 0; i < one_runs.size(); ++i) {
    CHECK(one_runs[i] == 1);
    CHECK(two_runs[i] == 1);
  }
}

TEST_CASE("host threads: a failing part fails its own job only", "[unit][host_threads]") {
  HostThreads& threads = HostThreads::instance();
  std::atomic<int> ran{0};
  std::thread failing([&] {
    CHECK_THROWS_WITH(threads.run(16,
                                  [&](std::size_t i) {
                                    if (i == 5) throw std::runtime_error("part 5 failed");
                                  }),
                      "part 5 failed");
  });
  CHECK_NOTHROW(threads.run(16, [&](std::size_t) { ++ran; }));
  failing.join();
  CHECK(ran == 16);
}
