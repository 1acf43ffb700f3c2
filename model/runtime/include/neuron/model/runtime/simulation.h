#pragma once

#include "neuron/model/state/platform_config.h"

#include <chrono>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <type_traits>

namespace neuron::model {

class platform;
class published_state;

namespace detail {
// `why` is empty when the simulation was stopped by its owner.
[[noreturn]] void throw_stopped(const std::string& why);
} // namespace detail

// Runs one instance model on its own SystemC kernel thread (ARCHITECTURE.md
// "Threads and time"). Other threads never touch the model: they post work
// with post()/call(), which runs on the kernel thread at the current
// simulated time, and read published() without entering the kernel.
//
// SystemC allows one elaboration per process, so a process can run one
// simulation in its lifetime; a second one throws simulation_error.
//
// Simulated time ends at SystemC's maximum time: 2^64-1 ps at the kernel's
// 1 ps resolution, 18446744073709551 ns (about 213.5 days);
// published().clock().limit_ns() gives it. Nothing due later could ever
// happen there (a reset would stay in progress for good), so time never
// silently stops at it: stepped time refuses to advance past it, and a
// realtime simulation that reaches it stops with an error (told on stderr
// and by every later post() and advance()), about 213.5 days / rtf of
// wall-clock time after it started.
class simulation {
public:
    explicit simulation(platform_config config);
    ~simulation();
    simulation(const simulation&) = delete;
    simulation& operator=(const simulation&) = delete;

    // Runs f(platform&) on the kernel thread; the future carries its result
    // or its exception (simulation_error if the simulation stops first).
    template <typename F>
    auto post(F&& f) -> std::future<std::invoke_result_t<F&, platform&>>;

    // post() and wait. Must not be called from the kernel thread (e.g. from a
    // change listener): that would wait for itself.
    template <typename F>
    auto call(F&& f) -> std::invoke_result_t<F&, platform&> {
        return post(std::forward<F>(f)).get();
    }

    // Stepped mode: run the model for `duration` of simulated time, then
    // return. Throws simulation_error in realtime mode or once the
    // simulation stopped, invalid_argument_error for a negative duration or
    // one that would pass the time limit.
    void advance(std::chrono::nanoseconds duration);

    const published_state& published() const;
    const platform_config& config() const { return m_config; }

    // Stops the kernel thread; queued work fails with simulation_error. Idempotent.
    void stop();

private:
    // nullptr: the simulation stopped, for the reason given (empty: stop()).
    using task = std::function<void(platform*, const std::string& why_stopped)>;
    void enqueue(task t);

    class kernel;
    platform_config m_config;
    std::unique_ptr<kernel> m_kernel;
};

template <typename F>
auto simulation::post(F&& f) -> std::future<std::invoke_result_t<F&, platform&>> {
    using result = std::invoke_result_t<F&, platform&>;
    auto promise = std::make_shared<std::promise<result>>();
    auto future = promise->get_future();
    enqueue([promise, fn = std::forward<F>(f)](platform* p, const std::string& why_stopped) mutable {
        try {
            if (p == nullptr) detail::throw_stopped(why_stopped);
            if constexpr (std::is_void_v<result>) {
                fn(*p);
                promise->set_value();
            } else {
                promise->set_value(fn(*p));
            }
        } catch (...) {
            promise->set_exception(std::current_exception());
        }
    });
    return future;
}

} // namespace neuron::model
