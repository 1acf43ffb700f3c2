#pragma once

// A model and a control server on a socket in a private directory, with raw
// and well-behaved clients: what the control server tests share.

#include "neuron/control/control_server.h"
#include "neuron/model/runtime/platform.h"
#include "neuron/model/runtime/simulation.h"
#include "neuron/protocol/simple_client.h"
#include "neuron/test_support/temporary_directory.h"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace neuron::control::testing {

using namespace neuron::protocol;
using namespace neuron::runtime_api;
using test_support::temporary_directory;
using namespace std::chrono_literals;
using model::counter_kind;
using model::counter_ref;

using bytes = std::vector<std::uint8_t>;
// runtime_shim/models/add.yaml: 81834 ns per execution on Trainium2
// (140000 tensor cycles at 2.4 GHz, 58334 ns, 9300 ns more under the current
// limit's ramp from 38% over 30 us, after the tensor engine's 1600 ns
// preamble, and the execution's fixed 12600 ns, core_costs.h), 12 MACs.
inline std::string shipped_add_model() {
    std::ifstream in(std::string(NEURON_EXAMPLE_MODELS) + "/add.yaml");
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
inline const std::string add_yaml = shipped_add_model();
inline constexpr std::uint64_t add_duration_ns = 58'334 + 9'300 + 1'600 + 12'600;
inline constexpr std::uint64_t add_device_bytes = 1048576 + 4194304 + 2097152 + 65536;

inline model::platform_config stepped(std::string instance) {
    model::platform_config config;
    config.instance = std::move(instance);
    config.mode = model::time_mode::stepped;
    config.reset_duration = 1ms;
    config.start_epoch_ns = 1'789'180'860'000'000'000;
    return config;
}

// A raw connection, for what simple_client would not send.
class raw_connection {
public:
    explicit raw_connection(const std::string& path) : m_fd(connect_seqpacket(path)) {}
    ~raw_connection() { ::close(m_fd); }
    raw_connection(const raw_connection&) = delete;
    raw_connection& operator=(const raw_connection&) = delete;
    int fd() const { return m_fd; }

private:
    int m_fd;
};

struct reply {
    frame_header header;
    bytes body;
};

inline std::optional<reply> next_reply(int fd, int timeout_ms) {
    auto message = receive_message(fd, timeout_ms);
    if (!message) return std::nullopt;
    if (message->passed_fd >= 0) ::close(message->passed_fd);
    const auto header = decode_header(message->bytes.data(), message->bytes.size());
    return reply{header, bytes(message->bytes.begin() + header_size, message->bytes.end())};
}

template <typename Body>
Body body_of(const reply& r) {
    return decode_body<Body>(r.body.data(), r.body.size(), "reply");
}

// The server told this connection why and closed it.
inline void refused_and_closed(int fd, const std::string& why) {
    const auto r = next_reply(fd, 10'000);
    BOOST_TEST_REQUIRE(r.has_value());
    BOOST_TEST(r->header.type == static_cast<std::uint16_t>(message_type::error));
    const auto e = body_of<error_reply>(*r);
    BOOST_TEST(e.code == nrt_status::invalid);
    BOOST_TEST(e.message.find(why) != std::string::npos, "'" << why << "' not in: " << e.message);
    BOOST_CHECK_THROW(receive_message(fd, 10'000), connection_error);
}

inline auto refused_with(std::uint32_t code, std::string text) {
    return [code, text = std::move(text)](const request_refused& e) {
        BOOST_TEST_INFO("code " << e.code() << ": " << e.what());
        return e.code() == code && std::string(e.what()).find(text) != std::string::npos;
    };
}

// A model and a control server on a socket in a private directory.
struct harness {
    temporary_directory dir{"neuron-control-test"};
    std::string path = dir.path() + "/control.sock";
    model::simulation sim{stepped("trn2.48xlarge")};
    std::unique_ptr<control::control_server> server;

    ~harness() { server.reset(); }

    void start(mode_t mode = 0600, control::control_limits limits = {}, control::rate_limited_log::sink log = {}) {
        server = std::make_unique<control::control_server>(
            sim, control::control_options{path, mode, "2.24.7.0", limits, std::move(log)});
    }

    std::unique_ptr<simple_client> client(peer_role role, const std::string& label) {
        return std::make_unique<simple_client>(path, role, label);
    }
    std::unique_ptr<simple_client> runtime(const std::string& label = "app") {
        return client(peer_role::runtime, label);
    }
    simple_client& ctl() {
        if (!m_ctl) m_ctl = client(peer_role::control, "test-ctl");
        return *m_ctl;
    }

    static session_opened open(simple_client& c, core_selection selection, std::uint32_t first = 0,
                               std::uint32_t count = 0, std::uint32_t lnc = 2) {
        return c.call<session_opened>(message_type::open_session, open_session{lnc, selection, first, count},
                                      message_type::session_opened);
    }
    static session_opened open_range(simple_client& c, std::uint32_t first, std::uint32_t count,
                                     std::uint32_t lnc = 2) {
        return open(c, core_selection::range, first, count, lnc);
    }
    static model_loaded load(simple_client& c, const std::string& text, std::int32_t core = -1) {
        return c.call<model_loaded>(message_type::load_model, load_model{core, text}, message_type::model_loaded);
    }
    static void close_session(simple_client& c) {
        c.call<empty_body>(message_type::close_session, empty_body{}, message_type::ok);
    }

    std::string status() {
        return ctl().call<status_report>(message_type::status, empty_body{}, message_type::status_report).json;
    }
    std::uint64_t advance(std::chrono::nanoseconds ns) {
        return ctl()
            .call<advanced>(message_type::advance, protocol::advance{static_cast<std::uint64_t>(ns.count())},
                            message_type::advanced)
            .now_ns;
    }
    debug_emitted emit(std::uint32_t logical_core, std::uint32_t count, const std::string& dtype = "float32",
                       std::vector<std::uint64_t> shape = {1}) {
        return ctl().call<debug_emitted>(message_type::emit_debug,
                                         emit_debug{logical_core, count, "event", dtype, std::move(shape), 0},
                                         message_type::debug_emitted);
    }
    std::string reset(std::uint32_t device) {
        return ctl()
            .call<reset_started>(message_type::reset_device, reset_device{device}, message_type::reset_started)
            .outcome;
    }

    model::counter_value counter(std::uint32_t device, std::int32_t core, counter_kind kind) const {
        return sim.published().counter(counter_ref{device, core, kind});
    }
    std::size_t owners() {
        return sim.call([](model::platform& p) { return p.owners().owners().size(); });
    }

private:
    std::unique_ptr<simple_client> m_ctl;
};

struct server_fixture : harness {
    server_fixture() { start(); }
};

// Sends `file` as the shim does: model_pieces, then the load_model that ends it.
inline model_loaded load_in_pieces(simple_client& c, const std::string& file, std::uint32_t page_mib = 0,
                                   bool contiguous_off = false) {
    std::size_t at = 0;
    for (; file.size() - at > max_model_piece_bytes; at += max_model_piece_bytes) {
        c.call<empty_body>(message_type::model_piece,
                           model_piece{file.size(), at, file.substr(at, max_model_piece_bytes)}, message_type::ok);
    }
    return c.call<model_loaded>(message_type::load_model, load_model{-1, file.substr(at), page_mib, contiguous_off},
                                message_type::model_loaded);
}

// An execute request sent without waiting for its reply.
inline void send_execute(simple_client& c, std::uint32_t request_id, std::uint32_t model_id, std::uint32_t repeat = 1) {
    send_message(c.fd(), make_message(message_type::execute, request_id, execute{model_id, repeat}));
}

inline executed wait_executed(simple_client& c, std::uint32_t request_id) {
    const auto r = next_reply(c.fd(), 10'000);
    BOOST_TEST_REQUIRE(r.has_value(), "no executed reply");
    BOOST_TEST_REQUIRE(r->header.type == static_cast<std::uint16_t>(message_type::executed));
    BOOST_TEST(r->header.request_id == request_id);
    return body_of<executed>(*r);
}

// A short bounded wait: nothing arrives.
inline bool quiet(simple_client& c) { return !receive_message(c.fd(), 200).has_value(); }

// A debug-stream client with its shared counters page.
struct stream_client {
    std::unique_ptr<simple_client> connection;
    protocol::stream_counters* counters = nullptr;

    stream_client(harness& h, std::uint64_t token, std::uint32_t logical_core, std::uint32_t capacity = 65536)
            : connection(h.client(peer_role::debug_stream, "stream")) {
        int memfd = -1;
        connection->call<empty_body>(message_type::open_stream, open_stream{token, logical_core, capacity},
                                     message_type::stream_opened, &memfd);
        BOOST_TEST_REQUIRE(memfd >= 0);
        void* page = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
        ::close(memfd);
        BOOST_TEST_REQUIRE(page != MAP_FAILED);
        counters = static_cast<protocol::stream_counters*>(page);
    }
    ~stream_client() {
        if (counters != nullptr) ::munmap(counters, 4096);
    }
};

template <typename T>
inline T read_at(const bytes& b, std::size_t at) {
    T v{};
    BOOST_TEST_REQUIRE(at + sizeof(T) <= b.size());
    std::memcpy(&v, b.data() + at, sizeof(T));
    return v;
}

} // namespace neuron::control::testing
