/* gemm_case.h: one ?gemm call of the BLAS drop-in's C tests: fresh random operands in either order, a poisoned C
   between guards with poisoned ld padding, the call through any of the four routines, and its checks against a
   double-precision reference (C99; each test program includes it once). */
#ifndef TILEGEMM_TEST_GEMM_CASE_H
#define TILEGEMM_TEST_GEMM_CASE_H

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tilegemm/blas.h>
#include <time.h>

/* The Fortran routines as Eigen declares them (no hidden string lengths; the drop-in must take both forms). */
typedef void sgemm_function(const char*, const char*, const int*, const int*, const int*, const float*, const float*,
                            const int*, const float*, const int*, const float*, float*, const int*);
typedef void dgemm_function(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
                            const int*, const double*, const int*, const double*, double*, const int*);
typedef void cblas_sgemm_function(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, const int, const int, const int,
                                  const float, const float*, const int, const float*, const int, const float, float*,
                                  const int);
typedef void cblas_dgemm_function(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, const int, const int, const int,
                                  const double, const double*, const int, const double*, const int, const double,
                                  double*, const int);

/* The routines a program calls: linked (&sgemm_, ...) or found at run time (dlsym). */
typedef struct gemm_routines {
  sgemm_function* sgemm;
  dgemm_function* dgemm;
  cblas_sgemm_function* cblas_sgemm;
  cblas_dgemm_function* cblas_dgemm;
} gemm_routines;

/* Which routine, and for CBLAS which order. */
typedef enum gemm_form {
  FORM_SGEMM_,
  FORM_DGEMM_,
  FORM_CBLAS_SGEMM_COL,
  FORM_CBLAS_SGEMM_ROW,
  FORM_CBLAS_DGEMM_COL,
  FORM_CBLAS_DGEMM_ROW,
  FORM_COUNT
} gemm_form;

static const char* const gemm_form_names[FORM_COUNT] = {"sgemm_",
                                                        "dgemm_",
                                                        "cblas_sgemm(ColMajor)",
                                                        "cblas_sgemm(RowMajor)",
                                                        "cblas_dgemm(ColMajor)",
                                                        "cblas_dgemm(RowMajor)"};

static inline int form_is_double(gemm_form f) {
  return f == FORM_DGEMM_ || f == FORM_CBLAS_DGEMM_COL || f == FORM_CBLAS_DGEMM_ROW;
}
static inline int form_is_row_major(gemm_form f) { return f == FORM_CBLAS_SGEMM_ROW || f == FORM_CBLAS_DGEMM_ROW; }
static inline size_t form_element_size(gemm_form f) { return form_is_double(f) ? sizeof(double) : sizeof(float); }

/* One call: trans letters are any of N n T t C c (for CBLAS, N, T and C pick the enumerator); an ld of 0 means the
   smallest valid one, a positive one is used as given (bad ones included). */
typedef struct gemm_case {
  gemm_form form;
  char transa, transb;
  int m, n, k;
  double alpha, beta;
  int lda, ldb, ldc;
} gemm_case;

static inline int letter_transposes(char t) { return !(t == 'N' || t == 'n'); }
static inline int max_int(int a, int b) { return a > b ? a : b; }

/* A stored matrix: rows x cols in the form's order with leading dimension ld; element (i, j) at index(i, j). */
typedef struct stored_shape {
  int rows, cols, ld, row_major;
} stored_shape;

static inline size_t stored_index(stored_shape s, int i, int j) {
  return s.row_major ? (size_t)i * (size_t)s.ld + (size_t)j : (size_t)i + (size_t)j * (size_t)s.ld;
}
/* Elements from the first to one past the last the routine may touch (at least 1, for malloc). */
static inline size_t stored_span(stored_shape s) {
  const size_t outer = (size_t)(s.row_major ? s.rows : s.cols), inner = (size_t)(s.row_major ? s.cols : s.rows);
  const size_t last = outer == 0 ? 0 : (outer - 1) * (size_t)s.ld + inner; /* beyond ld x outer where ld is bad */
  const size_t whole = outer * (size_t)s.ld;
  return last > whole ? last : whole > 0 ? whole : 1;
}
static inline int smallest_ld(stored_shape s) { return max_int(1, s.row_major ? s.cols : s.rows); }

static inline stored_shape shape_of_a(const gemm_case* c) {
  stored_shape s = {letter_transposes(c->transa) ? c->k : c->m, letter_transposes(c->transa) ? c->m : c->k, 0,
                    form_is_row_major(c->form)};
  s.ld = c->lda > 0 ? c->lda : smallest_ld(s);
  return s;
}
static inline stored_shape shape_of_b(const gemm_case* c) {
  stored_shape s = {letter_transposes(c->transb) ? c->n : c->k, letter_transposes(c->transb) ? c->k : c->n, 0,
                    form_is_row_major(c->form)};
  s.ld = c->ldb > 0 ? c->ldb : smallest_ld(s);
  return s;
}
static inline stored_shape shape_of_c(const gemm_case* c) {
  stored_shape s = {c->m, c->n, 0, form_is_row_major(c->form)};
  s.ld = c->ldc > 0 ? c->ldc : smallest_ld(s);
  return s;
}

/* splitmix64: each thread its own stream, TILEGEMM_TEST_SEED replays a run. */
typedef struct test_rng {
  uint64_t state;
} test_rng;

static inline uint64_t rng_next(test_rng* r) {
  uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/* Uniform in [-1, 1): never all zeros, so that an element not written or read from the wrong place shows. */
static inline double rng_uniform(test_rng* r) { return (double)(rng_next(r) >> 11) * (2.0 / 9007199254740992.0) - 1.0; }
static inline int rng_below(test_rng* r, int n) { return (int)(rng_next(r) % (uint64_t)n); }

/* The run's seed: TILEGEMM_TEST_SEED, else the clock; printed, so that a failure can be replayed (call it first in
   main, before any thread). */
static inline unsigned test_seed(void) {
  static unsigned seed;
  static int chosen;
  if (!chosen) {
    const char* text = getenv("TILEGEMM_TEST_SEED");
    seed = text ? (unsigned)strtoul(text, NULL, 10) : (unsigned)time(NULL);
    chosen = 1;
    printf("TILEGEMM_TEST_SEED=%u\n", seed);
    fflush(stdout);
  }
  return seed;
}

/* Memory the routine must not write: guards around C and its ld padding. */
#define GEMM_CASE_GUARD 16
#define GEMM_CASE_SENTINEL (-9876.5)

/* The operands of one case, as the routine sees them (float forms hold float-rounded values, so that the double
   reference multiplies exactly what the routine multiplies). */
typedef struct gemm_operands {
  gemm_case call;
  stored_shape a_shape, b_shape, c_shape;
  double *a, *b;  /* stored, span elements each */
  double* c0;     /* GUARD + span + GUARD: the initial C, sentinels outside the m x n block */
  double* ref;    /* m x n column-major: alpha op(A) op(B) + beta C0 in double */
  double* bound;  /* m x n: |alpha| |op(A)| |op(B)| + |beta| |C0|, the scale of the rounding error */
  size_t c_count; /* elements of c0 */
} gemm_operands;

static inline double gemm_case_round(const gemm_case* c, double x) {
  return form_is_double(c->form) ? x : (double)(float)x;
}

/* Whether A and B are NaN when alpha = 0 (the reference BLAS reads neither). A CPU BLAS that multiplies them anyway
   (OpenBLAS 0.3.26, whose 0 * NaN gives NaN) is compared on finite values instead: set to 0 by a test that finds one.
 */
static int gemm_case_nan_when_alpha_is_zero = 1;

/* Fresh random operands; with alpha = 0 A and B are NaN (above), with beta = 0 the block of C is NaN (it must not be
   read). */
static inline void gemm_operands_make(gemm_operands* o, const gemm_case* call, test_rng* r) {
  size_t i, n_a, n_b;
  int row, col, l;
  gemm_case stored = *call; /* a negative size (a bad call) stores nothing */
  const gemm_case* c = &stored;
  stored.m = max_int(0, call->m);
  stored.n = max_int(0, call->n);
  stored.k = max_int(0, call->k);
  o->call = *call;
  o->a_shape = shape_of_a(c);
  o->b_shape = shape_of_b(c);
  o->c_shape = shape_of_c(c);
  n_a = stored_span(o->a_shape);
  n_b = stored_span(o->b_shape);
  o->c_count = stored_span(o->c_shape) + 2 * GEMM_CASE_GUARD;
  o->a = malloc(n_a * sizeof(double));
  o->b = malloc(n_b * sizeof(double));
  o->c0 = malloc(o->c_count * sizeof(double));
  o->ref = malloc((size_t)max_int(1, c->m * c->n) * sizeof(double));
  o->bound = malloc((size_t)max_int(1, c->m * c->n) * sizeof(double));
  if (!o->a || !o->b || !o->c0 || !o->ref || !o->bound) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  const int nan_ab = c->alpha == 0 && gemm_case_nan_when_alpha_is_zero;
  for (i = 0; i < n_a; ++i) o->a[i] = nan_ab ? NAN : gemm_case_round(c, rng_uniform(r));
  for (i = 0; i < n_b; ++i) o->b[i] = nan_ab ? NAN : gemm_case_round(c, rng_uniform(r));
  for (i = 0; i < o->c_count; ++i) o->c0[i] = GEMM_CASE_SENTINEL;
  for (row = 0; row < c->m; ++row) {
    for (col = 0; col < c->n; ++col) {
      o->c0[GEMM_CASE_GUARD + stored_index(o->c_shape, row, col)] =
          c->beta == 0 ? NAN : gemm_case_round(c, rng_uniform(r));
    }
  }
  for (col = 0; col < c->n; ++col) {
    for (row = 0; row < c->m; ++row) {
      const double c_in = o->c0[GEMM_CASE_GUARD + stored_index(o->c_shape, row, col)];
      double sum = 0, scale = 0;
      if (c->alpha != 0) {
        for (l = 0; l < c->k; ++l) {
          const double a = letter_transposes(c->transa) ? o->a[stored_index(o->a_shape, l, row)]
                                                        : o->a[stored_index(o->a_shape, row, l)];
          const double b = letter_transposes(c->transb) ? o->b[stored_index(o->b_shape, col, l)]
                                                        : o->b[stored_index(o->b_shape, l, col)];
          sum += a * b;
          scale += fabs(a * b);
        }
      }
      o->ref[row + (size_t)col * (size_t)c->m] = c->alpha * sum + (c->beta == 0 ? 0.0 : c->beta * c_in);
      o->bound[row + (size_t)col * (size_t)c->m] = fabs(c->alpha) * scale + (c->beta == 0 ? 0.0 : fabs(c->beta * c_in));
    }
  }
}

static inline void gemm_operands_free(gemm_operands* o) {
  free(o->a);
  free(o->b);
  free(o->c0);
  free(o->ref);
  free(o->bound);
}

/* The typed buffers of one run: A, B and C (guards included) in the form's precision. */
typedef struct gemm_buffers {
  void *a, *b, *c;
} gemm_buffers;

static inline void* typed_copy(const double* values, size_t count, int as_double) {
  size_t i;
  void* out = malloc(count * (as_double ? sizeof(double) : sizeof(float)));
  if (!out) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  for (i = 0; i < count; ++i) {
    if (as_double) {
      ((double*)out)[i] = values[i];
    } else {
      ((float*)out)[i] = (float)values[i];
    }
  }
  return out;
}

static inline gemm_buffers gemm_buffers_make(const gemm_operands* o) {
  const int d = form_is_double(o->call.form);
  gemm_buffers b;
  b.a = typed_copy(o->a, stored_span(o->a_shape), d);
  b.b = typed_copy(o->b, stored_span(o->b_shape), d);
  b.c = typed_copy(o->c0, o->c_count, d);
  return b;
}

static inline void gemm_buffers_free(gemm_buffers* b) {
  free(b->a);
  free(b->b);
  free(b->c);
}

static inline CBLAS_TRANSPOSE cblas_transpose_of(char t) {
  if (t == 'T' || t == 't') return CblasTrans;
  if (t == 'C' || t == 'c') return CblasConjTrans;
  return CblasNoTrans;
}

/* The call itself, through the routine the form names. */
static inline void gemm_case_call(const gemm_routines* r, const gemm_operands* o, gemm_buffers* b) {
  const gemm_case* c = &o->call;
  const char ta[2] = {c->transa, 0}, tb[2] = {c->transb, 0};
  const int lda = o->a_shape.ld, ldb = o->b_shape.ld, ldc = o->c_shape.ld;
  const CBLAS_LAYOUT order = form_is_row_major(c->form) ? CblasRowMajor : CblasColMajor;
  if (c->form == FORM_SGEMM_) {
    const float alpha = (float)c->alpha, beta = (float)c->beta;
    r->sgemm(ta, tb, &c->m, &c->n, &c->k, &alpha, b->a, &lda, b->b, &ldb, &beta, (float*)b->c + GEMM_CASE_GUARD, &ldc);
  } else if (c->form == FORM_DGEMM_) {
    r->dgemm(ta, tb, &c->m, &c->n, &c->k, &c->alpha, b->a, &lda, b->b, &ldb, &c->beta, (double*)b->c + GEMM_CASE_GUARD,
             &ldc);
  } else if (form_is_double(c->form)) {
    r->cblas_dgemm(order, cblas_transpose_of(c->transa), cblas_transpose_of(c->transb), c->m, c->n, c->k, c->alpha,
                   b->a, lda, b->b, ldb, c->beta, (double*)b->c + GEMM_CASE_GUARD, ldc);
  } else {
    r->cblas_sgemm(order, cblas_transpose_of(c->transa), cblas_transpose_of(c->transb), c->m, c->n, c->k,
                   (float)c->alpha, b->a, lda, b->b, ldb, (float)c->beta, (float*)b->c + GEMM_CASE_GUARD, ldc);
  }
}

static inline void gemm_case_describe(const gemm_case* c, char* out, size_t size) {
  snprintf(out, size, "%s transa=%c transb=%c m=%d n=%d k=%d alpha=%g beta=%g lda=%d ldb=%d ldc=%d",
           gemm_form_names[c->form], c->transa, c->transb, c->m, c->n, c->k, c->alpha, c->beta, c->lda, c->ldb, c->ldc);
}

static inline double c_element(const gemm_operands* o, const void* c, size_t index) {
  return form_is_double(o->call.form) ? ((const double*)c)[index] : (double)((const float*)c)[index];
}

/* 0 when C after the call holds the reference within (k + 2) eps of its scale (times 4: the device may sum in any
   order, and the float forms round once more) and every element outside the m x n block is bit for bit what it was;
   else 1, with the first wrong element printed after `what`. */
static inline int gemm_case_check(const gemm_operands* o, const gemm_buffers* b, const char* what) {
  const gemm_case* c = &o->call;
  const int d = form_is_double(c->form);
  const double eps = d ? DBL_EPSILON : FLT_EPSILON;
  const size_t size = form_element_size(c->form);
  char text[256];
  void* before = typed_copy(o->c0, o->c_count, d);
  size_t index;
  int row, col, failed = 0;
  gemm_case_describe(c, text, sizeof text);
  for (col = 0; col < c->n && !failed; ++col) {
    for (row = 0; row < c->m && !failed; ++row) {
      const size_t at = GEMM_CASE_GUARD + stored_index(o->c_shape, row, col);
      const double got = c_element(o, b->c, at);
      const double want = o->ref[row + (size_t)col * (size_t)c->m];
      const double tolerance = 4.0 * (c->k + 2) * eps * o->bound[row + (size_t)col * (size_t)c->m];
      if (!(fabs(got - want) <= tolerance)) {
        fprintf(stderr, "FAIL %s: %s: C(%d, %d) = %.9g, reference %.9g (tolerance %.3g)\n", what, text, row, col, got,
                want, tolerance);
        failed = 1;
      }
      /* Mark the block's elements equal in both copies, so that the rest compares bit for bit below. */
      memcpy((char*)before + at * size, (const char*)b->c + at * size, size);
    }
  }
  for (index = 0; index < o->c_count && !failed; ++index) {
    if (memcmp((const char*)before + index * size, (const char*)b->c + index * size, size) != 0) {
      fprintf(stderr, "FAIL %s: %s: element %ld from the start of C (outside the m x n block) was written: %.9g\n",
              what, text, (long)index - GEMM_CASE_GUARD, c_element(o, b->c, index));
      failed = 1;
    }
  }
  free(before);
  return failed;
}

/* 0 when two runs' C are bit for bit the same (both went to the same CPU BLAS), else 1. */
static inline int gemm_case_same_bits(const gemm_operands* o, const gemm_buffers* x, const gemm_buffers* y,
                                      const char* what) {
  if (memcmp(x->c, y->c, o->c_count * form_element_size(o->call.form)) == 0) return 0;
  {
    char text[256];
    gemm_case_describe(&o->call, text, sizeof text);
    fprintf(stderr, "FAIL %s: %s: C differs from the CPU BLAS's\n", what, text);
  }
  return 1;
}

/* 2 m n k, as the stats count it. */
static inline double gemm_case_flops(const gemm_case* c) { return 2.0 * c->m * (double)c->n * (double)c->k; }

/* A valid call of the given form: any letters, sizes of {1, 7, 33, 61, 129}, alpha in +-[0.25, 2], beta 0, 1 or
   -0.5, each leading dimension above the smallest by 0 to 5. */
static inline gemm_case gemm_case_random(gemm_form form, test_rng* r) {
  static const char letters[] = "NnTtCc";
  static const int sizes[] = {1, 7, 33, 61, 129};
  static const double betas[] = {0.0, 1.0, -0.5};
  const double magnitude = 0.25 + 1.75 * (rng_uniform(r) + 1.0) / 2.0;
  gemm_case c = {FORM_SGEMM_, 'N', 'N', 0, 0, 0, 0.0, 0.0, 0, 0, 0};
  c.form = form;
  c.transa = letters[rng_below(r, 6)];
  c.transb = letters[rng_below(r, 6)];
  c.m = sizes[rng_below(r, 5)];
  c.n = sizes[rng_below(r, 5)];
  c.k = sizes[rng_below(r, 5)];
  c.alpha = rng_below(r, 2) ? magnitude : -magnitude;
  c.beta = betas[rng_below(r, 3)];
  c.lda = smallest_ld(shape_of_a(&c)) + rng_below(r, 6);
  c.ldb = smallest_ld(shape_of_b(&c)) + rng_below(r, 6);
  c.ldc = smallest_ld(shape_of_c(&c)) + rng_below(r, 6);
  return c;
}

/* One call on fresh operands, checked (0) or not (1, printed with `what`). */
static inline int gemm_case_run_checked(const gemm_routines* routines, const gemm_case* c, test_rng* r,
                                        const char* what) {
  gemm_operands o;
  gemm_buffers b;
  int failed;
  gemm_operands_make(&o, c, r);
  b = gemm_buffers_make(&o);
  gemm_case_call(routines, &o, &b);
  failed = gemm_case_check(&o, &b, what);
  gemm_buffers_free(&b);
  gemm_operands_free(&o);
  return failed;
}

#endif /* TILEGEMM_TEST_GEMM_CASE_H */
