# Installable package: find_package(tcnum [COMPONENTS reference characterize eigen probes]) then
# target_link_libraries(... tcnum::tcnum) (the core: zlib, libdeflate when built with it, and the standard library only) and
# tcnum::reference, tcnum::characterize, tcnum::eigen, tcnum::probes for the components asked for.
# Each component is installed when it was built, with its own headers and export set.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(TCNUM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tcnum)

# One component: its target, its export set, and its folder of public headers.
function(tcnum_install_component component target headers)
  if(NOT TARGET ${target})
    return()
  endif()
  install(TARGETS ${target} EXPORT tcnum_${component}Targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT tcnum_${component}Targets NAMESPACE tcnum:: DESTINATION ${TCNUM_CMAKE_DIR})
  install(DIRECTORY ${headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tcnum)
endfunction()

install(FILES include/tcnum/tcnum.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tcnum)
tcnum_install_component(core tcnum_core include/tcnum/core)
# With the core: the comparison report (compiled into the core) and its GoogleTest assertion,
# and the header-only CUDA/CUTLASS interop (usable where the including project has their headers).
install(DIRECTORY include/tcnum/testing DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tcnum)
install(FILES include/tcnum/interop/cuda.hpp include/tcnum/interop/cutlass.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tcnum/interop)
tcnum_install_component(eigen tcnum_eigen include/tcnum/interop)
tcnum_install_component(reference tcnum_reference include/tcnum/reference)
tcnum_install_component(characterize tcnum_characterize include/tcnum/characterize)
if(TARGET tcnum_probes_sparse)  # linked by tcnum_probes: in its export set
  install(TARGETS tcnum_probes_sparse EXPORT tcnum_probesTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
tcnum_install_component(probes tcnum_probes probes/include/tcnum/probes)
if(TARGET tcnum_reference)
  install(FILES cmake/FindMPFR.cmake cmake/FindGMP.cmake DESTINATION ${TCNUM_CMAKE_DIR})
endif()

configure_package_config_file(cmake/tcnumConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/tcnumConfig.cmake
                              INSTALL_DESTINATION ${TCNUM_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tcnumConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tcnumConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/tcnumConfigVersion.cmake
        DESTINATION ${TCNUM_CMAKE_DIR})
