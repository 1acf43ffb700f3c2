#include "debug_streams.h"

#include "api.h"
#include "runtime.h"

#include "neuron/runtime_api/debug_limits.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

namespace neuron::shim {
namespace {

using protocol::message_type;

constexpr std::size_t counters_page = 4096;
constexpr std::size_t header_bytes = sizeof(ndebug_stream_event_header_t);
// An event the emulator has accepted but not yet put on the socket arrives
// within microseconds; this bounds the wait if the emulator is stuck.
constexpr int in_flight_wait_ms = 5000;

} // namespace

debug_streams& debug_streams::get() {
    static debug_streams instance;
    return instance;
}

NRT_STATUS debug_streams::connect(int logical_nc_idx, int* stream_fd) {
    const char* fn = "nrt_debug_client_connect";
    if (stream_fd == nullptr) return invalid(fn, "stream_fd is NULL");
    if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
    const auto global = runtime::get().global_core(logical_nc_idx);
    if (!global) {
        return invalid(fn, "logical NeuronCore " + std::to_string(logical_nc_idx) + " is not one of this process's " +
                               std::to_string(runtime::get().session().count));
    }
    {
        std::lock_guard lock(m_mutex);
        for (const auto& [fd, s] : m_streams) {
            if (s.logical_nc == logical_nc_idx) {
                return invalid(fn, "logical NeuronCore " + std::to_string(logical_nc_idx) +
                                       " already has a debug stream client");
            }
        }
    }
    const auto session = runtime::get().session();
    auto client =
        std::make_unique<control_client>(session.control_path, protocol::peer_role::debug_stream, process_label());
    reply r;
    try {
        r = client->request(message_type::open_stream,
                            protocol::open_stream{session.token, *global, session.debug_stream_capacity},
                            message_type::stream_opened);
    } catch (const request_failed& e) {
        return invalid(fn, e.what()); // a second client, or a core not owned
    }
    if (r.passed_fd < 0) throw protocol::protocol_error("the emulator sent no counters page with the stream");
    void* page = ::mmap(nullptr, counters_page, PROT_READ | PROT_WRITE, MAP_SHARED, r.passed_fd, 0);
    ::close(r.passed_fd);
    if (page == MAP_FAILED)
        throw std::runtime_error(std::string("cannot map the stream's counters: ") + std::strerror(errno));
    // The stream is the connection itself: hand its descriptor over.
    const int fd = ::dup(client->fd());
    if (fd < 0) {
        ::munmap(page, counters_page);
        throw std::runtime_error(std::string("dup failed: ") + std::strerror(errno));
    }
    client.reset();
    std::lock_guard lock(m_mutex);
    m_streams[fd] = {logical_nc_idx, static_cast<protocol::stream_counters*>(page)};
    *stream_fd = fd;
    return NRT_SUCCESS;
}

void debug_streams::close(int stream_fd) {
    std::lock_guard lock(m_mutex);
    const auto it = m_streams.find(stream_fd);
    if (it == m_streams.end()) {
        log_error("nrt_debug_client_connect_close", "fd " + std::to_string(stream_fd) + " is not a debug stream");
        return;
    }
    ::munmap(it->second.counters, counters_page);
    ::close(stream_fd);
    m_streams.erase(it);
}

void debug_streams::close_all() {
    std::lock_guard lock(m_mutex);
    for (const auto& [fd, s] : m_streams) {
        ::munmap(s.counters, counters_page);
        ::close(fd);
    }
    m_streams.clear();
}

NRT_STATUS debug_streams::read_one(int stream_fd, ndebug_stream_event_header_t* header, void** payload) {
    const char* fn = "nrt_debug_client_read_one_event";
    if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
    if (header == nullptr || payload == nullptr) return invalid(fn, "header and payload must not be NULL");
    protocol::stream_counters* counters = nullptr;
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_streams.find(stream_fd);
        if (it == m_streams.end()) return invalid(fn, "fd " + std::to_string(stream_fd) + " is not a debug stream");
        counters = it->second.counters;
    }
    // The largest event fits: one recv takes the whole datagram, and the
    // payload is then copied out to its own block.
    thread_local const std::unique_ptr<std::uint8_t[]> buffer(new std::uint8_t[runtime_api::max_debug_event_bytes]);
    for (;;) {
        const auto size = ::recv(stream_fd, buffer.get(), runtime_api::max_debug_event_bytes, MSG_DONTWAIT | MSG_TRUNC);
        if (size < 0 && errno == EINTR) continue;
        if (size < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            // Exactly "no event waiting": none accepted that was not read.
            const auto accepted = counters->accepted.load(std::memory_order_acquire);
            if (accepted <= counters->consumed.load(std::memory_order_relaxed)) return NRT_QUEUE_EMPTY;
            pollfd p{stream_fd, POLLIN, 0};
            if (::poll(&p, 1, in_flight_wait_ms) == 0) {
                log_error(fn, "the emulator accepted an event but did not deliver it");
                return NRT_QUEUE_EMPTY;
            }
            continue;
        }
        if (size <= 0) {
            log_error(fn, size == 0 ? "the emulator closed the stream"
                                    : std::string("recv failed: ") + std::strerror(errno));
            return NRT_FAILURE;
        }
        counters->consumed.fetch_add(1, std::memory_order_release);
        if (static_cast<std::size_t>(size) < header_bytes ||
            static_cast<std::size_t>(size) > runtime_api::max_debug_event_bytes) {
            log_error(fn, "the emulator sent a malformed event");
            return NRT_FAILURE;
        }
        const auto payload_size = static_cast<std::size_t>(size) - header_bytes;
        void* data = std::malloc(payload_size > 0 ? payload_size : 1);
        if (data == nullptr) {
            log_error(fn, "no memory for an event's payload: the event is lost");
            return NRT_RESOURCE;
        }
        std::memcpy(header, buffer.get(), header_bytes);
        if (payload_size > 0) std::memcpy(data, buffer.get() + header_bytes, payload_size);
        *payload = data;
        return NRT_SUCCESS;
    }
}

} // namespace neuron::shim
