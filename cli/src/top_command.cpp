#include "top_command.h"

#include "arguments.h"
#include "sample_options.h"
#include "usage_error.h"

#include "neuron/common/printable.h"
#include "neuron/tools/host_sampler.h"
#include "neuron/tools/top_screen.h"
#include "neuron/tools/top_terminal.h"

#include <fmt/format.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <thread>
#include <unistd.h>

namespace neuron::cli {
namespace {

constexpr int exit_failure = 1;
constexpr int exit_usage = 2;
// The screen refreshes every second of the sample clock (the emulator's
// time when there is one), as the vendor's tool does; it has no option for it.
constexpr std::uint64_t refresh_ns = 1'000'000'000;
// --once, printing to a file or a pipe: wide enough for every section of
// the largest instance on one line each, and every row of the tree.
constexpr unsigned once_width = 160;
constexpr std::uint64_t max_size = 10'000; // columns or lines

// Two samples a refresh apart, taken by a thread so that keys need not wait
// for the sample clock, which may not move at all (stepped time). It posts
// each one on an eventfd.
class sampler {
public:
    explicit sampler(tools::sample_sources sources) : m_shared(std::make_shared<shared>()) {
        m_shared->sources = std::move(sources);
        m_shared->now = m_shared->before = tools::sample_host(m_shared->sources);
        m_shared->event = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (m_shared->event < 0) throw std::runtime_error("cannot create an eventfd");
        m_thread = std::thread(run, m_shared);
    }
    ~sampler() {
        {
            const std::lock_guard lock(m_shared->mutex);
            m_shared->stopping = true;
            m_shared->stop_waiting = true;
            m_shared->wake.notify_all();
        }
        m_thread.join();
    }
    sampler(const sampler&) = delete;
    sampler& operator=(const sampler&) = delete;

    int fd() const { return m_shared->event; }

    // Takes the posted news; the reason sampling stopped, if it did.
    std::optional<std::string> take_news() {
        std::uint64_t count = 0;
        if (::read(m_shared->event, &count, sizeof(count)) < 0) count = 0;
        const std::lock_guard lock(m_shared->mutex);
        return m_shared->failure;
    }

    template <typename F>
    auto with_samples(F&& f) {
        const std::lock_guard lock(m_shared->mutex);
        return f(m_shared->before, m_shared->now);
    }

private:
    struct shared {
        tools::sample_sources sources;
        std::mutex mutex;
        std::condition_variable wake;
        tools::host_sample before, now;
        std::optional<std::string> failure;
        bool stopping = false;
        std::atomic<bool> stop_waiting = false; // ends a wait for the sample clock
        int event = -1;
        ~shared() {
            if (event >= 0) ::close(event);
        }
    };

    static void run(std::shared_ptr<shared> s) {
        for (;;) {
            std::uint64_t target = 0;
            {
                const std::lock_guard lock(s->mutex);
                if (s->stopping) break;
                target = s->now.time_ns + refresh_ns;
            }
            if (!tools::wait_for_time(s->sources, target, &s->stop_waiting)) {
                // The emulator went away: the host's clock paces the samples,
                // which say why the runtimes are not known.
                std::unique_lock lock(s->mutex);
                s->wake.wait_for(lock, std::chrono::nanoseconds(refresh_ns), [&] { return s->stopping; });
                if (s->stopping) break;
            }
            std::optional<tools::host_sample> next;
            std::optional<std::string> failure;
            try {
                next = tools::sample_host(s->sources);
            } catch (const std::exception& e) {
                failure = common::printable_message(e.what());
            }
            const std::lock_guard lock(s->mutex);
            if (s->stopping) break;
            if (next) {
                s->before = std::move(s->now);
                s->now = std::move(*next);
            }
            s->failure = failure;
            const std::uint64_t one = 1;
            if (::write(s->event, &one, sizeof(one)) < 0) break;
            if (failure) break;
        }
    }

    std::shared_ptr<shared> m_shared;
    std::thread m_thread;
};

std::pair<unsigned, unsigned> terminal_size(int fd) {
    winsize ws{};
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return {ws.ws_col, ws.ws_row};
    return {80, 24};
}

int print_once(const tools::sample_sources& sources, const argument_parser::result& options) {
    auto [width, height] =
        isatty(STDOUT_FILENO) ? terminal_size(STDOUT_FILENO) : std::pair<unsigned, unsigned>{once_width, 0};
    for (const auto* name : {"width", "height"}) {
        if (options.given(name) && options.unsigned_value(name) > max_size) {
            throw usage_error(fmt::format("top: --{} is at most {}", name, max_size));
        }
    }
    if (options.given("width")) width = static_cast<unsigned>(options.unsigned_value("width"));
    if (options.given("height")) height = static_cast<unsigned>(options.unsigned_value("height"));
    if (width == 0) throw usage_error("top: --width must be at least 1");
    const auto before = tools::sample_host(sources);
    if (before.time_stepped) {
        // Otherwise a person sees nothing happen, and a script cannot tell when to advance.
        fmt::print(stderr, "neuron-emu: top: the emulator's time is stepped; the frame comes when it reaches {} ns\n",
                   before.time_ns + refresh_ns);
        std::fflush(stderr);
    }
    if (!tools::wait_for_time(sources, before.time_ns + refresh_ns)) {
        fmt::print(stderr, "neuron-emu: top: the emulator stopped answering\n");
        return exit_failure;
    }
    fmt::print("{}", tools::top_frame(before, tools::sample_host(sources), {}, width, height));
    return 0;
}

int run_screen(const tools::sample_sources& sources) {
    tools::top_signals signals; // before the sampler's thread, which inherits the mask
    sampler samples(sources);
    tools::top_state state;
    std::optional<std::string> failure;
    tools::top_screen_hooks hooks;
    hooks.draw = [&](unsigned width, unsigned height) {
        return samples.with_samples(
            [&](const auto& before, const auto& now) { return tools::top_frame(before, now, state, width, height); });
    };
    hooks.key = [&](const tools::top_key& key) {
        return samples.with_samples(
            [&](const auto&, const auto& now) { return tools::top_handle_key(state, key, now); });
    };
    hooks.update_fd = samples.fd();
    hooks.update = [&]() -> std::optional<int> {
        failure = samples.take_news();
        return failure ? std::optional<int>(exit_failure) : std::nullopt;
    };
    const int status = tools::run_top_terminal(STDIN_FILENO, STDOUT_FILENO, signals, hooks);
    if (failure) fmt::print(stderr, "neuron-emu: top: {}\n", *failure);
    return status;
}

} // namespace

int run_top(std::span<const std::string> args) {
    argument_parser parser("top");
    parser.flag("once", "print one frame (two samples one second of the sample clock apart) without escapes, and exit")
        .option("width", "N", "with --once: columns (default: the terminal's, else 160)")
        .option("height", "N",
                "with --once: lines, 0 for as many as the frame takes (default: the terminal's, else 0)");
    add_sample_options(parser);
    const auto options = parser.parse(args);
    const auto sources = read_sample_sources(options);
    if (!options.given("once") && (options.given("width") || options.given("height"))) {
        throw usage_error("top: --width and --height go with --once; the screen takes the terminal's size");
    }
    try {
        if (options.given("once")) return print_once(sources, options);
        if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
            fmt::print(stderr,
                       "neuron-emu: top: the screen needs a terminal, and {} is not one; "
                       "use --once to print one frame\n",
                       isatty(STDOUT_FILENO) ? "standard input" : "standard output");
            return exit_usage;
        }
        return run_screen(sources);
    } catch (const tools::no_devices_error& e) {
        fmt::print(stderr, "neuron-emu: top: {}\n", common::printable_message(e.what()));
        return exit_failure;
    }
}

} // namespace neuron::cli
