#pragma once

// The control channel's messages for `neuron-emu ctl` and test harnesses:
// status, injections, resets, device prints and stepped time
// (protocol/README.md documents them).

#include "neuron/protocol/message_codec.h"
#include "neuron/protocol/wire.h"

#include <cstdint>
#include <string>
#include <vector>

namespace neuron::protocol {

struct status_report {
    std::string json;
    static constexpr const char* wire_name = "status_report";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("json", m.json);
    }
};

struct inject_ecc {
    std::uint32_t device = 0;
    std::string kind; // sram, hbm, hbm-repairable, sram-corrected, hbm-corrected
    std::int64_t count = 1;
    std::int32_t channel = -1; // -1: the default channel
    static constexpr const char* wire_name = "inject_ecc";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("device", m.device);
        v("kind", m.kind);
        v("count", m.count);
        v("channel", m.channel);
    }
};

// A fault armed on a device's cores (model/hardware_fault.h): it strikes when
// its core next does what the fault names.
struct inject_fault {
    std::uint32_t device = 0;
    std::int32_t core = -1;  // -1: every core of the device
    std::string kind;        // dma_abort, out_of_bounds, hbm_uncorrectable, ...
    std::string engine;      // empty: no engine aimed at
    std::int32_t queue = -1; // -1: no DMA queue aimed at
    static constexpr const char* wire_name = "inject_fault";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("device", m.device);
        v("core", m.core);
        v("kind", m.kind);
        v("engine", m.engine);
        v("queue", m.queue);
    }
};

struct reset_device {
    std::uint32_t device = 0;
    static constexpr const char* wire_name = "reset_device";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("device", m.device);
    }
};

struct reset_started {
    std::string outcome; // queued, refused_device_open, already_pending
    static constexpr const char* wire_name = "reset_started";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("outcome", m.outcome);
    }
};

// The firmware's HBM repair state (driver-sysfs.md §6, misc-RAM 0x64):
// 0 none pending, 1 pending repair, 2 repair failed. Trainium2 only.
struct set_repair_state {
    std::uint32_t device = 0;
    std::uint32_t state = 0;
    static constexpr const char* wire_name = "set_repair_state";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("device", m.device);
        v("state", m.state);
    }
    void validate() const {
        if (state > 2) throw protocol_error("set_repair_state.state must be 0, 1 or 2");
    }
};

struct fail_resets {
    std::uint32_t device = 0;
    std::int64_t count = 1;
    static constexpr const char* wire_name = "fail_resets";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("device", m.device);
        v("count", m.count);
    }
};

struct emit_debug {
    std::uint32_t logical_core = 0; // global
    std::uint32_t count = 1;
    std::string prefix = "debug";
    std::string dtype = "float32";
    std::vector<std::uint64_t> shape{1};
    std::uint32_t pipe = 0;
    static constexpr const char* wire_name = "emit_debug";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("logical_core", m.logical_core);
        v("count", m.count);
        v("prefix", m.prefix);
        v("dtype", m.dtype);
        v("shape", m.shape, max_count{8});
        v("pipe", m.pipe);
    }
};

struct debug_emitted {
    std::uint64_t accepted = 0;  // taken into the connected stream's buffer
    std::uint64_t dropped = 0;   // refused: the buffer was full
    std::uint64_t discarded = 0; // no client connected: dropped as the runtime does
    static constexpr const char* wire_name = "debug_emitted";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("accepted", m.accepted);
        v("dropped", m.dropped);
        v("discarded", m.discarded);
    }
};

struct advance {
    std::uint64_t ns = 0;
    static constexpr const char* wire_name = "advance";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("ns", m.ns);
    }
};

struct advanced {
    std::uint64_t now_ns = 0;
    static constexpr const char* wire_name = "advanced";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("now_ns", m.now_ns);
    }
};

// The simulated time and how it moves, cheaply: the tools wait on it.
struct clock_reading {
    std::uint64_t now_ns = 0;
    bool stepped = false;
    static constexpr const char* wire_name = "clock_reading";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("now_ns", m.now_ns);
        v("stepped", m.stepped);
    }
};

} // namespace neuron::protocol
