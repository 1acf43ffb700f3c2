#pragma once

// The control channel's messages (protocol/README.md documents them). Every
// request gets exactly one reply carrying the request's id: its own reply
// type, `ok`, or `error`. Each body lists its fields once, in wire order, in
// fields(); message_codec.h encodes and decodes from that list.

#include "neuron/protocol/collective_messages.h"
#include "neuron/protocol/control_verb_messages.h"
#include "neuron/protocol/message_codec.h"
#include "neuron/protocol/model_messages.h"
#include "neuron/protocol/profile_messages.h"
#include "neuron/protocol/wire.h"
#include "neuron/runtime_api/nrt_status_table.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace neuron::protocol {

enum class message_type : std::uint16_t {
    hello = 1,
    hello_ok = 2,
    error = 3,
    ok = 4,
    describe_instance = 10,
    instance_description = 11,
    open_session = 20,
    session_opened = 21,
    allocate = 22,
    allocated = 23,
    free_memory = 24,
    load_model = 25,
    model_loaded = 26,
    unload_model = 27,
    execute = 28,
    executed = 29,
    close_session = 30, // nrt_close: release now and answer once done
    open_stream = 40,
    stream_opened = 41,
    status = 50,
    status_report = 51,
    inject_ecc = 52,
    reset_device = 53,
    reset_started = 54,
    fail_resets = 55,
    emit_debug = 56,
    debug_emitted = 57,
    advance = 58,
    advanced = 59,
    set_repair_state = 60,
    inject_fault = 61,
    join_collective = 62,
    collective_joined = 63,
    read_profile = 64,
    profile_data = 65,
    drop_profiles = 66,
    model_piece = 67,
    read_clock = 68,
    clock_reading = 69,
};

// What a connection is for, declared in its hello.
enum class peer_role : std::uint8_t {
    runtime = 1,      // a libnrt shim: one per process; closing it ends the session
    control = 2,      // neuron-emu ctl and test harnesses
    debug_stream = 3, // one logical core's debug events, read by the application
};
constexpr enum_range<peer_role> wire_range(peer_role) { return {"role", peer_role::runtime, peer_role::debug_stream}; }

struct hello {
    peer_role role = peer_role::runtime;
    std::uint32_t pid = 0;
    std::string label;
    static constexpr const char* wire_name = "hello";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("role", m.role);
        v("pid", m.pid);
        v("label", m.label);
    }
};

struct hello_ok {
    std::string server;   // "neuron-emu 0.1.0"
    std::string instance; // "trn1.2xlarge"
    static constexpr const char* wire_name = "hello_ok";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("server", m.server);
        v("instance", m.instance);
    }
};

struct error_reply {
    // An NRT_STATUS (nrt_status::failure, invalid or resource), so the shim
    // can return it as it is.
    std::uint32_t code = runtime_api::nrt_status::failure;
    std::string message;
    static constexpr const char* wire_name = "error";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("code", m.code);
        v("message", m.message);
    }
};

struct instance_description {
    std::string name;         // "trn2.48xlarge"
    std::uint32_t family = 0; // nrt_instance_info_t.family
    std::uint32_t size = 0;   // nrt_instance_info_t.size
    std::string arch_name;
    std::string device_revision;
    std::string device_name; // "Trainium2"
    std::uint32_t device_count = 0;
    std::uint32_t physical_cores_per_device = 0;
    std::uint32_t default_lnc = 1; // logical NeuronCore size when NEURON_LOGICAL_NC_CONFIG is unset
    std::uint32_t max_lnc = 1;     // 2 on Trainium2
    std::uint64_t device_memory_bytes = 0;
    std::uint32_t memory_regions = 1; // HBM stacks (DRAM channels on inf1) per device
    static constexpr const char* wire_name = "instance_description";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("name", m.name);
        v("family", m.family);
        v("size", m.size);
        v("arch_name", m.arch_name);
        v("device_revision", m.device_revision);
        v("device_name", m.device_name);
        v("device_count", m.device_count);
        v("physical_cores_per_device", m.physical_cores_per_device);
        v("default_lnc", m.default_lnc);
        v("max_lnc", m.max_lnc);
        v("device_memory_bytes", m.device_memory_bytes);
        v("memory_regions", m.memory_regions);
    }
};

// Which logical cores a runtime asks for (NEURON_RT_VISIBLE_CORES / _NUM_CORES).
enum class core_selection : std::uint8_t { all_free = 0, count = 1, range = 2 };
constexpr enum_range<core_selection> wire_range(core_selection) {
    return {"core selection", core_selection::all_free, core_selection::range};
}

struct open_session {
    std::uint32_t lnc = 1;
    core_selection selection = core_selection::all_free;
    std::uint32_t first = 0; // range: first global logical core
    std::uint32_t count = 0; // range or count: how many
    static constexpr const char* wire_name = "open_session";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("lnc", m.lnc);
        v("selection", m.selection);
        v("first", m.first);
        v("count", m.count);
    }
};

struct session_opened {
    std::uint64_t token = 0; // names the session to its debug-stream connections
    std::uint32_t lnc = 1;
    std::uint32_t first = 0; // first owned global logical core
    std::uint32_t count = 0;
    static constexpr const char* wire_name = "session_opened";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("token", m.token);
        v("lnc", m.lnc);
        v("first", m.first);
        v("count", m.count);
    }
};

enum class memory_location : std::uint8_t { host = 0, device = 1 };
constexpr enum_range<memory_location> wire_range(memory_location) {
    return {"memory location", memory_location::host, memory_location::device};
}

struct allocate {
    std::uint32_t logical_core = 0; // global index, owned by the session
    memory_location location = memory_location::device;
    std::uint32_t mem_type = 0; // the driver's mem_alloc_category_t
    std::uint64_t size = 0;
    static constexpr const char* wire_name = "allocate";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("logical_core", m.logical_core);
        v("location", m.location);
        v("mem_type", m.mem_type);
        v("size", m.size);
    }
};

struct allocated {
    std::uint64_t id = 0;
    static constexpr const char* wire_name = "allocated";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("id", m.id);
    }
};

struct free_memory {
    std::uint64_t id = 0;
    static constexpr const char* wire_name = "free_memory";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("id", m.id);
    }
};

struct execute {
    std::uint32_t model_id = 0;
    std::uint32_t repeat = 1;
    std::uint64_t timeout_ns = 0; // NEURON_RT_EXEC_TIMEOUT; 0: the runtime's default
    bool profile = false;         // record the last repetition (executed.profile_id)
    static constexpr const char* wire_name = "execute";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("model_id", m.model_id);
        v("repeat", m.repeat);
        v("timeout_ns", m.timeout_ns);
        v("profile", m.profile);
    }
};

struct executed {
    std::uint32_t status = 0; // NRT_STATUS of the execution (of the first failing repeat)
    std::uint32_t completed = 0;
    std::uint32_t dma_engine = 0;  // the DMA engine a DMA abort struck
    std::uint64_t ended_ns = 0;    // simulated time when the last repetition ended
    std::uint64_t duration_ns = 0; // from each repetition's start to its end, summed
    std::uint32_t profile_id = 0;  // the recorded repetition, kept for read_profile; 0: none
    static constexpr const char* wire_name = "executed";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("status", m.status);
        v("completed", m.completed);
        v("dma_engine", m.dma_engine);
        v("ended_ns", m.ended_ns);
        v("duration_ns", m.duration_ns);
        v("profile_id", m.profile_id);
    }
};

struct open_stream {
    std::uint64_t token = 0;        // the owning session's
    std::uint32_t logical_core = 0; // global
    std::uint32_t capacity = 65536; // events the stream buffers
    static constexpr const char* wire_name = "open_stream";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("token", m.token);
        v("logical_core", m.logical_core);
        v("capacity", m.capacity);
    }
};

// A debug stream's counters, in a page both sides map (the stream_opened
// reply carries its memfd). The server alone decides what enters the
// buffer, so drops are exact: an event is refused when accepted - consumed
// reaches the capacity.
struct stream_counters {
    std::atomic<std::uint64_t> accepted; // server: events taken into the buffer
    std::atomic<std::uint64_t> consumed; // runtime: events the application read
    std::atomic<std::uint64_t> dropped;  // server: events refused, the buffer being full
};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "counters are shared between processes");

// The body of ok, describe_instance, close_session, stream_opened and status.
struct empty_body {
    static constexpr const char* wire_name = "empty_body";
    template <typename Self, typename Visit>
    static void fields(Self&, Visit&&) {}
};

// A whole message: header, then the body `body` encodes to.
template <described_message Body>
std::vector<std::uint8_t> make_message(message_type type, std::uint32_t request_id, const Body& body) {
    wire_writer payload;
    encode_fields(payload, body);
    wire_writer out;
    encode_header(out, {wire_magic, wire_version, static_cast<std::uint16_t>(type), request_id,
                        static_cast<std::uint32_t>(payload.bytes().size())});
    out.bytes().insert(out.bytes().end(), payload.bytes().begin(), payload.bytes().end());
    return std::move(out.bytes());
}

// Decodes the whole body as `Body`, refusing trailing bytes.
template <described_message Body>
Body decode_body(const std::uint8_t* body, std::size_t size, const char* name) {
    wire_reader in(body, size);
    auto m = decode_fields<Body>(in);
    in.expect_end(name);
    return m;
}

static_assert(wire_enum<peer_role> && wire_enum<core_selection> && wire_enum<memory_location> &&
              wire_enum<tensor_usage> && wire_enum<output_rule>);

} // namespace neuron::protocol
