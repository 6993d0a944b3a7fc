# The sanitizer build (TILEGEMM_SANITIZE): tilegemm's own tests, examples and benchmark built with AddressSanitizer
# (LeakSanitizer on) and UndefinedBehaviorSanitizer, each report fatal, the OpenCL drivers' leaks suppressed.
set(TILEGEMM_SANITIZER_FLAGS "")
if(TILEGEMM_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "TILEGEMM_SANITIZE needs GCC or Clang (-fsanitize=address,undefined), not "
                        "${CMAKE_CXX_COMPILER_ID}.")
  endif()
  # -fno-sanitize-recover=all: a UBSan report ends the process with an error, so that the test that met it fails.
  set(TILEGEMM_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
endif()

# tilegemm_sanitize(target): builds and links the target with the sanitizers when TILEGEMM_SANITIZE is on. An
# executable also gets the sanitizers' default options compiled in (sanitizer_options.cpp), so that it runs the same
# under ctest and by hand (replaying a seed); the environment's ASAN_OPTIONS, LSAN_OPTIONS, UBSAN_OPTIONS still
# override them option by option.
function(tilegemm_sanitize target)
  if(NOT TILEGEMM_SANITIZE)
    return()
  endif()
  target_compile_options(${target} PRIVATE ${TILEGEMM_SANITIZER_FLAGS})
  target_link_options(${target} PRIVATE ${TILEGEMM_SANITIZER_FLAGS})
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    set(options_source ${PROJECT_SOURCE_DIR}/tests/sanitizers/sanitizer_options.cpp)
    target_sources(${target} PRIVATE ${options_source})
    target_compile_definitions(${target}
                               PRIVATE TILEGEMM_LSAN_SUPPRESSIONS="${PROJECT_SOURCE_DIR}/tests/sanitizers/lsan.supp")
  endif()
endfunction()
