# The allocation interposer (flamegraph --alloc): a shared library of its
# own, preloaded into the profiled program. It links nothing of ours (only
# libc), so nothing it calls allocates through the functions it replaces.
# Built beside the programs, installed into lib/flamegraph-build/, where
# the programs look for it relative to their own path.
set(FG_ALLOC_INSTALL_DIR lib/flamegraph-build)
add_library(flamegraph-alloc SHARED ${CMAKE_SOURCE_DIR}/src/alloc/interpose.c)
set_target_properties(flamegraph-alloc PROPERTIES
  C_VISIBILITY_PRESET hidden
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
# the frame walk starts at the frame of the function the program called:
# that frame must exist (no sibling call tearing it down first); no
# sanitizer either, as it would intercept the allocator itself
target_compile_options(flamegraph-alloc PRIVATE -fno-optimize-sibling-calls
                       -fno-sanitize=all -ftls-model=initial-exec)
target_link_options(flamegraph-alloc PRIVATE -fno-sanitize=all -Wl,-z,nodelete)
# libm: the sampling's exp and log (it allocates nothing)
target_link_libraries(flamegraph-alloc PRIVATE m ${CMAKE_DL_LIBS})
install(TARGETS flamegraph-alloc LIBRARY DESTINATION ${FG_ALLOC_INSTALL_DIR})
