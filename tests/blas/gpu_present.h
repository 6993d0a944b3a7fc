/* gpu_present: whether any OpenCL device is a GPU or an accelerator (with PoCL alone, none is): the drop-in's tests
   expect auto to offload nothing, and a refused build to be forceable, only where there is none. */
#ifndef TILEGEMM_TESTS_BLAS_GPU_PRESENT_H
#define TILEGEMM_TESTS_BLAS_GPU_PRESENT_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

static int gpu_present(void) {
  cl_platform_id platforms[16];
  cl_uint count = 0, p;
  if (clGetPlatformIDs(16, platforms, &count) != CL_SUCCESS) return 0;
  for (p = 0; p < count && p < 16; ++p) {
    cl_uint devices = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR, 0, NULL, &devices) ==
            CL_SUCCESS &&
        devices > 0) {
      return 1;
    }
  }
  return 0;
}

#endif
