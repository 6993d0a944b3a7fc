/* blas_threads: 4 threads make 25 mixed calls each at once (s and d, Fortran and CBLAS in both orders, every
   letter, sizes 1 to 129), each checked against its double reference; the stats count all 100. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "gemm_case.h"

void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
            const float*, const int*, const float*, float*, const int*);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*);

static const gemm_routines linked = {sgemm_, dgemm_, cblas_sgemm, cblas_dgemm};

enum { THREADS = 4, CALLS = 25 };

typedef struct worker {
  test_rng rng;
  int failed;
  pthread_barrier_t* start;
} worker;

static void* work(void* argument) {
  worker* w = argument;
  int i;
  pthread_barrier_wait(w->start); /* all four begin together */
  for (i = 0; i < CALLS; ++i) {
    const gemm_case c = gemm_case_random((gemm_form)rng_below(&w->rng, FORM_COUNT), &w->rng);
    w->failed |= gemm_case_run_checked(&linked, &c, &w->rng, "threads");
  }
  return NULL;
}

int main(void) {
  pthread_t threads[THREADS];
  worker workers[THREADS];
  pthread_barrier_t start;
  tilegemm_blas_counts counts;
  const char* env = getenv("TILEGEMM_BLAS_OFFLOAD");
  const int always = env && strcmp(env, "always") == 0;
  int t, failed = 0;
  const unsigned seed = test_seed();
  tilegemm_blas_reset_stats();
  pthread_barrier_init(&start, NULL, THREADS);
  for (t = 0; t < THREADS; ++t) {
    workers[t].rng.state = seed + 7919u * (unsigned)t;
    workers[t].failed = 0;
    workers[t].start = &start;
    if (pthread_create(&threads[t], NULL, work, &workers[t]) != 0) {
      fprintf(stderr, "pthread_create failed\n");
      return 1;
    }
  }
  for (t = 0; t < THREADS; ++t) {
    pthread_join(threads[t], NULL);
    failed |= workers[t].failed;
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
  printf("threads: %d x %d calls, %llu on the GPU; %s\n", THREADS, CALLS, counts.gpu_calls,
         failed ? "FAILED" : "all right");
  return failed;
}
