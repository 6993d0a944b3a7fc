// core: the library without Eigen: configurations, devices, queues, tilegemm::gemm and gemm_strided_batched on
// cl::Buffers, tilegemm::gemm and gemm_async on host pointers (the host floor), release_resources.
#pragma once

#include "config/tile_config.hpp"
#include "gemm/gemm.hpp"
#include "gemm/gemm_strided_batched.hpp"
#include "host/host_gemm.hpp"
#include "host/pending.hpp"
#include "runtime/device.hpp"
#include "runtime/error.hpp"
#include "runtime/queue.hpp"
#include "runtime/resources.hpp"
