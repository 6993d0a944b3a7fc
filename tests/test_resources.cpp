// test_resources: what tilegemm holds (programs, pooled buffers, its queues) stays bounded, and release_resources()
// lets go of it: user contexts are freed after use, the scratch pool gives large buffers back, nothing is left after a
// full release, and releasing while other threads multiply is safe.
#include <unistd.h>

#include <Eigen/Dense>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <tilegemm/tilegemm.hpp>
#include <vector>

#include "catch.hpp"
#include "programs_made.hpp"
#include "reference.hpp"

using Eigen::Index;
using tilegemm::detail::held_resources;
using tilegemm::detail::HeldResources;
using tilegemm::detail::holds_objects_of;
using tilegemm_test::compare_with_reference;
using tilegemm_test::Matrix;
using tilegemm_test::random_matrix;

namespace {

constexpr std::size_t megabyte = std::size_t{1} << 20;

// The resident memory of this process in bytes (Linux: /proc/self/statm), or 0 where that cannot be read.
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages_in_all = 0, resident_pages = 0;
  if (!(statm >> pages_in_all >> resident_pages)) return 0;
  return resident_pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

cl::Device test_device() { return tilegemm::default_queue().getInfo<CL_QUEUE_DEVICE>(); }

// A context of the caller's own, as an application would create one, and an in-order queue on it.
struct UserQueue {
  cl::Context context;
  cl::CommandQueue queue;

  UserQueue() {
    const cl::Device device = test_device();
    cl_int status = CL_SUCCESS;
    context = cl::Context(device, nullptr, nullptr, nullptr, &status);
    REQUIRE(status == CL_SUCCESS);
    queue = cl::CommandQueue(context, device, 0, &status);
    REQUIRE(status == CL_SUCCESS);
  }
};

// C = A * B (m x k times k x n, float) on `queue` with the default configuration; "" when it matches the reference.
std::string multiply(const cl::CommandQueue& queue, Index m, Index n, Index k) {
  const Matrix<float> a = random_matrix<float>(m, k), b = random_matrix<float>(k, n);
  const Matrix<float> c = tilegemm::gpu_gemm(queue, a, b);
  return compare_with_reference<float>(c, 1, a, b, 0, c);
}

std::string multiply(Index m, Index n, Index k) { return multiply(tilegemm::default_queue(), m, n, k); }

cl_uint reference_count(const cl::Context& context) {
  cl_uint count = 0;
  REQUIRE(context.getInfo(CL_CONTEXT_REFERENCE_COUNT, &count) == CL_SUCCESS);
  return count;
}

void print(const std::string& what, const HeldResources& held) {
  std::cout << what << ": " << held.programs << " programs of " << held.program_contexts << " contexts, "
            << held.user_contexts << " user contexts kept, " << held.own_queues << " own queues, " << held.pool.buffers
            << " pooled buffers of " << held.pool.bytes << " bytes (" << held.pool.idle_bytes << " idle)\n";
}

}  // namespace

TEST_CASE("100 user contexts created, used once and dropped grow the process by at most 10 MB", "[resources]") {
  tilegemm::release_resources();
  constexpr int contexts = 100;
  std::size_t resident_after_warm_up = 0;
  cl::Context watched;  // the first measured user context, held here so that its reference count can be read
  for (int i = 0; i <= contexts; ++i) {  // i == 0 warms up: the first product of a process allocates for good
    UserQueue user;
    INFO("context " << i);
    REQUIRE(multiply(user.queue, 37, 29, 23) == "");
    if (i == 0) resident_after_warm_up = resident_bytes();
    if (i == 1) watched = user.context;
  }
  const std::size_t resident_after = resident_bytes();
  if (resident_after_warm_up == 0 || resident_after == 0) {
    WARN("/proc/self/statm cannot be read here: the growth of the process is not measured");
  } else {
    const double growth = (static_cast<double>(resident_after) - static_cast<double>(resident_after_warm_up)) / 1e6;
    std::cout << contexts << " user contexts: resident " << resident_after_warm_up / 1e6 << " MB after the warm-up, "
              << resident_after / 1e6 << " MB after, growth " << growth << " MB\n";
    CHECK(growth <= 10.0);
  }
  const HeldResources held = held_resources();
  print("after " + std::to_string(contexts) + " user contexts", held);
  CHECK(held.user_contexts <= tilegemm::detail::kept_user_contexts);
  CHECK(held.program_contexts <= tilegemm::detail::kept_user_contexts + held.own_queues);
  // Nothing of tilegemm's keeps the dropped context alive: only this test's own reference is left.
  CHECK_FALSE(holds_objects_of(watched));
  CHECK(reference_count(watched) == 1);
}

TEST_CASE("a user context that fell out of the kept ones, or was released, is held by nothing of tilegemm's",
          "[resources]") {
  tilegemm::release_resources();
  constexpr std::size_t kept = tilegemm::detail::kept_user_contexts;
  std::vector<UserQueue> users(kept + 1);
  for (std::size_t i = 0; i < kept; ++i) REQUIRE(multiply(users[i].queue, 12, 9, 7) == "");
  for (std::size_t i = 0; i < kept; ++i) CHECK(holds_objects_of(users[i].context));
  const cl_uint references_of_caller = reference_count(users[kept].context);  // this test's context and queue
  REQUIRE(multiply(users[kept].queue, 12, 9, 7) == "");  // one more: the least recently used one goes
  CHECK_FALSE(holds_objects_of(users[0].context));
  CHECK(reference_count(users[0].context) == references_of_caller);
  for (std::size_t i = 1; i <= kept; ++i) CHECK(holds_objects_of(users[i].context));
  CHECK(held_resources().user_contexts == kept);

  tilegemm::release_resources(users[kept].context);
  CHECK_FALSE(holds_objects_of(users[kept].context));
  CHECK(reference_count(users[kept].context) == references_of_caller);
  CHECK(held_resources().user_contexts == kept - 1);
}

TEST_CASE("release_resources(context) drops that context's programs and buffers only", "[resources]") {
  tilegemm::release_resources();
  UserQueue x, y;
  const cl::Context own = tilegemm::default_queue().getInfo<CL_QUEUE_CONTEXT>();
  REQUIRE(multiply(x.queue, 21, 19, 17) == "");
  REQUIRE(multiply(y.queue, 21, 19, 17) == "");
  REQUIRE(multiply(21, 19, 17) == "");
  REQUIRE(holds_objects_of(x.context));
  REQUIRE(holds_objects_of(y.context));
  REQUIRE(holds_objects_of(own));
  const HeldResources before = held_resources();

  tilegemm::release_resources(x.context);
  CHECK_FALSE(holds_objects_of(x.context));
  CHECK(holds_objects_of(y.context));
  CHECK(holds_objects_of(own));
  const HeldResources after = held_resources();
  CHECK(after.programs < before.programs);
  CHECK(after.program_contexts == before.program_contexts - 1);
  CHECK(after.own_queues == 1);

  // x builds its programs again; y and tilegemm's own context still have theirs.
  std::size_t built = tilegemm_test::programs_made();
  CHECK(multiply(y.queue, 21, 19, 17) == "");
  CHECK(multiply(21, 19, 17) == "");
  CHECK(tilegemm_test::programs_made() == built);
  CHECK(multiply(x.queue, 21, 19, 17) == "");
  CHECK(tilegemm_test::programs_made() > built);
  CHECK(holds_objects_of(x.context));
}

TEST_CASE("after release_resources() tilegemm holds nothing, and products build what they need again", "[resources]") {
  UserQueue user;
  REQUIRE(multiply(40, 30, 20) == "");
  REQUIRE(multiply(user.queue, 40, 30, 20) == "");
  const HeldResources before = held_resources();
  print("before release_resources()", before);
  CHECK(before.programs > 0);
  CHECK(before.pool.bytes > 0);
  CHECK(before.own_queues == 1);

  const cl::CommandQueue old_default = tilegemm::default_queue();
  tilegemm::release_resources();
  const HeldResources after = held_resources();
  print("after release_resources()", after);
  CHECK(after.programs == 0);
  CHECK(after.program_contexts == 0);
  CHECK(after.user_contexts == 0);
  CHECK(after.own_queues == 0);
  CHECK(after.pool.buffers == 0);
  CHECK(after.pool.bytes == 0);

  const std::size_t built = tilegemm_test::programs_made();
  const cl::CommandQueue new_default = tilegemm::default_queue();
  CHECK(new_default() != old_default());
  CHECK(new_default.getInfo<CL_QUEUE_DEVICE>()() == old_default.getInfo<CL_QUEUE_DEVICE>()());
  CHECK(multiply(40, 30, 20) == "");
  CHECK(tilegemm_test::programs_made() > built);
  CHECK(multiply(user.queue, 40, 30, 20) == "");
  CHECK(multiply(old_default, 40, 30, 20) == "");  // a queue held from before works on, as a user's queue
  CHECK(held_resources().own_queues == 1);
}

TEST_CASE("after one 2000 x 2000 product, a few small products give its pooled buffers back", "[resources]") {
  tilegemm::release_resources();
  REQUIRE(multiply(2000, 2000, 2000) == "");
  const HeldResources after_large = held_resources();
  print("after a 2000 x 2000 product", after_large);
  CHECK(after_large.pool.bytes >= 3 * 2000 * 2000 * sizeof(float));  // A, B and C at least
  CHECK(after_large.pool.idle_bytes <= tilegemm::detail::max_idle_bytes);

  constexpr int small_products = 16;  // each takes at least 3 buffers from the pool: copies of A, B and C
  REQUIRE(3 * small_products > tilegemm::detail::idle_takes_limit);
  for (int i = 0; i < small_products; ++i) REQUIRE(multiply(30 + i, 20, 25) == "");
  const HeldResources after_small = held_resources();
  print("after " + std::to_string(small_products) + " small products", after_small);
  CHECK(after_small.pool.bytes < megabyte);
}

TEST_CASE("the idle buffers of a context stay within the bound of its device", "[resources]") {
  using tilegemm::detail::ScratchBuffer;
  using tilegemm::detail::ScratchPool;
  tilegemm::release_resources();
  tilegemm::detail::CallContext call = tilegemm::detail::CallContext::of(tilegemm::default_queue());
  call.limits.global_memory_bytes = 16 * megabyte;  // a device of 16 MiB: its idle buffers hold at most 4 MiB
  REQUIRE(tilegemm::detail::idle_bytes_bound(call.limits) == 4 * megabyte);
  {
    ScratchBuffer first(call, 2 * megabyte), second(call, 2 * megabyte), third(call, 2 * megabyte);
    CHECK(ScratchPool::instance().usage().bytes == 6 * megabyte);  // taken buffers are what the calls need
    first.give_back_after(cl::Event());
    second.give_back_after(cl::Event());
    CHECK(ScratchPool::instance().usage().idle_bytes == 4 * megabyte);
    third.give_back_after(cl::Event());
    CHECK(ScratchPool::instance().usage().idle_bytes == 4 * megabyte);  // the least recently taken one is gone
    CHECK(ScratchPool::instance().usage().buffers == 2);
  }
  {
    ScratchBuffer larger_than_bound(call, 5 * megabyte);
    larger_than_bound.give_back_after(cl::Event());
    CHECK(ScratchPool::instance().usage().idle_bytes <= 4 * megabyte);
  }
  tilegemm::release_resources();
  CHECK(ScratchPool::instance().usage().bytes == 0);
}

TEST_CASE("threads multiplying while another releases everything in a loop get right results", "[resources]") {
  constexpr int workers = 4, products_per_worker = 6;
  UserQueue shared_user;
  std::atomic<int> working{workers};
  std::vector<std::string> failures(workers);
  std::vector<std::thread> threads;
  for (int t = 0; t < workers; ++t) {
    threads.emplace_back([&, t] {
      try {
        UserQueue own_user;
        for (int i = 0; i < products_per_worker; ++i) {
          const Index m = 20 + 3 * t + i, n = 17 + i, k = 11 + 2 * t;
          const std::string failure = i % 3 == 0   ? multiply(m, n, k)
                                      : i % 3 == 1 ? multiply(shared_user.queue, m, n, k)
                                                   : multiply(own_user.queue, m, n, k);
          if (!failure.empty()) failures[t] += "product " + std::to_string(i) + ": " + failure + "\n";
        }
      } catch (const std::exception& e) {
        failures[t] += std::string("exception: ") + e.what();
      }
      --working;
    });
  }
  int releases = 0;
  while (working > 0) {
    if (releases % 2 == 0) {
      tilegemm::release_resources();
    } else {
      tilegemm::release_resources(shared_user.context);
    }
    ++releases;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (std::thread& thread : threads) thread.join();
  std::cout << releases << " releases while " << workers << " threads multiplied\n";
  CHECK(releases > 1);
  for (int t = 0; t < workers; ++t) {
    INFO("thread " << t);
    CHECK(failures[t] == "");
  }
  tilegemm::release_resources();
  const HeldResources after = held_resources();
  CHECK(after.programs == 0);
  CHECK(after.pool.bytes == 0);
  CHECK(after.own_queues == 0);
}
