/* blas_calls: the drop-in's sgemm_, dgemm_, cblas_sgemm and cblas_dgemm, linked before the CPU BLAS, on every
   transpose letter, sizes 0 to 129, k = 0, lda > rows, alpha = 0 and beta 0, 1, -0.5 (NaN in C for 0), in the offload
   mode TILEGEMM_BLAS_OFFLOAD names: each call against a double reference and the same call in mode never, the
   stats of each, and bad arguments reaching this program's own xerbla_. Usage: blas_calls always|never|auto. */

#include "gemm_case.h"
#include "gpu_present.h"
#include "linked_routines.h"

/* This program's own xerbla_, which the CPU BLAS calls in place of its own (the reference one prints and stops): a
   BLAS user who defines it must see the drop-in's bad arguments there too. */
static char xerbla_routine[8];
static int xerbla_info, xerbla_calls;
void xerbla_(const char* routine, const int* info, size_t length);
void xerbla_(const char* routine, const int* info, size_t length) {
  size_t i, n = 0;
  for (i = 0; i < length && i + 1 < sizeof xerbla_routine && routine[i] != ' ' && routine[i] != 0; ++i) {
    xerbla_routine[n++] = routine[i];
  }
  xerbla_routine[n] = 0;
  xerbla_info = *info;
  ++xerbla_calls;
}

typedef enum expectation { RUNS_ON_GPU, RUNS_ON_CPU, RUNS_ON_EITHER } expectation;
static expectation expected;
static const char* mode_name;

/* Whether the stats moved by exactly one call of the given flops, run where `want` says; which one it was in *gpu. */
static int counted(const tilegemm_blas_counts* before, const tilegemm_blas_counts* after, expectation want,
                   double flops, int* gpu, const char* what, const gemm_case* c) {
  const unsigned long long calls = after->calls - before->calls, gpus = after->gpu_calls - before->gpu_calls,
                           cpus = after->cpu_calls - before->cpu_calls, falls = after->fallbacks - before->fallbacks;
  const double gpu_flops = after->gpu_flops - before->gpu_flops, cpu_flops = after->cpu_flops - before->cpu_flops;
  char text[256];
  int ok = calls == 1 && gpus + cpus == 1 && falls == 0;
  if (want == RUNS_ON_GPU) ok = ok && gpus == 1;
  if (want == RUNS_ON_CPU) ok = ok && cpus == 1;
  ok = ok && (gpus == 1 ? gpu_flops == flops && cpu_flops == 0 : cpu_flops == flops && gpu_flops == 0);
  *gpu = gpus == 1;
  if (ok) return 0;
  gemm_case_describe(c, text, sizeof text);
  fprintf(stderr,
          "FAIL %s: %s: stats moved by calls %llu, gpu_calls %llu, cpu_calls %llu, fallbacks %llu, gpu_flops %g, "
          "cpu_flops %g; expected one call of %g flops on the %s, no fallback\n",
          what, text, calls, gpus, cpus, falls, gpu_flops, cpu_flops, flops,
          want == RUNS_ON_GPU   ? "GPU"
          : want == RUNS_ON_CPU ? "CPU"
                                : "GPU or CPU");
  return 1;
}

static unsigned long valid_calls, gpu_runs;

/* One valid call in the process's mode, then again in mode never (the CPU BLAS alone): both against the reference,
   bit for bit equal where both ran on the CPU, and each counted once where it ran. */
static int valid_case(const gemm_case* c, test_rng* r) {
  gemm_operands o;
  gemm_buffers x, y;
  tilegemm_blas_counts s0, s1, s2;
  tilegemm_blas_offload mode;
  int failed = 0, first_on_gpu = 0, second_on_gpu = 0;
  gemm_operands_make(&o, c, r);
  x = gemm_buffers_make(&o);
  y = gemm_buffers_make(&o);
  s0 = tilegemm_blas_stats();
  gemm_case_call(&linked, &o, &x);
  s1 = tilegemm_blas_stats();
  failed |= counted(&s0, &s1, expected, gemm_case_flops(c), &first_on_gpu, mode_name, c);
  failed |= gemm_case_check(&o, &x, mode_name);
  mode = tilegemm_blas_get_offload();
  if (tilegemm_blas_set_offload(TILEGEMM_BLAS_NEVER) != 0) {
    fprintf(stderr, "FAIL: tilegemm_blas_set_offload(TILEGEMM_BLAS_NEVER) refused\n");
    failed = 1;
  }
  gemm_case_call(&linked, &o, &y);
  s2 = tilegemm_blas_stats();
  tilegemm_blas_set_offload(mode);
  failed |= counted(&s1, &s2, RUNS_ON_CPU, gemm_case_flops(c), &second_on_gpu, "the CPU BLAS alone", c);
  failed |= gemm_case_check(&o, &y, "the CPU BLAS alone");
  if (!first_on_gpu) failed |= gemm_case_same_bits(&o, &x, &y, mode_name);
  ++valid_calls;
  gpu_runs += (unsigned long)first_on_gpu;
  gemm_buffers_free(&x);
  gemm_buffers_free(&y);
  gemm_operands_free(&o);
  return failed;
}

/* A call with a bad argument: the CPU BLAS's check reaches this program's xerbla_ with the routine and the
   argument's position (`info`, or any positive one where 0), C is not touched, and the call counts on the CPU. */
static int invalid_case(const gemm_case* c, const char* routine, int info, test_rng* r) {
  gemm_operands o;
  gemm_buffers x;
  tilegemm_blas_counts s0, s1;
  char text[256];
  int failed = 0;
  gemm_operands_make(&o, c, r);
  x = gemm_buffers_make(&o);
  gemm_case_describe(c, text, sizeof text);
  xerbla_calls = 0;
  s0 = tilegemm_blas_stats();
  gemm_case_call(&linked, &o, &x);
  s1 = tilegemm_blas_stats();
  if (xerbla_calls != 1 || strcmp(xerbla_routine, routine) != 0 || (info > 0 ? xerbla_info != info : xerbla_info < 1)) {
    fprintf(stderr,
            "FAIL bad argument: %s: xerbla_ called %d times, last with %s and info %d; expected once with %s, %d\n",
            text, xerbla_calls, xerbla_routine, xerbla_info, routine, info);
    failed = 1;
  }
  {
    void* before = typed_copy(o.c0, o.c_count, form_is_double(c->form));
    if (memcmp(before, x.c, o.c_count * form_element_size(c->form)) != 0) {
      fprintf(stderr, "FAIL bad argument: %s: C was written\n", text);
      failed = 1;
    }
    free(before);
  }
  if (s1.calls - s0.calls != 1 || s1.cpu_calls - s0.cpu_calls != 1 || s1.gpu_calls != s0.gpu_calls) {
    fprintf(stderr,
            "FAIL bad argument: %s: stats moved by %llu calls, %llu on the CPU, %llu on the GPU; expected one "
            "on the CPU\n",
            text, s1.calls - s0.calls, s1.cpu_calls - s0.cpu_calls, s1.gpu_calls - s0.gpu_calls);
    failed = 1;
  }
  gemm_buffers_free(&x);
  gemm_operands_free(&o);
  return failed;
}

static const char letters[] = "NnTtCc";
static const int sizes[] = {0, 1, 7, 61, 129};
static const double betas[] = {0.0, 1.0, -0.5};

static double random_alpha(test_rng* r) {
  const double magnitude = 0.25 + 1.75 * (rng_uniform(r) + 1.0) / 2.0;
  return rng_below(r, 2) ? magnitude : -magnitude;
}

/* A leading dimension above the smallest one by 0 to 5 (0: the smallest, which gemm_case takes as given by 0). */
static int padded_ld(test_rng* r, int smallest) { return smallest + rng_below(r, 6); }

static void pad_leading_dimensions(gemm_case* c, test_rng* r) {
  c->lda = padded_ld(r, smallest_ld(shape_of_a(c)));
  c->ldb = padded_ld(r, smallest_ld(shape_of_b(c)));
  c->ldc = padded_ld(r, smallest_ld(shape_of_c(c)));
}

int main(int argc, char** argv) {
  test_rng rng;
  int failed = 0, form, i, j, mi, ni, ki, case_number = 0;
  const char* env = getenv("TILEGEMM_BLAS_OFFLOAD");
  rng.state = test_seed();
  if (argc != 2 || (strcmp(argv[1], "always") != 0 && strcmp(argv[1], "never") != 0 && strcmp(argv[1], "auto") != 0)) {
    fprintf(stderr, "usage: blas_calls always|never|auto (the mode TILEGEMM_BLAS_OFFLOAD sets)\n");
    return 2;
  }
  mode_name = argv[1];
  if (!env || strcmp(env, mode_name) != 0) {
    fprintf(stderr, "FAIL: run with TILEGEMM_BLAS_OFFLOAD=%s (it is %s)\n", mode_name, env ? env : "unset");
    return 1;
  }
  {
    /* The CPU BLAS alone with alpha = 0 and NaN in A and B: the reference BLAS leaves C = beta * C. */
    const int one = 1;
    const float zero = 0, nan_value = NAN;
    float c_value = 1;
    tilegemm_blas_set_offload(TILEGEMM_BLAS_NEVER);
    sgemm_("N", "N", &one, &one, &one, &zero, &nan_value, &one, &nan_value, &one, &zero, &c_value, &one);
    tilegemm_blas_set_offload(strcmp(mode_name, "always") == 0  ? TILEGEMM_BLAS_ALWAYS
                              : strcmp(mode_name, "never") == 0 ? TILEGEMM_BLAS_NEVER
                                                                : TILEGEMM_BLAS_AUTO);
    tilegemm_blas_reset_stats();
    if (c_value != 0) {
      printf("note: this CPU BLAS reads A and B when alpha = 0 (C came out %g): finite A and B there\n", c_value);
      gemm_case_nan_when_alpha_is_zero = 0;
    }
  }
  expected = strcmp(mode_name, "always") == 0  ? RUNS_ON_GPU
             : strcmp(mode_name, "never") == 0 ? RUNS_ON_CPU
             : gpu_present()                   ? RUNS_ON_EITHER
                                               : RUNS_ON_CPU;

  /* Every pair of transpose letters in every routine and order, on sizes and betas that vary from call to call. */
  for (form = 0; form < FORM_COUNT; ++form) {
    for (i = 0; i < 6; ++i) {
      for (j = 0; j < 6; ++j) {
        gemm_case c = {FORM_SGEMM_, 'N', 'N', 0, 0, 0, 0.0, 0.0, 0, 0, 0};
        c.form = (gemm_form)form;
        c.transa = letters[i];
        c.transb = letters[j];
        c.m = sizes[1 + rng_below(&rng, 4)];
        c.n = sizes[1 + rng_below(&rng, 4)];
        c.k = sizes[1 + rng_below(&rng, 4)];
        c.alpha = random_alpha(&rng);
        c.beta = betas[case_number++ % 3];
        pad_leading_dimensions(&c, &rng);
        failed |= valid_case(&c, &rng);
      }
    }
  }
  {
    const tilegemm_blas_offload mode = tilegemm_blas_get_offload();
    const tilegemm_blas_offload want = expected == RUNS_ON_GPU           ? TILEGEMM_BLAS_ALWAYS
                                       : strcmp(mode_name, "never") == 0 ? TILEGEMM_BLAS_NEVER
                                                                         : TILEGEMM_BLAS_AUTO;
    if (mode != want) {
      fprintf(stderr, "FAIL: tilegemm_blas_get_offload() is %d after TILEGEMM_BLAS_OFFLOAD=%s\n", (int)mode, mode_name);
      failed = 1;
    }
  }

  /* Every m, n, k of {0, 1, 7, 61, 129} (k = 0 and empty products included) in every routine and order. */
  for (form = 0; form < FORM_COUNT; ++form) {
    for (mi = 0; mi < 5; ++mi) {
      for (ni = 0; ni < 5; ++ni) {
        for (ki = 0; ki < 5; ++ki) {
          gemm_case c = {FORM_SGEMM_, 'N', 'N', 0, 0, 0, 0.0, 0.0, 0, 0, 0};
          c.form = (gemm_form)form;
          c.transa = letters[rng_below(&rng, 6)];
          c.transb = letters[rng_below(&rng, 6)];
          c.m = sizes[mi];
          c.n = sizes[ni];
          c.k = sizes[ki];
          c.alpha = random_alpha(&rng);
          c.beta = betas[case_number++ % 3];
          pad_leading_dimensions(&c, &rng);
          failed |= valid_case(&c, &rng);
        }
      }
    }
  }

  /* alpha = 0 (A and B are NaN: not read) with each beta, and leading dimensions far above the rows. */
  for (form = 0; form < FORM_COUNT; ++form) {
    for (i = 0; i < 3; ++i) {
      gemm_case c = {(gemm_form)form, letters[2 * i], letters[5 - 2 * i], 61, 7, 129, 0.0, betas[i], 0, 0, 0};
      pad_leading_dimensions(&c, &rng);
      failed |= valid_case(&c, &rng);
      c.alpha = random_alpha(&rng);
      c.lda = smallest_ld(shape_of_a(&c)) + 37;
      c.ldb = smallest_ld(shape_of_b(&c)) + 41;
      c.ldc = smallest_ld(shape_of_c(&c)) + 43;
      failed |= valid_case(&c, &rng);
    }
  }

  /* Bad arguments: the reference BLAS's positions (1 transa, 3 m, 8 lda, 10 ldb, 13 ldc); through CBLAS, whatever
     position its translation reports. */
  {
    gemm_case c = {FORM_SGEMM_, 'N', 'N', 7, 7, 7, 1.0, 0.0, 6, 0, 0};
    failed |= invalid_case(&c, "SGEMM", 8, &rng);
    c.form = FORM_DGEMM_;
    failed |= invalid_case(&c, "DGEMM", 8, &rng);
    c.lda = 0;
    c.ldb = 6;
    failed |= invalid_case(&c, "DGEMM", 10, &rng);
    c.ldb = 0;
    c.ldc = 6;
    c.form = FORM_SGEMM_;
    failed |= invalid_case(&c, "SGEMM", 13, &rng);
    c.ldc = 0;
    c.transa = 'X';
    failed |= invalid_case(&c, "SGEMM", 1, &rng);
    c.transa = 'T';
    c.m = -1;
    failed |= invalid_case(&c, "SGEMM", 3, &rng);
    c.m = 7;
    c.lda = 6;
    c.form = FORM_CBLAS_SGEMM_COL;
    failed |= invalid_case(&c, "SGEMM", 0, &rng);
    c.form = FORM_CBLAS_DGEMM_ROW;
    failed |= invalid_case(&c, "DGEMM", 0, &rng);
  }

  /* The rest of the control API. */
  {
    const char* version = tilegemm_blas_version();
    const char* library = tilegemm_blas_cpu_library();
    int major, minor, patch;
    char end;
    const tilegemm_blas_offload mode = tilegemm_blas_get_offload();
    if (tilegemm_blas_set_offload((tilegemm_blas_offload)7) != -1 || tilegemm_blas_get_offload() != mode) {
      fprintf(stderr, "FAIL: tilegemm_blas_set_offload(7) was not refused with -1, mode unchanged\n");
      failed = 1;
    }
    if (!version || sscanf(version, "%d.%d.%d%c", &major, &minor, &patch, &end) != 3) {
      fprintf(stderr, "FAIL: tilegemm_blas_version() is \"%s\", not X.Y.Z\n", version ? version : "(null)");
      failed = 1;
    }
    if (!library || strcmp(library, "RTLD_NEXT") != 0) {
      fprintf(stderr, "FAIL: tilegemm_blas_cpu_library() is \"%s\"; linked before the CPU BLAS, RTLD_NEXT\n",
              library ? library : "(null)");
      failed = 1;
    }
    tilegemm_blas_reset_stats();
    {
      const tilegemm_blas_counts zero = tilegemm_blas_stats();
      if (zero.calls || zero.gpu_calls || zero.cpu_calls || zero.fallbacks || zero.gpu_flops || zero.cpu_flops) {
        fprintf(stderr, "FAIL: tilegemm_blas_reset_stats() left counts\n");
        failed = 1;
      }
    }
  }

  printf("%s: %lu valid calls (each again in mode never), %lu of them on the GPU; %s\n", mode_name, valid_calls,
         gpu_runs, failed ? "FAILED" : "all right");
  return failed;
}
