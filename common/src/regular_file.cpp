#include "neuron/common/regular_file.h"

#include "neuron/common/printable.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace neuron::common {
namespace {

class descriptor {
public:
    explicit descriptor(int fd) : m_fd(fd) {}
    ~descriptor() {
        if (m_fd >= 0) ::close(m_fd);
    }
    descriptor(const descriptor&) = delete;
    descriptor& operator=(const descriptor&) = delete;
    int get() const { return m_fd; }
    int release() { return std::exchange(m_fd, -1); }

private:
    int m_fd;
};

std::string_view kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "of an unknown type";
}

} // namespace

std::string read_regular_file(const std::string& path, std::size_t max_bytes) {
    const auto fail = [&](std::string_view why) { return file_error(fmt::format("{}: {}", printable(path), why)); };
    const descriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (fd.get() < 0) throw fail(fmt::format("cannot open it: {}", std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) throw fail(fmt::format("cannot stat it: {}", std::strerror(errno)));
    if (!S_ISREG(st.st_mode)) throw fail(fmt::format("{}, not a regular file", kind_of(st.st_mode)));
    const auto too_large = [&] { return fail(fmt::format("larger than {} bytes, the most allowed", max_bytes)); };
    if (static_cast<std::uint64_t>(st.st_size) > max_bytes) throw too_large();
    // Sized for what stat says, growing for a file that grows, up to one
    // byte past the limit.
    std::string text(static_cast<std::size_t>(st.st_size) + 1, '\0');
    std::size_t got = 0;
    for (;;) {
        if (got == text.size()) {
            if (text.size() > max_bytes) break;
            text.resize(std::min(max_bytes + 1, 2 * text.size()));
        }
        const auto n = ::read(fd.get(), text.data() + got, text.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw fail(fmt::format("cannot read it: {}", std::strerror(errno)));
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    if (got > max_bytes) throw too_large();
    text.resize(got);
    return text;
}

void write_file(const std::string& path, std::string_view bytes) {
    const auto fail = [&](std::string_view why) { return file_error(fmt::format("{}: {}", printable(path), why)); };
    descriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644));
    if (fd.get() < 0) throw fail(fmt::format("cannot create it: {}", std::strerror(errno)));
    std::size_t done = 0;
    while (done < bytes.size()) {
        const auto n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw fail(fmt::format("cannot write it: {}", n < 0 ? std::strerror(errno) : "no progress"));
        done += static_cast<std::size_t>(n);
    }
    if (::close(fd.release()) != 0) throw fail(fmt::format("cannot write it: {}", std::strerror(errno)));
}

} // namespace neuron::common
