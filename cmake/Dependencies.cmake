# Every dependency comes from a Debian 12 package (scripts/install-deps lists them).
# The host tools (NEURON_HOST_TOOLS_ONLY) need fmt, yaml-cpp and Boost.Test only.
find_package(fmt 9 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(Boost 1.74 REQUIRED COMPONENTS unit_test_framework)
find_package(Threads REQUIRED)
if(NEURON_HOST_TOOLS_ONLY)
  return()
endif()
find_package(PkgConfig REQUIRED)
pkg_check_modules(SYSTEMC REQUIRED IMPORTED_TARGET systemc>=2.3.4)
pkg_check_modules(FUSE3 REQUIRED IMPORTED_TARGET fuse3>=3.14)

# Debian builds SystemC 2.3.4 as C++17; its headers pick an ABI tag from
# SC_CPLUSPLUS, so C++20 code must claim C++17 or linking fails on
# sc_api_version_2_3_4_cxx202002L.
add_library(neuron_systemc INTERFACE)
target_link_libraries(neuron_systemc INTERFACE PkgConfig::SYSTEMC Threads::Threads)
target_compile_definitions(neuron_systemc INTERFACE SC_CPLUSPLUS=201703L)
