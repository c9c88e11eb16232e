# The complete install (cmake --install build --prefix P): the programs and
# man pages (top-level CMakeLists.txt), and here the library (shared, with a
# versioned SONAME, and static), its public headers, flamegraph.pc for
# pkg-config, a CMake package (find_package(flamegraph) ->
# flamegraph::flamegraph), completions for bash, zsh and fish, and the
# Debian package CPack makes from all of it (cpack -G DEB).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# --- libflamegraph.so: the static library's objects, all of them -------------
if(NOT FG_FUZZ)
  add_library(flamegraph_shared SHARED $<TARGET_OBJECTS:flamegraph_objects>)
  target_link_libraries(flamegraph_shared PRIVATE ${FG_LIB_DEPENDENCIES})
  target_include_directories(flamegraph_shared INTERFACE
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  set_target_properties(flamegraph_shared PROPERTIES
    OUTPUT_NAME flamegraph
    EXPORT_NAME flamegraph
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR})
  install(TARGETS flamegraph_shared EXPORT flamegraphTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES $<TARGET_FILE:flamegraph> DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT flamegraphTargets NAMESPACE flamegraph::
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/flamegraph)
  write_basic_package_version_file(
    ${CMAKE_BINARY_DIR}/generated/flamegraphConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  file(WRITE ${CMAKE_BINARY_DIR}/generated/flamegraphConfig.cmake
       "# find_package(flamegraph): the imported target flamegraph::flamegraph\n"
       "include(\${CMAKE_CURRENT_LIST_DIR}/flamegraphTargets.cmake)\n")
  install(FILES ${CMAKE_BINARY_DIR}/generated/flamegraphConfig.cmake
                ${CMAKE_BINARY_DIR}/generated/flamegraphConfigVersion.cmake
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/flamegraph)
endif()

install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/flamegraph
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
# relocatable: the prefix is found from where the .pc file lies, so that
# `cmake --install --prefix P` and the .deb both get a working file
file(RELATIVE_PATH FG_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_SOURCE_DIR}/cmake/flamegraph.pc.in
               ${CMAKE_BINARY_DIR}/generated/flamegraph.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/generated/flamegraph.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# --- completions: each program writes its own, at build time ------------------
set(FG_COMPLETION_DIR ${CMAKE_BINARY_DIR}/completions)
set(FG_COMPLETION_FILES "")
foreach(target ${FG_PROGRAM_NAMES})
  get_target_property(prog ${target} OUTPUT_NAME)
  set(outs ${FG_COMPLETION_DIR}/bash/${prog} ${FG_COMPLETION_DIR}/zsh/_${prog}
           ${FG_COMPLETION_DIR}/fish/${prog}.fish)
  add_custom_command(OUTPUT ${outs}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${FG_COMPLETION_DIR}/bash
            ${FG_COMPLETION_DIR}/zsh ${FG_COMPLETION_DIR}/fish
    COMMAND $<TARGET_FILE:${target}> --completions bash > ${FG_COMPLETION_DIR}/bash/${prog}
    COMMAND $<TARGET_FILE:${target}> --completions zsh > ${FG_COMPLETION_DIR}/zsh/_${prog}
    COMMAND $<TARGET_FILE:${target}> --completions fish > ${FG_COMPLETION_DIR}/fish/${prog}.fish
    DEPENDS ${target} VERBATIM)
  list(APPEND FG_COMPLETION_FILES ${outs})
  install(FILES ${FG_COMPLETION_DIR}/bash/${prog}
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
  install(FILES ${FG_COMPLETION_DIR}/zsh/_${prog}
          DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
  install(FILES ${FG_COMPLETION_DIR}/fish/${prog}.fish
          DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
endforeach()
add_custom_target(completions ALL DEPENDS ${FG_COMPLETION_FILES})

# --- the Debian package -------------------------------------------------------
set(CPACK_PACKAGE_NAME flamegraph-build)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "flamegraph-build maintainers <flamegraph-build@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "profile a C project with one command: build, record, flame graph")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# the libraries the programs link (found by dpkg-shlibdeps) and what they run
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "binutils")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "linux-perf, cmake, gcc | clang, git")
include(CPack)
