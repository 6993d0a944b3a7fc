// tilegemm: the whole library; include this one header (core.hpp is the same without the Eigen front end).
#pragma once

#include "core.hpp"
#include "eigen/device_batch.hpp"
#include "eigen/device_gemm.hpp"
#include "eigen/device_gemm_batched.hpp"
#include "eigen/device_matrix.hpp"
#include "eigen/gpu_gemm.hpp"
#include "eigen/gpu_gemm_batched.hpp"
#include "eigen/gpu_product.hpp"
