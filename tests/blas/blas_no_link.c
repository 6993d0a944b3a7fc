/* blas_no_link: a program that links no BLAS, run under LD_PRELOAD=libtilegemm_blas.so with TILEGEMM_BLAS_FALLBACK
   naming a CPU BLAS: it finds the routines at run time (dlsym), and the drop-in sends its CPU calls to the library
   the variable names. Every form in mode never (that library) and always (the device), each checked; until the first
   offload no OpenCL driver is loaded (preloading into any process costs nothing). */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>

#include "gemm_case.h"

/* The control API, found the same way (this program does not link the drop-in either). */
typedef tilegemm_blas_counts stats_function(void);
typedef int set_offload_function(tilegemm_blas_offload);
typedef const char* cpu_library_function(void);

static void* found(const char* name) {
  void* symbol = dlsym(RTLD_DEFAULT, name);
  if (!symbol) {
    fprintf(stderr, "FAIL: no %s in the process; run under LD_PRELOAD=libtilegemm_blas.so\n", name);
    exit(1);
  }
  return symbol;
}

/* Whether a library an ICD file of /etc/OpenCL/vendors names is mapped into this process (the loader opens them at
   the first OpenCL call): 1 or 0, or -1 where there are no ICD files to tell by. */
static int opencl_driver_loaded(void) {
  DIR* vendors = opendir("/etc/OpenCL/vendors");
  struct dirent* entry;
  int known = 0, loaded = 0;
  if (!vendors) return -1;
  while ((entry = readdir(vendors)) != NULL && !loaded) {
    char path[512], library[256], line[1024];
    const char* base;
    FILE *icd, *maps;
    const size_t length = strlen(entry->d_name);
    if (length < 4 || strcmp(entry->d_name + length - 4, ".icd") != 0) continue;
    snprintf(path, sizeof path, "/etc/OpenCL/vendors/%s", entry->d_name);
    icd = fopen(path, "r");
    if (!icd) continue;
    if (fscanf(icd, "%255s", library) != 1) library[0] = 0;
    fclose(icd);
    if (!library[0]) continue;
    known = 1;
    base = strrchr(library, '/') ? strrchr(library, '/') + 1 : library;
    maps = fopen("/proc/self/maps", "r");
    if (!maps) continue;
    while (fgets(line, sizeof line, maps)) {
      if (strstr(line, base)) loaded = 1;
    }
    fclose(maps);
  }
  closedir(vendors);
  return known ? loaded : -1;
}

int main(void) {
  gemm_routines preloaded;
  stats_function* stats;
  set_offload_function* set_offload;
  cpu_library_function* cpu_library;
  const char* fallback = getenv("TILEGEMM_BLAS_FALLBACK");
  test_rng rng;
  int failed = 0, mode, form;
  rng.state = test_seed();
  if (!fallback) {
    fprintf(stderr, "FAIL: run with TILEGEMM_BLAS_FALLBACK set to a CPU BLAS\n");
    return 1;
  }
  /* POSIX allows the conversion from dlsym's void* to a function pointer; C99 itself does not, hence the memcpy. */
  {
    void* p;
    p = found("sgemm_"), memcpy(&preloaded.sgemm, &p, sizeof p);
    p = found("dgemm_"), memcpy(&preloaded.dgemm, &p, sizeof p);
    p = found("cblas_sgemm"), memcpy(&preloaded.cblas_sgemm, &p, sizeof p);
    p = found("cblas_dgemm"), memcpy(&preloaded.cblas_dgemm, &p, sizeof p);
    p = found("tilegemm_blas_stats"), memcpy(&stats, &p, sizeof p);
    p = found("tilegemm_blas_set_offload"), memcpy(&set_offload, &p, sizeof p);
    p = found("tilegemm_blas_cpu_library"), memcpy(&cpu_library, &p, sizeof p);
  }
  for (mode = 0; mode < 2; ++mode) {
    set_offload(mode == 0 ? TILEGEMM_BLAS_NEVER : TILEGEMM_BLAS_ALWAYS);
    for (form = 0; form < FORM_COUNT; ++form) {
      const gemm_case c = gemm_case_random((gemm_form)form, &rng);
      const tilegemm_blas_counts before = stats();
      tilegemm_blas_counts after;
      failed |= gemm_case_run_checked(&preloaded, &c, &rng, mode == 0 ? "never (the fallback)" : "always");
      after = stats();
      if (after.calls - before.calls != 1 || after.gpu_calls - before.gpu_calls != (unsigned long long)mode ||
          after.cpu_calls - before.cpu_calls != (unsigned long long)(1 - mode)) {
        fprintf(stderr, "FAIL: %s in mode %s: stats moved by %llu calls, %llu on the GPU, %llu on the CPU\n",
                gemm_form_names[form], mode == 0 ? "never" : "always", after.calls - before.calls,
                after.gpu_calls - before.gpu_calls, after.cpu_calls - before.cpu_calls);
        failed = 1;
      }
    }
    if (mode == 0 && opencl_driver_loaded() == 1) {
      fprintf(stderr, "FAIL: an OpenCL driver was loaded although no call went to the device\n");
      failed = 1;
    }
    if (mode == 1 && opencl_driver_loaded() == 0) {
      fprintf(stderr, "FAIL: calls ran on the device, but no OpenCL driver of /etc/OpenCL/vendors is loaded\n");
      failed = 1;
    }
    if (mode == 0 && strcmp(cpu_library(), fallback) != 0) {
      fprintf(stderr, "FAIL: tilegemm_blas_cpu_library() is \"%s\", not TILEGEMM_BLAS_FALLBACK's \"%s\"\n",
              cpu_library(), fallback);
      failed = 1;
    }
  }
  printf("no BLAS linked, CPU calls through %s: %s\n", fallback, failed ? "FAILED" : "all right");
  return failed;
}
