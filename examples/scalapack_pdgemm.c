/* scalapack_pdgemm: ScaLAPACK's pdgemm_ across MPI ranks, each rank checking its block of C; the drop-in
   (LD_PRELOAD=libtilegemm_blas.so) runs each rank's local dgemm_ on its GPU (docs/scalapack.md).

   mpirun -np 4 scalapack_pdgemm [N [P Q [NB [REPEATS]]]]

   C = alpha A B + beta C0 in double on a P x Q BLACS grid (P Q = the number of ranks; default the squarest), N x N
   matrices in NB x NB blocks (default 1000 and 64). Every element of A, B and C0 is a formula of its global indices,
   so any rank can compute any element's reference: each rank checks every element of its block of C where that is
   cheap, else a sample, against a reference summed in long double, with a tolerance that grows with N. It prints
   each rank's result and the pdgemm_ time (the slowest rank's), and exits with 1 on any wrong element. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* BLACS's C interface and ScaLAPACK's Fortran routines, as Debian's libscalapack-openmpi exports them (there is no
   header). */
void Cblacs_pinfo(int* mypnum, int* nprocs);
void Cblacs_get(int icontxt, int what, int* val);
void Cblacs_gridinit(int* icontxt, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int icontxt, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int icontxt);
void Cblacs_exit(int notdone);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc, const int* icsrc,
               const int* ictxt, const int* lld, int* info);
void pdgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
             const double* a, const int* ia, const int* ja, const int* desca, const double* b, const int* ib,
             const int* jb, const int* descb, const double* beta, double* c, const int* ic, const int* jc,
             const int* descc);

/* The drop-in's counts, read through dlsym where it is loaded (the example does not link it). The layout of
   tilegemm_blas_counts in <tilegemm/blas.h>. */
typedef struct {
  unsigned long long calls, gpu_calls, cpu_calls, fallbacks;
  double gpu_flops, cpu_flops;
} blas_counts;

enum { matrix_a = 1, matrix_b = 2, matrix_c = 3 };

/* Element (i, j) of A, B or C0 (0-based global indices): splitmix64 of the indices, as a double in [-1, 1) with 53
   random bits, so that a product computed in single precision anywhere fails the check. */
static double element(int which, int64_t i, int64_t j) {
  uint64_t z = ((uint64_t)which << 62) ^ ((uint64_t)i << 31) ^ (uint64_t)j;
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

/* The global index of local index `local` in a block-cyclic distribution over `procs` processes from process 0. */
static int64_t global_index(int local, int block, int me, int procs) {
  return ((int64_t)(local / block) * procs + me) * block + local % block;
}

static const double alpha = 0.75, beta = -0.5;

/* C(i, j)'s reference in long double, and the scale its tolerance is relative to (sum of |alpha a b| and |beta c|).
   row_a: A's row i (n values) or NULL to compute it from the formula. */
static long double reference(int64_t i, int64_t j, int n, const double* row_a, const double* column_b,
                             long double* scale) {
  long double sum = 0, magnitude = 0;
  for (int l = 0; l < n; ++l) {
    const long double a = row_a ? row_a[l] : element(matrix_a, i, l);
    const long double b = column_b ? column_b[l] : element(matrix_b, l, j);
    sum += a * b;
    magnitude += fabsl(a * b);
  }
  const long double c0 = element(matrix_c, i, j);
  *scale = fabsl((long double)alpha) * magnitude + fabsl((long double)beta * c0);
  return alpha * sum + beta * c0;
}

static int parse_positive(const char* text, const char* what, int* value) {
  char* end = NULL;
  const long parsed = strtol(text, &end, 10);
  if (end == text || *end != '\0' || parsed < 1 || parsed > 1000000) {
    fprintf(stderr, "scalapack_pdgemm: %s=%s is not an integer from 1 to 1000000\n", what, text);
    return 0;
  }
  *value = (int)parsed;
  return 1;
}

static void fill_local(double* local, int rows, int cols, int lld, int which, int nb, int myrow, int nprow, int mycol,
                       int npcol) {
  for (int lj = 0; lj < cols; ++lj) {
    const int64_t j = global_index(lj, nb, mycol, npcol);
    for (int li = 0; li < rows; ++li)
      local[li + (size_t)lj * lld] = element(which, global_index(li, nb, myrow, nprow), j);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  int n = 1000, nprow = 0, npcol = 0, nb = 64, repeats = 1, ok = 1;
  if (argc > 1) ok &= parse_positive(argv[1], "N", &n);
  if (argc > 3) ok &= parse_positive(argv[2], "P", &nprow) & parse_positive(argv[3], "Q", &npcol);
  if (argc > 4) ok &= parse_positive(argv[4], "NB", &nb);
  if (argc > 5) ok &= parse_positive(argv[5], "REPEATS", &repeats);
  if (argc == 3 || argc > 6) ok = 0;
  if (nprow == 0) { /* the squarest grid: P the largest divisor of the rank count up to its square root */
    for (nprow = (int)sqrt((double)ranks); ranks % nprow != 0; --nprow) {
    }
    npcol = ranks / nprow;
  }
  if (ok && (int64_t)nprow * npcol != ranks) {
    if (rank == 0)
      fprintf(stderr, "scalapack_pdgemm: a %d x %d grid needs %d ranks, not %d\n", nprow, npcol, nprow * npcol, ranks);
    ok = 0;
  }
  if (!ok) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -np RANKS scalapack_pdgemm [N [P Q [NB [REPEATS]]]]\n");
    MPI_Finalize();
    return 2;
  }

  int context = 0, myrow = 0, mycol = 0, p = 0, q = 0;
  Cblacs_get(-1, 0, &context);
  Cblacs_gridinit(&context, "Row-major", nprow, npcol);
  Cblacs_gridinfo(context, &p, &q, &myrow, &mycol);
  const int zero = 0, one = 1;
  const int rows = numroc_(&n, &nb, &myrow, &zero, &nprow), cols = numroc_(&n, &nb, &mycol, &zero, &npcol);
  const int lld = rows > 1 ? rows : 1;
  int desc[9], info = 0;
  descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &context, &lld, &info);
  if (info != 0) {
    fprintf(stderr, "scalapack_pdgemm: rank %d: descinit_ failed (info %d)\n", rank, info);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const size_t local_size = (size_t)lld * (size_t)(cols > 0 ? cols : 1);
  double* a = malloc(local_size * sizeof(double));
  double* b = malloc(local_size * sizeof(double));
  double* c = malloc(local_size * sizeof(double));
  if (!a || !b || !c) {
    fprintf(stderr, "scalapack_pdgemm: rank %d: cannot allocate 3 x %zu doubles\n", rank, local_size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  fill_local(a, rows, cols, lld, matrix_a, nb, myrow, nprow, mycol, npcol);
  fill_local(b, rows, cols, lld, matrix_b, nb, myrow, nprow, mycol, npcol);

  double best = 0;
  for (int repeat = 0; repeat < repeats; ++repeat) {
    fill_local(c, rows, cols, lld, matrix_c, nb, myrow, nprow, mycol, npcol);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    pdgemm_("N", "N", &n, &n, &n, &alpha, a, &one, &one, desc, b, &one, &one, desc, &beta, c, &one, &one, desc);
    const double mine = MPI_Wtime() - start;
    double slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (repeat == 0 || slowest < best) best = slowest;
    if (rank == 0) {
      printf("pdgemm N=%d grid %dx%d NB=%d: %.4f s (slowest rank), %.1f GFLOP/s\n", n, nprow, npcol, nb, slowest,
             2.0 * n * (double)n * n / slowest * 1e-9);
    }
  }

  /* Every element of the block where the reference costs at most ~2^28 multiply-adds (A's rows and B's columns
     computed once), else 997 sampled elements and the block's corners. */
  const double full_cost = (double)rows * cols * n;
  const int full = full_cost <= (double)(1 << 28);
  double *rows_a = NULL, *columns_b = NULL;
  if (full && rows > 0 && cols > 0) {
    rows_a = malloc((size_t)rows * n * sizeof(double));
    columns_b = malloc((size_t)cols * n * sizeof(double));
    if (!rows_a || !columns_b) {
      fprintf(stderr, "scalapack_pdgemm: rank %d: cannot allocate the reference's rows\n", rank);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int li = 0; li < rows; ++li) {
      const int64_t i = global_index(li, nb, myrow, nprow);
      for (int l = 0; l < n; ++l) rows_a[(size_t)li * n + l] = element(matrix_a, i, l);
    }
    for (int lj = 0; lj < cols; ++lj) {
      const int64_t j = global_index(lj, nb, mycol, npcol);
      for (int l = 0; l < n; ++l) columns_b[(size_t)lj * n + l] = element(matrix_b, l, j);
    }
  }
  const long samples = rows == 0 || cols == 0 ? 0 : full ? (long)rows * cols : 1001;
  long wrong = 0;
  double worst = 0; /* the largest error over its tolerance */
  uint64_t state = 0x243f6a8885a308d3ull ^ (uint64_t)rank;
  for (long s = 0; s < samples; ++s) {
    int li, lj;
    if (full) {
      li = (int)(s % rows);
      lj = (int)(s / rows);
    } else if (s < 4) { /* the corners */
      li = (s & 1) ? rows - 1 : 0;
      lj = (s & 2) ? cols - 1 : 0;
    } else {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      li = (int)((state >> 33) % (uint64_t)rows);
      lj = (int)((state >> 13) % (uint64_t)cols);
    }
    const int64_t i = global_index(li, nb, myrow, nprow), j = global_index(lj, nb, mycol, npcol);
    long double scale = 0;
    const long double expected = reference(i, j, n, rows_a ? rows_a + (size_t)li * n : NULL,
                                           columns_b ? columns_b + (size_t)lj * n : NULL, &scale);
    /* Any summation order of n products: at most about n unit roundoffs of the magnitudes, doubled. */
    const double tolerance = (double)(2.0L * (n + 2) * (DBL_EPSILON / 2) * scale) + DBL_MIN;
    const double got = c[li + (size_t)lj * lld], error = fabs((double)(got - expected));
    if (!(error <= tolerance)) { /* NaN too */
      if (wrong < 3) {
        fprintf(stderr, "rank %d: C(%lld, %lld) = %.17g, expected %.17Lg (error %.3g, tolerance %.3g)\n", rank,
                (long long)i, (long long)j, got, expected, error, tolerance);
      }
      ++wrong;
    }
    if (error / tolerance > worst || error != error) worst = error / tolerance;
  }

  char line[256];
  int written =
      snprintf(line, sizeof line,
               "rank %d (%d, %d): C block %d x %d, %s %ld elements, %ld wrong, worst "
               "error %.3g of its tolerance",
               rank, myrow, mycol, rows, cols, full ? "checked all" : "checked a sample of", samples, wrong, worst);
  void* stats = dlsym(RTLD_DEFAULT, "tilegemm_blas_stats");
  if (stats != NULL && written > 0 && written < (int)sizeof line) {
    blas_counts (*counts)(void);
    memcpy(&counts, &stats, sizeof counts); /* ISO C has no cast from an object pointer to a function pointer */
    const blas_counts got = counts();
    snprintf(line + written, sizeof line - written, "; tilegemm-blas: %llu dgemm calls, %llu on the GPU", got.calls,
             got.gpu_calls);
  }
  char* lines = rank == 0 ? malloc(sizeof line * (size_t)ranks) : NULL;
  MPI_Gather(line, sizeof line, MPI_CHAR, lines, sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
  long wrong_anywhere = 0;
  MPI_Allreduce(&wrong, &wrong_anywhere, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < ranks; ++r) printf("%s\n", lines + sizeof line * (size_t)r);
    printf("pdgemm N=%d grid %dx%d NB=%d: best %.4f s (slowest rank), %.1f GFLOP/s; %s\n", n, nprow, npcol, nb, best,
           2.0 * n * (double)n * n / best * 1e-9, wrong_anywhere == 0 ? "every block right" : "WRONG ELEMENTS");
    free(lines);
  }
  free(rows_a);
  free(columns_b);
  free(a);
  free(b);
  free(c);
  Cblacs_gridexit(context);
  Cblacs_exit(1); /* 1: MPI goes on, to be finalised here */
  MPI_Finalize();
  return wrong_anywhere == 0 ? 0 : 1;
}
