/* blas_fork: fork() after an offload. The child's sgemm_ and dgemm_ run on the CPU, right, and finish (an OpenCL
   context made before fork() is unusable in the child); the parent keeps offloading. Run with
   TILEGEMM_BLAS_OFFLOAD=always. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gemm_case.h"
#include "linked_routines.h"

/* One checked call that must count where `on_gpu` says: 0 or 1 (printed). */
static int call_counted(gemm_form form, int on_gpu, test_rng* r, const char* who) {
  const gemm_case c = gemm_case_random(form, r);
  const tilegemm_blas_counts before = tilegemm_blas_stats();
  int failed = gemm_case_run_checked(&linked, &c, r, who);
  const tilegemm_blas_counts after = tilegemm_blas_stats();
  const unsigned long long gpus = after.gpu_calls - before.gpu_calls, cpus = after.cpu_calls - before.cpu_calls;
  if (after.calls - before.calls != 1 || gpus != (unsigned long long)on_gpu || cpus != (unsigned long long)!on_gpu) {
    fprintf(stderr, "FAIL %s: %s counted %llu on the GPU and %llu on the CPU; expected one on the %s\n", who,
            gemm_form_names[form], gpus, cpus, on_gpu ? "GPU" : "CPU");
    failed = 1;
  }
  return failed;
}

int main(void) {
  test_rng rng;
  int failed = 0, status = 0, waited = 0;
  pid_t child;
  rng.state = test_seed();
  if (tilegemm_blas_get_offload() != TILEGEMM_BLAS_ALWAYS) {
    fprintf(stderr, "FAIL: run with TILEGEMM_BLAS_OFFLOAD=always\n");
    return 1;
  }
  failed |= call_counted(FORM_SGEMM_, 1, &rng, "parent before fork()");
  fflush(NULL);
  child = fork();
  if (child < 0) {
    perror("fork");
    return 1;
  }
  if (child == 0) {
    int child_failed = 0;
    rng.state += 1000;
    child_failed |= call_counted(FORM_SGEMM_, 0, &rng, "child");
    child_failed |= call_counted(FORM_DGEMM_, 0, &rng, "child");
    child_failed |= call_counted(FORM_CBLAS_SGEMM_ROW, 0, &rng, "child");
    fflush(NULL);
    _exit(child_failed ? 3 : 0);
  }
  /* Wait at most 60 s: a child stuck in the driver fails the test rather than hanging it. */
  while (waited < 600) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (done < 0 && errno != EINTR) {
      perror("waitpid");
      return 1;
    }
    {
      const struct timespec tenth = {0, 100000000L};
      nanosleep(&tenth, NULL);
    }
    ++waited;
  }
  if (waited == 600) {
    fprintf(stderr, "FAIL: the child did not finish in 60 s after fork()\n");
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    return 1;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "FAIL: the child %s %d\n", WIFEXITED(status) ? "exited with" : "was killed by signal",
            WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    failed = 1;
  }
  failed |= call_counted(FORM_SGEMM_, 1, &rng, "parent after fork()");
  failed |= call_counted(FORM_CBLAS_DGEMM_COL, 1, &rng, "parent after fork()");
  printf("fork: %s\n", failed ? "FAILED" : "the child ran on the CPU, the parent on the GPU, all right");
  return failed;
}
