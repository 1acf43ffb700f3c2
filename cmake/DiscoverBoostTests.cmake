# Run at build time (cmake -P): lists the cases of a Boost.Test executable and
# writes one add_test() per case into CTEST_FILE.
execute_process(
  COMMAND ${TEST_EXECUTABLE} --list_content
  RESULT_VARIABLE result
  ERROR_VARIABLE listing
  OUTPUT_QUIET)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} --list_content failed (${result}):\n${listing}")
endif()

string(REPLACE "," ";" labels "${TEST_LABELS}")
string(REPLACE "\n" ";" lines "${listing}")
set(content "")
set(path "")
set(count 0)
foreach(line IN LISTS lines)
  if(NOT line MATCHES "^( *)([A-Za-z0-9_]+)\\*?$")
    continue()
  endif()
  string(LENGTH "${CMAKE_MATCH_1}" indent)
  math(EXPR depth "${indent} / 4")
  set(entry "${CMAKE_MATCH_2}")
  list(LENGTH path path_len)
  while(path_len GREATER depth)
    list(POP_BACK path)
    list(LENGTH path path_len)
  endwhile()
  list(APPEND path "${entry}")
  list(JOIN path "/" full)
  # Whether this entry is a suite is only known from the next line; record
  # every entry and drop suites below.
  list(APPEND entries "${full}")
endforeach()

foreach(entry IN LISTS entries)
  set(is_suite FALSE)
  foreach(other IN LISTS entries)
    string(FIND "${other}" "${entry}/" pos)
    if(pos EQUAL 0)
      set(is_suite TRUE)
      break()
    endif()
  endforeach()
  if(is_suite)
    continue()
  endif()
  string(REPLACE "/" "." test_name "${entry}")
  string(APPEND content
    "add_test([=[${TEST_PREFIX}.${test_name}]=] [=[${TEST_EXECUTABLE}]=] [=[--run_test=${entry}]=] --color_output=no)\n"
    "set_tests_properties([=[${TEST_PREFIX}.${test_name}]=] PROPERTIES LABELS [=[${labels}]=] TIMEOUT ${TEST_TIMEOUT} SKIP_RETURN_CODE 77)\n")
  math(EXPR count "${count} + 1")
endforeach()

if(count EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} lists no test cases")
endif()
file(WRITE "${CTEST_FILE}" "${content}")
