// opencl: includes OpenCL-CLHPP with the API versions tilegemm is written against (1.2 and newer).
#pragma once

// Users may set these before including tilegemm; the library itself only needs OpenCL 1.2.
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif

#include <CL/opencl.hpp>
