// Figure 3: a counter changes in the model and a poll()ing reader wakes.
// Ours: a runtime client allocates or frees device memory through the
// control channel (the model changes the core's device_mem counters and
// notifies, notify_delay being 0); the reader polls device_mem/total. The
// floor: the minimal FUSE filesystem's notifier thread bumps its counter and
// notifies, on a line from the benchmark through a pipe, which the floor's
// main thread answers with a line back, as our client waits for its reply
// (NOTES.md: a floor that answers nothing leaves out work ours cannot). Each
// latency runs from the request to the wake; 3a is judged as a ratio to the
// floor measured in the same run.

#include "figures.h"
#include "support/floor_process.h"
#include "support/measure.h"
#include "support/placement.h"
#include "support/poll_watcher.h"
#include "support/served.h"

#include "neuron/protocol/simple_client.h"

#include <fmt/format.h>

#include <fstream>
#include <stdexcept>

namespace neuron::bench {
namespace {

using protocol::message_type;
constexpr auto wake_timeout = std::chrono::milliseconds(2000);
constexpr std::uint32_t tensors_device = 9; // mem_alloc_category_t TENSORS_DEVICE

} // namespace

namespace {

struct latencies {
    samples ours, floor;
    samples one_way; // the floor's change without an answer, for the record
};

// Alternating rounds of changes in the emulator and in the floor.
latencies measure(protocol::simple_client& runtime, std::uint32_t core, const std::string& ours_file,
                  floor_process& floor, int rounds, int per_round) {
    poll_watcher ours_watch(ours_file);
    poll_watcher floor_watch(floor.file());
    latencies l;
    std::uint64_t missed = 0;
    std::uint64_t held = 0;
    bool holding = false;
    // `change` per_round times, each timed from the request to the wake.
    const auto timed = [&](poll_watcher& watch, samples& into, const auto& change) {
        for (int i = 0; i < per_round; ++i) {
            const auto start = clock::now();
            change();
            if (const auto woke = watch.next_wake(start, wake_timeout)) {
                into.add(*woke - start);
            } else {
                ++missed;
            }
        }
    };
    for (int r = 0; r < rounds; ++r) {
        timed(ours_watch, l.ours, [&] {
            if (holding) {
                runtime.call<protocol::empty_body>(message_type::free_memory, protocol::free_memory{held},
                                                   message_type::ok);
                holding = false;
            } else {
                held = runtime
                           .call<protocol::allocated>(
                               message_type::allocate,
                               protocol::allocate{core, protocol::memory_location::device, tensors_device, 4096},
                               message_type::allocated)
                           .id;
                holding = true;
            }
        });
        timed(floor_watch, l.floor, [&] { floor.change_answered(); });
        timed(floor_watch, l.one_way, [&] { floor.change(); });
    }
    if (holding)
        runtime.call<protocol::empty_body>(message_type::free_memory, protocol::free_memory{held}, message_type::ok);
    if (missed > 0) throw std::runtime_error(fmt::format("{} changes woke nobody within 2 s", missed));
    return l;
}

} // namespace

void change_to_wake(const context& c) {
    served emulator(c.emulator, serve_options("trn1.2xlarge"));
    scratch_dir floor_dir;
    floor_process floor(floor_dir.path());
    {
        std::ofstream notify(emulator.tree() + "/neuron0/info/notify_delay");
        notify << "0\n";
        notify.close();
        if (!notify) throw std::runtime_error("cannot turn notifications on (notify_delay)");
    }
    protocol::simple_client runtime(emulator.control_path(), protocol::peer_role::runtime, "neuron-bench");
    const auto session = runtime.call<protocol::session_opened>(
        message_type::open_session, protocol::open_session{1, protocol::core_selection::range, 0, 1},
        message_type::session_opened);
    const auto file = emulator.tree() + "/neuron0/neuron_core0/stats/memory_usage/device_mem/total";
    const int rounds = c.quick ? 4 : 10;
    const int per_round = c.quick ? 100 : 300;

    // Every thread on one CPU (support/placement.h); the watchers inherit it.
    const auto together = [&] {
        pinned one_cpu(0, {emulator.pid(), floor.pid()});
        return measure(runtime, session.first, file, floor, rounds, per_round);
    }();
    // Wherever the scheduler puts them.
    const auto anywhere = measure(runtime, session.first, file, floor, rounds / 2, per_round);

    const auto note = fmt::format(
        "every thread on one CPU; ours p99 {:.1f} us, mean {:.1f} us; floor (a change asked for through a pipe and "
        "answered, notified from its own thread) p99 {:.1f} us; unanswered it wakes in {:.1f} us (ours {:.2f}x that); "
        "{} changes each",
        together.ours.p99() / 1e3, together.ours.mean() / 1e3, together.floor.p99() / 1e3,
        together.one_way.median() / 1e3, together.ours.median() / together.one_way.median(), together.ours.size());
    // A ratio: a slower machine slows both sides alike.
    print({"3a change-to-wake p50", together.ours.median() / 1e3, together.floor.median() / 1e3, "us",
           goal::ratio_at_most, 1.3, note});
    print({"3b change-to-wake p99", together.ours.p99() / 1e3, together.floor.p99() / 1e3, "us", goal::value_at_most,
           1000, ""});
    print({"3c change-to-wake p50, threads anywhere", anywhere.ours.median() / 1e3, anywhere.floor.median() / 1e3, "us",
           goal::info, 0,
           fmt::format("p99 ours {:.1f} us, floor {:.1f} us: wake-ups across vCPUs cost tens of microseconds here",
                       anywhere.ours.p99() / 1e3, anywhere.floor.p99() / 1e3)});
    emulator.stop();
}

} // namespace neuron::bench
