# libtilegemm_blas.so, the BLAS drop-in (src/blas/): sgemm_, dgemm_, cblas_sgemm, cblas_dgemm and blas.h's control
# API, with tilegemm's runtime compiled inside it (core.hpp only: no Eigen). Everything else is hidden.
file(GLOB TILEGEMM_BLAS_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/../src/blas/*.cpp)
add_library(tilegemm_blas SHARED ${TILEGEMM_BLAS_SOURCES})
add_library(tilegemm::blas ALIAS tilegemm_blas)
set_target_properties(tilegemm_blas PROPERTIES EXPORT_NAME blas OUTPUT_NAME tilegemm_blas VERSION ${PROJECT_VERSION}
                                               SOVERSION ${PROJECT_VERSION_MAJOR} CXX_VISIBILITY_PRESET hidden
                                               VISIBILITY_INLINES_HIDDEN ON POSITION_INDEPENDENT_CODE ON)
set(TILEGEMM_BLAS_EXPORTS ${CMAKE_CURRENT_LIST_DIR}/../src/blas/exports.map)
find_package(Threads REQUIRED)
target_link_libraries(tilegemm_blas PRIVATE tilegemm_core Threads::Threads ${CMAKE_DL_LIBS})
target_compile_definitions(tilegemm_blas PRIVATE TILEGEMM_COMPILED_RUNTIME)
# The headers a user needs: blas.h alone (the ?gemm prototypes come from their own BLAS headers).
target_include_directories(tilegemm_blas INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                                   $<INSTALL_INTERFACE:include>)
target_link_options(tilegemm_blas PRIVATE "LINKER:--version-script=${TILEGEMM_BLAS_EXPORTS}" "LINKER:--no-undefined")
set_property(TARGET tilegemm_blas APPEND PROPERTY LINK_DEPENDS ${TILEGEMM_BLAS_EXPORTS})
target_compile_options(tilegemm_blas PRIVATE ${TILEGEMM_WARNINGS})
tilegemm_sanitize(tilegemm_blas)  # with the sanitizer build's tests, which load it

# Installed with the headers when built: `cmake --install` on a tree where it was not built installs the rest
# (OPTIONAL), and the package configuration then reports the component absent.
if(TILEGEMM_INSTALL)
  install(TARGETS tilegemm_blas EXPORT tilegemmBlasTargets OPTIONAL
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Unspecified)
  install(EXPORT tilegemmBlasTargets NAMESPACE tilegemm:: DESTINATION ${TILEGEMM_CMAKE_DIR})
endif()
