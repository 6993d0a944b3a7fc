/* linked_routines: the ?gemm routines of a test program linked to the drop-in before the CPU BLAS (the Fortran
   prototypes are the reference BLAS's; cblas.h, through gemm_case.h, declares the CBLAS ones). */
#ifndef TILEGEMM_TESTS_BLAS_LINKED_ROUTINES_H
#define TILEGEMM_TESTS_BLAS_LINKED_ROUTINES_H

#include "gemm_case.h"

void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
            const float*, const int*, const float*, float*, const int*);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*);

static const gemm_routines linked = {sgemm_, dgemm_, cblas_sgemm, cblas_dgemm};

#endif
