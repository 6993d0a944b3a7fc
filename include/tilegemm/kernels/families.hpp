// kernels/families: every kernel family's file (a new family's file is added here and in config/family.hpp).
#pragma once

#include "bulk_tensor_cores.hpp"
#include "local_tiles.hpp"
#include "naive.hpp"
#include "prefetch.hpp"
#include "register_blocking.hpp"
#include "split_k.hpp"
#include "tensor_cores.hpp"
#include "warpgroup_mma.hpp"
#include "wide_types.hpp"
