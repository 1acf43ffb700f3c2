// The control server, driven over its socket as hostile clients would. One
// model (stepped time, trn2.3xlarge; SystemC allows one per process) and one
// control_server live for the whole run. Each input is a script of actions
// (read front to back, one byte picks the action, the next ones its values):
//
//   0 connect   byte: 0 runtime, 1 control, 2 debug_stream hello (then the
//               hello's pid and label), 3 a bare connection, each made by
//               this process, or (bit 7 set) by the second process
//               (second_process.h; another user when run as root); it
//               becomes current
//   1 select    byte: which open connection is current
//   2 request   byte: which request (see `requests`), then its fields; ids,
//               tokens, cores and models the server handed out are reused
//   3 raw body  byte: message type (< 0x80: the known types in order; else
//               the next two bytes), then a two-byte length and the body
//   4 datagram  a two-byte length and the bytes, request id patched in
//   5 close     the current connection, from the client's side
//   6 attach    byte: 1-3 descriptors go with the next message
//   7 consumed  a debug stream's shared `consumed` counter is overwritten
//
// Every message is answered before the next action: a request gets its reply
// (or the connection is dropped); an execute is followed by a
// describe_instance fence, since its reply comes when the model has run it.
// After every input check_server (control_server_under_test.h) runs.

#include "byte_script.h"
#include "control_peer.h"
#include "control_server_under_test.h"

#include "neuron/protocol/messages.h"

#include <fmt/format.h>

#include <limits>
#include <memory>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace {

using namespace neuron;
using namespace neuron::protocol;
using fuzz::byte_script;
using fuzz::control_peer;
using fuzz::finding;
using fuzz::server_under_test;

server_under_test* g_server = nullptr;

constexpr std::size_t max_actions = 64;
constexpr std::size_t max_connections = 3;
constexpr std::size_t max_remembered = 8;

struct peer {
    explicit peer(const std::string& path) : link(path) {}
    explicit peer(int connected_fd) : link(connected_fd) {}
    ~peer() {
        if (counters != nullptr) ::munmap(counters, sizeof(stream_counters));
    }
    peer(const peer&) = delete;
    peer& operator=(const peer&) = delete;

    control_peer link;
    bool greeted = false;
    peer_role role = peer_role::runtime;
    bool stream_open = false;
    stream_counters* counters = nullptr; // the shared page of an open debug stream
};

std::uint16_t u16_at(const std::vector<std::uint8_t>& bytes, std::size_t at) {
    return bytes.size() < at + 2 ? 0 : static_cast<std::uint16_t>(bytes[at] | bytes[at + 1] << 8);
}

// One input's connections and what the server told them.
class client_script {
public:
    explicit client_script(byte_script& in) : m_in(in) {}

    void run() {
        for (std::size_t action = 0; action < max_actions && !m_in.done(); ++action) {
            switch (m_in.byte() % 8) {
            case 0: connect(); break;
            case 1:
                if (!m_peers.empty()) m_current = m_in.byte() % m_peers.size();
                break;
            case 2: request(); break;
            case 3: raw_body(); break;
            case 4: datagram(); break;
            case 5:
                if (auto* p = current()) p->link.close();
                break;
            case 6: m_attach = 1 + m_in.byte() % 3; break;
            case 7:
                if (auto* p = current(); p != nullptr && p->counters != nullptr) {
                    p->counters->consumed.store(pick64({}), std::memory_order_release);
                }
                break;
            }
        }
        m_peers.clear(); // closes every connection
    }

private:
    peer* current() { return m_current < m_peers.size() ? m_peers[m_current].get() : nullptr; }

    void connect() {
        std::erase_if(m_peers, [](const auto& p) { return !p->link.open(); });
        if (m_peers.size() == max_connections) m_peers.erase(m_peers.begin());
        const auto choice = m_in.byte();
        if ((choice & 0x80) != 0) {
            m_peers.push_back(std::make_unique<peer>(g_server->second.connect()));
        } else {
            m_peers.push_back(std::make_unique<peer>(g_server->path));
        }
        m_current = m_peers.size() - 1;
        const auto role = choice % 4;
        if (role == 3) return;
        exchange(make_message(message_type::hello, m_next_id++,
                              hello{static_cast<peer_role>(role + 1), pick32({}), m_in.text(64)}));
    }

    // The requests a client can make, built as the shim or ctl builds them
    // (fields from the script), so that the fuzzer gets past decoding.
    void request() {
        const auto id = m_next_id++;
        switch (m_in.byte() % 26) {
        case 0:
            exchange(make_message(message_type::hello, id,
                                  hello{static_cast<peer_role>(1 + m_in.byte() % 3), pick32({}), m_in.text(64)}));
            break;
        case 1: exchange(make_message(message_type::describe_instance, id, empty_body{})); break;
        case 2: {
            open_session m;
            m.lnc = pick32({1, 2});
            m.selection = static_cast<core_selection>(m_in.byte() % 3);
            m.first = pick32(m_cores);
            m.count = pick32(m_cores);
            exchange(make_message(message_type::open_session, id, m));
            break;
        }
        case 3: {
            allocate m;
            m.logical_core = pick32(m_cores);
            m.location = static_cast<memory_location>(m_in.byte() % 2);
            m.mem_type = m_in.byte() % 24;
            m.size = pick64({});
            exchange(make_message(message_type::allocate, id, m));
            break;
        }
        case 4: exchange(make_message(message_type::free_memory, id, free_memory{pick64(m_allocations)})); break;
        case 5: exchange(make_message(message_type::load_model, id, load_model{pick_core(), m_in.blob(4096)})); break;
        case 6: {
            const auto& text = g_server->models[m_in.byte() % g_server->models.size()];
            exchange(make_message(message_type::load_model, id, load_model{pick_core(), text}));
            break;
        }
        case 7: exchange(make_message(message_type::unload_model, id, unload_model{pick32(m_models)})); break;
        case 8: exchange(make_message(message_type::execute, id, execute{pick32(m_models), pick32({1, 2})})); break;
        case 9: exchange(make_message(message_type::close_session, id, empty_body{})); break;
        case 10: {
            open_stream m;
            m.token = pick64(m_tokens);
            m.logical_core = pick32(m_cores);
            m.capacity = pick32({1, 65536});
            exchange(make_message(message_type::open_stream, id, m));
            break;
        }
        case 11: exchange(make_message(message_type::status, id, empty_body{})); break;
        case 12: {
            static const char* const kinds[] = {"sram", "hbm", "hbm-repairable", "sram-corrected", "hbm-corrected"};
            inject_ecc m;
            m.device = pick32({});
            const auto kind = m_in.byte();
            m.kind = kind < 250 ? kinds[kind % 5] : m_in.text(32);
            m.count = static_cast<std::int64_t>(pick64({}));
            m.channel = static_cast<std::int32_t>(pick32({}));
            exchange(make_message(message_type::inject_ecc, id, m));
            break;
        }
        case 13:
            exchange(make_message(message_type::set_repair_state, id, set_repair_state{pick32({}), m_in.byte() % 3u}));
            break;
        case 14: exchange(make_message(message_type::reset_device, id, reset_device{pick32({})})); break;
        case 15:
            exchange(make_message(message_type::fail_resets, id,
                                  fail_resets{pick32({}), static_cast<std::int64_t>(pick64({}))}));
            break;
        case 16: {
            static const char* const dtypes[] = {"float32", "int8", "uint64", "bfloat16", "float8e4m3"};
            emit_debug m;
            m.logical_core = pick32(m_cores);
            m.count = pick32({});
            m.prefix = m_in.text(64);
            const auto dtype = m_in.byte();
            m.dtype = dtype < 250 ? dtypes[dtype % 5] : m_in.text(32);
            m.shape.assign(1 + m_in.byte() % 3, 0);
            for (auto& d : m.shape) d = pick64({});
            m.pipe = pick32({});
            exchange(make_message(message_type::emit_debug, id, m));
            break;
        }
        case 17:
            exchange(make_message(message_type::advance, id, advance{pick64({1000, 1'000'000, 1'000'000'000})}));
            break;
        case 18: {
            static const char* const engines[] = {"tensor", "vector", "scalar", "gpsimd", "sync"};
            inject_fault m;
            m.device = pick32({});
            const auto kind = m_in.byte();
            const auto faults = model::fault_rows();
            m.kind = kind < 250 ? std::string(faults[kind % faults.size()].name) : m_in.text(32);
            m.core = static_cast<std::int32_t>(pick32({}));
            const auto aim = m_in.byte() % 4;
            if (aim == 1) m.engine = engines[m_in.byte() % std::size(engines)];
            if (aim == 2) m.engine = m_in.text(16);
            if (aim == 3) m.queue = static_cast<std::int32_t>(pick32({}));
            exchange(make_message(message_type::inject_fault, id, m));
            break;
        }
        case 19: {
            join_collective m;
            m.group = m_in.byte() < 200 ? "global/" + std::to_string(m_in.byte() % 4) : m_in.text(64);
            m.kind = static_cast<collective_kind>(m_in.byte() % 3);
            m.rank = pick32({});
            m.ranks = pick32({});
            m.logical_core = pick32(m_cores);
            m.timeout_ns = pick64({1000, 1'000'000});
            m.contribution = m_in.blob(256);
            if (m.kind == collective_kind::send_receive) {
                m.peer_core = pick32(m_cores);
                m.transfer_bytes = pick64({0, m.contribution.size(), 1ull << 40});
                m.offset = pick64({0, 256});
            }
            exchange(make_message(message_type::join_collective, id, m));
            break;
        }
        case 20: {
            model_piece m;
            m.total_bytes = pick64({4096, std::uint64_t{1} << 32});
            m.offset = pick64({0, 4096});
            m.bytes = m_in.blob(4096);
            exchange(make_message(message_type::model_piece, id, m));
            break;
        }
        case 21: send_neff(id); break;
        case 22:
            exchange(make_message(message_type::execute, id, execute{pick32(m_models), pick32({1, 2}), 0, true}));
            break;
        case 23: {
            read_profile m;
            m.profile_ids.assign(m_in.byte() % 4 == 0 ? m_in.u16() % (max_profile_ids + 2) : m_in.byte() % 4, 0);
            for (auto& p : m.profile_ids) p = pick32(m_profiles);
            m.offset = pick64({0, max_profile_chunk_bytes});
            exchange(make_message(message_type::read_profile, id, m));
            break;
        }
        case 24: {
            drop_profiles m;
            m.profile_ids.assign(m_in.byte() % 4, 0);
            for (auto& p : m.profile_ids) p = pick32(m_profiles);
            exchange(make_message(message_type::drop_profiles, id, m));
            break;
        }
        case 25: exchange(make_message(message_type::read_clock, id, empty_body{})); break;
        }
    }

    // A NEFF (a byte or two changed, perhaps) in pieces of a scripted size, as the shim sends one.
    void send_neff(std::uint32_t id) {
        auto bytes = g_server->neffs[m_in.byte() % g_server->neffs.size()];
        for (int flips = m_in.byte() % 3; flips > 0; --flips)
            bytes[m_in.u16() * 7 % bytes.size()] ^= static_cast<char>(m_in.byte());
        const std::size_t piece = 1 + m_in.u16() % 8192;
        std::size_t at = 0;
        for (; bytes.size() - at > piece; at += piece) {
            exchange(make_message(message_type::model_piece, m_next_id++,
                                  model_piece{bytes.size(), at, bytes.substr(at, piece)}));
        }
        const std::uint32_t pages[] = {0, 512, 1000, 2048};
        exchange(
            make_message(message_type::load_model, id,
                         load_model{pick_core(), bytes.substr(at), pages[m_in.byte() % 4], (m_in.byte() & 1) != 0}));
    }

    void raw_body() {
        static constexpr std::uint16_t types[] = {1,  2,  3,  4,  10, 11, 20, 21, 22, 23, 24, 25, 26,
                                                  27, 28, 29, 30, 40, 41, 50, 51, 52, 53, 54, 55, 56,
                                                  57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69};
        const auto choice = m_in.byte();
        const auto type = choice < 0x80 ? types[choice % std::size(types)] : m_in.u16();
        const auto body = m_in.blob(1024);
        wire_writer out;
        encode_header(out, {wire_magic, wire_version, type, m_next_id++, static_cast<std::uint32_t>(body.size())});
        out.raw(body.data(), body.size());
        exchange(std::move(out.bytes()));
    }

    void datagram() {
        const auto text = m_in.blob(1024);
        std::vector<std::uint8_t> bytes(text.begin(), text.end());
        if (bytes.size() >= 12) {
            const auto id = m_next_id++;
            for (int i = 0; i < 4; ++i) bytes[8 + i] = static_cast<std::uint8_t>(id >> (8 * i));
        }
        exchange(std::move(bytes));
    }

    // A value a server may meet at a boundary, one it handed out, or any.
    template <typename T>
    T pick(const std::vector<T>& known) {
        switch (m_in.byte() % 8) {
        case 0: return 0;
        case 1: return 1;
        case 2: return m_in.byte();
        case 3:
        case 4: return known.empty() ? m_in.byte() : known[m_in.byte() % known.size()];
        case 5: return std::numeric_limits<T>::max();
        case 6: return T{1} << (m_in.byte() % (8 * sizeof(T)));
        default:
            if constexpr (sizeof(T) == 4)
                return m_in.u32();
            else
                return m_in.u64();
        }
    }
    std::uint32_t pick32(const std::vector<std::uint32_t>& known) { return pick(known); }
    std::uint64_t pick64(const std::vector<std::uint64_t>& known) { return pick(known); }

    std::int32_t pick_core() {
        const auto c = pick32(m_cores);
        return c == UINT32_MAX ? -1 : static_cast<std::int32_t>(c);
    }

    template <typename T, typename V>
    static void remember(std::vector<T>& list, V value) {
        if (list.size() == max_remembered) list.erase(list.begin());
        list.push_back(static_cast<T>(value));
    }

    // Sends one message on the current connection and reads until it is answered.
    void exchange(std::vector<std::uint8_t> message) {
        auto* p = current();
        if (p == nullptr || !p->link.open()) return;
        std::vector<int> attached(m_attach, g_server->passed);
        m_attach = 0;
        const auto type = u16_at(message, 6);
        const auto id = static_cast<std::uint32_t>(u16_at(message, 8) | u16_at(message, 10) << 16);
        const auto what = fmt::format("request {} (type {})", id, type);
        if (!p->link.send(message, attached)) return;
        if (p->greeted && p->role == peer_role::runtime &&
            (type == static_cast<std::uint16_t>(message_type::execute) ||
             type == static_cast<std::uint16_t>(message_type::join_collective))) {
            // An accepted execution answers once the model has run it, a
            // collective once its ranks met (or their timeout passed).
            const auto fence = m_next_id++;
            if (!p->link.send(make_message(message_type::describe_instance, fence, empty_body{}))) return;
            await(*p, fence, message, fmt::format("the describe_instance fence after {}", what));
        } else {
            await(*p, id, message, what);
        }
    }

    void await(peer& p, std::uint32_t id, const std::vector<std::uint8_t>& sent, const std::string& what) {
        for (;;) {
            auto message = p.link.receive(what);
            if (!message) return; // dropped
            frame_header header;
            try {
                header = decode_header(message->bytes.data(), message->bytes.size());
            } catch (const protocol_error& e) {
                if (message->passed_fd >= 0) ::close(message->passed_fd);
                if (p.stream_open) continue; // a debug event
                finding(fmt::format("while awaiting {} the server sent a datagram that is not a message: {}", what,
                                    e.what()));
            }
            const auto* body = message->bytes.data() + header_size;
            const auto size = message->bytes.size() - header_size;
            learn(p, header, body, size, sent, message->passed_fd);
            if (header.request_id == id) return;
        }
    }

    void learn(peer& p, const frame_header& header, const std::uint8_t* body, std::size_t size,
               const std::vector<std::uint8_t>& sent, int passed_fd) {
        try {
            switch (static_cast<message_type>(header.type)) {
            case message_type::hello_ok: {
                const auto h = decode_body<hello>(sent.data() + header_size, sent.size() - header_size, "hello");
                p.greeted = true;
                p.role = h.role;
                break;
            }
            case message_type::session_opened: {
                const auto m = decode_body<session_opened>(body, size, "session_opened");
                remember(m_tokens, m.token);
                for (std::uint32_t k = 0; k < m.count && k < max_remembered; ++k) remember(m_cores, m.first + k);
                break;
            }
            case message_type::model_loaded: {
                const auto m = decode_body<model_loaded>(body, size, "model_loaded");
                remember(m_models, m.model_id);
                break;
            }
            case message_type::executed: {
                const auto m = decode_body<executed>(body, size, "executed");
                if (m.profile_id != 0) remember(m_profiles, m.profile_id);
                break;
            }
            case message_type::allocated:
                remember(m_allocations, decode_body<allocated>(body, size, "allocated").id);
                break;
            case message_type::stream_opened:
                p.stream_open = true;
                if (passed_fd >= 0 && p.counters == nullptr) {
                    void* page =
                        ::mmap(nullptr, sizeof(stream_counters), PROT_READ | PROT_WRITE, MAP_SHARED, passed_fd, 0);
                    if (page != MAP_FAILED) p.counters = static_cast<stream_counters*>(page);
                }
                break;
            default: break;
            }
        } catch (const protocol_error& e) {
            finding(fmt::format("the server's reply of type {} does not decode: {}", header.type, e.what()));
        }
        if (passed_fd >= 0) ::close(passed_fd);
    }

    byte_script& m_in;
    std::vector<std::unique_ptr<peer>> m_peers;
    std::size_t m_current = 0;
    std::uint32_t m_next_id = 1;
    std::size_t m_attach = 0;
    std::vector<std::uint64_t> m_tokens;
    std::vector<std::uint32_t> m_cores;
    std::vector<std::uint32_t> m_models;
    std::vector<std::uint64_t> m_allocations;
    std::vector<std::uint32_t> m_profiles;
};

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    static std::unique_ptr<server_under_test> server = std::make_unique<server_under_test>();
    g_server = server.get();
    fuzz::remove_on_finding(g_server->dir);
    if (g_server->passed < 0) finding("memfd_create failed");
    std::size_t passed_copies = 0;
    g_server->descriptors_at_start = fuzz::open_descriptors(*g_server, &passed_copies);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    byte_script in(data, size);
    client_script(in).run();
    fuzz::check_server(*g_server);
    return 0;
}
