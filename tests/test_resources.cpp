// test_resources: what tilegemm holds (programs, pooled buffers, its queues, side queues) stays bounded, and
// release_resources() lets go of it: dropped user contexts are freed (at once after release_resources(context), else
// once the kept ones' bound pushes them out), the scratch pool gives large buffers back, nothing is left after a full
// release, and releasing while other threads multiply is safe.
#include <unistd.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <tilegemm/tilegemm.hpp>
#include <vector>

#include "catch.hpp"
#include "programs_made.hpp"
#include "reference.hpp"
#include "run_plan.hpp"
#include "sanitizers/address_sanitizer.hpp"

// OpenCL 3.0's, declared here since tilegemm's headers target OpenCL 1.2; the ICD loader routes it to the platform.
extern "C" CL_API_ENTRY cl_int CL_API_CALL clSetContextDestructorCallback(cl_context context,
                                                                          void(CL_CALLBACK* notify)(cl_context, void*),
                                                                          void* user_data);

using Eigen::Index;
using tilegemm::detail::held_resources;
using tilegemm::detail::HeldResources;
using tilegemm::detail::holds_objects_of;
using tilegemm_test::compare_with_reference;
using tilegemm_test::Matrix;
using tilegemm_test::random_matrix;

namespace {

constexpr std::size_t megabyte = std::size_t{1} << 20;

// The resident memory of this process in bytes (Linux: /proc/self/statm), or 0 where that cannot be read. Under
// AddressSanitizer, the bytes allocated and not freed instead: there freed memory stays resident for a while (its
// quarantine), and so does the shadow memory that describes it.
std::size_t resident_bytes() {
#ifdef TILEGEMM_TEST_ADDRESS_SANITIZER
  return __sanitizer_get_current_allocated_bytes();
#else
  std::ifstream statm("/proc/self/statm");
  std::size_t pages_in_all = 0, resident_pages = 0;
  if (!(statm >> pages_in_all >> resident_pages)) return 0;
  return resident_pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
#endif
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

// C = alpha * A * B + beta * C (70 x 40 x 20, float) on `queue` in 16 x 16 tiles over a 64 x 32 corner, the remainder
// kernel on the rest, beside the tiles on an in-order queue (a side queue); "" when it matches the reference.
std::string multiply_with_strips(const cl::CommandQueue& queue) {
  using namespace tilegemm::detail;
  const int m = 70, n = 40, k = 20;
  const Matrix<float> a = random_matrix<float>(m, k), b = random_matrix<float>(k, n), c0 = random_matrix<float>(m, n);
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const auto buffer = [&](const Matrix<float>& x) {
    return cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(float) * x.size(),
                      const_cast<float*>(x.data()));
  };
  const cl::Buffer c = buffer(c0);
  const GemmProblem problem = check_arguments(context, {tilegemm::Transpose::no,
                                                        tilegemm::Transpose::no,
                                                        m,
                                                        n,
                                                        k,
                                                        scalar_value(0.5f),
                                                        {buffer(a), 0, m},
                                                        {buffer(b), 0, k},
                                                        scalar_value(2.0f),
                                                        {c, 0, m}});
  const auto [plan, done] =
      tilegemm_test::run_planned<tilegemm::LocalTiles<16>>(queue, problem, tilegemm_test::corner_options(64, 32));
  if (plan.strips != StripWork::remainder_kernel) return "the plan has no remainder kernel";
  done.wait();
  Matrix<float> result(m, n);
  queue.enqueueReadBuffer(c, CL_TRUE, 0, sizeof(float) * result.size(), result.data());
  return compare_with_reference<float>(result, 0.5, a, b, 2.0, c0);
}

// Counts the contexts it watches that OpenCL has destroyed (clSetContextDestructorCallback, OpenCL 3.0): a context is
// destroyed only once every object of it is released, tilegemm's included, on every driver (where the reference
// count may leave out the driver's own references). A context may outlive its watcher (tilegemm still holding it when
// a check fails): the callbacks set flags of the process, not of the watcher.
class DestroyedContexts {
 public:
  // Whether the platform calls destructor callbacks; checks that rely on it are skipped where it does not.
  bool watch(const cl::Context& context) {
    const std::size_t slot = next_slot()++;
    REQUIRE(slot < flags().size());
    watched_.push_back(slot);
    return clSetContextDestructorCallback(context(), &DestroyedContexts::destroyed,
                                          reinterpret_cast<void*>(static_cast<std::uintptr_t>(slot))) == CL_SUCCESS;
  }
  // How many watched contexts are destroyed once `expected` are, or after a second (a driver may call back late).
  int count(int expected) const {
    int destroyed = 0;
    for (int waited = 0; waited <= 100; ++waited) {
      destroyed = static_cast<int>(
          std::count_if(watched_.begin(), watched_.end(), [](std::size_t slot) { return flags()[slot].load(); }));
      if (destroyed >= expected) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return destroyed;
  }
  int watched() const { return static_cast<int>(watched_.size()); }

 private:
  static std::array<std::atomic<bool>, 4096>& flags() {
    static std::array<std::atomic<bool>, 4096> destroyed{};
    return destroyed;
  }
  static std::atomic<std::size_t>& next_slot() {
    static std::atomic<std::size_t> next{0};
    return next;
  }
  static void CL_CALLBACK destroyed(cl_context, void* slot) {
    flags()[static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(slot))] = true;
  }
  std::vector<std::size_t> watched_;
};

cl_uint reference_count(const cl::Context& context) {
  cl_uint count = 0;
  REQUIRE(context.getInfo(CL_CONTEXT_REFERENCE_COUNT, &count) == CL_SUCCESS);
  return count;
}

void print(const std::string& what, const HeldResources& held) {
  std::cout << what << ": " << held.programs << " programs of " << held.program_contexts << " contexts, "
            << held.user_contexts << " user contexts kept, " << held.own_queues << " own queues, " << held.pool.buffers
            << " pooled buffers of " << held.pool.bytes << " bytes (" << held.pool.idle_bytes << " idle), "
            << held.side_queues << " side queues\n";
}

}  // namespace

TEST_CASE("100 user contexts created, used once and dropped grow the process by at most 10 MB", "[resources][slow]") {
  tilegemm::release_resources();
  // The first contexts of a process allocate for good (tilegemm's tables, the driver's pools; on the H200, plain
  // OpenCL contexts used and dropped the same way grew the process by 13 MB over the first 10, 4.8 MB over the next
  // 110), so the growth is measured from the 20th.
  constexpr int warm_up = 20, contexts = 100;
  DestroyedContexts destroyed;
  bool callbacks = true;
  std::size_t resident_after_warm_up = 0;
  for (int i = 0; i < warm_up + contexts; ++i) {
    {
      UserQueue user;
      callbacks = destroyed.watch(user.context) && callbacks;
      INFO("context " << i);
      REQUIRE(multiply(user.queue, 37, 29, 23) == "");
    }
    // tilegemm keeps the last kept_user_contexts (it cannot see them dropped); every earlier one is destroyed.
    constexpr int kept = static_cast<int>(tilegemm::detail::kept_user_contexts);
    CHECK(held_resources().user_contexts <= tilegemm::detail::kept_user_contexts);
    if (callbacks) CHECK(destroyed.count(i + 1 - kept) >= i + 1 - kept);
    if (i + 1 == warm_up) resident_after_warm_up = resident_bytes();
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
  // Calls on tilegemm's own context do not push user contexts out; release_resources() lets go of the last ones.
  for (int call = 0; call < 3; ++call) REQUIRE(multiply(37, 29, 23) == "");
  const HeldResources held = held_resources();
  print("after " + std::to_string(contexts) + " user contexts", held);
  CHECK(held.user_contexts == tilegemm::detail::kept_user_contexts);
  CHECK(held.program_contexts == held.own_queues + tilegemm::detail::kept_user_contexts);
  tilegemm::release_resources();
  CHECK(held_resources().user_contexts == 0);
  if (callbacks) {
    CHECK(destroyed.count(destroyed.watched()) == destroyed.watched());
  } else {
    WARN("this OpenCL platform does not call context destructor callbacks: destruction is not checked");
  }
}

TEST_CASE(
    "a dropped user context is freed at once after release_resources(context), else once calls on "
    "kept_user_contexts other user contexts have come",
    "[resources]") {
  tilegemm::release_resources();
  constexpr std::size_t kept = tilegemm::detail::kept_user_contexts;
  DestroyedContexts destroyed;
  bool callbacks = true;
  {
    UserQueue released;
    callbacks = destroyed.watch(released.context);
    REQUIRE(multiply(released.queue, 12, 9, 7) == "");
    REQUIRE(holds_objects_of(released.context));
    tilegemm::release_resources(released.context);  // the rule: before dropping it
    CHECK_FALSE(holds_objects_of(released.context));
    CHECK(held_resources().user_contexts == 0);
  }
  if (callbacks) CHECK(destroyed.count(1) == 1);

  auto dropped = std::make_unique<UserQueue>();
  destroyed.watch(dropped->context);
  REQUIRE(multiply(dropped->queue, 12, 9, 7) == "");
  dropped.reset();  // without release_resources: tilegemm cannot see it, and keeps it
  CHECK(held_resources().user_contexts == 1);
  REQUIRE(multiply(12, 9, 7) == "");  // tilegemm's own context does not count
  if (callbacks) CHECK(destroyed.count(2) == 1);
  std::vector<UserQueue> others(kept);
  for (std::size_t i = 0; i + 1 < kept; ++i) REQUIRE(multiply(others[i].queue, 12, 9, 7) == "");
  if (callbacks) CHECK(destroyed.count(2) == 1);  // still among the kept_user_contexts most recently used
  REQUIRE(multiply(others[kept - 1].queue, 12, 9, 7) == "");
  CHECK(held_resources().user_contexts == kept);
  for (const UserQueue& other : others) CHECK(holds_objects_of(other.context));
  if (callbacks) {
    CHECK(destroyed.count(2) == 2);
  } else {
    WARN("this OpenCL platform does not call context destructor callbacks: destruction is not checked");
  }
}

TEST_CASE("a user context its user still holds, through its handle or a queue only, keeps its programs",
          "[resources]") {
  tilegemm::release_resources();
  UserQueue context_only, queue_only;
  REQUIRE(multiply(12, 9, 7) == "");
  REQUIRE(multiply(context_only.queue, 12, 9, 7) == "");
  REQUIRE(multiply(queue_only.queue, 12, 9, 7) == "");
  context_only.queue = cl::CommandQueue();
  queue_only.context = cl::Context();
  // Calls alternate between contexts: neither user context is let go of while there are no more than the kept ones.
  const std::size_t built = tilegemm::programs_built();
  for (int turn = 0; turn < 2; ++turn) {
    REQUIRE(multiply(12, 9, 7) == "");  // tilegemm's own context
    REQUIRE(multiply(queue_only.queue, 12, 9, 7) == "");
  }
  CHECK(tilegemm::programs_built() == built);  // none built again
  CHECK(held_resources().user_contexts == 2);
  CHECK(holds_objects_of(context_only.context));
  CHECK(holds_objects_of(queue_only.queue.getInfo<CL_QUEUE_CONTEXT>()));
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

// The strips past a tiled corner run on a side queue beside the tiles (runtime/side_queues.hpp): one for each queue of
// the caller's, at most side_queues_per_context for a context (the least recently used let go of), and none left once
// the context is released, which then is destroyed when its user drops it.
TEST_CASE("side queues: one a caller's queue, bounded per context, let go of with the context", "[resources]") {
  using tilegemm::detail::side_queues_per_context;
  using tilegemm::detail::SideQueues;
  tilegemm::release_resources();
  DestroyedContexts destroyed;
  bool callbacks = true;
  {
    UserQueue user;
    callbacks = destroyed.watch(user.context);
    REQUIRE(multiply_with_strips(user.queue) == "");
    REQUIRE(multiply_with_strips(user.queue) == "");
    CHECK(SideQueues::instance().count(user.context()) == 1);
    CHECK(held_resources().side_queues == 1);
    std::vector<cl::CommandQueue> more;
    for (std::size_t i = 0; i < side_queues_per_context + 2; ++i) {
      more.emplace_back(user.context, test_device());
      REQUIRE(multiply_with_strips(more.back()) == "");
    }
    CHECK(SideQueues::instance().count(user.context()) == side_queues_per_context);
    CHECK(multiply_with_strips(user.queue) == "");  // its side queue let go of, a new one made
    tilegemm::release_resources(user.context);
    CHECK(SideQueues::instance().count(user.context()) == 0);
    CHECK_FALSE(holds_objects_of(user.context));
  }
  if (callbacks) {
    CHECK(destroyed.count(1) == 1);
  } else {
    WARN("this OpenCL platform does not call context destructor callbacks: destruction is not checked");
  }
  CHECK(held_resources().side_queues == 0);
}

TEST_CASE("after release_resources() tilegemm holds nothing, and products build what they need again", "[resources]") {
  UserQueue user;
  REQUIRE(multiply(40, 30, 20) == "");
  REQUIRE(multiply(user.queue, 40, 30, 20) == "");
  REQUIRE(multiply_with_strips(user.queue) == "");
  const HeldResources before = held_resources();
  print("before release_resources()", before);
  CHECK(before.side_queues >= 1);
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
  CHECK(after.side_queues == 0);

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

TEST_CASE("after one 2000 x 2000 product, a few small products give its pooled buffers back", "[resources][slow]") {
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
  constexpr int workers = 4, products_per_worker = 8;
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
          // Every fourth with its strips beside its tiles: side queues made and let go of meanwhile.
          const std::string failure = i % 4 == 3   ? multiply_with_strips(t % 2 ? shared_user.queue : own_user.queue)
                                      : i % 3 == 0 ? multiply(m, n, k)
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
