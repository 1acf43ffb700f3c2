#pragma once

#include <string_view>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace neuron::common {

// A file descriptor closed when it goes.
class descriptor {
public:
    explicit descriptor(int fd = -1) : m_fd(fd) {}
    ~descriptor() {
        if (m_fd >= 0) ::close(m_fd);
    }
    descriptor(descriptor&& other) noexcept : m_fd(other.release()) {}
    descriptor& operator=(descriptor&& other) noexcept {
        if (this != &other) {
            if (m_fd >= 0) ::close(m_fd);
            m_fd = other.release();
        }
        return *this;
    }
    descriptor(const descriptor&) = delete;
    descriptor& operator=(const descriptor&) = delete;
    int get() const { return m_fd; }
    int release() { return std::exchange(m_fd, -1); }

private:
    int m_fd;
};

// What a file that is not a regular one is, for a message: "a directory", ...
inline std::string_view kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISLNK(mode)) return "a symbolic link";
    return "of an unknown type";
}

} // namespace neuron::common
