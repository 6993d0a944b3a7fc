// tilegemm: the whole library; include this one header.
#pragma once

#include "default_config.hpp"
#include "device.hpp"
#include "error.hpp"
#include "gemm.hpp"
#include "gpu_gemm.hpp"
#include "program_cache.hpp"
#include "queue.hpp"
#include "tile_config.hpp"
