// core: the library without Eigen: configurations, devices, queues, tilegemm::gemm on cl::Buffers, release_resources.
#pragma once

#include "config/tile_config.hpp"
#include "gemm/gemm.hpp"
#include "runtime/device.hpp"
#include "runtime/error.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/queue.hpp"
#include "runtime/resources.hpp"
