// compile_time/eigen_product: the same translation unit written for Eigen alone (Eigen's own product), the baseline
// .ci/compile-time divides by.
#include <Eigen/Dense>

int main() {
  const Eigen::MatrixXf af = Eigen::MatrixXf::Random(64, 64);
  const Eigen::MatrixXd ad = Eigen::MatrixXd::Random(64, 64);
  const Eigen::MatrixXf cf = af * af;
  const Eigen::MatrixXd cd = ad * ad;
  return cf(0, 0) > cd(0, 0) ? 1 : 0;
}
