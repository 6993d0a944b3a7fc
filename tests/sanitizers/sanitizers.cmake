# The sanitizer build (TILEGEMM_SANITIZE): ASan and UBSan on tilegemm's own tests, examples and benchmark, and the
# sanitizers' options (with the OpenCL drivers' suppressions) in the environment of their ctest entries.
set(TILEGEMM_SANITIZER_FLAGS "")
set(TILEGEMM_SANITIZER_ENVIRONMENT "")
if(TILEGEMM_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "TILEGEMM_SANITIZE needs GCC or Clang (-fsanitize=address,undefined).")
  endif()
  set(TILEGEMM_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  set(sanitizers_dir ${CMAKE_CURRENT_LIST_DIR})
  # halt_on_error and print_stacktrace: the first report fails the test, with the stack that led to it.
  set(TILEGEMM_SANITIZER_ENVIRONMENT
      "ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:check_initialization_order=1:strict_init_order=1:use_sigaltstack=0:fast_unwind_on_malloc=0:malloc_context_size=64"
      "LSAN_OPTIONS=suppressions=${sanitizers_dir}/lsan.supp:print_suppressions=0"
      "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1")
endif()

# tilegemm_sanitize(target): builds and links the target with the sanitizers when TILEGEMM_SANITIZE is on.
function(tilegemm_sanitize target)
  target_compile_options(${target} PRIVATE ${TILEGEMM_SANITIZER_FLAGS})
  target_link_options(${target} PRIVATE ${TILEGEMM_SANITIZER_FLAGS})
endfunction()

# tilegemm_sanitize_tests(test...): runs these ctest entries with the sanitizers' options.
function(tilegemm_sanitize_tests)
  if(TILEGEMM_SANITIZE)
    set_tests_properties(${ARGN} PROPERTIES ENVIRONMENT "${TILEGEMM_SANITIZER_ENVIRONMENT}")
  endif()
endfunction()

# tilegemm_sanitize_discovered_tests(list): the same for the tests catch_discover_tests(... TEST_LIST list) finds
# when the executable is built. They exist only when ctest runs, so a ctest script included after Catch's sets the
# property; it is not passed through catch_discover_tests' PROPERTIES, which would split the list of variables.
function(tilegemm_sanitize_discovered_tests list)
  if(TILEGEMM_SANITIZE)
    set(script ${CMAKE_CURRENT_BINARY_DIR}/${list}_sanitizer_environment.cmake)
    file(WRITE ${script} "if(${list})\n  set_tests_properties(\${${list}} PROPERTIES ENVIRONMENT "
                         "[==[${TILEGEMM_SANITIZER_ENVIRONMENT}]==])\nendif()\n")
    set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${script})
  endif()
endfunction()
