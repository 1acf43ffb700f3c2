#include "neuron/tools/top_terminal.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <poll.h>
#include <pthread.h>
#include <stdexcept>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <unistd.h>

namespace neuron::tools {

// ---- keys

std::vector<top_key> top_key_decoder::feed(std::string_view bytes) {
    // Longer than any sequence a key sends: garbage, not worth keeping.
    constexpr std::size_t longest_sequence = 32;
    m_pending += bytes;
    std::vector<top_key> keys;
    std::size_t i = 0;
    while (i < m_pending.size()) {
        const char c = m_pending[i];
        if (c == '\r' || c == '\n') {
            keys.push_back({top_key_code::enter, 0});
            ++i;
            continue;
        }
        if (c != '\x1b') {
            keys.push_back({top_key_code::character, c});
            ++i;
            continue;
        }
        if (i + 1 == m_pending.size()) break;
        if (m_pending[i + 1] != '[' && m_pending[i + 1] != 'O') { // a lone ESC: dropped
            ++i;
            continue;
        }
        std::size_t end = i + 2; // CSI: parameters, then a final byte in @..~
        while (end < m_pending.size() && (m_pending[end] < '@' || m_pending[end] > '~')) ++end;
        if (end == m_pending.size()) break;
        if (end == i + 2) {
            switch (m_pending[end]) {
            case 'A': keys.push_back({top_key_code::up, 0}); break;
            case 'B': keys.push_back({top_key_code::down, 0}); break;
            case 'C': keys.push_back({top_key_code::right, 0}); break;
            case 'D': keys.push_back({top_key_code::left, 0}); break;
            default: break;
            }
        }
        i = end + 1;
    }
    m_pending.erase(0, i);
    if (m_pending.size() > longest_sequence) m_pending.clear();
    return keys;
}

// ---- signals

top_signals::top_signals() {
    sigemptyset(&m_set);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGWINCH}) sigaddset(&m_set, s);
    pthread_sigmask(SIG_BLOCK, &m_set, &m_old);
    m_fd = signalfd(-1, &m_set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (m_fd < 0) {
        const int error = errno;
        pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
        throw std::runtime_error(fmt::format("cannot create a signalfd: {}", std::strerror(error)));
    }
}

top_signals::~top_signals() {
    close(m_fd);
    pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
}

int top_signals::take() {
    signalfd_siginfo info{};
    for (;;) {
        const auto n = ::read(m_fd, &info, sizeof(info));
        if (n == static_cast<ssize_t>(sizeof(info))) return static_cast<int>(info.ssi_signo);
        if (n < 0 && errno == EINTR) continue;
        return 0;
    }
}

// ---- the screen

namespace {

constexpr std::string_view enter_screen = "\x1b[?1049h\x1b[?25l"; // alternate screen, cursor hidden
constexpr std::string_view leave_screen = "\x1b[?25h\x1b[?1049l";

bool write_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        const auto n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// Keys one by one, without echo, and the screen given back as it was when
// destroyed, whichever way the loop ends.
class terminal_mode {
public:
    terminal_mode(int in_fd, int out_fd) : m_in(in_fd), m_out(out_fd) {
        if (tcgetattr(in_fd, &m_saved) != 0) {
            throw std::runtime_error(fmt::format("the keyboard is not a terminal: {}", std::strerror(errno)));
        }
        termios raw = m_saved;
        raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO | IEXTEN);
        raw.c_iflag &= ~static_cast<tcflag_t>(IXON);
        raw.c_oflag &= ~static_cast<tcflag_t>(OPOST); // the frame's bytes as written: "\r\n" ends a row
        // Ctrl-C still interrupts (ISIG stays), and the loop restores the
        // terminal; Ctrl-Z would stop the process with the screen taken.
        raw.c_cc[VSUSP] = _POSIX_VDISABLE;
        raw.c_cc[VMIN] = 1;
        raw.c_cc[VTIME] = 0;
        if (tcsetattr(in_fd, TCSAFLUSH, &raw) != 0) {
            throw std::runtime_error(fmt::format("cannot set the terminal's mode: {}", std::strerror(errno)));
        }
        write_all(m_out, enter_screen);
    }
    ~terminal_mode() {
        write_all(m_out, leave_screen);
        tcsetattr(m_in, TCSADRAIN, &m_saved);
    }
    terminal_mode(const terminal_mode&) = delete;
    terminal_mode& operator=(const terminal_mode&) = delete;

private:
    int m_in, m_out;
    termios m_saved{};
};

std::pair<unsigned, unsigned> screen_size(int in_fd, int out_fd) {
    for (const int fd : {out_fd, in_fd}) {
        winsize ws{};
        if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) return {ws.ws_col, ws.ws_row};
    }
    return {80, 24};
}

// Home, each line over the old one (the rest of it erased), then the rest
// of the screen erased. No newline after the last row, which would scroll.
void draw(int in_fd, int out_fd, const top_screen_hooks& hooks) {
    const auto [width, height] = screen_size(in_fd, out_fd);
    const auto frame = hooks.draw(width, height);
    std::string out = "\x1b[H";
    std::size_t row = 0;
    for (std::size_t at = 0; at < frame.size() && row < height; ++row) {
        auto end = frame.find('\n', at);
        if (end == std::string::npos) end = frame.size();
        if (row > 0) out += "\r\n";
        out += top_fit(std::string_view(frame).substr(at, end - at), width) + "\x1b[K";
        at = end + 1;
    }
    out += "\x1b[J";
    write_all(out_fd, out);
}

} // namespace

int run_top_terminal(int in_fd, int out_fd, top_signals& signals, const top_screen_hooks& hooks) {
    terminal_mode mode(in_fd, out_fd);
    top_key_decoder decoder;
    draw(in_fd, out_fd, hooks);
    for (;;) {
        pollfd fds[3] = {{in_fd, POLLIN, 0}, {signals.fd(), POLLIN, 0}, {hooks.update_fd, POLLIN, 0}};
        if (::poll(fds, hooks.update_fd >= 0 ? 3 : 2, -1) < 0) {
            if (errno == EINTR) continue;
            throw std::runtime_error(fmt::format("waiting for keys failed: {}", std::strerror(errno)));
        }
        bool redraw = false;
        if (fds[1].revents != 0) {
            while (const int signal = signals.take()) {
                if (signal != SIGWINCH) return 128 + signal;
                redraw = true;
            }
        }
        if (hooks.update_fd >= 0 && fds[2].revents != 0) {
            if (const auto status = hooks.update()) return *status;
            redraw = true;
        }
        if (fds[0].revents != 0) {
            char buffer[256];
            const auto n = ::read(in_fd, buffer, sizeof(buffer));
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return 0; // the terminal is gone
            for (const auto& key :
                 decoder.feed(std::string_view(buffer, static_cast<std::size_t>(std::max<ssize_t>(n, 0))))) {
                if (!hooks.key(key)) return 0;
                redraw = true;
            }
        }
        if (redraw) draw(in_fd, out_fd, hooks);
    }
}

} // namespace neuron::tools
