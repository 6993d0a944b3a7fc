/* blas_fallback: calls that fail on the device (here a build PoCL refuses: POCL_EXTRA_BUILD_FLAGS names an option it
   does not know) are redone on the CPU BLAS, right, counted as fallbacks, and said once: one line on stderr for all
   of them. Usage: blas_fallback STDERR_FILE, with TILEGEMM_BLAS_OFFLOAD=always; exits 77 (a skip) where a GPU is
   present, as no variable makes its driver refuse. */

#include "gemm_case.h"
#include "gpu_present.h"
#include "linked_routines.h"

int main(int argc, char** argv) {
  static const gemm_form forms[3] = {FORM_SGEMM_, FORM_CBLAS_DGEMM_ROW, FORM_SGEMM_};
  static const double betas[3] = {1.0, -0.5, 0.0};
  test_rng rng;
  int failed = 0, i, lines = 0, said = 0;
  char line[4096];
  FILE* said_file;
  rng.state = test_seed();
  if (argc != 2 || !getenv("POCL_EXTRA_BUILD_FLAGS")) {
    fprintf(stderr, "usage: POCL_EXTRA_BUILD_FLAGS=-bad-option TILEGEMM_BLAS_OFFLOAD=always blas_fallback FILE\n");
    return 2;
  }
  if (gpu_present()) {
    printf("SKIP: a GPU is present; only PoCL can be made to refuse a build (POCL_EXTRA_BUILD_FLAGS)\n");
    return 77;
  }
  /* Everything the library says goes to the file; this program's own messages go to stdout. */
  if (!freopen(argv[1], "w", stderr)) {
    perror(argv[1]);
    return 2;
  }
  for (i = 0; i < 3; ++i) {
    gemm_case c = gemm_case_random(forms[i], &rng);
    const tilegemm_blas_counts before = tilegemm_blas_stats();
    tilegemm_blas_counts after;
    c.beta = betas[i];
    failed |= gemm_case_run_checked(&linked, &c, &rng, "redone on the CPU");
    after = tilegemm_blas_stats();
    if (after.calls - before.calls != 1 || after.cpu_calls - before.cpu_calls != 1 ||
        after.fallbacks - before.fallbacks != 1 || after.gpu_calls != before.gpu_calls) {
      printf(
          "FAIL: %s: stats moved by %llu calls, %llu on the CPU, %llu fallbacks, %llu on the GPU; expected one "
          "fallback on the CPU\n",
          gemm_form_names[c.form], after.calls - before.calls, after.cpu_calls - before.cpu_calls,
          after.fallbacks - before.fallbacks, after.gpu_calls - before.gpu_calls);
      failed = 1;
    }
  }
  fflush(stderr);
  said_file = fopen(argv[1], "r");
  if (!said_file) {
    perror(argv[1]);
    return 2;
  }
  while (fgets(line, sizeof line, said_file)) {
    const size_t length = strlen(line);
    if (length > 0 && line[length - 1] == '\n') ++lines;
    if (strstr(line, "tilegemm-blas:") && strstr(line, "sgemm_") && strstr(line, "CPU")) ++said;
    printf("stderr: %s", line);
  }
  fclose(said_file);
  if (lines != 1 || said != 1) {
    printf(
        "FAIL: stderr holds %d lines, %d of them the drop-in's about the first failure (sgemm_, redone on the "
        "CPU); expected that one line alone for the three failures\n",
        lines, said);
    failed = 1;
  }
  printf("fallback: %s\n", failed ? "FAILED" : "three calls redone on the CPU, said in one line, all right");
  return failed;
}
