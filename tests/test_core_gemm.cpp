// test_core_gemm: the BLAS-style tilegemm::gemm on cl::Buffers beyond the kernels themselves: BLAS semantics for
// k = 0, alpha = 0 and empty results, operands the packed kernels can read in place, and events (wait lists,
// the returned event, profiling).
#include <tilegemm/tilegemm.hpp>
#include <type_traits>
#include <vector>

#include "catch.hpp"
#include "dense_shape.hpp"
#include "described_devices.hpp"
#include "reference.hpp"
#include "run_plan.hpp"
#include "untouched_memory.hpp"

namespace {

using tilegemm::Transpose;
using tilegemm_test::Matrix;

template <class Scalar>
cl::Buffer device_copy(const cl::CommandQueue& queue, const Matrix<Scalar>& m) {
  cl_int status = CL_SUCCESS;
  cl::Buffer buffer(queue.getInfo<CL_QUEUE_CONTEXT>(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                    sizeof(Scalar) * std::max<Eigen::Index>(m.size(), 1), const_cast<Scalar*>(m.data()), &status);
  REQUIRE(status == CL_SUCCESS);
  return buffer;
}

template <class Scalar>
Matrix<Scalar> host_copy(const cl::CommandQueue& queue, const cl::Buffer& buffer, Eigen::Index rows,
                         Eigen::Index cols) {
  Matrix<Scalar> m(rows, cols);
  REQUIRE(queue.enqueueReadBuffer(buffer, CL_TRUE, 0, sizeof(Scalar) * m.size(), m.data()) == CL_SUCCESS);
  return m;
}

// An m x n C at the top of an ldc-row matrix of sentinels, which the product must leave as they are: poisoned where
// beta is 0 (it must not be read), random otherwise.
Matrix<float> c_among_sentinels(int m, int n, int ldc, float beta) {
  Matrix<float> all = Matrix<float>::Constant(ldc, n, tilegemm_test::sentinel<float>());
  all.topRows(m) =
      beta == 0.0f ? tilegemm_test::poisoned<float>(m, n) : Matrix<float>(tilegemm_test::random_matrix<float>(m, n));
  return all;
}

}  // namespace

TEMPLATE_TEST_CASE("k = 0 and alpha = 0 give C = beta * C without reading A and B", "[core]", float, double) {
  using Scalar = TestType;
  const cl::CommandQueue queue = tilegemm::default_queue();
  const Matrix<Scalar> c0 = tilegemm_test::random_matrix<Scalar>(37, 21);
  const Matrix<Scalar> nans = Matrix<Scalar>::Constant(37, 21, tilegemm_test::poison<Scalar>());
  const Scalar beta = tilegemm_test::random_scalar<Scalar>();
  const cl::Buffer unused;  // never read when k == 0

  cl::Buffer c = device_copy(queue, c0);
  tilegemm::gemm<Scalar>(queue, Transpose::no, Transpose::no, 37, 21, 0, Scalar(1), unused, 0, 37, unused, 0, 1, beta,
                         c, 0, 37)
      .wait();
  CHECK(host_copy<Scalar>(queue, c, 37, 21).isApprox(beta * c0));

  c = device_copy(queue, nans);  // beta == 0: C is not read, so its NaN must not survive
  tilegemm::gemm<Scalar>(queue, Transpose::no, Transpose::no, 37, 21, 0, Scalar(1), unused, 0, 37, unused, 0, 1,
                         Scalar(0), c, 0, 37)
      .wait();
  CHECK(host_copy<Scalar>(queue, c, 37, 21).isZero());

  const Matrix<Scalar> a = Matrix<Scalar>::Constant(37, 5, tilegemm_test::poison<Scalar>());  // alpha == 0: unread
  const Matrix<Scalar> b = Matrix<Scalar>::Constant(5, 21, tilegemm_test::poison<Scalar>());
  c = device_copy(queue, c0);
  tilegemm::gemm<Scalar>(queue, Transpose::no, Transpose::no, 37, 21, 5, Scalar(0), device_copy(queue, a), 0, 37,
                         device_copy(queue, b), 0, 5, beta, c, 0, 37)
      .wait();
  CHECK(host_copy<Scalar>(queue, c, 37, 21).isApprox(beta * c0));
}

TEST_CASE("an empty C (m = 0 or n = 0) returns a completed event and touches nothing", "[core]") {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const Matrix<float> c0 = tilegemm_test::random_matrix<float>(4, 4);
  const cl::Buffer c = device_copy(queue, c0);
  const cl::Buffer b = device_copy(queue, tilegemm_test::random_matrix<float>(3, 4));
  const cl::Buffer unused;  // A is 0 x 3: empty operands need no buffer
  cl::Event done =
      tilegemm::gemm<float>(queue, Transpose::no, Transpose::no, 0, 4, 3, 1.0f, unused, 0, 1, b, 0, 3, 0.0f, c, 0, 1);
  REQUIRE(done.wait() == CL_SUCCESS);
  CHECK(host_copy<float>(queue, c, 4, 4) == c0);
}

// Every transpose of operands that fill whole tiles, at offsets and leading dimensions that are multiples of the
// vector width: the kernels that read either layout take all of them in place (no pack kernel), the others take
// outer-contiguous ones in place. Around the operands is NaN, so a read outside them shows. Double, whose programs
// differ from float's only in their type, takes A * B and A^T * B^T (one program fewer per other transpose).
// `transposes` picks them (bit t for transA = t & 1, transB = t & 2).
template <class Config, class Scalar>
void check_in_place_operands(unsigned transposes) {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const int m = 2 * Config::TSM, n = Config::TSN, k = 3 * Config::TSK, offset = 2 * Config::VW;
  for (int t = 0; t < 4; ++t) {
    if ((transposes & (1u << t)) == 0) continue;
    const bool trans_a = t & 1, trans_b = t & 2;
    INFO(Config::name() << " transA=" << trans_a << " transB=" << trans_b << " seed " << tilegemm_test::run_seed());
    const Matrix<Scalar> op_a = tilegemm_test::random_matrix<Scalar>(m, k);
    const Matrix<Scalar> op_b = tilegemm_test::random_matrix<Scalar>(k, n);
    const Matrix<Scalar> stored_a = trans_a ? Matrix<Scalar>(op_a.transpose()) : op_a;
    const Matrix<Scalar> stored_b = trans_b ? Matrix<Scalar>(op_b.transpose()) : op_b;
    const int ld_a = static_cast<int>(stored_a.rows()) + 4 * Config::VW;
    const int ld_b = static_cast<int>(stored_b.rows()) + 4 * Config::VW;
    Matrix<Scalar> memory_a = Matrix<Scalar>::Constant(ld_a, stored_a.cols() + 1, tilegemm_test::poison<Scalar>());
    Matrix<Scalar> memory_b = Matrix<Scalar>::Constant(ld_b, stored_b.cols() + 1, tilegemm_test::poison<Scalar>());
    // Column-major storage from element `offset` on: column j starts at offset + j * ld.
    for (Eigen::Index j = 0; j < stored_a.cols(); ++j)
      for (Eigen::Index i = 0; i < stored_a.rows(); ++i) memory_a.data()[offset + i + j * ld_a] = stored_a(i, j);
    for (Eigen::Index j = 0; j < stored_b.cols(); ++j)
      for (Eigen::Index i = 0; i < stored_b.rows(); ++i) memory_b.data()[offset + i + j * ld_b] = stored_b(i, j);
    const Matrix<Scalar> nans = Matrix<Scalar>::Constant(m, n, tilegemm_test::poison<Scalar>());
    const cl::Buffer c = device_copy(queue, nans);
    tilegemm::gemm<Scalar, Config>(
        queue, trans_a ? Transpose::yes : Transpose::no, trans_b ? Transpose::yes : Transpose::no, m, n, k, Scalar(1),
        device_copy(queue, memory_a), offset, ld_a, device_copy(queue, memory_b), offset, ld_b, Scalar(0), c, 0, m)
        .wait();
    CHECK(tilegemm_test::compare_with_reference<Scalar>(host_copy<Scalar>(queue, c, m, n), 1.0, op_a, op_b, 0.0,
                                                        nans) == "");
  }
}

template <class Scalar>
void check_in_place_configurations(unsigned transposes) {
  check_in_place_operands<tilegemm::VectorLoads<64, 64, 16, 4, 4, 4>, Scalar>(transposes);
  check_in_place_operands<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>, Scalar>(transposes);
  check_in_place_operands<tilegemm::Prefetch<32, 64, 16, 2, 4, 2>, Scalar>(transposes);
  check_in_place_operands<tilegemm::SplitK<32, 32, 16, 2, 2, 2>, Scalar>(transposes);
}

// The device tier: A * B and A^T * B^T in float (one operand K-contiguous and the other not, and the reverse); the
// slow tier the other two in float, and in double, whose programs differ from float's only in their type, A * B and
// A^T * B^T. Each transpose is a program per configuration, one to five seconds of PoCL's.
TEST_CASE("kernels read operands in place when they already fit the tiles", "[core]") {
  check_in_place_configurations<float>(0b1001);
}
TEST_CASE("kernels read operands in place when they already fit the tiles: the other transposes, and double",
          "[core][slow]") {
  check_in_place_configurations<float>(0b0110);
  check_in_place_configurations<double>(0b1001);
}

TEST_CASE("gemm waits for its wait list and returns an event that completes with the product", "[core]") {
  // A queue with profiling on the default queue's context (tilegemm's own queues have none), so that the event's
  // times can be read.
  const cl::Context context = tilegemm::default_queue().getInfo<CL_QUEUE_CONTEXT>();
  const cl::CommandQueue queue(context, tilegemm::default_queue().getInfo<CL_QUEUE_DEVICE>(),
                               CL_QUEUE_PROFILING_ENABLE);
  const Matrix<float> a = tilegemm_test::random_matrix<float>(70, 50), b = tilegemm_test::random_matrix<float>(50, 30);
  const Matrix<float> nans = Matrix<float>::Constant(70, 30, tilegemm_test::poison<float>());
  const cl::Buffer c = device_copy(queue, nans);
  cl::UserEvent gate(context);
  cl::Event done = tilegemm::gemm<float>(queue, Transpose::no, Transpose::no, 70, 30, 50, 1.0f, device_copy(queue, a),
                                         0, 70, device_copy(queue, b), 0, 50, 0.0f, c, 0, 70, {gate});
  CHECK(done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE);  // held back by the gate
  gate.setStatus(CL_COMPLETE);
  REQUIRE(done.wait() == CL_SUCCESS);
  CHECK(done.getProfilingInfo<CL_PROFILING_COMMAND_END>() >= done.getProfilingInfo<CL_PROFILING_COMMAND_START>());
  CHECK(tilegemm_test::compare_with_reference<float>(host_copy<float>(queue, c, 70, 30), 1.0, a, b, 0.0, nans) == "");
}

// A product of several launches (a pack, then the product; split-K's two passes) held back by a wait list: on an
// in-order queue the later launches follow the earlier ones without events, on an out-of-order queue each waits for
// the event of the one before (enqueue_step). Either way the result is right and the returned event completes with it.
template <class Config>
void check_steps_in_order(const cl::CommandQueue& queue, int m, int n, int k, bool packs) {
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const tilegemm::detail::Plan plan =
      tilegemm::detail::plan_product(tilegemm::detail::describe<Config>, tilegemm_test::dense_shape(m, n, k),
                                     tilegemm::detail::device_limits(queue.getInfo<CL_QUEUE_DEVICE>()), sizeof(float));
  INFO(plan.config.name() << " " << m << "x" << n << "x" << k << ", B packed " << plan.b.packed << ", slices "
                          << plan.slices);
  REQUIRE((packs ? plan.b.packed : plan.slices > 1));  // more than one launch
  const Matrix<float> a = tilegemm_test::random_matrix<float>(m, k), b = tilegemm_test::random_matrix<float>(k, n);
  const Matrix<float> nans = Matrix<float>::Constant(m, n, tilegemm_test::poison<float>());
  const cl::Buffer c = device_copy(queue, nans);
  for (int round = 0; round < 3; ++round) {
    cl::UserEvent gate(context);
    cl::Event done =
        tilegemm::gemm<float, Config>(queue, Transpose::no, Transpose::no, m, n, k, 1.0f, device_copy(queue, a), 0, m,
                                      device_copy(queue, b), 0, k, 0.0f, c, 0, m, {gate});
    CHECK(done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE);  // held back by the gate
    gate.setStatus(CL_COMPLETE);
    REQUIRE(done.wait() == CL_SUCCESS);
    CHECK(tilegemm_test::compare_with_reference<float>(host_copy<float>(queue, c, m, n), 1.0, a, b, 0.0, nans) == "");
  }
}

TEST_CASE("the launches of one product follow each other on in-order and out-of-order queues", "[core]") {
  const cl::CommandQueue in_order = tilegemm::default_queue();
  cl_int status = CL_SUCCESS;
  const cl::CommandQueue out_of_order(in_order.getInfo<CL_QUEUE_CONTEXT>(), in_order.getInfo<CL_QUEUE_DEVICE>(),
                                      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &status);
  std::vector<cl::CommandQueue> queues = {in_order};
  if (status == CL_SUCCESS) queues.push_back(out_of_order);
  for (const cl::CommandQueue& queue : queues) {
    INFO((queue() == in_order() ? "in order" : "out of order"));
    // B, K-contiguous and serving 2048 rows, is packed first; split-K's slices are summed by a second launch.
    check_steps_in_order<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>>(queue, 2048, 64, 64, true);
    check_steps_in_order<tilegemm::SplitK<64, 64, 16, 4, 4, 4>>(queue, 64, 64, 4096, false);
  }
}

// A configuration on the tiled corner of C and the strip code on the thin rest: AutoConfig does this on GPUs for sizes
// just past a multiple of its tiles; here with any device. A prefetch configuration multiplies the strips in its own
// launch (where local memory has room), the others leave them to the remainder kernel. The device tier's part (`slow`
// false) or the slow tier's, the whole.
template <class Scalar>
void check_corner_and_strips(bool slow) {
  const cl::CommandQueue queue = tilegemm::default_queue();
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const cl_ulong local_memory_bytes = queue.getInfo<CL_QUEUE_DEVICE>().getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  struct Shape {
    int m, n, k, corner_m, corner_n;
  };
  const std::vector<Shape> shapes = {{130, 70, 33, 128, 64}, {64, 129, 20, 64, 128}, {200, 64, 64, 192, 64},
                                     {65, 65, 1, 64, 64},    {128, 64, 16, 128, 64}, {79, 80, 300, 64, 64},
                                     {100, 97, 45, 64, 64},    // strips wider than one pass of the remainder
                                     {70, 66, 2500, 64, 64}};  // K longer than the remainder stages at once
  for (const Shape s : shapes) {
    for (int t = 0; t < 8; ++t) {
      const bool trans_a = t & 1, trans_b = t & 2, fused = t & 4;
      // Every layout of A and B in float with the strips in the corner's launch; A * B and A^T * B^T (one operand
      // K-contiguous and the other not, and the reverse) with the remainder kernel and in double, whose programs
      // differ from float's only in their type: fewer programs for CI to build (this case took 7 of CI's 24 minutes
      // of tests with every layout).
      if (trans_a != trans_b && (std::is_same_v<Scalar, double> || !fused)) continue;
      // The strip code takes the layouts at run time, but each edge mode of the tiles is a program per layout (9 s
      // each on PoCL): the tiles' edge modes are test_families' ("prefetch 64x64x16_4x4 v4", every layout), so here
      // the tiles read their edges by size (whole tiles, vectors or elements) in A * B in float, and an element at
      // a time (any shape) otherwise. A C without strips is checked in A * B.
      if (s.corner_m == s.m && s.corner_n == s.n && (trans_a || trans_b)) continue;
      // The slow tier runs all of the above; the device tier A * B in float, the tiles' edges read by element (one
      // program with strips, 5 s of PoCL's: the edge modes by size are the slow tier's and test_families').
      if (!slow && (!std::is_same_v<Scalar, float> || trans_a || trans_b)) continue;
      const bool by_size = slow && std::is_same_v<Scalar, float> && !trans_a && !trans_b;
      INFO((fused ? (by_size ? "prefetch 64x64, edges by size" : "prefetch 64x64, edges by element") : "local tiles 16")
           << ", m=" << s.m << " n=" << s.n << " k=" << s.k << " corner " << s.corner_m << "x" << s.corner_n
           << " transA=" << trans_a << " transB=" << trans_b << ", seed " << tilegemm_test::run_seed());
      const Matrix<Scalar> op_a = tilegemm_test::random_matrix<Scalar>(s.m, s.k);
      const Matrix<Scalar> op_b = tilegemm_test::random_matrix<Scalar>(s.k, s.n);
      const Matrix<Scalar> c0 = tilegemm_test::random_matrix<Scalar>(s.m, s.n);
      const Matrix<Scalar> stored_a = trans_a ? Matrix<Scalar>(op_a.transpose()) : op_a;
      const Matrix<Scalar> stored_b = trans_b ? Matrix<Scalar>(op_b.transpose()) : op_b;
      const cl::Buffer a = device_copy(queue, stored_a), b = device_copy(queue, stored_b), c = device_copy(queue, c0);
      const Scalar alpha = tilegemm_test::random_scalar<Scalar>(), beta = tilegemm_test::random_scalar<Scalar>();
      const auto problem = tilegemm::detail::check_arguments(context, {trans_a ? Transpose::yes : Transpose::no,
                                                                       trans_b ? Transpose::yes : Transpose::no,
                                                                       s.m,
                                                                       s.n,
                                                                       s.k,
                                                                       tilegemm::detail::scalar_value(alpha),
                                                                       {a, 0, stored_a.rows()},
                                                                       {b, 0, stored_b.rows()},
                                                                       tilegemm::detail::scalar_value(beta),
                                                                       {c, 0, s.m}});
      tilegemm::detail::PlanOptions options = tilegemm_test::corner_options(s.corner_m, s.corner_n);
      if (fused && !by_size) options.policy = tilegemm::detail::EdgePolicy::elements;
      const auto [plan, done] =
          fused ? tilegemm_test::run_planned<tilegemm::Prefetch<64, 64, 16, 4, 4, 4>>(queue, problem, options)
                : tilegemm_test::run_planned<tilegemm::LocalTiles<16>>(queue, problem, options);
      done.wait();
      // Prefetch<64, 64, 16, 4, 4, 4> has 4352 elements of tiles; the strips' stage needs 2304 more.
      const bool room = (4352 + 2304) * sizeof(Scalar) <= local_memory_bytes;
      const bool whole = s.corner_m == s.m && s.corner_n == s.n;
      CHECK(plan.strips == (whole           ? tilegemm::detail::StripWork::none
                            : fused && room ? tilegemm::detail::StripWork::fused
                                            : tilegemm::detail::StripWork::remainder_kernel));
      CHECK(tilegemm_test::compare_with_reference<Scalar>(host_copy<Scalar>(queue, c, s.m, s.n), alpha, op_a, op_b,
                                                          beta, c0) == "");
    }
  }
}

TEST_CASE("a configuration on the tiled corner of C and the strip code on the thin rest", "[core]") {
  check_corner_and_strips<float>(false);
}
TEST_CASE("a configuration on the tiled corner of C and the strip code on the thin rest: every layout, double",
          "[core][slow]") {
  check_corner_and_strips<float>(true);
  check_corner_and_strips<double>(true);
}

// Where the remainder kernel takes the strips past a tiled corner on an in-order queue, it runs on a side queue beside
// the tiles (gemm/executor.hpp's remainder_beside), yet must follow what the caller put in the queue before (a write of
// C held back by a gate when the product is enqueued) and come before what the caller puts in it after (a copy of C
// enqueued at once); on an out-of-order queue the strips follow the tiles and the returned event completes with both.
// C is read (beta), so strips run too early or copied too early come out wrong; the strips are most of C here, so
// that they end well after the tiles.
TEST_CASE("the strips beside the tiles follow the queue's earlier commands and come before its later ones", "[core]") {
  using namespace tilegemm::detail;
  const cl::CommandQueue in_order = tilegemm::default_queue();
  const cl::Context context = in_order.getInfo<CL_QUEUE_CONTEXT>();
  cl_int status = CL_SUCCESS;
  const cl::CommandQueue out_of_order(context, in_order.getInfo<CL_QUEUE_DEVICE>(),
                                      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &status);
  std::vector<cl::CommandQueue> queues = {in_order};
  if (status == CL_SUCCESS) queues.push_back(out_of_order);
  const int m = 200, n = 150, k = 300;
  const std::size_t bytes = sizeof(float) * m * n;
  for (int round = 0; round < 6; ++round) {  // a race shows in some rounds only
    const cl::CommandQueue& queue = queues[round % queues.size()];
    const bool ordered = queue() == in_order();
    INFO((ordered ? "in order" : "out of order") << ", round " << round << ", seed " << tilegemm_test::run_seed());
    const Matrix<float> a = tilegemm_test::random_matrix<float>(m, k), b = tilegemm_test::random_matrix<float>(k, n);
    const Matrix<float> c0 = tilegemm_test::random_matrix<float>(m, n);
    const float alpha = tilegemm_test::random_scalar<float>(), beta = tilegemm_test::random_scalar<float>();
    const cl::Buffer c(context, CL_MEM_READ_WRITE, bytes), copy(context, CL_MEM_READ_WRITE, bytes);
    cl::UserEvent gate(context);
    const std::vector<cl::Event> gated = {gate};
    cl::Event written;
    REQUIRE(queue.enqueueWriteBuffer(c, CL_FALSE, 0, bytes, c0.data(), &gated, &written) == CL_SUCCESS);
    const GemmProblem problem = check_arguments(context, {Transpose::no,
                                                          Transpose::no,
                                                          m,
                                                          n,
                                                          k,
                                                          scalar_value(alpha),
                                                          {device_copy(queue, a), 0, m},
                                                          {device_copy(queue, b), 0, k},
                                                          scalar_value(beta),
                                                          {c, 0, m}});
    const Plan plan =
        tilegemm_test::planned<tilegemm::LocalTiles<16>>(queue, problem, tilegemm_test::corner_options(16, 16));
    REQUIRE(plan.strips == StripWork::remainder_kernel);
    const cl::Event done =
        execute(CallContext::of(queue), plan, problem, ordered ? std::vector<cl::Event>{} : std::vector{written});
    const std::vector<cl::Event> product = {done};
    cl::Event copied;
    REQUIRE(queue.enqueueCopyBuffer(c, copy, 0, 0, bytes, ordered ? nullptr : &product, &copied) == CL_SUCCESS);
    CHECK(done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE);  // held back by the gate
    gate.setStatus(CL_COMPLETE);
    REQUIRE(copied.wait() == CL_SUCCESS);
    CHECK(done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() == CL_COMPLETE);
    CHECK(tilegemm_test::compare_with_reference<float>(host_copy<float>(queue, copy, m, n), alpha, a, b, beta, c0) ==
          "");
    if (ordered) CHECK(SideQueues::instance().count(context()) >= 1);
  }
}

TEST_CASE("AutoConfig's split-K plans for medium products of a GPU: every transpose, odd sizes, alpha and beta",
          "[core]") {
  // Planned for the described H200 (132 compute units), whose model splits these along K (gemm/default_plan.hpp),
  // and run on this device; C sits in a taller matrix of sentinels, which must stay as they were.
  const tilegemm::detail::ScopedDeviceDescription described(tilegemm_test::h200());
  const cl::CommandQueue queue = tilegemm::default_queue();
  struct Case {
    int m, n, k;
    bool ta, tb;
    float beta;  // 0: C is poisoned first, and must not be read
  };
  // Whole tiles; elements read one at a time (odd leading dimensions); whole vectors with edges; K no multiple.
  for (const Case& x : {Case{512, 512, 512, false, false, 0.0f}, Case{384, 530, 1001, true, true, 0.75f},
                        Case{500, 400, 517, false, true, 0.0f}, Case{384, 768, 1001, true, false, -1.5f}}) {
    INFO(x.m << "x" << x.n << "x" << x.k << (x.ta ? " A^T" : "") << (x.tb ? " B^T" : "") << ", beta " << x.beta);
    const tilegemm::detail::Plan plan =
        tilegemm::detail::plan_default(tilegemm_test::dense_shape(x.m, x.n, x.k, x.ta, x.tb), tilegemm_test::h200(), 4);
    REQUIRE(plan.config.splits_k);  // the path under test
    CHECK(plan.slices > 1);
    const Matrix<float> a = tilegemm_test::random_matrix<float>(x.ta ? x.k : x.m, x.ta ? x.m : x.k);
    const Matrix<float> b = tilegemm_test::random_matrix<float>(x.tb ? x.n : x.k, x.tb ? x.k : x.n);
    const int ldc = x.m + 3;
    const Matrix<float> c_all = c_among_sentinels(x.m, x.n, ldc, x.beta);
    const Matrix<float> before = c_all;
    const float alpha = tilegemm_test::random_scalar<float>();
    const cl::Buffer c = device_copy(queue, c_all);
    tilegemm::gemm<float>(queue, x.ta ? Transpose::yes : Transpose::no, x.tb ? Transpose::yes : Transpose::no, x.m, x.n,
                          x.k, alpha, device_copy(queue, a), 0, static_cast<int>(a.rows()), device_copy(queue, b), 0,
                          static_cast<int>(b.rows()), x.beta, c, 0, ldc)
        .wait();
    const Matrix<float> after = host_copy<float>(queue, c, ldc, x.n);
    const Matrix<float> op_a = x.ta ? Matrix<float>(a.transpose()) : a;
    const Matrix<float> op_b = x.tb ? Matrix<float>(b.transpose()) : b;
    CHECK(tilegemm_test::compare_with_reference<float>(after.topRows(x.m), alpha, op_a, op_b, x.beta,
                                                       before.topRows(x.m)) == "");
    CHECK(tilegemm_test::outside_unchanged(before, after, 0, 0, x.m, x.n) == "");
  }
}

// Split-K on a family that takes batches (gemm/plan.hpp's plan_slices_as_batch): the slices of K are the problems of a
// batch whose A and B step along K, each into its slice of a workspace, then summed into C with alpha and beta; what
// AutoConfig does with double's tiles in place on tensor cores (plan_in_place_split), here with the prefetch kernel on
// any device. A * B and A^T * B^T (the strides along K of either layout), K split 2 to 7 ways, slices that are no
// whole tiles, offsets and padded leading dimensions; C sits in a taller matrix of sentinels.
TEST_CASE("split-K as a batch of the slices of K, summed into C", "[core]") {
  using namespace tilegemm::detail;
  const cl::CommandQueue queue = tilegemm::default_queue();
  const cl::Context context = queue.getInfo<CL_QUEUE_CONTEXT>();
  const CallContext call = CallContext::of(queue);
  struct Case {
    int m, n, k, slices;
    bool trans;
    float beta;  // 0: C is poisoned first, and must not be read
  };
  for (const Case& x : {Case{70, 45, 600, 4, false, 0.0f}, Case{33, 64, 700, 7, true, -0.5f},
                        Case{64, 64, 64, 2, false, 1.5f}, Case{5, 130, 390, 3, true, 0.0f}}) {
    INFO(x.m << "x" << x.n << "x" << x.k << " in " << x.slices << " slices" << (x.trans ? ", A^T B^T" : "") << ", beta "
             << x.beta << ", seed " << tilegemm_test::run_seed());
    const Matrix<float> op_a = tilegemm_test::random_matrix<float>(x.m, x.k);
    const Matrix<float> op_b = tilegemm_test::random_matrix<float>(x.k, x.n);
    const Matrix<float> stored_a = x.trans ? Matrix<float>(op_a.transpose()) : op_a;
    const Matrix<float> stored_b = x.trans ? Matrix<float>(op_b.transpose()) : op_b;
    // Each operand one column into a matrix two rows taller than it: an offset and a padded leading dimension.
    const auto padded = [](const Matrix<float>& v) {
      Matrix<float> all = tilegemm_test::random_matrix<float>(v.rows() + 2, v.cols() + 1);
      all.block(0, 1, v.rows(), v.cols()) = v;
      return all;
    };
    const Matrix<float> a_all = padded(stored_a), b_all = padded(stored_b);
    const int ldc = x.m + 3;
    const Matrix<float> c_all = c_among_sentinels(x.m, x.n, ldc, x.beta);
    const Matrix<float> before = c_all;
    const float alpha = tilegemm_test::random_scalar<float>();
    const cl::Buffer a = device_copy(queue, a_all), b = device_copy(queue, b_all), c = device_copy(queue, c_all);
    const int lda = static_cast<int>(a_all.rows()), ldb = static_cast<int>(b_all.rows());
    const GemmProblem problem = check_arguments(context, {x.trans ? Transpose::yes : Transpose::no,
                                                          x.trans ? Transpose::yes : Transpose::no,
                                                          x.m,
                                                          x.n,
                                                          x.k,
                                                          scalar_value(alpha),
                                                          {a, lda, lda},
                                                          {b, ldb, ldb},
                                                          scalar_value(x.beta),
                                                          {c, 0, ldc}});
    const std::optional<Plan> plan = plan_slices_as_batch(describe<tilegemm::Prefetch<32, 32, 16, 2, 2, 2>>,
                                                          problem.shape, call.limits, 4, x.slices);
    REQUIRE(plan);
    CHECK(plan->slices == x.slices);
    CHECK(plan->k_per_slice == x.k / x.slices);
    CHECK(plan->global[2] == static_cast<std::size_t>(x.slices));
    execute(call, *plan, problem, {}).wait();
    const Matrix<float> after = host_copy<float>(queue, c, ldc, x.n);
    CHECK(tilegemm_test::compare_with_reference<float>(after.topRows(x.m), alpha, op_a, op_b, x.beta,
                                                       before.topRows(x.m)) == "");
    CHECK(tilegemm_test::outside_unchanged(before, after, 0, 0, x.m, x.n) == "");
  }
  // None where the slices do not divide K, for split-K's own family, for a batch, or for one slice.
  const GemmShape shape = tilegemm_test::dense_shape(64, 64, 700);
  const KernelDescription& prefetch = describe<tilegemm::Prefetch<32, 32, 16, 2, 2, 2>>;
  CHECK(!plan_slices_as_batch(prefetch, shape, call.limits, 4, 3));
  CHECK(!plan_slices_as_batch(describe<tilegemm::SplitK<32, 32, 16, 2, 2, 2>>, shape, call.limits, 4, 7));
  CHECK(!plan_slices_as_batch(prefetch, shape, call.limits, 4, 1));
  GemmShape batch = shape;
  batch.batch = 2;
  CHECK(!plan_slices_as_batch(prefetch, batch, call.limits, 4, 7));
}
