#pragma once

// Clients that misbehave towards the control socket, each in a loop of its
// own until stopped: what the soak benchmark runs beside honest clients.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace neuron::bench {

struct hostile_tally {
    std::atomic<std::uint64_t> rounds{0};   // misbehaviours carried out
    std::atomic<std::uint64_t> refusals{0}; // answered with an error or a close, as they should be
};

// One misbehaviour, repeated until the flag is set.
struct hostile_kind {
    std::string name;
    std::function<void(const std::string& socket, const std::string& models, hostile_tally& tally)> once;
};

// Every kind the soak runs: connections without a hello, descriptors
// attached to messages, garbage and oversized datagrams, alias-bomb and
// self-referential model files, huge repeat counts abandoned mid-run (as a
// killed process leaves them), debug streams that are never read and whose
// client lies about what it consumed, and bursts of connections.
std::vector<hostile_kind> hostile_kinds();

// Runs each kind in a thread until stop() (or destruction).
class hostile_crowd {
public:
    hostile_crowd(std::string socket, std::string models);
    ~hostile_crowd();
    hostile_crowd(const hostile_crowd&) = delete;
    hostile_crowd& operator=(const hostile_crowd&) = delete;

    void stop();
    // "kind: rounds (refused)" per kind.
    std::string summary() const;

private:
    std::vector<hostile_kind> m_kinds;
    std::vector<std::unique_ptr<hostile_tally>> m_tallies;
    std::atomic<bool> m_stop{false};
    std::vector<std::thread> m_threads;
};

} // namespace neuron::bench
