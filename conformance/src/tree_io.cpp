#include "neuron/conformance/tree_io.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace neuron::conformance {
namespace {

// Reads from the current offset to the end of the file.
read_result read_rest(int fd) {
    read_result r;
    char buffer[8192];
    for (;;) {
        const auto n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            r.error = errno;
            return r;
        }
        if (n == 0) return r;
        r.text.append(buffer, static_cast<std::size_t>(n));
    }
}

read_result pread_once(int fd, const file_part& part) {
    std::string buffer(part.size, '\0');
    for (;;) {
        const auto n = ::pread(fd, buffer.data(), buffer.size(), static_cast<off_t>(part.offset));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return {errno, {}};
        buffer.resize(static_cast<std::size_t>(n));
        return {0, buffer};
    }
}

read_result read_part_as_self(const std::string& path, const file_part& part) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {errno, {}};
    auto r = pread_once(fd, part);
    ::close(fd);
    return r;
}

read_result read_as_self(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {errno, {}};
    auto r = read_rest(fd);
    ::close(fd);
    return r;
}

write_result write_as_self(const std::string& path, const std::string& value) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return {errno, 0};
    ssize_t n = -1;
    do {
        n = ::write(fd, value.data(), value.size());
    } while (n < 0 && errno == EINTR);
    const write_result r{n < 0 ? errno : 0, n < 0 ? 0 : static_cast<std::uint64_t>(n)};
    ::close(fd);
    return r;
}

bool write_all(int fd, const void* data, std::size_t size) {
    const auto* p = static_cast<const char*>(data);
    while (size > 0) {
        const auto n = ::write(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

// Runs `work` in a child that has become `uid` and passes back its result:
// an errno (or 0) and some text.
template <typename Work>
read_result as_user(std::uint32_t uid, Work work) {
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return {errno, {}};
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int error = errno;
        ::close(pipe_fds[0]);
        ::close(pipe_fds[1]);
        return {error, {}};
    }
    if (pid == 0) {
        ::close(pipe_fds[0]);
        read_result r;
        if (::setgroups(0, nullptr) != 0 || ::setgid(uid) != 0 || ::setuid(uid) != 0) {
            r.error = errno;
        } else {
            r = work();
        }
        const std::int32_t error = r.error;
        (void)(write_all(pipe_fds[1], &error, sizeof error) && write_all(pipe_fds[1], r.text.data(), r.text.size()));
        ::_exit(0);
    }
    ::close(pipe_fds[1]);
    std::string bytes;
    char buffer[8192];
    for (;;) {
        const auto n = ::read(pipe_fds[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        bytes.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(pipe_fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (bytes.size() < sizeof(std::int32_t)) return {ECHILD, {}};
    std::int32_t error = 0;
    std::memcpy(&error, bytes.data(), sizeof error);
    return {error, bytes.substr(sizeof error)};
}

} // namespace

read_result read_file(const std::string& path, std::optional<std::uint32_t> as_uid) {
    if (!as_uid) return read_as_self(path);
    return as_user(*as_uid, [&] { return read_as_self(path); });
}

read_result read_file_part(const std::string& path, const file_part& part, std::optional<std::uint32_t> as_uid) {
    if (!as_uid) return read_part_as_self(path, part);
    return as_user(*as_uid, [&] { return read_part_as_self(path, part); });
}

write_result write_file(const std::string& path, const std::string& value, std::optional<std::uint32_t> as_uid) {
    if (!as_uid) return write_as_self(path, value);
    // The child passes the count back as text.
    const auto r = as_user(*as_uid, [&] {
        const auto w = write_as_self(path, value);
        return read_result{w.error, std::to_string(w.written)};
    });
    return {r.error, r.text.empty() ? 0 : std::stoull(r.text)};
}

stat_result stat_path(const std::string& path) {
    stat_result r;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        r.error = errno;
        return r;
    }
    r.mode = st.st_mode;
    r.size = static_cast<std::uint64_t>(st.st_size);
    if (S_ISLNK(st.st_mode)) {
        char target[4096];
        const auto n = ::readlink(path.c_str(), target, sizeof target);
        if (n >= 0) r.link.assign(target, static_cast<std::size_t>(n));
    }
    return r;
}

list_result list_directory(const std::string& path) {
    list_result r;
    DIR* dir = ::opendir(path.c_str());
    if (dir == nullptr) {
        r.error = errno;
        return r;
    }
    errno = 0;
    while (const dirent* entry = ::readdir(dir)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..") r.entries.push_back(name);
    }
    if (errno != 0) r.error = errno;
    ::closedir(dir);
    return r;
}

watched_file::watched_file(const std::string& path) {
    m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0) {
        m_error = errno;
        return;
    }
    m_first = read_rest(m_fd);
}

watched_file::~watched_file() {
    if (m_fd >= 0) ::close(m_fd);
}

bool watched_file::woke_within(std::chrono::nanoseconds timeout) const {
    if (m_fd < 0) return false;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd p{m_fd, POLLPRI, 0};
        const int n = ::poll(&p, 1, static_cast<int>(std::clamp<std::int64_t>(left.count(), 0, INT_MAX)));
        if (n < 0 && errno == EINTR) continue;
        return n > 0 && (p.revents & (POLLPRI | POLLERR)) != 0;
    }
}

read_result watched_file::read_part(const file_part& part) {
    if (m_fd < 0) return {m_error, {}};
    return pread_once(m_fd, part);
}

read_result watched_file::rearm() {
    if (m_fd < 0) return {m_error, {}};
    if (::lseek(m_fd, 0, SEEK_SET) < 0) return {errno, {}};
    return read_rest(m_fd);
}

} // namespace neuron::conformance
