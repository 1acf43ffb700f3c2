#pragma once

#include "neuron/model/platform_config.h"

#include <chrono>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <type_traits>

namespace neuron::model {

class platform;
class published_state;

namespace detail {
[[noreturn]] void throw_stopped();
}

// Runs one instance model on its own SystemC kernel thread (ARCHITECTURE.md
// "Threads and time"). Other threads never touch the model: they post work
// with post()/call(), which runs on the kernel thread at the current
// simulated time, and read published() without entering the kernel.
//
// SystemC allows one elaboration per process, so a process can run one
// simulation in its lifetime; a second one throws simulation_error.
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
    // return. Throws simulation_error in realtime mode.
    void advance(std::chrono::nanoseconds duration);

    const published_state& published() const;
    const platform_config& config() const { return m_config; }

    // Stops the kernel thread; queued work fails with simulation_error. Idempotent.
    void stop();

private:
    using task = std::function<void(platform*)>; // nullptr: the simulation stopped
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
    enqueue([promise, fn = std::forward<F>(f)](platform* p) mutable {
        try {
            if (p == nullptr) detail::throw_stopped();
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
