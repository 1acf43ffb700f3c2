#pragma once

#include <string>
#include <string_view>
#include <vector>

// Records one process sends another over a pipe: one per line, fields split
// by tabs, backslash, newline and tab escaped within a field.
namespace neuron::conformance {

std::string record_line(const std::vector<std::string>& fields); // with its '\n'
std::vector<std::string> record_fields(std::string_view line);   // without it

// Writes the whole record to `fd`, retrying on EINTR; false when the
// reader has gone.
bool send_record(int fd, const std::vector<std::string>& fields);

// Takes whole lines out of what a pipe gave so far.
class record_reader {
public:
    void add(std::string_view bytes) { m_pending.append(bytes); }
    // The next whole record, or false when none is complete yet.
    bool next(std::vector<std::string>& fields);

private:
    std::string m_pending;
};

} // namespace neuron::conformance
