#include "neuron/common/safe_output_file.h"

#include "neuron/common/printable.h"

#include "descriptor.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

// No fmt here: the runtime shim links this too.
namespace neuron::common {
namespace {

constexpr int max_links = 40; // the kernel's limit on links followed in one lookup
constexpr int max_attempts = 8;

// Someone besides the caller and root can add, remove or rename entries in
// the directory: its owner is another user, or its mode lets others (or a
// group the caller does not run as) write it. The sticky bit does not help:
// whatever another user makes in a sticky directory is theirs to make.
bool others_can_write(const struct stat& st) {
    if (st.st_uid != ::geteuid() && st.st_uid != 0) return true;
    if ((st.st_mode & S_IWOTH) != 0) return true;
    return (st.st_mode & S_IWGRP) != 0 && st.st_gid != ::getegid();
}

std::deque<std::string> components(std::string_view path) {
    std::deque<std::string> parts;
    std::size_t start = 0;
    while (start <= path.size()) {
        const auto slash = std::min(path.find('/', start), path.size());
        if (slash > start) parts.emplace_back(path.substr(start, slash - start));
        start = slash + 1;
    }
    return parts;
}

// Where an output file goes: the directory holding it, opened by the rules,
// and its name there.
struct place {
    descriptor directory; // O_PATH
    std::string name;
    bool shared = false; // others can write the directory
};

class walker {
public:
    explicit walker(const std::string& path) : m_path(path) {}

    [[noreturn]] void fail(std::string_view why) const {
        throw file_error(printable(m_path) + ": " + std::string(why));
    }
    [[noreturn]] void fail(std::string_view what, int error) const {
        fail(std::string(what) + ": " + std::strerror(error));
    }

    // The directory `dir` names (the working directory when empty), walked
    // one component at a time; with `create`, the missing ones made.
    descriptor open_directory(std::string_view dir, bool create) const {
        descriptor current(::open(dir.starts_with('/') ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
        if (current.get() < 0) fail("cannot open the directory it is in", errno);
        auto parts = components(dir);
        int links = 0;
        while (!parts.empty()) {
            const auto name = std::move(parts.front());
            parts.pop_front();
            if (name == ".") continue;
            const auto open_next = [&] {
                return descriptor(::openat(current.get(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            };
            auto next = open_next();
            if (next.get() < 0 && errno == ENOENT && create) {
                if (::mkdirat(current.get(), name.c_str(), 0755) != 0 && errno != EEXIST) {
                    fail("cannot make the directory '" + printable(name) + "'", errno);
                }
                next = open_next();
            }
            if (next.get() >= 0) {
                current = std::move(next);
                continue;
            }
            const int error = errno;
            struct stat st {};
            if ((error != ENOTDIR && error != ELOOP) ||
                ::fstatat(current.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
                fail("cannot open '" + printable(name) + "' on the way", error);
            }
            if (!S_ISLNK(st.st_mode)) fail("'" + printable(name) + "' on the way is not a directory");
            if (shared(current.get())) {
                fail("'" + printable(name) +
                     "' on the way is a symbolic link in a directory others can write: refusing to follow it");
            }
            if (++links > max_links) fail("cannot open the directory it is in", ELOOP);
            const auto target = link_target(current.get(), name);
            if (target.starts_with('/')) {
                current = descriptor(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
                if (current.get() < 0) fail("cannot open /", errno);
            }
            auto more = components(target);
            parts.insert(parts.begin(), more.begin(), more.end());
        }
        return current;
    }

    // The directory holding the file `m_path` names, and its name.
    place locate() const {
        if (m_path.empty()) throw file_error("an empty path names no file");
        const auto slash = m_path.rfind('/');
        place p;
        p.name = slash == std::string::npos ? m_path : m_path.substr(slash + 1);
        if (p.name.empty() || p.name == "." || p.name == "..") fail("names a directory, not a file");
        const auto dir = slash == std::string::npos ? std::string_view()
                         : slash == 0               ? std::string_view("/")
                                                    : std::string_view(m_path).substr(0, slash);
        p.directory = open_directory(dir, false);
        p.shared = shared(p.directory.get());
        return p;
    }

    // The existing file at `p`, open for writing (O_NONBLOCK, not truncated)
    // once it passes the rules; or nothing, when it went meanwhile.
    descriptor open_existing(const place& p) const {
        descriptor fd(
            ::openat(p.directory.get(), p.name.c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
        if (fd.get() < 0) {
            const int error = errno;
            if (error == ENOENT) return fd;
            struct stat st {};
            if (::fstatat(p.directory.get(), p.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
                if (S_ISLNK(st.st_mode)) fail("a symbolic link: refusing to write through it");
                if (!S_ISREG(st.st_mode)) fail(std::string(kind_of(st.st_mode)) + ", not a regular file");
            }
            fail("cannot open it", error);
        }
        struct stat st {};
        if (::fstat(fd.get(), &st) != 0) fail("cannot stat it", errno);
        check_replaceable(p, st, true);
        return fd;
    }

    // Refuses what is at `p` (`st`) unless the rules let it be replaced.
    void check_replaceable(const place& p, const struct stat& st, bool devices) const {
        if (S_ISLNK(st.st_mode)) fail("a symbolic link: refusing to write through it");
        if (S_ISCHR(st.st_mode) && devices && !p.shared) return;
        if (!S_ISREG(st.st_mode)) fail(std::string(kind_of(st.st_mode)) + ", not a regular file");
        if (!p.shared) return;
        if (st.st_uid != ::geteuid()) {
            fail("another user's file, in a directory others can write: refusing to replace it");
        }
        if (st.st_nlink != 1) {
            fail("has other names (hard links), in a directory others can write: refusing to write it");
        }
    }

private:
    bool shared(int directory) const {
        struct stat st {};
        if (::fstat(directory, &st) != 0) fail("cannot stat a directory on the way", errno);
        return others_can_write(st);
    }

    std::string link_target(int directory, const std::string& name) const {
        std::string target(256, '\0');
        for (;;) {
            const auto n = ::readlinkat(directory, name.c_str(), target.data(), target.size());
            if (n < 0) fail("cannot read the link '" + printable(name) + "' on the way", errno);
            if (static_cast<std::size_t>(n) < target.size()) {
                target.resize(static_cast<std::size_t>(n));
                return target;
            }
            if (target.size() >= 65536) fail("cannot open the directory it is in", ENAMETOOLONG);
            target.resize(target.size() * 2);
        }
    }

    const std::string& m_path;
};

void write_all(const walker& w, int fd, std::string_view bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const auto n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) w.fail("cannot write it", errno);
        if (n == 0) w.fail("cannot write it: no progress");
        done += static_cast<std::size_t>(n);
    }
}

} // namespace

int open_output_file(const std::string& path, mode_t mode) {
    const walker w(path);
    const auto p = w.locate();
    for (int attempt = 0; attempt < max_attempts; ++attempt) {
        // A fresh file first: it is ours whatever the directory.
        descriptor fd(::openat(p.directory.get(), p.name.c_str(),
                               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, mode));
        if (fd.get() >= 0) return fd.release();
        if (errno != EEXIST) {
            const int error = errno;
            struct stat st {};
            if (::fstatat(p.directory.get(), p.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
                w.check_replaceable(p, st, true);
            }
            w.fail("cannot create it", error);
        }
        fd = w.open_existing(p);
        if (fd.get() < 0) continue; // removed meanwhile: create it again
        struct stat st {};
        if (::fstat(fd.get(), &st) != 0) w.fail("cannot stat it", errno);
        if (S_ISREG(st.st_mode) && st.st_size > 0 && ::ftruncate(fd.get(), 0) != 0) w.fail("cannot truncate it", errno);
        const int flags = ::fcntl(fd.get(), F_GETFL);
        if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) w.fail("cannot open it", errno);
        return fd.release();
    }
    w.fail("cannot create it: it keeps being replaced");
}

void write_output_file(const std::string& path, std::string_view bytes, mode_t mode) {
    const walker w(path);
    descriptor fd(open_output_file(path, mode));
    write_all(w, fd.get(), bytes);
    if (::close(fd.release()) != 0) w.fail("cannot write it", errno);
}

void replace_output_file(const std::string& path, std::string_view bytes, mode_t mode) {
    const walker w(path);
    const auto p = w.locate();
    struct stat st {};
    if (::fstatat(p.directory.get(), p.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        w.check_replaceable(p, st, false);
    } else if (errno != ENOENT) {
        w.fail("cannot stat it", errno);
    }
    // Beside it, so that the rename stays in one file system; never an existing file.
    static std::atomic<unsigned> counter{0};
    std::string temporary;
    descriptor fd;
    for (int attempt = 0; fd.get() < 0; ++attempt) {
        temporary = "." + p.name.substr(0, 160) + "." + std::to_string(::getpid()) + "-" +
                    std::to_string(counter.fetch_add(1)) + ".partial";
        fd = descriptor(::openat(p.directory.get(), temporary.c_str(),
                                 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, mode));
        if (fd.get() < 0 && (errno != EEXIST || attempt + 1 == max_attempts)) {
            w.fail("cannot create a file beside it", errno);
        }
    }
    try {
        write_all(w, fd.get(), bytes);
        if (::close(fd.release()) != 0) w.fail("cannot write it", errno);
        if (::renameat(p.directory.get(), temporary.c_str(), p.directory.get(), p.name.c_str()) != 0) {
            w.fail("cannot replace it", errno);
        }
    } catch (...) {
        ::unlinkat(p.directory.get(), temporary.c_str(), 0);
        throw;
    }
}

int make_output_directories(const std::string& path) {
    const walker w(path);
    if (path.empty()) throw file_error("an empty path names no directory");
    const auto dir = w.open_directory(path, true);
    const int fd = ::openat(dir.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) w.fail("cannot open it", errno);
    return fd;
}

} // namespace neuron::common
