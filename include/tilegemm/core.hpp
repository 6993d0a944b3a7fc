// core: the library without Eigen: configurations, devices and queues, and tilegemm::gemm on cl::Buffers.
#pragma once

#include "config/tile_config.hpp"
#include "gemm/gemm.hpp"
#include "runtime/device.hpp"
#include "runtime/error.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/queue.hpp"
#include "runtime/resources.hpp"
