# Cross-check tests against @noble/curves, included by the root CMakeLists.txt.
#
#   noble_vectors   runs tests/noble/gen.mjs with node and writes noble_vectors.txt into the
#                   build tree (fixture setup);
#   noble_xcheck    runs czk_xcheck on that file;
#   noble_xcheck_asan  the same with the ASan+UBSan build's czk_xcheck, when CZK_ASAN_BUILD
#                   names that tree (the Makefile builds czk_xcheck there).
#
# The seed comes from CZK_TEST_SEED when it is set, else it is fresh; either way the generator
# step prints it with the line that reproduces the run. CZK_TEST_ITERS overrides the
# generator's iteration count (default 100).
#
# This file is also the generator step's script: ctest runs it with `cmake -P`, and the part
# below the `CMAKE_SCRIPT_MODE_FILE` test does the work at test time, so a node installed after
# configuring is found, and a missing node or node_modules FAILS the test with the fix in the
# message instead of skipping it (a silent skip would hide a broken CI machine).

if(CMAKE_SCRIPT_MODE_FILE)
  # cmake -DNOBLE_DIR=<tests/noble> -DOUT=<vectors file> -P ctest.cmake
  set(setup_hint "run tools/setup.sh (make setup): it installs Node.js and runs npm ci")
  find_program(node_exe NAMES node nodejs)
  if(NOT node_exe)
    message(FATAL_ERROR "noble: node (Node.js) not found on PATH; ${setup_hint}")
  endif()
  set(curves_pkg ${NOBLE_DIR}/node_modules/@noble/curves/package.json)
  if(NOT EXISTS ${curves_pkg})
    message(FATAL_ERROR "noble: ${NOBLE_DIR}/node_modules/@noble/curves is missing; ${setup_hint}")
  endif()
  file(READ ${NOBLE_DIR}/package.json pinned_json)
  file(READ ${curves_pkg} installed_json)
  string(JSON want GET ${pinned_json} dependencies @noble/curves)
  string(JSON got GET ${installed_json} version)
  if(NOT want STREQUAL got)
    message(FATAL_ERROR
            "noble: @noble/curves ${got} is installed, package.json pins ${want}; ${setup_hint}")
  endif()

  if(DEFINED ENV{CZK_TEST_SEED} AND NOT "$ENV{CZK_TEST_SEED}" STREQUAL "")
    set(seed $ENV{CZK_TEST_SEED})
  else()
    # string(RANDOM) draws from a time-seeded generator; the first digit is never 0.
    string(RANDOM LENGTH 1 ALPHABET 123456789 head)
    string(RANDOM LENGTH 17 ALPHABET 0123456789 tail)
    set(seed ${head}${tail})
  endif()
  set(iters 100)
  if(DEFINED ENV{CZK_TEST_ITERS} AND NOT "$ENV{CZK_TEST_ITERS}" STREQUAL "")
    set(iters $ENV{CZK_TEST_ITERS})
  endif()
  execute_process(COMMAND ${node_exe} --version OUTPUT_VARIABLE node_version
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  message("noble: seed ${seed} iters ${iters} (node ${node_version}, @noble/curves ${got})")
  message("noble: reproduce with CZK_TEST_SEED=${seed} CZK_TEST_ITERS=${iters} ctest -L noble")

  # A failed run must not leave a file behind for czk_xcheck to pass on.
  file(REMOVE ${OUT} ${OUT}.part)
  string(TIMESTAMP t0 "%s")
  execute_process(COMMAND ${node_exe} ${NOBLE_DIR}/gen.mjs --seed ${seed} --iters ${iters}
                  OUTPUT_FILE ${OUT}.part RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    file(REMOVE ${OUT}.part)
    message(FATAL_ERROR "noble: gen.mjs failed (${rc}) with seed ${seed}")
  endif()
  file(RENAME ${OUT}.part ${OUT})
  string(TIMESTAMP t1 "%s")
  math(EXPR secs "${t1} - ${t0}")
  message("noble: wrote ${OUT} in about ${secs} s")
  return()
endif()

set(CZK_NOBLE_VECTORS ${CMAKE_BINARY_DIR}/noble_vectors.txt)
add_test(NAME noble_vectors
         COMMAND ${CMAKE_COMMAND} -DNOBLE_DIR=${CMAKE_CURRENT_LIST_DIR} -DOUT=${CZK_NOBLE_VECTORS}
                 -P ${CMAKE_CURRENT_LIST_FILE})
set_tests_properties(noble_vectors PROPERTIES FIXTURES_SETUP noble_vectors_file TIMEOUT 300
                                              LABELS noble)

add_test(NAME noble_xcheck COMMAND czk_xcheck ${CZK_NOBLE_VECTORS})
set_tests_properties(noble_xcheck PROPERTIES FIXTURES_REQUIRED noble_vectors_file TIMEOUT 300
                                             LABELS noble)

if(CZK_ASAN_BUILD)
  add_test(NAME noble_xcheck_asan COMMAND ${CZK_ASAN_BUILD}/czk_xcheck ${CZK_NOBLE_VECTORS})
  set_tests_properties(noble_xcheck_asan PROPERTIES FIXTURES_REQUIRED noble_vectors_file
                                                    TIMEOUT 900 LABELS "noble;sanitize")
endif()
