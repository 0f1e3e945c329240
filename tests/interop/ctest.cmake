# czk against snarkjs (tests/interop/run.sh), labelled interop. Needs the czk command.
if(TARGET czk_cli)
  foreach(circuit mul3 bits squares)
    add_test(NAME interop_${circuit}
             COMMAND ${CMAKE_SOURCE_DIR}/tests/interop/run.sh $<TARGET_FILE:czk_cli>
                     ${CMAKE_BINARY_DIR}/interop ${circuit})
    set_tests_properties(interop_${circuit} PROPERTIES TIMEOUT 900 LABELS interop)
  endforeach()
  add_test(NAME interop_errors
           COMMAND ${CMAKE_SOURCE_DIR}/tests/interop/run.sh $<TARGET_FILE:czk_cli>
                   ${CMAKE_BINARY_DIR}/interop --errors)
  set_tests_properties(interop_errors PROPERTIES TIMEOUT 300 LABELS interop)
  add_test(NAME interop_synth
           COMMAND ${CMAKE_SOURCE_DIR}/tests/interop/run.sh $<TARGET_FILE:czk_cli>
                   ${CMAKE_BINARY_DIR}/interop --synth)
  set_tests_properties(interop_synth PROPERTIES TIMEOUT 300 LABELS interop)
  if(CZK_DAEMON)
    add_test(NAME interop_daemon
             COMMAND ${CMAKE_SOURCE_DIR}/tests/interop/run.sh $<TARGET_FILE:czk_cli>
                     ${CMAKE_BINARY_DIR}/interop --daemon)
    set_tests_properties(interop_daemon PROPERTIES TIMEOUT 300 LABELS "interop;daemon")
  endif()
endif()
