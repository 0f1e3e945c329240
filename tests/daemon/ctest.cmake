# czk daemon end to end (tests/daemon/run.sh): a real daemon on 127.0.0.1 (random ports) and a
# unix socket, driven by a Python gRPC client (Debian's grpcio; stubs generated at test time
# into the build tree) and by `czk bench`. Labelled daemon.
if(TARGET czk_cli)
  foreach(mode rpc sigterm bench security jobs filecoin porep snap)
    add_test(NAME daemon_${mode}
             COMMAND ${CMAKE_SOURCE_DIR}/tests/daemon/run.sh $<TARGET_FILE:czk_cli>
                     ${CMAKE_BINARY_DIR}/daemon-test ${mode})
    set_tests_properties(daemon_${mode} PROPERTIES TIMEOUT 600 LABELS daemon)
  endforeach()
  # Messages for people: failing commands name the fault in words (tests/daemon/cli_test.py).
  add_test(NAME daemon_cli_messages
           COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/daemon/cli_test.py
                   --czk $<TARGET_FILE:czk_cli> --work ${CMAKE_BINARY_DIR}/daemon-test/cli
                   --data ${CMAKE_SOURCE_DIR}/tests/interop/data)
  set_tests_properties(daemon_cli_messages PROPERTIES TIMEOUT 600 LABELS daemon)
endif()
