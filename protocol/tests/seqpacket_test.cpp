#define BOOST_TEST_MODULE seqpacket
#include "neuron/protocol/seqpacket.h"
#include "neuron/test_support/temporary_directory.h"
#include "support/descriptors.h"

#include <boost/test/unit_test.hpp>

#include <cerrno>
#include <cstdint>
#include <fcntl.h>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace neuron::protocol;
using neuron::test_support::temporary_directory;

namespace {

using bytes = std::vector<std::uint8_t>;

// Both ends of a SOCK_SEQPACKET socketpair, closed at the end.
struct socket_pair {
    int a = -1;
    int b = -1;
    socket_pair() {
        int fds[2];
        if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
            throw std::runtime_error("socketpair failed");
        a = fds[0];
        b = fds[1];
    }
    ~socket_pair() {
        if (a >= 0) ::close(a);
        if (b >= 0) ::close(b);
    }
    void close_a() {
        ::close(a);
        a = -1;
    }
};

bytes pattern(std::size_t size, std::uint8_t seed) {
    bytes b(size);
    for (std::size_t i = 0; i < size; ++i) b[i] = static_cast<std::uint8_t>(seed + i * 7);
    return b;
}

// Fills the socket until the kernel refuses more; returns how many were queued.
int fill(int fd, std::size_t datagram) {
    const bytes filler(datagram, 0x5a);
    for (int sent = 0; sent < 1'000'000; ++sent) {
        if (::send(fd, filler.data(), filler.size(), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
            BOOST_TEST_REQUIRE((errno == EAGAIN || errno == EWOULDBLOCK));
            return sent;
        }
    }
    throw std::runtime_error("the socket never filled up");
}

// Injected failures: each listed errno fails one call, in order; 0 lets it through.
struct schedule {
    std::vector<int> errors;
    std::size_t calls = 0;
    int next() {
        const auto i = calls++;
        return i < errors.size() ? errors[i] : 0;
    }
};
schedule connect_schedule;
schedule sendmsg_schedule;
schedule recvmsg_schedule;
schedule poll_schedule;

int flaky_connect(int fd, const sockaddr* address, socklen_t length) {
    if (const int e = connect_schedule.next()) {
        errno = e;
        return -1;
    }
    return ::connect(fd, address, length);
}
ssize_t flaky_sendmsg(int fd, const msghdr* message, int flags) {
    if (const int e = sendmsg_schedule.next()) {
        errno = e;
        return -1;
    }
    return ::sendmsg(fd, message, flags);
}
ssize_t flaky_recvmsg(int fd, msghdr* message, int flags) {
    if (const int e = recvmsg_schedule.next()) {
        errno = e;
        return -1;
    }
    return ::recvmsg(fd, message, flags);
}
int flaky_poll(pollfd* fds, nfds_t count, int timeout_ms) {
    if (const int e = poll_schedule.next()) {
        errno = e;
        return -1;
    }
    return ::poll(fds, count, timeout_ms);
}

// Puts the flaky calls in the table and restores the real ones afterwards.
class flaky_socket_calls {
public:
    flaky_socket_calls() : m_saved(socket_sys()) {
        connect_schedule = {};
        sendmsg_schedule = {};
        recvmsg_schedule = {};
        poll_schedule = {};
        socket_sys().connect = flaky_connect;
        socket_sys().sendmsg = flaky_sendmsg;
        socket_sys().recvmsg = flaky_recvmsg;
        socket_sys().poll = flaky_poll;
    }
    ~flaky_socket_calls() { socket_sys() = m_saved; }

private:
    socket_calls m_saved;
};

auto says(std::string text) {
    return [text = std::move(text)](const std::runtime_error& e) {
        BOOST_TEST_INFO("message: " << e.what());
        return std::string(e.what()).find(text) != std::string::npos;
    };
}

int listen_at(const std::string& path) {
    const auto address = unix_address(path);
    const int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0 || ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0 ||
        ::listen(fd, 4) != 0) {
        throw std::runtime_error("cannot listen at " + path);
    }
    return fd;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_message_arrives_whole_and_alone) {
    socket_pair s;
    const auto first = pattern(100'000, 1);
    const auto second = pattern(16, 2);
    send_message(s.a, first);
    send_message(s.a, second);
    const auto one = receive_message(s.b, 5000);
    BOOST_TEST_REQUIRE(one.has_value());
    BOOST_TEST(one->bytes == first, boost::test_tools::per_element());
    BOOST_TEST(one->passed_fd == -1);
    const auto two = receive_message(s.b, 5000);
    BOOST_TEST_REQUIRE(two.has_value());
    BOOST_TEST(two->bytes == second, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_passed_descriptor_refers_to_the_same_file) {
    socket_pair s;
    const int file = ::memfd_create("seqpacket-test", MFD_CLOEXEC);
    BOOST_TEST_REQUIRE(file >= 0);
    BOOST_TEST_REQUIRE(::write(file, "shared", 6) == 6);
    send_message(s.a, pattern(32, 3), file);
    const auto got = receive_message(s.b, 5000);
    BOOST_TEST_REQUIRE(got.has_value());
    BOOST_TEST(got->bytes == pattern(32, 3), boost::test_tools::per_element());
    BOOST_TEST_REQUIRE(got->passed_fd >= 0);
    BOOST_TEST(got->passed_fd != file);
    struct stat sent {};
    struct stat received {};
    BOOST_TEST_REQUIRE(::fstat(file, &sent) == 0);
    BOOST_TEST_REQUIRE(::fstat(got->passed_fd, &received) == 0);
    BOOST_TEST(sent.st_dev == received.st_dev);
    BOOST_TEST(sent.st_ino == received.st_ino);
    char text[6] = {};
    BOOST_TEST(::pread(got->passed_fd, text, sizeof(text), 0) == 6);
    BOOST_TEST(std::string(text, 6) == "shared");
    BOOST_TEST((::fcntl(got->passed_fd, F_GETFD) & FD_CLOEXEC) != 0); // received close-on-exec
    ::close(got->passed_fd);
    ::close(file);
}

BOOST_AUTO_TEST_CASE(only_the_first_of_several_passed_descriptors_is_kept_and_none_leaks) {
    socket_pair s;
    const auto before = testing::open_descriptor_count();
    for (const std::size_t sent :
         {std::size_t{2}, std::size_t{3}, max_received_fds, max_received_fds + 1, std::size_t{64}}) {
        std::vector<int> fds(sent, s.a); // the kernel installs a fresh descriptor for each
        testing::send_with_descriptors(s.a, pattern(24, 7), fds);
        const auto got = receive_message(s.b, 5000);
        BOOST_TEST_REQUIRE(got.has_value());
        BOOST_TEST(got->bytes == pattern(24, 7), boost::test_tools::per_element());
        BOOST_TEST_REQUIRE(got->passed_fd >= 0);
        ::close(got->passed_fd);
        BOOST_TEST(testing::open_descriptor_count() == before, sent << " descriptors sent");
    }
}

BOOST_AUTO_TEST_CASE(a_message_over_the_size_limit_is_taken_off_unread_and_refused) {
    socket_pair s;
    const auto before = testing::open_descriptor_count();
    testing::send_with_descriptors(s.a, pattern(5000, 8), {s.a, s.a});
    send_message(s.a, pattern(100, 9));
    BOOST_CHECK_EXCEPTION(receive_message(s.b, 5000, 4096), protocol_error, says("5000 bytes is larger than the 4096"));
    BOOST_TEST(testing::open_descriptor_count() == before, "the refused message's descriptors stayed open");
    const auto next = receive_message(s.b, 5000, 4096); // the next message is intact
    BOOST_TEST_REQUIRE(next.has_value());
    BOOST_TEST(next->bytes == pattern(100, 9), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(an_empty_message_ends_the_connection_and_its_descriptors_are_closed) {
    socket_pair s;
    const auto before = testing::open_descriptor_count();
    testing::send_with_descriptors(s.a, {}, {s.a});
    BOOST_CHECK_EXCEPTION(receive_message(s.b, 5000), connection_error, says("closed the connection"));
    BOOST_TEST(testing::open_descriptor_count() == before, "the empty message's descriptor stayed open");
}

BOOST_AUTO_TEST_CASE(a_receive_timeout_returns_nothing) {
    socket_pair s;
    BOOST_TEST(!receive_message(s.b, 20).has_value());
    BOOST_TEST(!receive_message(s.b, 0).has_value());
}

BOOST_AUTO_TEST_CASE(a_closed_peer_is_a_connection_error) {
    socket_pair s;
    s.close_a();
    BOOST_CHECK_EXCEPTION(receive_message(s.b, 5000), connection_error, says("closed the connection"));
    BOOST_CHECK_EXCEPTION(receive_message(s.b, -1), connection_error, says("closed the connection"));
}

BOOST_AUTO_TEST_CASE(a_message_queued_before_the_close_is_still_received) {
    socket_pair s;
    send_message(s.a, pattern(20, 4));
    s.close_a();
    const auto got = receive_message(s.b, 5000);
    BOOST_TEST_REQUIRE(got.has_value());
    BOOST_TEST(got->bytes == pattern(20, 4), boost::test_tools::per_element());
    BOOST_CHECK_THROW(receive_message(s.b, 5000), connection_error);
}

BOOST_AUTO_TEST_CASE(sending_to_a_closed_peer_is_a_connection_error_not_a_signal) {
    socket_pair s;
    ::close(s.b);
    s.b = -1;
    BOOST_CHECK_THROW(try_send_message(s.a, pattern(16, 5)), connection_error);
    BOOST_CHECK_THROW(send_message(s.a, pattern(16, 5)), connection_error);
}

BOOST_AUTO_TEST_CASE(interrupted_and_busy_calls_are_retried) {
    socket_pair s;
    {
        flaky_socket_calls flaky;
        sendmsg_schedule.errors = {EINTR, EAGAIN};
        poll_schedule.errors = {EINTR, 0, EINTR};
        recvmsg_schedule.errors = {EINTR};
        send_message(s.a, pattern(64, 6), s.a);
        const auto got = receive_message(s.b, 5000);
        BOOST_TEST_REQUIRE(got.has_value());
        BOOST_TEST(got->bytes == pattern(64, 6), boost::test_tools::per_element());
        BOOST_TEST(got->passed_fd >= 0);
        if (got->passed_fd >= 0) ::close(got->passed_fd);
        BOOST_TEST(sendmsg_schedule.calls == 3u); // EINTR, EAGAIN, sent
        BOOST_TEST(poll_schedule.calls >= 4u);    // one to wait for room, then the receive's
        BOOST_TEST(recvmsg_schedule.calls == 2u); // EINTR, then the whole message in one call
    }
    BOOST_TEST((socket_sys().sendmsg == &::sendmsg));
    BOOST_TEST((socket_sys().recvmsg == &::recvmsg));
    BOOST_TEST((socket_sys().poll == &::poll));
    BOOST_TEST((socket_sys().connect == &::connect));
}

BOOST_AUTO_TEST_CASE(an_interrupted_connect_is_retried) {
    temporary_directory dir{"neuron-seqpacket-test"};
    const auto path = dir.path() + "/server.sock";
    const int listener = listen_at(path);
    {
        flaky_socket_calls flaky;
        connect_schedule.errors = {EINTR};
        const int fd = connect_seqpacket(path);
        BOOST_TEST(fd >= 0);
        BOOST_TEST(connect_schedule.calls == 2u);
        const int accepted = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        BOOST_TEST_REQUIRE(accepted >= 0);
        send_message(fd, pattern(16, 7));
        const auto got = receive_message(accepted, 5000);
        BOOST_TEST_REQUIRE(got.has_value());
        BOOST_TEST(got->bytes == pattern(16, 7), boost::test_tools::per_element());
        ::close(accepted);
        ::close(fd);
    }
    BOOST_TEST((socket_sys().connect == &::connect));
    ::close(listener);
}

BOOST_AUTO_TEST_CASE(a_full_socket_would_block) {
    socket_pair s;
    const int queued = fill(s.a, 1024);
    BOOST_TEST(queued > 0);
    BOOST_TEST((try_send_message(s.a, pattern(1024, 8)) == send_result::would_block));
    for (int i = 0; i < queued; ++i) BOOST_TEST_REQUIRE(receive_message(s.b, 5000).has_value());
    BOOST_TEST(!receive_message(s.b, 0).has_value());
    BOOST_TEST((try_send_message(s.a, pattern(1024, 8)) == send_result::sent));
}

BOOST_AUTO_TEST_CASE(send_message_waits_for_room) {
    socket_pair s;
    const int queued = fill(s.a, 1024);
    const auto last = pattern(1024, 9);
    std::thread sender([&] { send_message(s.a, last); });
    int drained = 0;
    for (;;) {
        const auto got = receive_message(s.b, 10'000);
        BOOST_TEST_REQUIRE(got.has_value());
        if (got->bytes == last) break;
        ++drained;
    }
    sender.join();
    BOOST_TEST(drained == queued);
}

BOOST_AUTO_TEST_CASE(a_message_larger_than_the_socket_takes_is_refused) {
    socket_pair s;
    const int small = 4096;
    BOOST_TEST_REQUIRE(::setsockopt(s.a, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)) == 0);
    BOOST_CHECK_EXCEPTION(try_send_message(s.a, bytes(256 * 1024)), connection_error,
                          says("larger than the socket takes"));
}

BOOST_AUTO_TEST_CASE(connecting_to_a_missing_path_names_it) {
    temporary_directory dir{"neuron-seqpacket-test"};
    const auto path = dir.path() + "/nobody-here.sock";
    BOOST_CHECK_EXCEPTION(connect_seqpacket(path), connection_error, says(path));
    BOOST_CHECK_EXCEPTION(connect_seqpacket(path), connection_error, says(std::strerror(ENOENT)));
}

BOOST_AUTO_TEST_CASE(unix_address_refuses_paths_that_do_not_fit) {
    const std::string longest(sizeof(sockaddr_un::sun_path) - 1, 'p');
    const auto address = unix_address(longest);
    BOOST_TEST(address.sun_family == AF_UNIX);
    BOOST_TEST(std::string(address.sun_path) == longest); // NUL-terminated
    BOOST_CHECK_EXCEPTION(unix_address(longest + "p"), connection_error, says("longer than 107 bytes"));
    BOOST_CHECK_EXCEPTION(unix_address(std::string(4096, 'q')), connection_error, says("longer than"));
    BOOST_CHECK_EXCEPTION(unix_address(""), connection_error, says("empty"));
    BOOST_CHECK_EXCEPTION(connect_seqpacket(longest + "p"), connection_error, says("longer than"));
}
