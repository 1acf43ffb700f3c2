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

// The regular file at `path`, of at most `max_bytes`, opened to be read in
// pieces, with the checks of read_regular_file(): file_error "PATH: why"
// when it cannot be opened, is not a regular file or is too large.
class input_file {
public:
    input_file(const std::string& path, std::size_t max_bytes);
    ~input_file();
    input_file(const input_file&) = delete;
    input_file& operator=(const input_file&) = delete;

    // Its size when it was opened.
    std::size_t size() const { return m_size; }
    // Up to `n` bytes from where the last read ended: fewer only at its end.
    std::size_t read(char* into, std::size_t n);

private:
    std::string m_path;
    int m_fd;
    std::size_t m_size = 0;
};

// A file created (or replaced) at `path` and written in pieces, for output
// too large to hold whole, by the rules of safe_output_file.h (no link
// another user planted is followed); file_error "PATH: why" when it cannot
// be created or written.
class output_file {
public:
    explicit output_file(const std::string& path);
    ~output_file(); // closes it, if close() did not
    output_file(const output_file&) = delete;
    output_file& operator=(const output_file&) = delete;

    void write(std::string_view bytes);
    // Closes it: file_error when what was written could not be kept.
    void close();

private:
    std::string m_path;
    int m_fd;
};

} // namespace neuron::common
