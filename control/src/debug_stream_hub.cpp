#include "neuron/control/debug_stream_hub.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <malloc.h>
#include <new>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <utility>

namespace neuron::control {
namespace {

constexpr std::size_t counters_page = 4096;
// A stream socket must carry the largest event in one datagram (1 MiB of
// tensor data plus headers); unix sockets bound datagrams by the send buffer.
constexpr int stream_send_buffer = 4 << 20;
constexpr std::size_t send_batch = 64;
// A closing stream that held this much hands the memory back to the system.
constexpr std::uint64_t trim_threshold = 8u << 20;

// Events are allocated on the kernel thread and freed on the I/O thread;
// glibc keeps such memory in the kernel thread's arena unless asked to
// return it, so a large stream that went away would pin it for good.
void give_back(std::uint64_t released_bytes) {
    if (released_bytes >= trim_threshold) ::malloc_trim(0);
}

// A unix datagram socket refuses (EMSGSIZE) a datagram larger than its send
// buffer less 32 bytes (the kernel's unix_dgram_sendmsg).
int send_buffer_of(int socket_fd) {
    int size = 0;
    socklen_t length = sizeof(size);
    return ::getsockopt(socket_fd, SOL_SOCKET, SO_SNDBUF, &size, &length) == 0 ? size : 0;
}

std::size_t largest_datagram(int send_buffer) {
    return send_buffer > 32 ? static_cast<std::size_t>(send_buffer) - 32 : 0;
}

void put_u32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) { std::memcpy(b.data() + at, &v, 4); }
void put_u64(std::vector<std::uint8_t>& b, std::size_t at, std::uint64_t v) { std::memcpy(b.data() + at, &v, 8); }
void put_text(std::vector<std::uint8_t>& b, std::size_t at, std::string_view text, std::size_t field) {
    const auto n = std::min(text.size(), field - 1); // always NUL-terminated
    std::memcpy(b.data() + at, text.data(), n);
}

} // namespace

std::vector<std::uint8_t> encode_debug_event(const model::debug_event& event, std::uint32_t logical_nc_id) {
    const std::size_t payload = debug_tensor_read_size + event.data.size();
    std::vector<std::uint8_t> out(debug_event_header_size + payload, 0);
    // ndebug_stream_event_header_t: data_size@0, type@8, reserved@12
    put_u64(out, 0, payload);
    put_u32(out, 8, 1); // NDEBUG_STREAM_EVENT_TYPE_DEBUG_TENSOR_READ
    // ndebug_stream_payload_debug_tensor_read_t: prefix@0, logical_nc_id@512,
    // pipe@516, tensor_dtype@520, tensor_shape@536, tensor_data_size@600, tensor_data@1024
    const auto p = debug_event_header_size;
    put_text(out, p + 0, event.prefix, 512);
    put_u32(out, p + 512, logical_nc_id);
    put_u32(out, p + 516, event.pipe);
    put_text(out, p + 520, event.dtype, 16);
    for (std::size_t i = 0; i < std::min<std::size_t>(event.shape.size(), 8); ++i)
        put_u64(out, p + 536 + 8 * i, event.shape[i]);
    put_u64(out, p + 600, event.data.size());
    if (!event.data.empty()) std::memcpy(out.data() + p + debug_tensor_read_size, event.data.data(), event.data.size());
    return out;
}

struct debug_stream_hub::stream {
    std::uint64_t token = 0;
    std::uint32_t logical = 0;
    std::uint32_t first = 0;
    std::uint32_t capacity = 0;
    int socket_fd = -1;
    std::size_t max_datagram = 0; // what the socket can carry in one datagram
    // The server's own counts; the shared page only shows them to the client,
    // which can write anything there.
    std::uint64_t accepted = 0;
    std::uint64_t dropped = 0;
    protocol::stream_counters* counters = nullptr; // in the shared page

    // What the client says it read: never more than it was given.
    std::uint64_t consumed() const { return std::min(counters->consumed.load(std::memory_order_acquire), accepted); }
    void publish() {
        counters->dropped.store(dropped, std::memory_order_relaxed);
        counters->accepted.store(accepted, std::memory_order_release);
    }
    std::deque<std::vector<std::uint8_t>> outbox;
    std::uint64_t queued_bytes = 0; // in the outbox or being sent
};

debug_stream_hub::debug_stream_hub(std::function<void()> wake, stream_limits limits)
        : m_wake(std::move(wake)), m_limits(limits) {}

debug_stream_hub::~debug_stream_hub() {
    std::lock_guard lock(m_mutex);
    for (auto& [id, s] : m_streams) ::munmap(s->counters, counters_page);
}

void debug_stream_hub::assign(std::uint64_t token, const model::logical_cores& cores, std::uint32_t first,
                              std::uint32_t count) {
    std::lock_guard lock(m_mutex);
    m_sessions.insert_or_assign(token, session_cores{first, count});
    for (std::uint32_t l = first; l < first + count; ++l) {
        for (const auto& p : cores.physical(l)) m_core_owners[core_key(p.device, p.core)] = {token, l, first};
    }
}

void debug_stream_hub::unassign(std::uint64_t token) {
    std::lock_guard lock(m_mutex);
    std::erase_if(m_core_owners, [token](const auto& entry) { return entry.second.token == token; });
    std::erase_if(m_discarded, [token](const auto& entry) { return entry.first.first == token; });
    m_sessions.erase(token);
}

int debug_stream_hub::open(std::uint64_t connection, int socket_fd, std::uint64_t token, std::uint32_t logical_core,
                           std::uint32_t capacity) {
    std::lock_guard lock(m_mutex);
    const auto session = m_sessions.find(token);
    if (session == m_sessions.end()) throw stream_refused("the stream names no open runtime session");
    const auto& owned = session->second;
    if (logical_core < owned.first) {
        // Only a malformed request gets here: its core has no local number.
        throw stream_refused(fmt::format("logical NeuronCore {} of the instance is not owned by this process (it owns "
                                         "{}..{} of the instance)",
                                         logical_core, owned.first, owned.first + owned.count - 1));
    }
    if (logical_core >= owned.first + owned.count) {
        throw stream_refused(fmt::format("logical NeuronCore {} is not owned by this process (it owns {}..{})",
                                         logical_core - owned.first, 0, owned.count - 1));
    }
    if (m_by_core.contains({token, logical_core})) {
        throw stream_refused(
            fmt::format("logical NeuronCore {} already has a debug stream client", logical_core - owned.first));
    }
    if (capacity == 0) throw stream_refused("a debug stream needs room for at least one event");
    const int memfd = ::memfd_create("neuron-emu-debug-stream", MFD_CLOEXEC);
    if (memfd < 0) throw stream_refused(fmt::format("memfd_create failed: {}", std::strerror(errno)));
    void* page = MAP_FAILED;
    if (::ftruncate(memfd, counters_page) == 0) {
        page = ::mmap(nullptr, counters_page, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    }
    if (page == MAP_FAILED) {
        const int error = errno;
        ::close(memfd);
        throw stream_refused(fmt::format("cannot map the stream's counters: {}", std::strerror(error)));
    }
    if (::setsockopt(socket_fd, SOL_SOCKET, SO_SNDBUFFORCE, &stream_send_buffer, sizeof(stream_send_buffer)) != 0) {
        ::setsockopt(socket_fd, SOL_SOCKET, SO_SNDBUF, &stream_send_buffer, sizeof(stream_send_buffer));
    }
    auto s = std::make_unique<stream>();
    s->token = token;
    s->logical = logical_core;
    s->first = owned.first;
    s->capacity = capacity;
    s->socket_fd = socket_fd;
    s->max_datagram = largest_datagram(send_buffer_of(socket_fd));
    s->counters = new (page) protocol::stream_counters{};
    s->counters->accepted.store(0);
    s->counters->consumed.store(0);
    s->counters->dropped.store(0);
    m_streams[connection] = std::move(s);
    m_by_core[{token, logical_core}] = connection;
    return memfd;
}

void debug_stream_hub::close(std::uint64_t connection) {
    std::uint64_t released = 0;
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_streams.find(connection);
        if (it == m_streams.end()) return;
        m_by_core.erase({it->second->token, it->second->logical});
        released = it->second->queued_bytes;
        m_queued_bytes -= released;
        ::munmap(it->second->counters, counters_page);
        m_streams.erase(it);
    }
    give_back(released);
}

model::debug_delivery debug_stream_hub::deliver(model::debug_event&& event) {
    bool wake = false;
    model::debug_delivery outcome = model::debug_delivery::discarded;
    {
        std::lock_guard lock(m_mutex);
        const auto owner = m_core_owners.find(core_key(event.device, event.core));
        if (owner == m_core_owners.end()) return model::debug_delivery::discarded;
        const auto& o = owner->second;
        const auto by_core = m_by_core.find({o.token, o.logical});
        if (by_core == m_by_core.end()) {
            ++m_discarded[{o.token, o.logical}]; // before connect: dropped, as the runtime does
            return model::debug_delivery::discarded;
        }
        auto& s = *m_streams.at(by_core->second);
        if (s.accepted - s.consumed() >= s.capacity) {
            ++s.dropped;
            s.publish();
            return model::debug_delivery::dropped;
        }
        const auto size = debug_event_header_size + debug_tensor_read_size + event.data.size();
        // It could never reach the client, or the server holds all it may
        // for this stream or for all of them: refused like an event with no room.
        if (size > s.max_datagram || s.queued_bytes + size > m_limits.per_stream_bytes ||
            m_queued_bytes + size > m_limits.total_bytes) {
            ++s.dropped;
            s.publish();
            return model::debug_delivery::dropped;
        }
        s.outbox.push_back(encode_debug_event(event, o.logical - o.first));
        s.queued_bytes += size;
        m_queued_bytes += size;
        ++s.accepted;
        s.publish();
        outcome = model::debug_delivery::accepted;
        if (s.outbox.size() == 1) {
            m_ready.push_back(by_core->second);
            wake = true;
        }
    }
    if (wake) m_wake();
    return outcome;
}

std::vector<std::uint64_t> debug_stream_hub::take_ready() {
    std::lock_guard lock(m_mutex);
    return std::exchange(m_ready, {});
}

bool debug_stream_hub::flush(std::uint64_t connection) {
    std::deque<std::vector<std::uint8_t>> sending;
    int fd = -1;
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_streams.find(connection);
        if (it == m_streams.end()) return false;
        sending.swap(it->second->outbox);
        fd = it->second->socket_fd;
    }
    bool blocked = false;
    std::uint64_t too_large = 0;
    bool shrunk = false;
    std::size_t abandoned = 0;  // events, when the client is gone
    std::uint64_t released = 0; // bytes sent, or given up on
    const auto release_front = [&](std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) released += sending[i].size();
        sending.erase(sending.begin(), sending.begin() + static_cast<std::ptrdiff_t>(n));
    };
    while (!sending.empty()) {
        // Up to send_batch datagrams per system call: a stream carries
        // hundreds of thousands of events a second.
        std::array<iovec, send_batch> parts{};
        std::array<mmsghdr, send_batch> messages{};
        const auto count = std::min(sending.size(), send_batch);
        for (std::size_t i = 0; i < count; ++i) {
            parts[i] = {sending[i].data(), sending[i].size()};
            messages[i].msg_hdr.msg_iov = &parts[i];
            messages[i].msg_hdr.msg_iovlen = 1;
        }
        const int sent = ::sendmmsg(fd, messages.data(), static_cast<unsigned>(count), MSG_DONTWAIT | MSG_NOSIGNAL);
        if (sent > 0) {
            release_front(static_cast<std::size_t>(sent));
            continue; // a short count: the next call reports why the rest stopped
        }
        if (sent < 0 && errno == EINTR) continue;
        if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            blocked = true;
            break;
        }
        if (sent < 0 && (errno == EMSGSIZE || errno == ENOBUFS)) {
            // The socket's buffer shrank below this event after it was
            // accepted, or the kernel had no memory for it: this one is lost.
            shrunk = shrunk || errno == EMSGSIZE;
            ++too_large;
            release_front(1);
            continue;
        }
        abandoned = sending.size();
        release_front(sending.size()); // the client is gone; its hang-up closes the stream
        break;
    }
    std::unique_lock lock(m_mutex);
    const auto it = m_streams.find(connection);
    if (it == m_streams.end()) return false;
    it->second->queued_bytes -= released;
    m_queued_bytes -= released;
    if (too_large > 0) {
        // Taken back from accepted (under the lock deliver() counts with), so
        // the client never waits for an event that will not come.
        it->second->accepted -= too_large;
        it->second->dropped += too_large;
        it->second->publish();
    }
    if (shrunk) it->second->max_datagram = largest_datagram(send_buffer_of(fd));
    auto& outbox = it->second->outbox;
    // What could not be sent goes back in front of what arrived meanwhile.
    outbox.insert(outbox.begin(), std::make_move_iterator(sending.begin()), std::make_move_iterator(sending.end()));
    if (abandoned > 0) {
        lock.unlock();
        give_back(released);
    }
    return blocked; // events that arrived meanwhile were announced through take_ready()
}

std::uint64_t debug_stream_hub::queued_bytes() const {
    std::lock_guard lock(m_mutex);
    return m_queued_bytes;
}

std::vector<stream_status> debug_stream_hub::status() const {
    std::lock_guard lock(m_mutex);
    std::vector<stream_status> out;
    for (const auto& [token, owned] : m_sessions) {
        for (std::uint32_t l = owned.first; l < owned.first + owned.count; ++l) {
            stream_status st;
            st.token = token;
            st.logical_core = l;
            if (const auto d = m_discarded.find({token, l}); d != m_discarded.end()) st.discarded = d->second;
            if (const auto c = m_by_core.find({token, l}); c != m_by_core.end()) {
                const auto& s = *m_streams.at(c->second);
                st.connected = true;
                st.capacity = s.capacity;
                st.accepted = s.accepted;
                st.consumed = s.consumed();
                st.fill = st.accepted - st.consumed;
                st.dropped = s.dropped;
                st.queued_bytes = s.queued_bytes;
            }
            out.push_back(st);
        }
    }
    return out;
}

} // namespace neuron::control
