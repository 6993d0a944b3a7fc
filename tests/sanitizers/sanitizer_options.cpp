// sanitizer_options: the default options of the sanitizer build (TILEGEMM_SANITIZE), which the sanitizers' runtime
// asks each executable for at start-up; ASAN_OPTIONS, LSAN_OPTIONS and UBSAN_OPTIONS override them one by one.

#ifndef TILEGEMM_LSAN_SUPPRESSIONS
#error "sanitizers.cmake defines TILEGEMM_LSAN_SUPPRESSIONS, the path of lsan.supp"
#endif

extern "C" {

// detect_leaks: LeakSanitizer at exit, whose report fails the process. check_initialization_order and
// strict_init_order: a static initializer that reads another file's static before it is initialized is an error.
// detect_stack_use_after_return: a pointer to a returned function's locals is caught when used.
//
// fast_unwind_on_malloc=0, malloc_context_size=12: each allocation's stack is unwound through code built without
// frame pointers too (the OpenCL driver and LLVM), far enough for lsan.supp to tell the driver's own allocations from
// those made for tilegemm; 12 frames keep that affordable (about 1.6 times the time of the frame-pointer walk here).
//
// use_sigaltstack=0: LLVM inside PoCL puts an alternate signal stack of its own on the threads that compile, and
// AddressSanitizer then fails to unmap "its" stack when such a thread ends ("unable to unmap"). Without one of
// AddressSanitizer's, a stack overflow is a plain crash rather than a report.
const char* __asan_default_options() {
  return "detect_leaks=1:halt_on_error=1:check_initialization_order=1:strict_init_order=1:"
         "detect_stack_use_after_return=1:fast_unwind_on_malloc=0:malloc_context_size=12:use_sigaltstack=0";
}

// lsan.supp names functions and libraries of the OpenCL driver only, each with the reason.
const char* __lsan_default_options() { return "suppressions=" TILEGEMM_LSAN_SUPPRESSIONS ":print_suppressions=0"; }

// print_stacktrace: where undefined behaviour happened, not only the line (the build ends the process on it).
const char* __ubsan_default_options() { return "print_stacktrace=1:halt_on_error=1"; }
}
