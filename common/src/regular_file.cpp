#include "neuron/common/regular_file.h"

#include "neuron/common/printable.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
    std::string text(max_bytes + 1, '\0');
    std::size_t got = 0;
    while (got < text.size()) {
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

} // namespace neuron::common
