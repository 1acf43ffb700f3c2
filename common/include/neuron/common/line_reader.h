#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace neuron::common {

using milliseconds = std::chrono::milliseconds;

// The lines arriving on a file descriptor (a pipe, a FIFO, a pseudo-terminal)
// that the reader reads but does not own.
class line_reader {
public:
    explicit line_reader(int fd) : m_fd(fd) {}

    // The next line without its newline; at the end of the input, what is
    // left of it without one. Nothing when no line came within the timeout or
    // the input has ended.
    std::optional<std::string> next(milliseconds timeout);

    // The writers have all closed it (read(2) gave end of file or an error).
    bool ended() const { return m_ended; }
    // What came after the last newline, not yet returned.
    const std::string& partial() const { return m_pending; }

private:
    int m_fd;
    std::string m_pending;
    bool m_ended = false;
};

} // namespace neuron::common
