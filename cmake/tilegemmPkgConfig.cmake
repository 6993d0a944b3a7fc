# pkg-config files: tilegemm.pc (the headers: include path, C++17, OpenCL) in the arch-independent data folder, and
# tilegemm_blas.pc (the drop-in's library) beside the library; both find their prefix from their own folder.
find_package(PkgConfig QUIET)
set(TILEGEMM_PC_REQUIRES "")
set(TILEGEMM_PC_LIBS "-lOpenCL")
if(PKG_CONFIG_FOUND)
  pkg_check_modules(TILEGEMM_PC_OPENCL QUIET OpenCL)
  if(TILEGEMM_PC_OPENCL_FOUND)
    set(TILEGEMM_PC_REQUIRES "OpenCL")
    set(TILEGEMM_PC_LIBS "")
  endif()
endif()
set(TILEGEMM_PC_TO_PREFIX "../..")  # <prefix>/share/pkgconfig
configure_file(${CMAKE_CURRENT_LIST_DIR}/tilegemm.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/tilegemm.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/tilegemm.pc DESTINATION ${CMAKE_INSTALL_DATADIR}/pkgconfig)
if(TARGET tilegemm_blas)
  file(RELATIVE_PATH TILEGEMM_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/tilegemm_blas.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/tilegemm_blas.pc @ONLY)
  # Installed only with the library (a tree where it was not built installs no tilegemm_blas.pc).
  install(CODE "if(EXISTS \"$<TARGET_FILE:tilegemm_blas>\")
  file(INSTALL \"${PROJECT_BINARY_DIR}/pkgconfig/tilegemm_blas.pc\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\")
endif()")
endif()
