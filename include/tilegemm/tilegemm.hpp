// tilegemm: the whole library; include this one header.
#pragma once

#include "config/tile_config.hpp"
#include "eigen/gpu_gemm.hpp"
#include "gemm/default_config.hpp"
#include "gemm/gemm.hpp"
#include "runtime/device.hpp"
#include "runtime/error.hpp"
#include "runtime/program_cache.hpp"
#include "runtime/queue.hpp"
