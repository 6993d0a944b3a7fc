// address_sanitizer: whether this test is built with AddressSanitizer (TILEGEMM_SANITIZE), and the few functions of
// the sanitizers' runtime the tests call then. GCC's and Clang's runtimes have them; GCC installs no header for them.
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define TILEGEMM_TEST_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TILEGEMM_TEST_ADDRESS_SANITIZER 1
#endif
#endif

#ifdef TILEGEMM_TEST_ADDRESS_SANITIZER
extern "C" {
// The bytes allocated and not yet freed.
std::size_t __sanitizer_get_current_allocated_bytes();
// Called when a sanitizer ends the process after its report.
void __sanitizer_set_death_callback(void (*callback)());
}
#endif
