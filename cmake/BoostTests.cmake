# neuron_add_boost_test(<name> SOURCES ... [LIBS ...] [LABELS ...] [TIMEOUT s])
#
# Tests labelled "threads" also join the target neuron_threaded_tests, which
# scripts/test builds and runs under ThreadSanitizer.
#
# Builds a Boost.Test executable and registers every test case in it as its own
# ctest entry (discovered after each build from --list_content). One process per
# case: SystemC allows a single elaboration per process, so every case that
# builds a model needs a fresh process, and the cases stay independent.
set(NEURON_DISCOVER_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/DiscoverBoostTests.cmake)

function(neuron_add_boost_test name)
  cmake_parse_arguments(arg "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 60)
  endif()
  add_executable(${name} ${arg_SOURCES})
  neuron_target_defaults(${name})
  target_link_libraries(${name} PRIVATE ${arg_LIBS} Boost::unit_test_framework)
  target_compile_definitions(${name} PRIVATE BOOST_TEST_DYN_LINK)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)

  if("threads" IN_LIST arg_LABELS)
    if(NOT TARGET neuron_threaded_tests)
      add_custom_target(neuron_threaded_tests)
    endif()
    add_dependencies(neuron_threaded_tests ${name})
  endif()

  # A list would split into separate command arguments; pass it comma-joined.
  string(REPLACE ";" "," labels "${arg_LABELS}")
  set(ctest_file ${CMAKE_CURRENT_BINARY_DIR}/${name}_tests.cmake)
  add_custom_command(TARGET ${name} POST_BUILD
    COMMAND ${CMAKE_COMMAND}
            -D TEST_EXECUTABLE=$<TARGET_FILE:${name}>
            -D TEST_PREFIX=${name}
            -D TEST_LABELS=${labels}
            -D TEST_TIMEOUT=${arg_TIMEOUT}
            -D CTEST_FILE=${ctest_file}
            -P ${NEURON_DISCOVER_SCRIPT}
    BYPRODUCTS ${ctest_file}
    VERBATIM)

  set(include_file ${CMAKE_CURRENT_BINARY_DIR}/${name}_include.cmake)
  file(WRITE ${include_file}
    "if(EXISTS \"${ctest_file}\")\n"
    "  include(\"${ctest_file}\")\n"
    "else()\n"
    "  add_test(${name}_NOT_BUILT ${name}_NOT_BUILT)\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()
