#define BOOST_TEST_MODULE sysfs_mmap
// What mmap(2) of an attribute file does. Real sysfs refuses every mapping of
// an attribute with ENODEV (kernfs has no mmap for plain attributes). Over
// FUSE only MAP_SHARED can be refused: the files are opened with
// FOPEN_DIRECT_IO and without FUSE_CAP_DIRECT_IO_ALLOW_MMAP, so the kernel
// answers ENODEV itself, but it maps MAP_PRIVATE through the page cache
// without asking the server (fuse_file_mmap; libfuse 3.14 has no way to
// refuse it). These tests pin that known difference: a private mapping holds
// the value as read(2) gives it, zero-padded to the 4096 bytes stat() reports;
// touching past them, or a mapping of an attribute whose read fails, raises
// SIGBUS, as with any file whose pages cannot be read.
#include <boost/test/unit_test.hpp>

#include "support/mounted_tree.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace neuron::sysfs::testing;

namespace {

constexpr std::size_t page = 4096;

// A mapping unmapped on scope exit; MAP_FAILED when mmap refused it.
class mapping {
public:
    mapping(const file& f, std::size_t length, int protection, int flags)
            : m_length(length), m_address(::mmap(nullptr, length, protection, flags, f.fd(), 0)),
              m_error(m_address == MAP_FAILED ? errno : 0) {}
    ~mapping() {
        if (m_address != MAP_FAILED) ::munmap(m_address, m_length);
    }
    mapping(const mapping&) = delete;
    mapping& operator=(const mapping&) = delete;

    bool mapped() const { return m_address != MAP_FAILED; }
    int error() const { return m_error; }
    const char* bytes() const { return static_cast<const char*>(m_address); }

private:
    std::size_t m_length;
    void* m_address;
    int m_error;
};

// What reading `length` bytes at `offset` of the mapping does, found in a
// child so that a SIGBUS ends only the child: the bytes read, or "SIGBUS".
std::string touch(const mapping& m, std::size_t offset, std::size_t length) {
    int pipe_ends[2];
    BOOST_TEST_REQUIRE(::pipe(pipe_ends) == 0);
    const pid_t child = ::fork();
    BOOST_TEST_REQUIRE(child >= 0);
    if (child == 0) {
        ::close(pipe_ends[0]);
        // The default action, not a sanitizer's report of a deadly signal.
        struct sigaction default_action {};
        default_action.sa_handler = SIG_DFL;
        ::sigaction(SIGBUS, &default_action, nullptr);
        char copy[page];
        std::memcpy(copy, m.bytes() + offset, length);
        const bool written = ::write(pipe_ends[1], copy, length) == static_cast<ssize_t>(length);
        ::_exit(written ? 0 : 1);
    }
    ::close(pipe_ends[1]);
    std::string read_back;
    char buffer[page];
    for (ssize_t n; (n = ::read(pipe_ends[0], buffer, sizeof(buffer))) > 0;) read_back.append(buffer, n);
    ::close(pipe_ends[0]);
    int status = 0;
    BOOST_TEST_REQUIRE(::waitpid(child, &status, 0) == child);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS) return "SIGBUS";
    BOOST_TEST_REQUIRE((WIFEXITED(status) && WEXITSTATUS(status) == 0), "the child ended with status " << status);
    return read_back;
}

} // namespace

BOOST_AUTO_TEST_CASE(shared_mappings_are_refused_with_enodev_as_sysfs_does) {
    mounted_tree tree;
    const file read_only(tree.path("neuron0/core_count"), O_RDONLY);
    const mapping shared_read(read_only, page, PROT_READ, MAP_SHARED);
    BOOST_TEST(!shared_read.mapped());
    BOOST_TEST(shared_read.error() == ENODEV, std::strerror(shared_read.error()));

    const file read_write(tree.path("neuron0/info/notify_delay"), O_RDWR);
    const mapping shared_write(read_write, page, PROT_READ | PROT_WRITE, MAP_SHARED);
    BOOST_TEST(!shared_write.mapped());
    BOOST_TEST(shared_write.error() == ENODEV, std::strerror(shared_write.error()));
}

// Known difference: sysfs would refuse this mapping with ENODEV.
BOOST_AUTO_TEST_CASE(a_private_mapping_holds_the_value_zero_padded_to_a_page) {
    mounted_tree tree;
    const file f(tree.path("neuron0/core_count"), O_RDONLY);
    const mapping m(f, page, PROT_READ, MAP_PRIVATE);
    BOOST_TEST_REQUIRE(m.mapped(), std::strerror(m.error()));
    BOOST_TEST(touch(m, 0, page) == "2" + std::string(page - 1, '\0'));
}

BOOST_AUTO_TEST_CASE(a_private_mapping_raises_sigbus_past_the_page_and_where_the_read_fails) {
    mounted_tree tree;
    const file value(tree.path("neuron0/core_count"), O_RDONLY);
    const mapping two_pages(value, 2 * page, PROT_READ, MAP_PRIVATE);
    BOOST_TEST_REQUIRE(two_pages.mapped(), std::strerror(two_pages.error()));
    BOOST_TEST(touch(two_pages, page, 1) == "SIGBUS"); // past the 4096 bytes stat() reports

    // Reading this attribute fails with EIO, as on the real driver (the
    // devices never use autosuspend): the page cannot be filled.
    const file failing(tree.path("neuron0/power/autosuspend_delay_ms"), O_RDONLY);
    BOOST_TEST(::read(failing.fd(), std::string(page, '\0').data(), page) == -1);
    BOOST_TEST(errno == EIO);
    const mapping unreadable(failing, page, PROT_READ, MAP_PRIVATE);
    BOOST_TEST_REQUIRE(unreadable.mapped(), std::strerror(unreadable.error()));
    BOOST_TEST(touch(unreadable, 0, 1) == "SIGBUS");
}
