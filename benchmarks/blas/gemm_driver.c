/* gemm_driver: times sgemm_ / dgemm_ as any Fortran BLAS caller makes them, through whatever library provides the
   symbols (LD_PRELOAD of libtilegemm_blas.so, NVBLAS or the CPU BLAS alone), on host memory from malloc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void sgemm_t(const char*, const char*, const int*, const int*, const int*, const float*, const float*,
                     const int*, const float*, const int*, const float*, float*, const int*);
typedef void dgemm_t(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
                     const int*, const double*, const int*, const double*, double*, const int*);
typedef struct {
  unsigned long long calls, gpu_calls, cpu_calls, fallbacks;
  double gpu_flops, cpu_flops;
} counts_t; /* tilegemm_blas_counts, read only when the drop-in is loaded */
typedef counts_t stats_t(void);

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* A fast generator in [-0.5, 0.5): filling 16384^2 matrices with rand() would take seconds. */
static double next_value(unsigned long long* state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return (double)(*state >> 11) / 9007199254740992.0 - 0.5;
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* Usage: gemm_driver s|d MxNxK[,MxNxK...] [repeats] [beta] [label]: one line per shape, the median and the fastest of
   `repeats` timed calls after one untimed call (program builds, calibration), and where each call ran. */
int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s s|d MxNxK[,MxNxK...] [repeats] [beta] [label]\n", argv[0]);
    return 2;
  }
  const int dbl = argv[1][0] == 'd', repeats = argc > 3 ? atoi(argv[3]) : 5;
  const double beta = argc > 4 ? atof(argv[4]) : 0.0;
  const char* label = argc > 5 ? argv[5] : "";
  sgemm_t* sgemm = (sgemm_t*)dlsym(RTLD_DEFAULT, "sgemm_");
  dgemm_t* dgemm = (dgemm_t*)dlsym(RTLD_DEFAULT, "dgemm_");
  stats_t* stats = (stats_t*)dlsym(RTLD_DEFAULT, "tilegemm_blas_stats");
  if (!(dbl ? (void*)dgemm : (void*)sgemm)) {
    fprintf(stderr, "no %s in the process: preload a BLAS\n", dbl ? "dgemm_" : "sgemm_");
    return 2;
  }
  char* shapes = strdup(argv[2]);
  for (char* shape = strtok(shapes, ","); shape; shape = strtok(NULL, ",")) {
    int m, n, k;
    if (sscanf(shape, "%dx%dx%d", &m, &n, &k) != 3) return 2;
    const size_t size = dbl ? sizeof(double) : sizeof(float);
    void* a = malloc((size_t)m * k * size);
    void* b = malloc((size_t)k * n * size);
    void* c = malloc((size_t)m * n * size);
    unsigned long long state = 88172645463325252ull;
    for (size_t i = 0; i < (size_t)m * k; ++i)
      dbl ? (((double*)a)[i] = next_value(&state)) : (((float*)a)[i] = (float)next_value(&state));
    for (size_t i = 0; i < (size_t)k * n; ++i)
      dbl ? (((double*)b)[i] = next_value(&state)) : (((float*)b)[i] = (float)next_value(&state));
    memset(c, 0, (size_t)m * n * size);
    double times[64];
    const int count = repeats < 64 ? repeats : 64;
    counts_t before = {0, 0, 0, 0, 0, 0}, after = before;
    for (int r = -1; r < count; ++r) {
      if (r == 0 && stats) before = stats();
      const double alpha_d = 1.0;
      const float alpha_s = 1.0f, beta_s = (float)beta;
      const double start = now_ms();
      if (dbl)
        dgemm("N", "N", &m, &n, &k, &alpha_d, a, &m, b, &k, &beta, c, &m);
      else
        sgemm("N", "N", &m, &n, &k, &alpha_s, a, &m, b, &k, &beta_s, c, &m);
      if (r >= 0) times[r] = now_ms() - start;
    }
    if (stats) after = stats();
    qsort(times, count, sizeof(double), by_value);
    printf("%s %s %d %d %d median_ms %.3f min_ms %.3f gpu %llu cpu %llu\n", label, dbl ? "dgemm_" : "sgemm_", m, n, k,
           times[count / 2], times[0], after.gpu_calls - before.gpu_calls, after.cpu_calls - before.cpu_calls);
    fflush(stdout);
    free(a);
    free(b);
    free(c);
  }
  free(shapes);
  return 0;
}
