// eigen/gpu_product: what gpu_gemm(A, B) returns: the product as an Eigen expression, computed on the device when it
// is assigned, into the matrix it is assigned to (as C = A * B reuses C's memory), aliasing or not.
#pragma once

#include <Eigen/Core>
#include <type_traits>
#include <vector>

#include "../runtime/device_list.hpp"
#include "../runtime/huge_pages.hpp"
#include "../runtime/opencl.hpp"
#include "../runtime/queue.hpp"
#include "gpu_gemm.hpp"
#include "shapes.hpp"
#include "sixteen_bit.hpp"

namespace tilegemm {

template <class Config, class DA, class DB>
class GpuProduct;

}  // namespace tilegemm

namespace Eigen::internal {

// A column-major dynamic matrix of the operands' scalar, neither writable nor with storage of its own until evaluated.
template <class Config, class DA, class DB>
struct traits<tilegemm::GpuProduct<Config, DA, DB>> : traits<Matrix<typename DA::Scalar, Dynamic, Dynamic>> {
  enum { Flags = 0 };
};

}  // namespace Eigen::internal

namespace tilegemm {

// A * B on the device of a queue ([[nodiscard]]: like A * B alone, a product nobody assigns computes nothing). `C =
// gpu_gemm(A, B)` computes it into C (resized when its shape differs), C += and C -= into C too (beta = 1), and any
// other use (a Matrix made from it, gpu_gemm(A, B).norm(), a further operand) into a new matrix. The operands are held
// as Eigen holds them in its own expressions (matrices by reference), so assign it in the statement that makes it, as
// with any Eigen expression.
template <class Config, class DA, class DB>
class [[nodiscard]] GpuProduct : public Eigen::MatrixBase<GpuProduct<Config, DA, DB>> {
 public:
  using Base = Eigen::MatrixBase<GpuProduct>;
  EIGEN_DENSE_PUBLIC_INTERFACE(GpuProduct)
  using PlainMatrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  using Factor = detail::factor_t<Scalar>;  // alpha and beta: float for Eigen::half and Eigen::bfloat16

  GpuProduct(const cl::CommandQueue& queue, const DA& a, const DB& b) : queue_(queue), a_(a), b_(b) {
    detail::check_product_shapes(a.rows(), a.cols(), b.rows(), b.cols());
  }
  // Over the devices of `queues` (gpu_gemm on a list of queues).
  GpuProduct(const std::vector<cl::CommandQueue>& queues, const DA& a, const DB& b) : queues_(queues), a_(a), b_(b) {
    detail::check_product_shapes(a.rows(), a.cols(), b.rows(), b.cols());
  }

  Eigen::Index rows() const { return a_.rows(); }
  Eigen::Index cols() const { return b_.cols(); }

  // Reading one element would compute the whole product for it: assign the product to a matrix first.
  Scalar coeff(Eigen::Index, Eigen::Index) const = delete;
  Scalar coeff(Eigen::Index) const = delete;
  Scalar operator()(Eigen::Index, Eigen::Index) const = delete;
  Scalar operator()(Eigen::Index) const = delete;
  Scalar operator[](Eigen::Index) const = delete;

  // dst = alpha * A * B + beta * dst; with beta zero a resizable dst takes the product's shape first. Where dst must
  // change shape, the product goes to a new matrix that then replaces it, so that operands sharing dst's memory are
  // read before it changes; other aliasing is handled by the in-place gpu_gemm.
  template <class Dest>
  void evaluate_into(Dest& dst, Factor alpha, Factor beta) const {
    if constexpr (std::is_base_of_v<Eigen::PlainObjectBase<Dest>, Dest>) {
      constexpr bool rows_fixed = Dest::RowsAtCompileTime != Eigen::Dynamic,
                     cols_fixed = Dest::ColsAtCompileTime != Eigen::Dynamic;
      const bool reshaped = dst.rows() != rows() || dst.cols() != cols();
      const bool can_reshape =
          (!rows_fixed || Dest::RowsAtCompileTime == rows()) && (!cols_fixed || Dest::ColsAtCompileTime == cols());
      if (beta == Factor(0) && !reshaped) {
        // Often memory just allocated (Matrix D = gpu_gemm(A, B)): its first writes fault once per 2 MiB then.
        detail::prefer_huge_pages(dst.data(), static_cast<std::size_t>(dst.size()) * sizeof(Scalar));
      }
      if (beta == Factor(0) && reshaped && can_reshape) {
        PlainMatrix result(rows(), cols());
        detail::prefer_huge_pages(result.data(), static_cast<std::size_t>(result.size()) * sizeof(Scalar));
        in_place(result, alpha, beta);
        if constexpr (std::is_same_v<Dest, PlainMatrix>) {
          dst.swap(result);
        } else {
          dst = result;
        }
        return;
      }
    }
    in_place(dst, alpha, beta);
  }

 private:
  template <class Dest>
  void in_place(Dest& dst, Factor alpha, Factor beta) const {
    if constexpr (detail::is_sixteen_bit_v<Scalar>) {
      gpu_gemm<Config>(queue_, a_, b_, dst, alpha, beta);  // on one device (require_one_device_for)
    } else if (queues_.empty()) {
      gpu_gemm<Config>(queue_, a_, b_, dst, alpha, beta);
    } else {
      gpu_gemm<Config>(queues_, a_, b_, dst, alpha, beta);
    }
  }

  cl::CommandQueue queue_;
  std::vector<cl::CommandQueue> queues_;  // not empty: over these devices
  typename Eigen::internal::ref_selector<DA>::type a_;
  typename Eigen::internal::ref_selector<DB>::type b_;
};

}  // namespace tilegemm

namespace Eigen::internal {

// Any use but an assignment: the product in a matrix of its own, computed once per evaluator.
template <class Config, class DA, class DB>
struct evaluator<tilegemm::GpuProduct<Config, DA, DB>>
    : evaluator<typename tilegemm::GpuProduct<Config, DA, DB>::PlainMatrix> {
  using Product = tilegemm::GpuProduct<Config, DA, DB>;
  using PlainMatrix = typename Product::PlainMatrix;
  using Base = evaluator<PlainMatrix>;
  enum { Flags = Base::Flags | EvalBeforeNestingBit };

  explicit evaluator(const Product& product) : result_(product.rows(), product.cols()) {
    ::new (static_cast<Base*>(this)) Base(result_);
    product.evaluate_into(result_, typename Product::Factor(1), typename Product::Factor(0));
  }

  PlainMatrix result_;
};

// dst = A * B, dst += A * B and dst -= A * B: straight into dst's memory, as dst = alpha * A * B + beta * dst.
template <class Product, int alpha, int beta>
struct AssignGpuProduct {
  template <class Dest, class Op>
  static void run(Dest& dst, const Product& product, const Op&) {
    product.evaluate_into(dst, typename Product::Factor(alpha), typename Product::Factor(beta));
  }
};
template <class Dest, class Config, class DA, class DB>
struct Assignment<Dest, tilegemm::GpuProduct<Config, DA, DB>, assign_op<typename Dest::Scalar, typename DA::Scalar>,
                  Dense2Dense> : AssignGpuProduct<tilegemm::GpuProduct<Config, DA, DB>, 1, 0> {};
template <class Dest, class Config, class DA, class DB>
struct Assignment<Dest, tilegemm::GpuProduct<Config, DA, DB>, add_assign_op<typename Dest::Scalar, typename DA::Scalar>,
                  Dense2Dense> : AssignGpuProduct<tilegemm::GpuProduct<Config, DA, DB>, 1, 1> {};
template <class Dest, class Config, class DA, class DB>
struct Assignment<Dest, tilegemm::GpuProduct<Config, DA, DB>, sub_assign_op<typename Dest::Scalar, typename DA::Scalar>,
                  Dense2Dense> : AssignGpuProduct<tilegemm::GpuProduct<Config, DA, DB>, -1, 1> {};

}  // namespace Eigen::internal

namespace tilegemm {

// The product a * b on the device of `queue`: write C = tilegemm::gpu_gemm(queue, A, B) for C = A * B.
template <class Config = AutoConfig, class DA, class DB>
GpuProduct<Config, DA, DB> gpu_gemm(const cl::CommandQueue& queue, const Eigen::MatrixBase<DA>& a,
                                    const Eigen::MatrixBase<DB>& b) {
  detail::check_scalars<DA, DB>();
  detail::require_config_for<Config, typename DA::Scalar>();
  (void)detail::description_of<Config>();  // a Config that is no configuration fails here, with its sentence
  return GpuProduct<Config, DA, DB>(queue, a.derived(), b.derived());
}

// The product a * b over the devices of `queues`: C = tilegemm::gpu_gemm(queues, A, B) (host/multi_device.hpp).
template <class Config = AutoConfig, class DA, class DB>
GpuProduct<Config, DA, DB> gpu_gemm(const std::vector<cl::CommandQueue>& queues, const Eigen::MatrixBase<DA>& a,
                                    const Eigen::MatrixBase<DB>& b) {
  detail::check_scalars<DA, DB>();
  detail::require_one_device_for<typename DA::Scalar>();
  (void)detail::description_of<Config>();
  return GpuProduct<Config, DA, DB>(queues, a.derived(), b.derived());
}

// The product a * b on the devices TILEGEMM_DEVICES names, else the one TILEGEMM_DEVICE chooses: write C =
// tilegemm::gpu_gemm(A, B) for C = A * B.
// (16-bit products on the one device TILEGEMM_DEVICE chooses.)
template <class Config = AutoConfig, class DA, class DB>
GpuProduct<Config, DA, DB> gpu_gemm(const Eigen::MatrixBase<DA>& a, const Eigen::MatrixBase<DB>& b) {
  if constexpr (detail::is_sixteen_bit_v<typename DA::Scalar>) {
    return gpu_gemm<Config>(default_queue(), a, b);
  } else {
    const std::vector<cl::CommandQueue> queues = default_queues();
    if (queues.empty()) return gpu_gemm<Config>(default_queue(), a, b);
    return gpu_gemm<Config>(queues, a, b);
  }
}

}  // namespace tilegemm
