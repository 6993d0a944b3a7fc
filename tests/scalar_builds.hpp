// scalar_builds: the scalar and tier of a test file built twice, its cases in float for the device tier and, with
// TILEGEMM_TEST_DOUBLE defined, in double for the slow tier (tests/CMakeLists.txt). The Eigen front end and device
// matrices are the same code in either scalar, and double's programs differ from float's only in their type; cases
// without a scalar parameter are the float build's (#ifndef TILEGEMM_TEST_DOUBLE).
#pragma once

#ifdef TILEGEMM_TEST_DOUBLE
#define TILEGEMM_TEST_SCALAR double
#define TILEGEMM_TEST_TIER "[slow]"
#else
#define TILEGEMM_TEST_SCALAR float
#define TILEGEMM_TEST_TIER ""
#endif
