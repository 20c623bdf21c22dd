# Installable package: find_package(tcnum) then target_link_libraries(... tcnum::tcnum).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS tcnum_core EXPORT tcnumTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/tcnum DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT tcnumTargets NAMESPACE tcnum:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tcnum)
install(FILES cmake/FindMPFR.cmake cmake/FindGMP.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tcnum)
configure_package_config_file(cmake/tcnumConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/tcnumConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tcnum)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tcnumConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tcnumConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/tcnumConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tcnum)
