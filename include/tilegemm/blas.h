/* tilegemm/blas.h: the control API of libtilegemm_blas, the BLAS drop-in (it never declares sgemm_ or cblas_*). */
#ifndef TILEGEMM_BLAS_H
#define TILEGEMM_BLAS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Where ?gemm calls go: never to the GPU, by the cost model (the default), or always (every call tilegemm can run,
   on whatever OpenCL device it chose, a CPU one included). TILEGEMM_BLAS_OFFLOAD=never|auto|always sets it at the
   first call; tilegemm_blas_set_offload overrides it for the whole process from then on. */
typedef enum tilegemm_blas_offload {
  TILEGEMM_BLAS_NEVER = 0,
  TILEGEMM_BLAS_AUTO = 1,
  TILEGEMM_BLAS_ALWAYS = 2
} tilegemm_blas_offload;

/* Counts of the ?gemm calls this process made through the drop-in (sgemm_, dgemm_, cblas_sgemm, cblas_dgemm). */
typedef struct tilegemm_blas_counts {
  unsigned long long calls;     /* every call, whatever ran it */
  unsigned long long gpu_calls; /* run by tilegemm on its OpenCL device */
  unsigned long long cpu_calls; /* run by the CPU BLAS: chosen, invalid arguments, after fork(), or a fallback */
  unsigned long long fallbacks; /* of the cpu_calls: GPU attempts that failed and were redone on the CPU */
  double gpu_flops;             /* 2 m n k of the gpu_calls */
  double cpu_flops;             /* 2 m n k of the cpu_calls */
} tilegemm_blas_counts;

/* The counts so far (safe from any thread), and setting them back to zero. */
tilegemm_blas_counts tilegemm_blas_stats(void);
void tilegemm_blas_reset_stats(void);

/* The offload mode in force, and setting it (an invalid value is ignored and returns -1; else 0). */
tilegemm_blas_offload tilegemm_blas_get_offload(void);
int tilegemm_blas_set_offload(tilegemm_blas_offload mode);

/* Where CPU calls go: "RTLD_NEXT" (the next sgemm_ in the process) or the path of the library opened for them;
   an empty string until the first CPU call resolves it. */
const char* tilegemm_blas_cpu_library(void);

/* tilegemm's version, "X.Y.Z". */
const char* tilegemm_blas_version(void);

#ifdef __cplusplus
}
#endif

#endif /* TILEGEMM_BLAS_H */
