#define BOOST_TEST_MODULE top_terminal
#include "neuron/tools/top_terminal.h"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <pty.h>
#include <stdexcept>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

using namespace neuron::tools;
using namespace std::chrono_literals;

namespace {

constexpr auto timeout = 10s; // generous: a broken loop fails instead of hanging

std::string key_name(const top_key& k) {
    switch (k.code) {
    case top_key_code::up: return "up";
    case top_key_code::down: return "down";
    case top_key_code::left: return "left";
    case top_key_code::right: return "right";
    case top_key_code::enter: return "enter";
    case top_key_code::character: return std::string(1, k.ch);
    }
    return "?";
}

bool same_mode(const termios& a, const termios& b) {
    return a.c_iflag == b.c_iflag && a.c_oflag == b.c_oflag && a.c_lflag == b.c_lflag && a.c_cflag == b.c_cflag &&
           std::memcmp(a.c_cc, b.c_cc, sizeof(a.c_cc)) == 0;
}

// The child's side: the screen over a fake frame that tells what it saw, then
// how the loop ended and whether the terminal's mode came back.
[[noreturn]] void run_screen_child(int update_fd) {
    int code = 0;
    try {
        termios before{};
        tcgetattr(0, &before);
        top_signals signals;
        int frames = 0, updates = 0;
        std::string last = "none";
        top_screen_hooks hooks;
        hooks.draw = [&](unsigned width, unsigned height) {
            return fmt::format("frame {} last={} size={}x{} updates={}\nsecond line\n", ++frames, last, width, height,
                               updates);
        };
        hooks.key = [&](const top_key& k) {
            if (k.code == top_key_code::character && k.ch == 'q') return false;
            last = key_name(k);
            return true;
        };
        hooks.update_fd = update_fd;
        hooks.update = [&]() -> std::optional<int> {
            char c = 0;
            if (::read(update_fd, &c, 1) != 1 || c == 'e') return 5;
            ++updates;
            return std::nullopt;
        };
        const int status = run_top_terminal(0, 1, signals, hooks);
        termios after{};
        tcgetattr(0, &after);
        const auto said =
            fmt::format("\nexited {} terminal {}\n", status, same_mode(before, after) ? "restored" : "changed");
        if (::write(1, said.data(), said.size()) < 0) code = 71;
    } catch (...) {
        code = 70;
    }
    _exit(code);
}

// run_screen_child on a pseudo-terminal of 80x24, and what it wrote.
class screen_on_pty {
public:
    screen_on_pty() {
        int update[2];
        if (::pipe(update) != 0) throw std::runtime_error("pipe failed");
        winsize ws{};
        ws.ws_col = 80;
        ws.ws_row = 24;
        m_pid = forkpty(&m_master, nullptr, nullptr, &ws);
        if (m_pid < 0) throw std::runtime_error(fmt::format("forkpty failed: {}", std::strerror(errno)));
        if (m_pid == 0) {
            ::close(update[1]);
            run_screen_child(update[0]);
        }
        ::close(update[0]);
        m_update = update[1];
    }
    ~screen_on_pty() {
        if (m_pid > 0) {
            ::kill(m_pid, SIGKILL);
            ::waitpid(m_pid, nullptr, 0);
        }
        ::close(m_master);
        ::close(m_update);
    }
    screen_on_pty(const screen_on_pty&) = delete;
    screen_on_pty& operator=(const screen_on_pty&) = delete;

    pid_t pid() const { return m_pid; }
    int master() const { return m_master; }
    const std::string& output() const { return m_output; }

    // Reads until `text` appears after what an earlier call found.
    bool wait_for(std::string_view text) {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        for (;;) {
            const auto at = m_output.find(text, m_consumed);
            if (at != std::string::npos) {
                m_consumed = at + text.size();
                return true;
            }
            if (!read_some(deadline)) return false;
        }
    }

    void send(std::string_view bytes) { BOOST_REQUIRE(::write(m_master, bytes.data(), bytes.size()) > 0); }
    void update(char c) { BOOST_REQUIRE(::write(m_update, &c, 1) == 1); }

    // The child's exit status, reading what it still writes; -1 on timeout.
    int exit_status() {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        for (;;) {
            int status = 0;
            if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
                m_pid = -1;
                return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            }
            if (!read_some(deadline) && std::chrono::steady_clock::now() >= deadline) return -1;
        }
    }

private:
    // False on timeout or when the child's side is closed.
    bool read_some(std::chrono::steady_clock::time_point deadline) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        pollfd fd{m_master, POLLIN, 0};
        const int ready = ::poll(&fd, 1, static_cast<int>(std::min<long>(left.count(), 100)));
        if (ready <= 0) return ready == 0 || errno == EINTR;
        char buffer[4096];
        const auto n = ::read(m_master, buffer, sizeof(buffer));
        if (n <= 0) return false;
        m_output.append(buffer, static_cast<std::size_t>(n));
        return true;
    }

    pid_t m_pid = -1;
    int m_master = -1;
    int m_update = -1;
    std::string m_output;
    std::size_t m_consumed = 0;
};

constexpr std::string_view enter_screen = "\x1b[?1049h\x1b[?25l";
constexpr std::string_view leave_screen = "\x1b[?25h\x1b[?1049l";

} // namespace

BOOST_AUTO_TEST_CASE(the_decoder_turns_bytes_into_keys) {
    top_key_decoder d;
    std::vector<std::string> names;
    for (const auto& k : d.feed("a\x1b[A\x1bOB\x1b[5~x\r\n\x1bz\x1b[")) names.push_back(key_name(k));
    BOOST_TEST(names == (std::vector<std::string>{"a", "up", "down", "x", "enter", "enter", "z"}),
               boost::test_tools::per_element());
    const auto rest = d.feed("C"); // the sequence cut between two reads
    BOOST_REQUIRE(rest.size() == 1u);
    BOOST_TEST(key_name(rest[0]) == "right");
    BOOST_TEST(d.feed("\x1b").empty());
    BOOST_TEST(key_name(d.feed("[D").at(0)) == "left");
}

BOOST_AUTO_TEST_CASE(keys_redraw_and_q_leaves_the_screen_as_it_was) {
    screen_on_pty screen;
    BOOST_TEST(screen.wait_for(enter_screen));
    BOOST_TEST(screen.wait_for("\x1b[Hframe 1 last=none size=80x24 updates=0\x1b[K\r\nsecond line\x1b[K"));
    screen.send("k");
    BOOST_TEST(screen.wait_for("frame 2 last=k "));
    screen.send("\x1b[A");
    BOOST_TEST(screen.wait_for("frame 3 last=up "));
    screen.send("\x1b[");
    screen.send("B");
    BOOST_TEST(screen.wait_for("last=down "));
    screen.send("\r");
    BOOST_TEST(screen.wait_for("last=enter "));
    screen.send("q");
    BOOST_TEST(screen.wait_for(leave_screen));
    BOOST_TEST(screen.wait_for("exited 0 terminal restored"));
    BOOST_TEST(screen.exit_status() == 0);
    BOOST_TEST(screen.output().find("frame 6") == std::string::npos, "q does not redraw");
}

BOOST_AUTO_TEST_CASE(sigterm_leaves_the_screen_as_it_was) {
    screen_on_pty screen;
    BOOST_TEST(screen.wait_for("frame 1 "));
    ::kill(screen.pid(), SIGTERM);
    BOOST_TEST(screen.wait_for(leave_screen));
    BOOST_TEST(screen.wait_for("exited 143 terminal restored"));
    BOOST_TEST(screen.exit_status() == 0);
}

BOOST_AUTO_TEST_CASE(ctrl_c_interrupts_and_leaves_the_screen_as_it_was) {
    screen_on_pty screen;
    BOOST_TEST(screen.wait_for("frame 1 "));
    screen.send("\x03");
    BOOST_TEST(screen.wait_for(leave_screen));
    BOOST_TEST(screen.wait_for("exited 130 terminal restored"));
    BOOST_TEST(screen.exit_status() == 0);
}

BOOST_AUTO_TEST_CASE(a_resize_redraws_at_the_new_size) {
    screen_on_pty screen;
    BOOST_TEST(screen.wait_for("frame 1 "));
    winsize ws{};
    ws.ws_col = 100;
    ws.ws_row = 30;
    BOOST_REQUIRE(::ioctl(screen.master(), TIOCSWINSZ, &ws) == 0); // SIGWINCH to the child
    BOOST_TEST(screen.wait_for("frame 2 last=none size=100x30 "));
    screen.send("q");
    BOOST_TEST(screen.exit_status() == 0);
}

BOOST_AUTO_TEST_CASE(new_data_redraws_and_can_end_the_loop) {
    screen_on_pty screen;
    BOOST_TEST(screen.wait_for("frame 1 "));
    screen.update('u');
    BOOST_TEST(screen.wait_for("frame 2 last=none size=80x24 updates=1"));
    screen.update('e');
    BOOST_TEST(screen.wait_for(leave_screen));
    BOOST_TEST(screen.wait_for("exited 5 terminal restored"));
    BOOST_TEST(screen.exit_status() == 0);
}

BOOST_AUTO_TEST_CASE(a_keyboard_that_is_not_a_terminal_is_refused) {
    int fds[2];
    BOOST_REQUIRE(::pipe(fds) == 0);
    top_signals signals;
    top_screen_hooks hooks;
    hooks.draw = [](unsigned, unsigned) { return std::string(); };
    hooks.key = [](const top_key&) { return false; };
    BOOST_CHECK_THROW(run_top_terminal(fds[0], fds[1], signals, hooks), std::runtime_error);
    ::close(fds[0]);
    ::close(fds[1]);
}
