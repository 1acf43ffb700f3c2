#pragma once

#include <string_view>

// A test that cannot run here ends with exit status 77, which ctest
// (SKIP_RETURN_CODE) reports as skipped rather than passed.
namespace neuron::test_support {

// Prints "skipped: WHY" on stderr and exits with 77.
[[noreturn]] void skip(std::string_view why);

// Skips with "WHY (euid is N)" unless the test runs as root.
void require_root(std::string_view why);

// Skips with "WHO mounts FUSE and /dev/fuse is not usable: ERROR" unless
// /dev/fuse opens for reading and writing.
void require_usable_fuse(std::string_view who);

// Both, for a test that mounts a FUSE tree itself.
void require_fuse_mount(std::string_view who);

} // namespace neuron::test_support
