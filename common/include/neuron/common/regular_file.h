#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace neuron::common {

// A file that cannot be read as a bounded input file: "PATH: why" (it cannot
// be opened, is a directory, a FIFO, a device, or is too large).
class file_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The whole content of the regular file at `path`, of at most `max_bytes`.
// Anything else is refused without blocking or reading without end: the file
// is opened non-blocking (a FIFO with no writer would block the open), its
// type checked on the open descriptor, and at most max_bytes + 1 bytes read
// (a file that grows is still refused).
std::string read_regular_file(const std::string& path, std::size_t max_bytes);

// Creates or replaces the file at `path` with `bytes`; file_error "PATH: why"
// when it cannot.
void write_file(const std::string& path, std::string_view bytes);

} // namespace neuron::common
