// host/host_options: the host floor's own switches, read once at its entry: whether beta * C is folded into the copy
// out of C or C is uploaded (a measurement switch), and a test's injected failure.
#pragma once

#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "../config/linkage.hpp"
#include "../runtime/call_options.hpp"
#include "../runtime/error.hpp"

namespace tilegemm::detail {

class SharedChunks;  // host/shared_chunks.hpp

// Where beta != 0, how beta * C gets into the result. Folded (the default): the device computes alpha * op(A) * op(B)
// alone and the host writes C = R + beta * C as it copies R out, so that C is never uploaded. Uploaded: C goes to
// the device and the product computes alpha * op(A) * op(B) + beta * C there. TILEGEMM_BETA_FOLD=0 uploads, 1 (or
// unset) folds: a measurement switch, to time the two on a GPU; read once per process.
TILEGEMM_ENTRY bool beta_fold_from_environment();
#if TILEGEMM_ENTRY_BODIES
TILEGEMM_ENTRY bool beta_fold_from_environment() {
  static const bool folds = [] {
    const char* text = std::getenv("TILEGEMM_BETA_FOLD");
    return text == nullptr || std::strcmp(text, "0") != 0;
  }();
  return folds;
}
#endif

// Tests choose per thread while one lives, over TILEGEMM_BETA_FOLD.
struct BetaFoldTag {};
using ScopedBetaFold = ScopedDefault<bool, BetaFoldTag>;

// A test hook: the host floor throws tilegemm::Error (CL_OUT_OF_RESOURCES) where it has written `after_parts` parts of
// C (0: just before it would write the first; the staged path writes C in parts of a pinned slot each, the direct
// path in one), as a failed download would, so that tests see what a failure leaves in C.
struct InjectedFailure {
  int after_parts = -1;  // -1: none
};
struct InjectedFailureTag {};
using ScopedInjectedFailure = ScopedDefault<InjectedFailure, InjectedFailureTag>;

// The switches of one call.
struct HostOptions {
  bool fold_beta = true;
  int fail_after_parts = -1;
  // The caller keeps A, B and C alive and unchanged until the call's handle completes (tilegemm::gemm_async): a call
  // that does not block runs the staged path on a host thread of its own and returns at once.
  bool staged_on_own_thread = false;
  // The call's options where it runs on a thread other than its caller's (a device's thread of a product over several
  // devices, host/multi_device.hpp): read there, CallOptions::defaults() would miss the caller's scoped settings.
  std::optional<CallOptions> call_options;
  // The pieces of A and B the devices of a product over several share (host/multi_device.hpp); null: none.
  std::shared_ptr<SharedChunks> shared_chunks;

  static HostOptions defaults() {
    HostOptions options;
    options.fold_beta = ScopedBetaFold::current() ? *ScopedBetaFold::current() : beta_fold_from_environment();
    if (const InjectedFailure* failure = ScopedInjectedFailure::current())
      options.fail_after_parts = failure->after_parts;
    return options;
  }
  // Throws the injected failure where `written` parts of C have been written.
  void fail_if_injected(int written) const {
    if (written == fail_after_parts) {
      throw Error(CL_OUT_OF_RESOURCES,
                  "tilegemm: a test's injected failure after " + std::to_string(written) + " parts of C were written");
    }
  }
};

}  // namespace tilegemm::detail
