// linkage: where the runtime's code is compiled: in every translation unit that includes tilegemm (header-only, the
// default), or once for the whole program (TILEGEMM_COMPILED_RUNTIME), so that users' files compile faster.
#pragma once

// The templates a user instantiates reach the runtime through its entries:
// - TILEGEMM_ENTRY marks a non-template entry's declaration and definition; the definition is compiled where
//   TILEGEMM_ENTRY_BODIES is 1 (#if TILEGEMM_ENTRY_BODIES around it);
// - TILEGEMM_ENTRY_INSTANCE(signature) names an instance (float, double) of an entry that is a template over the
//   scalar.
// Header-only, entries are inline functions and templates like any other. With TILEGEMM_COMPILED_RUNTIME defined in
// every file of a program, files only declare them (extern templates for the instances), and the one file that also
// defines TILEGEMM_BUILDING_RUNTIME compiles them (CMake's tilegemm::runtime library is that file:
// src/tilegemm_runtime.cpp). A program uses one mode in all of its files.
// Headers that only the entries' bodies need are included where TILEGEMM_ENTRY_BODIES is 1, or where
// TILEGEMM_INTERNALS is defined: tilegemm's own tests, tuner and benchmark reach into the internals with the runtime
// compiled once (CMake defines it where they are built).
#if defined(TILEGEMM_BUILDING_RUNTIME) && !defined(TILEGEMM_COMPILED_RUNTIME)
#define TILEGEMM_COMPILED_RUNTIME
#endif

#if !defined(TILEGEMM_COMPILED_RUNTIME)
#define TILEGEMM_ENTRY inline
#define TILEGEMM_ENTRY_BODIES 1
#define TILEGEMM_ENTRY_INSTANCE(...)
#elif defined(TILEGEMM_BUILDING_RUNTIME)
#define TILEGEMM_ENTRY
#define TILEGEMM_ENTRY_BODIES 1
#define TILEGEMM_ENTRY_INSTANCE(...) template __VA_ARGS__;
#else
#define TILEGEMM_ENTRY
#define TILEGEMM_ENTRY_BODIES 0
#define TILEGEMM_ENTRY_INSTANCE(...) extern template __VA_ARGS__;
#endif
