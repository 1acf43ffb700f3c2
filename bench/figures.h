#pragma once

// The benchmarks: each measures our figure and its baseline side by side in
// one run and prints one line per figure (support/measure.h).

#include <string>

namespace neuron::bench {

struct context {
    std::string emulator;    // build/bin/neuron-emu
    std::string run_model;   // build/bin/nrt-run-model
    std::string library;     // build/lib (libnrt.so.1)
    std::string models;      // runtime_shim/models
    std::string conformance; // build/bin/neuron-conformance
    bool quick = false;      // fewer rounds and a shorter load run
};

void attribute_read(const context& c);         // 1
void full_scrape(const context& c);            // 2
void change_to_wake(const context& c);         // 3
void debug_stream(const context& c);           // 4
void control_round_trip(const context& c);     // 5
void serve_lifecycle(const context& c);        // 6
void load(const context& c);                   // 7
void simulation_speed(const context& c);       // 8
void soak(const context& c);                   // 9
void conformance_throughput(const context& c); // 10
void profile_speed(const context& c);          // 11
void recording_scale(const context& c);        // 12

} // namespace neuron::bench
