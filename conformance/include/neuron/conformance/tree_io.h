#pragma once

#include "neuron/conformance/value_check.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace neuron::conformance {

// File operations as a tool does them on sysfs, each giving the errno of a
// failure instead of throwing. With `as_uid`, a child process does it as that
// user (and its group, no supplementary groups): the caller must be root.

read_result read_file(const std::string& path, std::optional<std::uint32_t> as_uid = std::nullopt);

// Part of a file, as a tool reading at an offset does: open, one pread(2)
// of up to `size` bytes at `offset`, close.
struct file_part {
    std::uint64_t offset = 0;
    std::uint32_t size = 4096;
};
read_result read_file_part(const std::string& path, const file_part& part,
                           std::optional<std::uint32_t> as_uid = std::nullopt);

// open(O_WRONLY) and one write(2) of the whole value, as `echo` does.
struct write_result {
    int error = 0;             // 0, or the errno of open(2) or write(2)
    std::uint64_t written = 0; // what write(2) returned
};
write_result write_file(const std::string& path, const std::string& value,
                        std::optional<std::uint32_t> as_uid = std::nullopt);

struct stat_result {
    int error = 0;
    mode_t mode = 0; // st_mode
    std::uint64_t size = 0;
    std::string link; // the target, for a symbolic link
};
stat_result stat_path(const std::string& path); // lstat(2): links are not followed

struct list_result {
    int error = 0;
    std::vector<std::string> entries; // without . and ..
};
list_result list_directory(const std::string& path);

// An open file a scenario polls: opened and read at offset 0 (which arms
// kernfs's change detection), then polled for POLLPRI|POLLERR.
class watched_file {
public:
    explicit watched_file(const std::string& path);
    ~watched_file();
    watched_file(const watched_file&) = delete;
    watched_file& operator=(const watched_file&) = delete;

    int open_error() const { return m_error; }
    const read_result& first_read() const { return m_first; }

    // True when POLLPRI or POLLERR came within the timeout.
    bool woke_within(std::chrono::nanoseconds timeout) const;
    // lseek(0) and a read to the end: re-arms.
    read_result rearm();
    // One pread(2) on the open file: continues its snapshot; re-arms only at offset 0.
    read_result read_part(const file_part& part);

private:
    int m_fd = -1;
    int m_error = 0;
    read_result m_first;
};

} // namespace neuron::conformance
