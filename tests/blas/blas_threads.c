/* blas_threads: 4 threads make 25 mixed calls each at once (s and d, Fortran and CBLAS in both orders, every
   letter, sizes 1 to 129), each checked against its double reference; the stats count all 100, and the log
   (TILEGEMM_BLAS_LOG, a file) has one whole line for each, naming the routine as called. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "gemm_case.h"
#include "linked_routines.h"

enum { THREADS = 4, CALLS = 25 };

/* The routines as the log names them, by form. */
static const char* const routine_of_form[FORM_COUNT] = {"sgemm_",      "dgemm_",      "cblas_sgemm",
                                                        "cblas_sgemm", "cblas_dgemm", "cblas_dgemm"};
static const char* const routines[4] = {"sgemm_", "dgemm_", "cblas_sgemm", "cblas_dgemm"};

static int routine_index(const char* name) {
  int i;
  for (i = 0; i < 4; ++i) {
    if (strcmp(name, routines[i]) == 0) return i;
  }
  return -1;
}

typedef struct worker {
  test_rng rng;
  int failed;
  int calls[4]; /* by routine */
  pthread_barrier_t* start;
} worker;

static void* work(void* argument) {
  worker* w = argument;
  int i;
  pthread_barrier_wait(w->start); /* all four begin together */
  for (i = 0; i < CALLS; ++i) {
    const gemm_case c = gemm_case_random((gemm_form)rng_below(&w->rng, FORM_COUNT), &w->rng);
    w->failed |= gemm_case_run_checked(&linked, &c, &w->rng, "threads");
    ++w->calls[routine_index(routine_of_form[c.form])];
  }
  return NULL;
}

/* Whether the log holds one line per call, "tilegemm-blas: <routine> ... gpu|cpu <why> <ms> ms", as many of each
   routine as were called (and all gpu in mode always): 0, else 1. */
static int check_log(const char* path, const int called[4], int always) {
  FILE* log = fopen(path, "r");
  char line[512], routine[32];
  int logged[4] = {0, 0, 0, 0}, i, failed = 0;
  if (!log) {
    fprintf(stderr, "FAIL: no log at TILEGEMM_BLAS_LOG=%s\n", path);
    return 1;
  }
  while (fgets(line, sizeof line, log)) {
    const size_t length = strlen(line);
    const int known = sscanf(line, "tilegemm-blas: %31s ", routine) == 1 && routine_index(routine) >= 0;
    const int where = strstr(line, always ? " gpu " : " cpu ") != NULL || (!always && strstr(line, " gpu "));
    if (!known || !where || length < 4 || strcmp(line + length - 4, " ms\n") != 0) {
      fprintf(stderr, "FAIL: a log line is not one whole call%s: %s", always ? " on the GPU" : "", line);
      failed = 1;
      continue;
    }
    ++logged[routine_index(routine)];
  }
  fclose(log);
  for (i = 0; i < 4; ++i) {
    if (logged[i] != called[i]) {
      fprintf(stderr, "FAIL: the log has %d lines of %s; it was called %d times\n", logged[i], routines[i], called[i]);
      failed = 1;
    }
  }
  return failed;
}

int main(void) {
  pthread_t threads[THREADS];
  worker workers[THREADS];
  pthread_barrier_t start;
  tilegemm_blas_counts counts;
  const char* env = getenv("TILEGEMM_BLAS_OFFLOAD");
  const int always = env && strcmp(env, "always") == 0;
  const char* log = getenv("TILEGEMM_BLAS_LOG");
  int t, i, failed = 0, called[4] = {0, 0, 0, 0};
  const unsigned seed = test_seed();
  if (log && strcmp(log, "stderr") != 0) remove(log); /* the library appends, from its first call on */
  tilegemm_blas_reset_stats();
  pthread_barrier_init(&start, NULL, THREADS);
  for (t = 0; t < THREADS; ++t) {
    workers[t].rng.state = seed + 7919u * (unsigned)t;
    workers[t].failed = 0;
    for (i = 0; i < 4; ++i) workers[t].calls[i] = 0;
    workers[t].start = &start;
    if (pthread_create(&threads[t], NULL, work, &workers[t]) != 0) {
      fprintf(stderr, "pthread_create failed\n");
      return 1;
    }
  }
  for (t = 0; t < THREADS; ++t) {
    pthread_join(threads[t], NULL);
    failed |= workers[t].failed;
    for (i = 0; i < 4; ++i) called[i] += workers[t].calls[i];
  }
  pthread_barrier_destroy(&start);
  counts = tilegemm_blas_stats();
  if (counts.calls != THREADS * CALLS || counts.gpu_calls + counts.cpu_calls != counts.calls ||
      (always && counts.gpu_calls != counts.calls) || counts.fallbacks != 0) {
    fprintf(stderr, "FAIL: stats say %llu calls, %llu on the GPU, %llu on the CPU, %llu fallbacks; expected %d%s\n",
            counts.calls, counts.gpu_calls, counts.cpu_calls, counts.fallbacks, THREADS * CALLS,
            always ? ", all on the GPU" : "");
    failed = 1;
  }
  if (log && strcmp(log, "stderr") != 0) failed |= check_log(log, called, always);
  printf("threads: %d x %d calls, %llu on the GPU; %s\n", THREADS, CALLS, counts.gpu_calls,
         failed ? "FAILED" : "all right");
  return failed;
}
