/* auto_sweep: issue 27's auto check on a GPU machine: each shape's sgemm_/dgemm_ time with the offload mode never,
   always and auto in one process, and auto against the better of the two (at most 1.10 wanted). Built by
   benchmarks/blas/CMakeLists.txt, linked to the drop-in before the CPU BLAS.
   Run:   ./auto_sweep [LARGEST]  (shapes with a size above LARGEST, default 8192, are skipped; TILEGEMM_BLAS_LOG=stderr
   shows each call's route; the first auto call of each scalar calibrates, which the untimed warm-up call absorbs) */
#include <stdio.h>
#include <stdlib.h>
#include <tilegemm/blas.h>
#include <time.h>

void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
            const float*, const int*, const float*, float*, const int*);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* The median of `runs` timed calls after one untimed call, in milliseconds. */
static double time_call(int dbl, int m, int n, int k, void* a, void* b, void* c, int runs) {
  double times[5];
  for (int r = -1; r < runs; ++r) {
    const double start = now();
    if (dbl) {
      const double one = 1, zero = 0;
      dgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m);
    } else {
      const float one = 1, zero = 0;
      sgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m);
    }
    if (r >= 0) times[r] = 1e3 * (now() - start);
  }
  for (int i = 0; i < runs; ++i)
    for (int j = i + 1; j < runs; ++j)
      if (times[j] < times[i]) {
        double t = times[i];
        times[i] = times[j];
        times[j] = t;
      }
  return times[runs / 2];
}

int main(int argc, char** argv) {
  const int largest = argc > 1 ? atoi(argv[1]) : 8192;
  int shapes[][3] = {{64, 64, 64},       {128, 128, 128},    {256, 256, 256},    {512, 512, 512},
                     {1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192},
                     {8192, 8192, 32},   {8192, 32, 8192},   {32, 8192, 8192}};
  const int count = sizeof shapes / sizeof shapes[0];
  double worst = 0;
  printf("%-6s %-16s %10s %10s %10s %7s %s\n", "scalar", "m n k", "cpu ms", "gpu ms", "auto ms", "ratio", "auto chose");
  for (int dbl = 0; dbl < 2; ++dbl) {
    for (int s = 0; s < count; ++s) {
      const int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
      if (m > largest || n > largest || k > largest) continue;
      const size_t size = dbl ? 8 : 4;
      char* a = malloc((size_t)m * k * size);
      char* b = malloc((size_t)k * n * size);
      char* c = malloc((size_t)m * n * size);
      for (size_t i = 0; i < (size_t)m * k * size; ++i) a[i] = (char)(i % 61 == 0);
      for (size_t i = 0; i < (size_t)k * n * size; ++i) b[i] = (char)(i % 53 == 0);
      const int runs = (double)m * n * k >= 4e11 ? 3 : 5;
      double ms[3];
      const tilegemm_blas_offload modes[3] = {TILEGEMM_BLAS_NEVER, TILEGEMM_BLAS_ALWAYS, TILEGEMM_BLAS_AUTO};
      unsigned long long gpu_calls = 0;
      for (int i = 0; i < 3; ++i) {
        tilegemm_blas_set_offload(modes[i]);
        tilegemm_blas_reset_stats();
        ms[i] = time_call(dbl, m, n, k, a, b, c, runs);
        gpu_calls = tilegemm_blas_stats().gpu_calls;
      }
      const double best = ms[0] < ms[1] ? ms[0] : ms[1];
      const double ratio = ms[2] / best;
      if (ratio > worst) worst = ratio;
      char label[32];
      snprintf(label, sizeof label, "%d %d %d", m, n, k);
      printf("%-6s %-16s %10.3f %10.3f %10.3f %7.3f %s\n", dbl ? "double" : "float", label, ms[0], ms[1], ms[2], ratio,
             gpu_calls == 0                              ? "cpu"
             : gpu_calls == (unsigned long long)runs + 1 ? "gpu"
                                                         : "mixed");
      fflush(stdout);
      free(a);
      free(b);
      free(c);
    }
  }
  printf("worst auto / min(cpu, gpu): %.3f (issue 27: at most 1.10)\n", worst);
  return 0;
}
