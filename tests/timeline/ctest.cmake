# czk timeline on a captured daemon log (tests/timeline/run.sh). Needs the czk command only: no
# daemon, no GPU.
if(TARGET czk_cli)
  add_test(NAME cli_timeline
           COMMAND ${CMAKE_SOURCE_DIR}/tests/timeline/run.sh $<TARGET_FILE:czk_cli>
                   ${CMAKE_BINARY_DIR}/cli_timeline ${CMAKE_SOURCE_DIR}/tests/data/timeline)
  set_tests_properties(cli_timeline PROPERTIES TIMEOUT 120 LABELS cli)
endif()
