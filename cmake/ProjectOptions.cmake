# Warnings and sanitizers for the project's own targets.
#
# -Werror is the project's gate, which its scripts and CI turn on
# (scripts/build, scripts/test: g++ and clang); a packager building with
# another compiler or flags gets the warnings without failing on them.
option(NEURON_WERROR "Treat the project's warnings as errors (scripts/build and CI turn it on)" OFF)

function(neuron_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wshadow)
  if(NEURON_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
    # g++ 12 at -O3 reports writes past the end of vectors and strings that
    # libstdc++ grows itself (GCC bugs 105329, 106199, 107852): shown, not fatal.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
      target_compile_options(${target} PRIVATE
        -Wno-error=array-bounds -Wno-error=stringop-overflow -Wno-error=restrict)
    endif()
  endif()
endfunction()

option(NEURON_FUZZ
  "Build the libFuzzer harnesses in fuzz/ (clang only); every target gets coverage instrumentation" OFF)

if(NEURON_SANITIZE)
  set(_flags -fsanitize=${NEURON_SANITIZE} -fno-omit-frame-pointer)
  if(NEURON_SANITIZE MATCHES "undefined")
    list(APPEND _flags -fno-sanitize-recover=all)
  endif()
  # With sanitizer instrumentation g++ 12 reports maybe-uninitialized inside
  # libstdc++'s <regex> (a known false positive); keep it a warning there.
  # Clang has no such warning and would warn about the unknown option.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND _flags -Wno-error=maybe-uninitialized)
  endif()
  add_compile_options(${_flags})
  add_link_options(${_flags})
endif()

# libFuzzer: the libraries (and the tests, which link them) are compiled with
# -fsanitize=fuzzer-no-link, which adds the coverage callbacks the sanitizer
# runtimes provide; only the harnesses in fuzz/ link libFuzzer itself, with
# -fsanitize=fuzzer (fuzz/CMakeLists.txt).
if(NEURON_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "NEURON_FUZZ needs clang (libFuzzer is part of clang's runtime): "
                        "configure with -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++")
  endif()
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
  check_cxx_source_compiles([[
    #include <cstddef>
    #include <cstdint>
    extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }
  ]] NEURON_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  if(NOT NEURON_HAVE_LIBFUZZER)
    message(FATAL_ERROR "NEURON_FUZZ: clang cannot link -fsanitize=fuzzer; "
                        "install Debian's libclang-rt-14-dev (scripts/install-deps does)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

# clang links its sanitizer runtimes into executables only (a shared library
# finds them in the program that loads it), so under clang's sanitizers a
# shared library cannot be linked with --no-undefined, and a C program that
# loads libnrt.so (C++) needs the runtimes' C++ part and libstdc++.
set(NEURON_NO_UNDEFINED -Wl,--no-undefined)
if(NEURON_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  set(NEURON_NO_UNDEFINED "")
  add_link_options("$<$<LINK_LANGUAGE:C>:-fsanitize-link-c++-runtime;-lstdc++>")
endif()
