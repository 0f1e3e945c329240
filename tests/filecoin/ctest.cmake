# The Filecoin commands (tests/filecoin/run.sh): czk circuit info against doc/FILECOIN.md §5's
# table and §8's digests, and czk setup --filecoin's v28 files. Needs the czk command; no GPU.
if(TARGET czk_cli)
  add_test(NAME filecoin_cli
           COMMAND ${CMAKE_SOURCE_DIR}/tests/filecoin/run.sh $<TARGET_FILE:czk_cli>
                   ${CMAKE_BINARY_DIR}/filecoin_cli)
  set_tests_properties(filecoin_cli PROPERTIES TIMEOUT 300 LABELS filecoin)
endif()
