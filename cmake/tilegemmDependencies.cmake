# Finds what tilegemm's core needs (the OpenCL ICD loader and headers, the OpenCL-CLHPP C++ header), for the project's
# own build and for find_package(tilegemm) from an install prefix. Eigen, which only the Eigen front end needs, is
# found by the callers: REQUIRED where they build it, optionally in the package configuration.
if(NOT TARGET OpenCL::OpenCL)  # tilegemmConfig.cmake has found it already, through find_dependency
  find_package(OpenCL REQUIRED)
endif()
if(NOT TARGET tilegemm::clhpp)
  find_path(TILEGEMM_CLHPP_INCLUDE_DIR CL/opencl.hpp HINTS ${OpenCL_INCLUDE_DIRS})
  if(NOT TILEGEMM_CLHPP_INCLUDE_DIR)
    message(FATAL_ERROR "tilegemm needs the OpenCL C++ bindings (CL/opencl.hpp): install opencl-clhpp-headers "
                        "(Debian, Ubuntu) or https://github.com/KhronosGroup/OpenCL-CLHPP.")
  endif()
  add_library(tilegemm::clhpp INTERFACE IMPORTED)
  set_target_properties(tilegemm::clhpp PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${TILEGEMM_CLHPP_INCLUDE_DIR}")
endif()
