#pragma once

// The control channel's messages (protocol/README.md documents them). Every
// request gets exactly one reply carrying the request's id: its own reply
// type, `ok`, or `error`.

#include "neuron/protocol/nrt_status_table.h"
#include "neuron/protocol/wire.h"

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
};

// What a connection is for, declared in its hello.
enum class peer_role : std::uint8_t {
    runtime = 1,      // a libnrt shim: one per process; closing it ends the session
    control = 2,      // neuron-emu ctl and test harnesses
    debug_stream = 3, // one logical core's debug events, read by the application
};

// The largest tensor a device print carries (model files and emit_debug);
// a debug-stream datagram is at most the 64-byte event header, the 1024-byte
// tensor-read struct and this.
inline constexpr std::size_t max_debug_tensor_bytes = std::size_t{1} << 20;
inline constexpr std::size_t max_debug_event_bytes = 64 + 1024 + max_debug_tensor_bytes;

struct hello {
    peer_role role = peer_role::runtime;
    std::uint32_t pid = 0;
    std::string label;
    void encode(wire_writer& w) const {
        w.u8(static_cast<std::uint8_t>(role));
        w.u32(pid);
        w.string(label);
    }
    static hello decode(wire_reader& r) {
        hello m;
        const auto role = r.u8("hello.role");
        if (role < 1 || role > 3) throw protocol_error("hello: unknown role " + std::to_string(role));
        m.role = static_cast<peer_role>(role);
        m.pid = r.u32("hello.pid");
        m.label = r.string("hello.label");
        return m;
    }
};

struct hello_ok {
    std::string server;   // "neuron-emu 0.1.0"
    std::string instance; // "trn1.2xlarge"
    void encode(wire_writer& w) const {
        w.string(server);
        w.string(instance);
    }
    static hello_ok decode(wire_reader& r) {
        hello_ok m;
        m.server = r.string("hello_ok.server");
        m.instance = r.string("hello_ok.instance");
        return m;
    }
};

struct error_reply {
    // An NRT_STATUS (nrt_status::failure, invalid or resource), so the shim
    // can return it as it is.
    std::uint32_t code = nrt_status::failure;
    std::string message;
    void encode(wire_writer& w) const {
        w.u32(code);
        w.string(message);
    }
    static error_reply decode(wire_reader& r) {
        error_reply m;
        m.code = r.u32("error.code");
        m.message = r.string("error.message");
        return m;
    }
};

struct instance_description {
    std::string name;              // "trn2.48xlarge"
    std::uint32_t family = 0;      // nrt_instance_info_t.family
    std::uint32_t size = 0;        // nrt_instance_info_t.size
    std::string arch_name;
    std::string device_revision;
    std::string device_name;       // "Trainium2"
    std::uint32_t device_count = 0;
    std::uint32_t physical_cores_per_device = 0;
    std::uint32_t default_lnc = 1; // logical NeuronCore size when NEURON_LOGICAL_NC_CONFIG is unset
    std::uint32_t max_lnc = 1;     // 2 on Trainium2
    std::uint64_t device_memory_bytes = 0;
    void encode(wire_writer& w) const {
        w.string(name);
        w.u32(family);
        w.u32(size);
        w.string(arch_name);
        w.string(device_revision);
        w.string(device_name);
        w.u32(device_count);
        w.u32(physical_cores_per_device);
        w.u32(default_lnc);
        w.u32(max_lnc);
        w.u64(device_memory_bytes);
    }
    static instance_description decode(wire_reader& r) {
        instance_description m;
        m.name = r.string("instance.name");
        m.family = r.u32("instance.family");
        m.size = r.u32("instance.size");
        m.arch_name = r.string("instance.arch_name");
        m.device_revision = r.string("instance.device_revision");
        m.device_name = r.string("instance.device_name");
        m.device_count = r.u32("instance.device_count");
        m.physical_cores_per_device = r.u32("instance.physical_cores_per_device");
        m.default_lnc = r.u32("instance.default_lnc");
        m.max_lnc = r.u32("instance.max_lnc");
        m.device_memory_bytes = r.u64("instance.device_memory_bytes");
        return m;
    }
};

// Which logical cores a runtime asks for (NEURON_RT_VISIBLE_CORES / _NUM_CORES).
enum class core_selection : std::uint8_t { all_free = 0, count = 1, range = 2 };

struct open_session {
    std::uint32_t lnc = 1;
    core_selection selection = core_selection::all_free;
    std::uint32_t first = 0; // range: first global logical core
    std::uint32_t count = 0; // range or count: how many
    void encode(wire_writer& w) const {
        w.u32(lnc);
        w.u8(static_cast<std::uint8_t>(selection));
        w.u32(first);
        w.u32(count);
    }
    static open_session decode(wire_reader& r) {
        open_session m;
        m.lnc = r.u32("open_session.lnc");
        const auto selection = r.u8("open_session.selection");
        if (selection > 2) throw protocol_error("open_session: unknown core selection");
        m.selection = static_cast<core_selection>(selection);
        m.first = r.u32("open_session.first");
        m.count = r.u32("open_session.count");
        return m;
    }
};

struct session_opened {
    std::uint64_t token = 0;   // names the session to its debug-stream connections
    std::uint32_t lnc = 1;
    std::uint32_t first = 0;   // first owned global logical core
    std::uint32_t count = 0;
    void encode(wire_writer& w) const {
        w.u64(token);
        w.u32(lnc);
        w.u32(first);
        w.u32(count);
    }
    static session_opened decode(wire_reader& r) {
        session_opened m;
        m.token = r.u64("session_opened.token");
        m.lnc = r.u32("session_opened.lnc");
        m.first = r.u32("session_opened.first");
        m.count = r.u32("session_opened.count");
        return m;
    }
};

enum class memory_location : std::uint8_t { host = 0, device = 1 };

struct allocate {
    std::uint32_t logical_core = 0; // global index, owned by the session
    memory_location location = memory_location::device;
    std::uint32_t mem_type = 0;     // the driver's mem_alloc_category_t
    std::uint64_t size = 0;
    void encode(wire_writer& w) const {
        w.u32(logical_core);
        w.u8(static_cast<std::uint8_t>(location));
        w.u32(mem_type);
        w.u64(size);
    }
    static allocate decode(wire_reader& r) {
        allocate m;
        m.logical_core = r.u32("allocate.logical_core");
        const auto location = r.u8("allocate.location");
        if (location > 1) throw protocol_error("allocate: unknown memory location");
        m.location = static_cast<memory_location>(location);
        m.mem_type = r.u32("allocate.mem_type");
        m.size = r.u64("allocate.size");
        return m;
    }
};

struct allocated {
    std::uint64_t id = 0;
    void encode(wire_writer& w) const { w.u64(id); }
    static allocated decode(wire_reader& r) { return {r.u64("allocated.id")}; }
};

struct free_memory {
    std::uint64_t id = 0;
    void encode(wire_writer& w) const { w.u64(id); }
    static free_memory decode(wire_reader& r) { return {r.u64("free_memory.id")}; }
};

// The largest model file nrt_load sends (runtime_shim/MODEL_FILE.md); the
// server and check-model refuse larger ones alike.
inline constexpr std::size_t max_model_file_bytes = 128 * 1024;

struct load_model {
    std::int32_t logical_core = -1; // global index; -1: the session's first core
    std::string bytes;              // the emulated model file
    void encode(wire_writer& w) const {
        w.i32(logical_core);
        w.string(bytes);
    }
    static load_model decode(wire_reader& r) {
        load_model m;
        m.logical_core = r.i32("load_model.logical_core");
        m.bytes = r.string("load_model.bytes");
        return m;
    }
};

enum class tensor_usage : std::uint8_t { input = 0, output = 1 };
// How an execution fills an output from the inputs, so data paths can be checked.
enum class output_rule : std::uint8_t { none = 0, copy = 1, sum = 2, fill = 3 };

struct model_tensor {
    std::string name;
    tensor_usage usage = tensor_usage::input;
    std::uint32_t dtype = 0; // nrt_dtype_t
    std::vector<std::uint64_t> shape;
    std::uint64_t size = 0;  // bytes
    output_rule rule = output_rule::none;
    std::vector<std::string> sources; // inputs the rule reads
    double fill_value = 0;
    void encode(wire_writer& w) const {
        w.string(name);
        w.u8(static_cast<std::uint8_t>(usage));
        w.u32(dtype);
        w.u32(static_cast<std::uint32_t>(shape.size()));
        for (auto d : shape) w.u64(d);
        w.u64(size);
        w.u8(static_cast<std::uint8_t>(rule));
        w.u32(static_cast<std::uint32_t>(sources.size()));
        for (const auto& s : sources) w.string(s);
        w.f64(fill_value);
    }
    static model_tensor decode(wire_reader& r) {
        model_tensor m;
        m.name = r.string("tensor.name");
        const auto usage = r.u8("tensor.usage");
        if (usage > 1) throw protocol_error("tensor: unknown usage");
        m.usage = static_cast<tensor_usage>(usage);
        m.dtype = r.u32("tensor.dtype");
        const auto dims = r.u32("tensor.ndim");
        if (dims > 8) throw protocol_error("tensor: more than 8 dimensions");
        for (std::uint32_t i = 0; i < dims; ++i) m.shape.push_back(r.u64("tensor.shape"));
        m.size = r.u64("tensor.size");
        const auto rule = r.u8("tensor.rule");
        if (rule > 3) throw protocol_error("tensor: unknown output rule");
        m.rule = static_cast<output_rule>(rule);
        const auto sources = r.u32("tensor.sources");
        if (sources > 64) throw protocol_error("tensor: too many rule sources");
        for (std::uint32_t i = 0; i < sources; ++i) m.sources.push_back(r.string("tensor.source"));
        m.fill_value = r.f64("tensor.fill_value");
        return m;
    }
};

struct model_loaded {
    std::uint32_t model_id = 0;
    std::uint32_t logical_core = 0; // global
    std::string name;
    std::vector<model_tensor> tensors;
    void encode(wire_writer& w) const {
        w.u32(model_id);
        w.u32(logical_core);
        w.string(name);
        w.u32(static_cast<std::uint32_t>(tensors.size()));
        for (const auto& t : tensors) t.encode(w);
    }
    static model_loaded decode(wire_reader& r) {
        model_loaded m;
        m.model_id = r.u32("model_loaded.model_id");
        m.logical_core = r.u32("model_loaded.logical_core");
        m.name = r.string("model_loaded.name");
        const auto count = r.u32("model_loaded.tensor_count");
        if (count > 4096) throw protocol_error("model_loaded: too many tensors");
        for (std::uint32_t i = 0; i < count; ++i) m.tensors.push_back(model_tensor::decode(r));
        return m;
    }
};

struct unload_model {
    std::uint32_t model_id = 0;
    void encode(wire_writer& w) const { w.u32(model_id); }
    static unload_model decode(wire_reader& r) { return {r.u32("unload_model.model_id")}; }
};

struct execute {
    std::uint32_t model_id = 0;
    std::uint32_t repeat = 1;
    std::uint64_t timeout_ns = 0; // NEURON_RT_EXEC_TIMEOUT; 0: the runtime's default
    void encode(wire_writer& w) const {
        w.u32(model_id);
        w.u32(repeat);
        w.u64(timeout_ns);
    }
    static execute decode(wire_reader& r) {
        execute m;
        m.model_id = r.u32("execute.model_id");
        m.repeat = r.u32("execute.repeat");
        m.timeout_ns = r.u64("execute.timeout_ns");
        return m;
    }
};

struct executed {
    std::uint32_t status = 0; // NRT_STATUS of the execution (of the first failing repeat)
    std::uint32_t completed = 0;
    std::uint32_t dma_engine = 0; // the DMA engine a DMA abort struck
    void encode(wire_writer& w) const {
        w.u32(status);
        w.u32(completed);
        w.u32(dma_engine);
    }
    static executed decode(wire_reader& r) {
        executed m;
        m.status = r.u32("executed.status");
        m.completed = r.u32("executed.completed");
        m.dma_engine = r.u32("executed.dma_engine");
        return m;
    }
};

struct open_stream {
    std::uint64_t token = 0;        // the owning session's
    std::uint32_t logical_core = 0; // global
    std::uint32_t capacity = 65536; // events the stream buffers
    void encode(wire_writer& w) const {
        w.u64(token);
        w.u32(logical_core);
        w.u32(capacity);
    }
    static open_stream decode(wire_reader& r) {
        open_stream m;
        m.token = r.u64("open_stream.token");
        m.logical_core = r.u32("open_stream.logical_core");
        m.capacity = r.u32("open_stream.capacity");
        return m;
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

struct status_report {
    std::string json;
    void encode(wire_writer& w) const { w.string(json); }
    static status_report decode(wire_reader& r) { return {r.string("status.json")}; }
};

struct inject_ecc {
    std::uint32_t device = 0;
    std::string kind;        // sram, hbm, hbm-repairable, sram-corrected, hbm-corrected
    std::int64_t count = 1;
    std::int32_t channel = -1; // -1: the default channel
    void encode(wire_writer& w) const {
        w.u32(device);
        w.string(kind);
        w.i64(count);
        w.i32(channel);
    }
    static inject_ecc decode(wire_reader& r) {
        inject_ecc m;
        m.device = r.u32("inject_ecc.device");
        m.kind = r.string("inject_ecc.kind");
        m.count = r.i64("inject_ecc.count");
        m.channel = r.i32("inject_ecc.channel");
        return m;
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
    void encode(wire_writer& w) const {
        w.u32(device);
        w.i32(core);
        w.string(kind);
        w.string(engine);
        w.i32(queue);
    }
    static inject_fault decode(wire_reader& r) {
        inject_fault m;
        m.device = r.u32("inject_fault.device");
        m.core = r.i32("inject_fault.core");
        m.kind = r.string("inject_fault.kind");
        m.engine = r.string("inject_fault.engine");
        m.queue = r.i32("inject_fault.queue");
        return m;
    }
};

struct reset_device {
    std::uint32_t device = 0;
    void encode(wire_writer& w) const { w.u32(device); }
    static reset_device decode(wire_reader& r) { return {r.u32("reset_device.device")}; }
};

struct reset_started {
    std::string outcome; // queued, refused_device_open, already_pending
    void encode(wire_writer& w) const { w.string(outcome); }
    static reset_started decode(wire_reader& r) { return {r.string("reset_started.outcome")}; }
};

// The firmware's HBM repair state (driver-sysfs.md §6, misc-RAM 0x64):
// 0 none pending, 1 pending repair, 2 repair failed. Trainium2 only.
struct set_repair_state {
    std::uint32_t device = 0;
    std::uint32_t state = 0;
    void encode(wire_writer& w) const {
        w.u32(device);
        w.u32(state);
    }
    static set_repair_state decode(wire_reader& r) {
        set_repair_state m;
        m.device = r.u32("set_repair_state.device");
        m.state = r.u32("set_repair_state.state");
        if (m.state > 2) throw protocol_error("set_repair_state.state must be 0, 1 or 2");
        return m;
    }
};

struct fail_resets {
    std::uint32_t device = 0;
    std::int64_t count = 1;
    void encode(wire_writer& w) const {
        w.u32(device);
        w.i64(count);
    }
    static fail_resets decode(wire_reader& r) {
        fail_resets m;
        m.device = r.u32("fail_resets.device");
        m.count = r.i64("fail_resets.count");
        return m;
    }
};

struct emit_debug {
    std::uint32_t logical_core = 0; // global
    std::uint32_t count = 1;
    std::string prefix = "debug";
    std::string dtype = "float32";
    std::vector<std::uint64_t> shape{1};
    std::uint32_t pipe = 0;
    void encode(wire_writer& w) const {
        w.u32(logical_core);
        w.u32(count);
        w.string(prefix);
        w.string(dtype);
        w.u32(static_cast<std::uint32_t>(shape.size()));
        for (auto d : shape) w.u64(d);
        w.u32(pipe);
    }
    static emit_debug decode(wire_reader& r) {
        emit_debug m;
        m.logical_core = r.u32("emit_debug.logical_core");
        m.count = r.u32("emit_debug.count");
        m.prefix = r.string("emit_debug.prefix");
        m.dtype = r.string("emit_debug.dtype");
        const auto dims = r.u32("emit_debug.ndim");
        if (dims > 8) throw protocol_error("emit_debug: more than 8 dimensions");
        m.shape.clear();
        for (std::uint32_t i = 0; i < dims; ++i) m.shape.push_back(r.u64("emit_debug.shape"));
        m.pipe = r.u32("emit_debug.pipe");
        return m;
    }
};

struct debug_emitted {
    std::uint64_t accepted = 0;  // taken into the connected stream's buffer
    std::uint64_t dropped = 0;   // refused: the buffer was full
    std::uint64_t discarded = 0; // no client connected: dropped as the runtime does
    void encode(wire_writer& w) const {
        w.u64(accepted);
        w.u64(dropped);
        w.u64(discarded);
    }
    static debug_emitted decode(wire_reader& r) {
        debug_emitted m;
        m.accepted = r.u64("debug_emitted.accepted");
        m.dropped = r.u64("debug_emitted.dropped");
        m.discarded = r.u64("debug_emitted.discarded");
        return m;
    }
};

struct advance {
    std::uint64_t ns = 0;
    void encode(wire_writer& w) const { w.u64(ns); }
    static advance decode(wire_reader& r) { return {r.u64("advance.ns")}; }
};

struct advanced {
    std::uint64_t now_ns = 0;
    void encode(wire_writer& w) const { w.u64(now_ns); }
    static advanced decode(wire_reader& r) { return {r.u64("advanced.now_ns")}; }
};

// A whole message: header, then the body `body` encodes to.
template <typename Body>
std::vector<std::uint8_t> make_message(message_type type, std::uint32_t request_id, const Body& body) {
    wire_writer payload;
    body.encode(payload);
    wire_writer out;
    encode_header(out, {wire_magic, wire_version, static_cast<std::uint16_t>(type), request_id,
                        static_cast<std::uint32_t>(payload.bytes().size())});
    out.bytes().insert(out.bytes().end(), payload.bytes().begin(), payload.bytes().end());
    return std::move(out.bytes());
}

struct empty_body {
    void encode(wire_writer&) const {}
    static empty_body decode(wire_reader&) { return {}; }
};

// Decodes the whole body as `Body`, refusing trailing bytes.
template <typename Body>
Body decode_body(const std::uint8_t* body, std::size_t size, const char* name) {
    wire_reader in(body, size);
    auto m = Body::decode(in);
    in.expect_end(name);
    return m;
}

} // namespace neuron::protocol
