#pragma once

#include "neuron/model/spec/logical_cores.h"
#include "neuron/model/state/debug_event.h"
#include "neuron/protocol/messages.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <vector>

namespace neuron::control {

// A stream cannot be opened: the reason, for the runtime's log.
class stream_refused : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What the server buffers for debug-stream clients that do not keep up,
// whatever capacity they asked for and whatever they write to their shared
// counters: an event past either bound is dropped and counted.
struct stream_limits {
    std::size_t per_stream_bytes = std::size_t{128} << 20;
    std::size_t total_bytes = std::size_t{256} << 20;
};

struct stream_status {
    std::uint64_t token = 0;
    std::uint32_t logical_core = 0; // global
    bool connected = false;
    std::uint32_t capacity = 0;
    std::uint64_t accepted = 0;
    std::uint64_t consumed = 0;
    std::uint64_t fill = 0;         // accepted and not yet read
    std::uint64_t dropped = 0;      // refused with a full buffer
    std::uint64_t discarded = 0;    // emitted while no client was connected
    std::uint64_t queued_bytes = 0; // accepted and still in the server
};

// The server side of the runtime's debug streams (nrt-api.md §2): one per
// logical core of a runtime session, at most one client each. The model's
// debug-event sink runs on the kernel thread: it decides there, exactly,
// whether an event enters the stream's buffer (accepted - consumed below
// the capacity) or is dropped, and queues accepted events for the I/O
// thread, which sends each as one datagram: the 64-byte event header, then
// the 1024-byte tensor-read payload and the tensor bytes.
class debug_stream_hub {
public:
    // `wake` is called (from any thread) when events wait to be sent.
    explicit debug_stream_hub(std::function<void()> wake, stream_limits limits = {});
    ~debug_stream_hub();
    debug_stream_hub(const debug_stream_hub&) = delete;
    debug_stream_hub& operator=(const debug_stream_hub&) = delete;

    // I/O thread: which logical cores a session owns (and with which LNC).
    void assign(std::uint64_t token, const model::logical_cores& cores, std::uint32_t first, std::uint32_t count);
    void unassign(std::uint64_t token);

    // I/O thread: a client connects to a stream over `socket_fd`. Returns a
    // memfd holding the stream's counters page, for the client; the caller
    // closes it once sent. Throws stream_refused.
    int open(std::uint64_t connection, int socket_fd, std::uint64_t token, std::uint32_t logical_core,
             std::uint32_t capacity);
    void close(std::uint64_t connection);
    // I/O thread: sends what waits on that stream without blocking; true when
    // some is left (the socket is full: retry once it is writable).
    bool flush(std::uint64_t connection);
    // I/O thread: the streams that got events since the last call.
    std::vector<std::uint64_t> take_ready();

    // Kernel thread: the model's debug-event sink.
    model::debug_delivery deliver(model::debug_event&& event);

    // Any thread.
    std::vector<stream_status> status() const;
    std::uint64_t queued_bytes() const;

private:
    struct stream;
    struct owner_entry {
        std::uint64_t token;
        std::uint32_t logical; // global
        std::uint32_t first;   // the session's first global logical core
    };
    struct session_cores {
        std::uint32_t first;
        std::uint32_t count;
    };
    static std::uint64_t core_key(std::uint32_t device, std::uint32_t core) {
        return (std::uint64_t{device} << 32) | core;
    }

    std::function<void()> m_wake;
    stream_limits m_limits;
    mutable std::mutex m_mutex;
    std::uint64_t m_queued_bytes = 0;                                           // over every stream
    std::map<std::uint64_t, owner_entry> m_core_owners;                         // physical core -> owner
    std::map<std::uint64_t, session_cores> m_sessions;                          // token -> its cores
    std::map<std::uint64_t, std::unique_ptr<stream>> m_streams;                 // connection -> stream
    std::map<std::pair<std::uint64_t, std::uint32_t>, std::uint64_t> m_by_core; // (token, logical) -> connection
    std::map<std::pair<std::uint64_t, std::uint32_t>, std::uint64_t> m_discarded;
    std::vector<std::uint64_t> m_ready;
};

// The datagram a debug event travels as (ndebug_stream.h layouts).
std::vector<std::uint8_t> encode_debug_event(const model::debug_event& event, std::uint32_t logical_nc_id);
inline constexpr std::size_t debug_event_header_size = 64;
inline constexpr std::size_t debug_tensor_read_size = 1024;

} // namespace neuron::control
