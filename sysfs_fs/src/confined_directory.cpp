#include "neuron/sysfs/confined_directory.h"

#include "neuron/sysfs/errors.h"

#include "neuron/common/safe_output_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace neuron::sysfs {
namespace {

constexpr std::string_view temporary_suffix = ".neuron-emu-tmp";

std::string describe_errno(int error) { return std::strerror(error); }

[[noreturn]] void fail(std::string_view what, const std::string& path, int error) {
    throw mount_error(fmt::format("cannot {} {}: {}", what, path, describe_errno(error)));
}

std::string_view kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISREG(mode)) return "a regular file";
    if (S_ISLNK(mode)) return "a symlink";
    return "a special file";
}

// What is at `name` in `dir`, without following a link there; 0 when nothing is.
mode_t type_at(int dir, const std::string& name) {
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return 0;
    return st.st_mode & S_IFMT;
}

[[noreturn]] void refuse(const std::string& path, mode_t found, std::string_view wanted) {
    throw mount_error(fmt::format("cannot materialize {}: {} is there where the tree has {}; remove it or use "
                                  "another directory",
                                  path, kind_of(found), wanted));
}

} // namespace

class confined_directory::handle {
public:
    explicit handle(int fd) : m_fd(fd) {}
    handle(handle&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
    handle& operator=(handle&& other) noexcept {
        std::swap(m_fd, other.m_fd);
        return *this;
    }
    ~handle() {
        if (m_fd >= 0) ::close(m_fd);
    }
    int fd() const { return m_fd; }

private:
    int m_fd;
};

confined_directory::confined_directory(std::string path) : m_path(std::move(path)) {
    while (m_path.size() > 1 && m_path.back() == '/') m_path.pop_back();
    try {
        m_fd = common::make_output_directories(m_path);
    } catch (const common::file_error& e) {
        throw mount_error(fmt::format("cannot materialize into {}", e.what()));
    }
}

confined_directory::~confined_directory() { ::close(m_fd); }

// Opens the directory that holds `relative`, each component with O_NOFOLLOW,
// and returns it with the last component in `name`.
confined_directory::handle confined_directory::open_parent(const std::string& relative, std::string& name) const {
    handle dir(::dup(m_fd));
    if (dir.fd() < 0) fail("open directory", m_path, errno);
    std::size_t start = 0;
    for (auto slash = relative.find('/'); slash != std::string::npos; slash = relative.find('/', start)) {
        const auto component = relative.substr(start, slash - start);
        handle next(::openat(dir.fd(), component.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (next.fd() < 0) {
            const int error = errno;
            const auto walked = full(relative.substr(0, slash));
            if (error == ELOOP || error == ENOTDIR) refuse(walked, type_at(dir.fd(), component), "a directory");
            fail("open directory", walked, error);
        }
        dir = std::move(next);
        start = slash + 1;
    }
    name = relative.substr(start);
    return dir;
}

void confined_directory::make_directory(const std::string& relative) {
    std::string name;
    const auto dir = open_parent(relative, name);
    // A link in the way is removed; one planted again at once is left for
    // the next walk through it to refuse.
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (::mkdirat(dir.fd(), name.c_str(), 0755) == 0) return;
        if (errno != EEXIST) fail("create directory", full(relative), errno);
        const auto found = type_at(dir.fd(), name);
        if (S_ISDIR(found)) return;
        if (!S_ISLNK(found)) refuse(full(relative), found, "a directory");
        if (::unlinkat(dir.fd(), name.c_str(), 0) != 0 && errno != ENOENT) {
            fail("remove the symlink at", full(relative), errno);
        }
    }
    refuse(full(relative), type_at(dir.fd(), name), "a directory");
}

namespace {

// Creates `name` in `dir` exclusively (never through a link); what an earlier
// run left there (a file or a link) is removed first.
int create_exclusively(int dir, const std::string& name, const std::string& path) {
    for (int attempt = 0; attempt < 2; ++attempt) {
        const int fd = ::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) return fd;
        if (errno != EEXIST) fail("create", path, errno);
        if (::unlinkat(dir, name.c_str(), 0) != 0 && errno != ENOENT) fail("remove", path, errno);
    }
    fail("create", path, EEXIST);
}

// Puts the temporary `from` in place of `to` (a file or a link there is
// replaced, never followed); a directory there is refused.
void rename_into_place(int dir, const std::string& from, const std::string& to, const std::string& path) {
    if (::renameat(dir, from.c_str(), dir, to.c_str()) == 0) return;
    const int error = errno;
    ::unlinkat(dir, from.c_str(), 0);
    if (error == EISDIR || error == ENOTEMPTY || error == EEXIST) refuse(path, type_at(dir, to), "a file");
    fail("replace", path, error);
}

} // namespace

void confined_directory::write_file(const std::string& relative, std::string_view content, mode_t mode) {
    std::string name;
    const auto dir = open_parent(relative, name);
    const auto temporary = name + std::string(temporary_suffix);
    const auto temporary_path = full(relative) + std::string(temporary_suffix);
    const handle file(create_exclusively(dir.fd(), temporary, temporary_path));
    std::size_t done = 0;
    while (done < content.size()) {
        const auto n = ::write(file.fd(), content.data() + done, content.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int error = errno;
            ::unlinkat(dir.fd(), temporary.c_str(), 0);
            fail("write", temporary_path, error);
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fchmod(file.fd(), mode) != 0) {
        const int error = errno;
        ::unlinkat(dir.fd(), temporary.c_str(), 0);
        fail("set the mode of", temporary_path, error);
    }
    rename_into_place(dir.fd(), temporary, name, full(relative));
}

void confined_directory::make_symlink(const std::string& relative, const std::string& target) {
    std::string name;
    const auto dir = open_parent(relative, name);
    const auto temporary = name + std::string(temporary_suffix);
    const auto temporary_path = full(relative) + std::string(temporary_suffix);
    if (::symlinkat(target.c_str(), dir.fd(), temporary.c_str()) != 0) {
        if (errno != EEXIST) fail("create symlink", temporary_path, errno);
        if (::unlinkat(dir.fd(), temporary.c_str(), 0) != 0) fail("remove", temporary_path, errno);
        if (::symlinkat(target.c_str(), dir.fd(), temporary.c_str()) != 0) {
            fail("create symlink", temporary_path, errno);
        }
    }
    rename_into_place(dir.fd(), temporary, name, full(relative));
}

} // namespace neuron::sysfs
