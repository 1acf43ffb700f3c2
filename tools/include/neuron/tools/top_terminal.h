#pragma once

// The terminal side of neuron-top's interactive screen, with plain ANSI
// escapes and termios: the alternate screen, no echo, no line buffering, the
// cursor hidden, keys decoded, the frame redrawn on a key, on new data and on
// a resize, and the terminal given back as it was on every way out.

#include "neuron/tools/top_screen.h"

#include <csignal>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::tools {

// Turns the bytes a terminal sends into keys: ESC [ A/B/C/D (or ESC O A..D)
// arrows, CR or LF enter, any other byte a character. Other escape
// sequences are dropped; a sequence cut between two reads is completed by
// the next.
class top_key_decoder {
public:
    std::vector<top_key> feed(std::string_view bytes);

private:
    std::string m_pending; // an escape sequence begun but not finished
};

// Blocks SIGINT, SIGTERM, SIGHUP and SIGWINCH in the calling thread and
// receives them through a descriptor, so that the screen loop sees them
// between two draws. Construct it before starting any thread, which then
// inherits the mask; the old mask is restored when it is destroyed.
class top_signals {
public:
    top_signals();
    ~top_signals();
    top_signals(const top_signals&) = delete;
    top_signals& operator=(const top_signals&) = delete;

    int fd() const { return m_fd; }
    // The next pending signal's number; 0 when none is pending.
    int take();

private:
    sigset_t m_set{};
    sigset_t m_old{};
    int m_fd = -1;
};

// What the loop shows and how it reacts.
struct top_screen_hooks {
    // The frame for a screen of that size: lines ending in '\n'.
    std::function<std::string(unsigned width, unsigned height)> draw;
    // A key; false: leave the loop.
    std::function<bool(const top_key&)> key;
    // When `update_fd` (if >= 0) becomes readable, `update` runs (it reads
    // the descriptor) and the screen is redrawn; an exit status leaves the loop.
    int update_fd = -1;
    std::function<std::optional<int>()> update;
};

// Runs the screen on a terminal (`in_fd` its keyboard, `out_fd` its screen)
// until the key hook declines a key (0), a termination signal arrives
// (128 + its number) or `update` returns a status (that status). Throws
// std::runtime_error when `in_fd` is not a terminal.
int run_top_terminal(int in_fd, int out_fd, top_signals& signals, const top_screen_hooks& hooks);

} // namespace neuron::tools
