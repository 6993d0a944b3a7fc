// dense_shape: the shape of a product whose operands are stored densely as a caller would, for the planner's tests.
#pragma once

#include <tilegemm/core.hpp>

namespace tilegemm_test {

// op(A) m x k times op(B) k x n, each stored at offset 0 with leading dimension = rows as stored.
inline tilegemm::detail::GemmShape dense_shape(int m, int n, int k, bool trans_a = false, bool trans_b = false) {
  tilegemm::detail::GemmShape s;
  s.trans_a = trans_a;
  s.trans_b = trans_b;
  s.m = m;
  s.n = n;
  s.k = k;
  s.a = {0, trans_a ? k : m};
  s.b = {0, trans_b ? n : k};
  s.c = {0, m};
  return s;
}

}  // namespace tilegemm_test
