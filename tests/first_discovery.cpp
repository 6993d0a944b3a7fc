// first_discovery: threads that all start by listing the OpenCL devices, in a fresh process each time (the ICD
// loader's first platform query is what races), must all see the devices and none may crash.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <exception>
#include <thread>
#include <tilegemm/core.hpp>
#include <vector>

namespace {

// In a child process: 8 threads list the devices at once; exit status 0 where every one found some.
[[noreturn]] void discover_from_threads() {
  std::atomic<int> failed{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      while (!go.load()) std::this_thread::yield();
      try {
        if (tilegemm::list_devices().empty()) ++failed;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "first_discovery: a thread's list_devices threw: %s\n", e.what());
        ++failed;
      }
    });
  }
  go = true;
  for (std::thread& thread : threads) thread.join();
  std::fflush(stderr);
  _exit(failed.load() == 0 ? 0 : 1);
}

}  // namespace

int main() {
  constexpr int processes = 20;  // before the fix, about 60% of processes with 4 threads crashed
  int bad = 0;
  for (int i = 0; i < processes; ++i) {
    const pid_t child = fork();
    if (child < 0) {
      std::perror("first_discovery: fork");
      return 2;
    }
    if (child == 0) discover_from_threads();
    int status = 0;
    if (waitpid(child, &status, 0) != child) {
      std::perror("first_discovery: waitpid");
      return 2;
    }
    if (WIFSIGNALED(status)) {
      std::fprintf(stderr, "first_discovery: process %d died of signal %d\n", i, WTERMSIG(status));
      ++bad;
    } else if (WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "first_discovery: process %d: a thread found no device\n", i);
      ++bad;
    }
  }
  std::printf("first_discovery: %d of %d processes had every thread find the devices\n", processes - bad, processes);
  return bad == 0 ? 0 : 1;
}
