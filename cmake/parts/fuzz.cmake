# Fuzz targets (tests/fuzz/fuzz_<name>.c, each defining
# LLVMFuzzerTestOneInput) in two forms:
#
#  - always (with FG_BUILD_TESTS): fuzz-replay-<name>, the target linked
#    with tests/fuzz/replay_main.c, and one CTest test fuzz/replay_<name>
#    (label "fuzz") that runs it over the committed seeds
#    (tests/fuzz/corpus/<name>), the crash reproducers
#    (tests/fuzz/crashes/<name>) and the seeds collected from the shared
#    conformance data; with any compiler, so every CI run replays them.
#  - with -DFG_FUZZ=ON -DCMAKE_C_COMPILER=clang: fuzz-<name>, a libFuzzer
#    program, with the library compiled for coverage-guided fuzzing
#    (see tests/fuzz/README.md).

option(FG_FUZZ "Build the libFuzzer targets (needs clang); instruments the library" OFF)

set(FG_FUZZ_DIR ${CMAKE_SOURCE_DIR}/tests/fuzz)
set(FG_FUZZ_SEEDS ${CMAKE_BINARY_DIR}/fuzz-seeds)
file(GLOB FG_FUZZ_TARGETS CONFIGURE_DEPENDS ${FG_FUZZ_DIR}/fuzz_*.c)

if(FG_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "FG_FUZZ=ON needs clang's libFuzzer: configure with -DCMAKE_C_COMPILER=clang")
  endif()
  # the library gets coverage instrumentation but no libFuzzer main();
  # everything linking it (programs, tests) needs the sanitizer runtimes
  target_compile_options(flamegraph_objects PRIVATE -fsanitize=address,undefined,fuzzer-no-link
                         -fno-sanitize-recover=undefined)
  target_link_options(flamegraph INTERFACE -fsanitize=address,undefined)
  # small collapse blocks: cheap runs, and small inputs cross block cuts
  # (the targets see the size too, to build inputs just past one block)
  set(FG_FUZZ_CHUNK_SIZE 4096)
  target_compile_definitions(flamegraph_objects PRIVATE FG_COLLAPSE_CHUNK_SIZE=${FG_FUZZ_CHUNK_SIZE})
  foreach(src ${FG_FUZZ_TARGETS})
    get_filename_component(name ${src} NAME_WE)
    string(REGEX REPLACE "^fuzz_" "" name ${name})
    add_executable(fuzz-${name} ${src})
    target_include_directories(fuzz-${name} PRIVATE ${CMAKE_SOURCE_DIR}/src ${FG_FUZZ_DIR})
    target_compile_options(fuzz-${name} PRIVATE -fsanitize=fuzzer,address,undefined
                           -fno-sanitize-recover=undefined)
    target_link_options(fuzz-${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_compile_definitions(fuzz-${name} PRIVATE FG_COLLAPSE_CHUNK_SIZE=${FG_FUZZ_CHUNK_SIZE})
    target_link_libraries(fuzz-${name} PRIVATE flamegraph)
    set_target_properties(fuzz-${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
  endforeach()
  add_custom_target(fuzz-seeds
    COMMAND bash ${FG_FUZZ_DIR}/collect-seeds.sh ${FG_SHARED_DIR}/conformance ${FG_FUZZ_SEEDS}
    COMMENT "Collecting fuzz seeds from ${FG_SHARED_DIR}/conformance"
    VERBATIM)
endif()

if(FG_BUILD_TESTS)
  enable_testing()
  add_test(NAME fuzz/seeds
           COMMAND bash ${FG_FUZZ_DIR}/collect-seeds.sh ${FG_SHARED_DIR}/conformance ${FG_FUZZ_SEEDS})
  set_tests_properties(fuzz/seeds PROPERTIES LABELS fuzz FIXTURES_SETUP fuzz_seeds)
  # the replays' temporary folder (their scratch project), in the build
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz/tmp)
  foreach(src ${FG_FUZZ_TARGETS})
    get_filename_component(name ${src} NAME_WE)
    string(REGEX REPLACE "^fuzz_" "" name ${name})
    add_executable(fuzz-replay-${name} ${src} ${FG_FUZZ_DIR}/replay_main.c)
    target_include_directories(fuzz-replay-${name} PRIVATE ${CMAKE_SOURCE_DIR}/src ${FG_FUZZ_DIR})
    target_link_libraries(fuzz-replay-${name} PRIVATE flamegraph)
    set_target_properties(fuzz-replay-${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
    add_test(NAME fuzz/replay_${name}
             COMMAND fuzz-replay-${name} ${FG_FUZZ_DIR}/corpus/${name}
                     ${FG_FUZZ_DIR}/crashes/${name} ${FG_FUZZ_SEEDS}/${name})
    set_tests_properties(fuzz/replay_${name} PROPERTIES LABELS fuzz FIXTURES_REQUIRED fuzz_seeds
                         ENVIRONMENT "TMPDIR=${CMAKE_BINARY_DIR}/fuzz/tmp")
  endforeach()
endif()
