#pragma once

// Clients that misbehave towards the control socket, each in a loop of its
// own until stopped: what the soak benchmark runs beside honest clients.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <sys/types.h>
#include <thread>
#include <vector>

namespace neuron::bench {

struct hostile_tally {
    std::atomic<std::uint64_t> rounds{0};   // misbehaviours carried out
    std::atomic<std::uint64_t> refusals{0}; // answered with an error or a close, as they should be
};

// One misbehaviour, repeated until the flag is set (a long one watches it).
struct hostile_kind {
    std::string name;
    std::function<void(const std::string& socket, const std::string& models, const std::atomic<bool>& stop,
                       hostile_tally& tally)>
        once;
};

// Every kind the soak runs: connections without a hello, descriptors
// attached to messages, garbage and oversized datagrams, alias-bomb and
// self-referential model files, huge repeat counts abandoned mid-run (as a
// killed process leaves them), debug streams that are never read and whose
// client lies about what it consumed, and bursts of connections; then
// intruder_kinds().
std::vector<hostile_kind> hostile_kinds();

// Guessed debug-stream tokens, huge labels, more connections than one
// process may hold, profile reads naming one profile thousands of times,
// idle NEFF uploads of declared gigabytes, NEFFs that once cost work out of
// proportion, and collectives joined as someone else
// (hostile_intruders.cpp).
std::vector<hostile_kind> intruder_kinds();

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

// The crowd in a process of its own, forked before the caller starts any
// thread: the server caps the connections of one process, and the honest
// clients must not share the crowd's share.
class crowd_process {
public:
    crowd_process();
    ~crowd_process();
    crowd_process(const crowd_process&) = delete;
    crowd_process& operator=(const crowd_process&) = delete;

    void start(const std::string& socket, const std::string& models);
    // Stops the crowd and returns its summary().
    std::string stop();

private:
    pid_t m_pid = -1;
    int m_to_child = -1;
    int m_from_child = -1;
};

} // namespace neuron::bench
