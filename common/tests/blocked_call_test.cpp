#define BOOST_TEST_MODULE common_blocked_call
#include <boost/test/unit_test.hpp>

#include "neuron/common/blocked_call.h"

#include <chrono>
#include <csignal>
#include <fstream>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using neuron::common::blocked_call;
using neuron::common::main_thread_call;

namespace {

// A child blocked for good in `block(fd)` on one end of a socket pair.
class blocked_child {
public:
    template <typename Block>
    explicit blocked_child(Block block) {
        BOOST_REQUIRE(::socketpair(AF_UNIX, SOCK_SEQPACKET, 0, m_fds) == 0);
        m_pid = ::fork();
        BOOST_REQUIRE(m_pid >= 0);
        if (m_pid == 0) {
            block(m_fds[1]);
            ::_exit(0);
        }
    }
    ~blocked_child() {
        if (m_pid > 0) reap();
        ::close(m_fds[0]);
        ::close(m_fds[1]);
    }
    blocked_child(const blocked_child&) = delete;
    blocked_child& operator=(const blocked_child&) = delete;

    pid_t pid() const { return m_pid; }
    void reap() {
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
    }

    // /proc has no event to wait for: look until it says or time runs out.
    blocked_call settled_call() const {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        auto seen = main_thread_call(m_pid);
        while (seen != blocked_call::waiting_for_an_answer && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::yield();
            seen = main_thread_call(m_pid);
        }
        return seen;
    }

    // True once the child sleeps (state S in /proc/PID/stat): blocked in its call.
    bool asleep() const {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (std::chrono::steady_clock::now() < deadline) {
            std::ifstream in("/proc/" + std::to_string(m_pid) + "/stat");
            std::string pid, name, state;
            if (in >> pid >> name >> state && state == "S") return true;
            std::this_thread::yield();
        }
        return false;
    }

private:
    int m_fds[2] = {-1, -1};
    pid_t m_pid = -1;
};

} // namespace

BOOST_AUTO_TEST_CASE(a_blocking_recvmsg_waits_for_an_answer) {
    blocked_child child([](int fd) {
        char byte = 0;
        iovec part{&byte, 1};
        msghdr message{};
        message.msg_iov = &part;
        message.msg_iovlen = 1;
        ::recvmsg(fd, &message, 0);
    });
    BOOST_TEST((child.settled_call() == blocked_call::waiting_for_an_answer));
}

BOOST_AUTO_TEST_CASE(a_poll_waits_for_an_answer) {
    blocked_child child([](int fd) {
        pollfd p{fd, POLLIN, 0};
        ::poll(&p, 1, -1);
    });
    BOOST_TEST((child.settled_call() == blocked_call::waiting_for_an_answer));
}

BOOST_AUTO_TEST_CASE(a_read_is_something_else) {
    blocked_child child([](int fd) {
        char byte = 0;
        [[maybe_unused]] const auto n = ::read(fd, &byte, 1);
    });
    BOOST_REQUIRE(child.asleep());
    BOOST_TEST((main_thread_call(child.pid()) == blocked_call::something_else));
}

BOOST_AUTO_TEST_CASE(a_reaped_process_is_gone) {
    blocked_child child([](int) { ::pause(); });
    child.reap();
    BOOST_TEST((main_thread_call(child.pid()) == blocked_call::gone));
}
