#include "neuron/common/regular_file.h"

#include "neuron/common/printable.h"
#include "neuron/common/safe_output_file.h"

#include "descriptor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace neuron::common {

input_file::input_file(const std::string& path, std::size_t max_bytes)
        : m_path(path), m_fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) {
    const auto fail = [&](std::string_view why) { return file_error(fmt::format("{}: {}", printable(path), why)); };
    if (m_fd < 0) throw fail(fmt::format("cannot open it: {}", std::strerror(errno)));
    descriptor fd(m_fd); // closed if this throws
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) throw fail(fmt::format("cannot stat it: {}", std::strerror(errno)));
    if (!S_ISREG(st.st_mode)) throw fail(fmt::format("{}, not a regular file", kind_of(st.st_mode)));
    if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
        throw fail(fmt::format("larger than {} bytes, the most allowed", max_bytes));
    }
    m_size = static_cast<std::size_t>(st.st_size);
    fd.release();
}

input_file::~input_file() { ::close(m_fd); }

std::size_t input_file::read(char* into, std::size_t n) {
    std::size_t got = 0;
    while (got < n) {
        const auto r = ::read(m_fd, into + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) throw file_error(fmt::format("{}: cannot read it: {}", printable(m_path), std::strerror(errno)));
        if (r == 0) break;
        got += static_cast<std::size_t>(r);
    }
    return got;
}

std::string read_regular_file(const std::string& path, std::size_t max_bytes) {
    input_file file(path, max_bytes);
    // Sized for what stat said, growing for a file that grows, up to one
    // byte past the limit.
    std::string text(file.size() + 1, '\0');
    std::size_t got = 0;
    for (;;) {
        if (got == text.size()) {
            if (text.size() > max_bytes) break;
            text.resize(std::min(max_bytes + 1, 2 * text.size()));
        }
        const auto n = file.read(text.data() + got, text.size() - got);
        if (n == 0) break;
        got += n;
    }
    if (got > max_bytes) {
        throw file_error(fmt::format("{}: larger than {} bytes, the most allowed", printable(path), max_bytes));
    }
    text.resize(got);
    return text;
}

output_file::output_file(const std::string& path) : m_path(path), m_fd(open_output_file(path)) {}

output_file::~output_file() {
    if (m_fd >= 0) ::close(m_fd);
}

void output_file::write(std::string_view bytes) {
    const auto fail = [&](std::string_view why) {
        return file_error(fmt::format("{}: cannot write it: {}", printable(m_path), why));
    };
    if (m_fd < 0) throw fail("it is closed");
    std::size_t done = 0;
    while (done < bytes.size()) {
        const auto n = ::write(m_fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw fail(n < 0 ? std::strerror(errno) : "no progress");
        done += static_cast<std::size_t>(n);
    }
}

void output_file::close() {
    if (m_fd < 0) return;
    if (::close(std::exchange(m_fd, -1)) != 0) {
        throw file_error(fmt::format("{}: cannot write it: {}", printable(m_path), std::strerror(errno)));
    }
}

} // namespace neuron::common
