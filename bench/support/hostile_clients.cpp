#include "support/hostile_clients.h"

#include "neuron/protocol/simple_client.h"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

namespace neuron::bench {
namespace {

using namespace protocol;
using bytes = std::vector<std::uint8_t>;

constexpr int answer_wait_ms = 15'000;

// A connection closed on scope exit, whatever happened.
struct raw {
    int fd;
    explicit raw(const std::string& socket) : fd(connect_seqpacket(socket)) {}
    ~raw() { ::close(fd); }
    raw(const raw&) = delete;
    raw& operator=(const raw&) = delete;
};

// The next message's type, or nothing if the server closed the connection.
std::optional<message_type> next_type(int fd) {
    try {
        const auto m = receive_message(fd, answer_wait_ms);
        if (!m) return std::nullopt;
        if (m->passed_fd >= 0) ::close(m->passed_fd);
        return static_cast<message_type>(decode_header(m->bytes.data(), m->bytes.size()).type);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

void say_hello(int fd, peer_role role) {
    send_message(fd,
                 make_message(message_type::hello, 1, hello{role, static_cast<std::uint32_t>(::getpid()), "hostile"}));
    (void)next_type(fd);
}

void send_with_fds(int socket_fd, const bytes& message, int copies_of, std::size_t count) {
    iovec part{const_cast<std::uint8_t*>(message.data()), message.size()};
    msghdr m{};
    m.msg_iov = &part;
    m.msg_iovlen = 1;
    std::vector<char> control(CMSG_SPACE(count * sizeof(int)));
    m.msg_control = control.data();
    m.msg_controllen = control.size();
    cmsghdr* h = CMSG_FIRSTHDR(&m);
    h->cmsg_level = SOL_SOCKET;
    h->cmsg_type = SCM_RIGHTS;
    h->cmsg_len = CMSG_LEN(count * sizeof(int));
    const std::vector<int> fds(count, copies_of);
    std::memcpy(CMSG_DATA(h), fds.data(), count * sizeof(int));
    (void)::sendmsg(socket_fd, &m, MSG_NOSIGNAL);
}

void count_refusal(int fd, hostile_tally& tally) {
    const auto type = next_type(fd);
    if (!type || *type == message_type::error) ++tally.refusals;
}

// 20 connections that never say hello, held until the server closes them.
void silent(const std::string& socket, const std::string&, const std::atomic<bool>&, hostile_tally& tally) {
    std::vector<std::unique_ptr<raw>> held;
    for (int i = 0; i < 20; ++i) held.push_back(std::make_unique<raw>(socket));
    for (const auto& c : held) count_refusal(c->fd, tally);
}

void descriptors(const std::string& socket, const std::string&, const std::atomic<bool>&, hostile_tally& tally) {
    raw c(socket);
    send_with_fds(c.fd, make_message(message_type::hello, 1, hello{peer_role::control, 1, "fds"}), c.fd, 8);
    (void)next_type(c.fd);
    for (int i = 0; i < 20; ++i) {
        send_with_fds(c.fd, make_message(message_type::status, 2, empty_body{}), c.fd, 64);
        if (next_type(c.fd) == message_type::status_report) ++tally.refusals; // answered, descriptors dropped
    }
}

void garbage(const std::string& socket, const std::string&, const std::atomic<bool>&, hostile_tally& tally) {
    static thread_local std::mt19937 random(1);
    {
        raw c(socket);
        bytes noise(random() % 65536 + 1);
        for (auto& b : noise) b = static_cast<std::uint8_t>(random());
        send_message(c.fd, noise);
        count_refusal(c.fd, tally);
    }
    {
        raw c(socket);
        say_hello(c.fd, peer_role::runtime);
        bytes body(random() % 4096);
        for (auto& b : body) b = static_cast<std::uint8_t>(random());
        wire_writer w;
        encode_header(w, frame_header{wire_magic, wire_version, static_cast<std::uint16_t>(random() % 64), 7,
                                      static_cast<std::uint32_t>(body.size())});
        w.raw(body.data(), body.size());
        send_message(c.fd, w.bytes());
        (void)next_type(c.fd);
    }
    {
        raw c(socket);
        const int big = 24 << 20;
        ::setsockopt(c.fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
        say_hello(c.fd, peer_role::control);
        send_message(c.fd, bytes(header_size + max_body_size + 1, 0));
        count_refusal(c.fd, tally);
    }
}

std::string alias_bomb() {
    std::string text = "neuron_emu_model: 1\nname: bomb\na: &a [x, x, x, x, x, x, x, x, x, x]\n";
    for (char level = 'b'; level <= 'j'; ++level) {
        text += fmt::format("{}: &{} [", level, level);
        for (int i = 0; i < 10; ++i) text += fmt::format("{}*{}", i == 0 ? "" : ", ", static_cast<char>(level - 1));
        text += "]\n";
    }
    return text;
}

void bad_models(const std::string& socket, const std::string&, const std::atomic<bool>&, hostile_tally& tally) {
    raw c(socket);
    say_hello(c.fd, peer_role::runtime);
    send_message(c.fd, make_message(message_type::open_session, 2, open_session{1, core_selection::count, 0, 1}));
    if (next_type(c.fd) != message_type::session_opened) return;
    for (const auto& text : {std::string("neuron_emu_model: 1\nname: self\ninputs: &x [*x]\n"), alias_bomb()}) {
        send_message(c.fd, make_message(message_type::load_model, 3, load_model{-1, text}));
        count_refusal(c.fd, tally);
    }
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Billions of executions asked for, then the process "dies".
void abandoned_repeat(const std::string& socket, const std::string& models, const std::atomic<bool>&,
                      hostile_tally& tally) {
    static const auto add = read_file(models + "/add.yaml");
    raw c(socket);
    say_hello(c.fd, peer_role::runtime);
    send_message(c.fd, make_message(message_type::open_session, 2, open_session{1, core_selection::count, 0, 1}));
    if (next_type(c.fd) != message_type::session_opened) return;
    send_message(c.fd, make_message(message_type::load_model, 3, load_model{-1, add}));
    const auto loaded = receive_message(c.fd, answer_wait_ms);
    if (!loaded) return;
    const auto header = decode_header(loaded->bytes.data(), loaded->bytes.size());
    if (static_cast<message_type>(header.type) != message_type::model_loaded) return;
    const auto model = decode_body<model_loaded>(loaded->bytes.data() + header_size, loaded->bytes.size() - header_size,
                                                 "model_loaded");
    for (std::uint32_t i = 0; i < 10; ++i) {
        send_message(c.fd, make_message(message_type::execute, 10 + i, execute{model.model_id, UINT32_MAX}));
    }
    ++tally.refusals; // nothing to refuse: the server must forget all of it on close
}

// A stream whose client claims to have read everything and reads nothing,
// fed 1 MiB events until the server's bound drops them.
void hoarder(const std::string& socket, const std::string&, const std::atomic<bool>&, hostile_tally& tally) {
    simple_client runtime(socket, peer_role::runtime, "hoarder");
    const auto session = runtime.call<session_opened>(
        message_type::open_session, open_session{1, core_selection::count, 0, 1}, message_type::session_opened);
    simple_client stream(socket, peer_role::debug_stream, "hoarder-stream");
    int memfd = -1;
    stream.call<empty_body>(message_type::open_stream, open_stream{session.token, session.first, 1u << 31},
                            message_type::stream_opened, &memfd);
    void* page = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    ::close(memfd);
    if (page == MAP_FAILED) return;
    static_cast<stream_counters*>(page)->consumed.store(UINT64_MAX);
    simple_client ctl(socket, peer_role::control, "hoarder-ctl");
    for (int i = 0; i < 4; ++i) {
        const auto r = ctl.call<debug_emitted>(message_type::emit_debug,
                                               emit_debug{session.first, 64, "hoard", "uint8", {1u << 20}, 0},
                                               message_type::debug_emitted);
        if (r.dropped > 0) ++tally.refusals;
    }
    ::munmap(page, 4096);
}

void burst(const std::string& socket, const std::string&, const std::atomic<bool>&, hostile_tally& tally) {
    std::vector<std::unique_ptr<raw>> held;
    for (int i = 0; i < 200; ++i) {
        try {
            held.push_back(std::make_unique<raw>(socket));
            say_hello(held.back()->fd, peer_role::control);
        } catch (const std::exception&) {
            ++tally.refusals;
        }
    }
}

} // namespace

std::vector<hostile_kind> hostile_kinds() {
    std::vector<hostile_kind> kinds{{"silent", silent},
                                    {"descriptors", descriptors},
                                    {"garbage", garbage},
                                    {"bad-models", bad_models},
                                    {"abandoned-repeat", abandoned_repeat},
                                    {"hoarder", hoarder},
                                    {"burst", burst}};
    for (auto& k : intruder_kinds()) kinds.push_back(std::move(k));
    return kinds;
}

hostile_crowd::hostile_crowd(std::string socket, std::string models) : m_kinds(hostile_kinds()) {
    for (const auto& kind : m_kinds) {
        m_tallies.push_back(std::make_unique<hostile_tally>());
        m_threads.emplace_back([this, socket, models, &kind, &tally = *m_tallies.back()] {
            while (!m_stop.load()) {
                try {
                    kind.once(socket, models, m_stop, tally);
                } catch (const std::exception&) {
                    ++tally.refusals; // refused or disconnected: what a hostile client should get
                }
                ++tally.rounds;
            }
        });
    }
}

hostile_crowd::~hostile_crowd() { stop(); }

void hostile_crowd::stop() {
    m_stop = true;
    for (auto& t : m_threads) {
        if (t.joinable()) t.join();
    }
}

std::string hostile_crowd::summary() const {
    std::string out;
    for (std::size_t i = 0; i < m_kinds.size(); ++i) {
        out += fmt::format("{}{} {}", i == 0 ? "" : ", ", m_kinds[i].name, m_tallies[i]->rounds.load());
    }
    return out;
}

} // namespace neuron::bench
