#define BOOST_TEST_MODULE runtime_profiles
// The runtime requests that read and drop recorded profiles, as the I/O
// thread hands them to runtime_service: a read that builds a session file
// is answered later, from another thread; what a read may name and cost is
// bounded; profiles of every process share one budget.
#include "neuron/control/runtime_service.h"
#include "neuron/model/runtime/api.h"
#include "neuron/model/runtime/simulation.h"
#include "neuron/model/spec/nrt_status.h"
#include "neuron/profile/session_file.h"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

using namespace neuron;
using namespace neuron::protocol;
using namespace std::chrono_literals;
using bytes = std::vector<std::uint8_t>;
namespace nrt = model::nrt_status;

namespace {

// 10000 matmuls on the tensor engine, each from a source line.
const std::string program_yaml = R"(neuron_emu_model: 1
name: matmuls
program:
  tensor:
    - {op: nc_matmul, dtype: bfloat16, stationary: [128, 128], moving: [128, 512], repeat: 10000, source: "kernel.py:14"}
)";

struct message {
    frame_header header;
    bytes body;
};

message split(const bytes& m) {
    const auto header = decode_header(m.data(), m.size());
    return {header, bytes(m.begin() + header_size, m.end())};
}

template <typename Body>
Body body_of(const message& m) {
    return decode_body<Body>(m.body.data(), m.body.size(), "reply");
}

error_reply error_of(const message& m) {
    BOOST_TEST_REQUIRE(m.header.type == static_cast<std::uint16_t>(message_type::error));
    return body_of<error_reply>(m);
}

// Deferred replies, as the kernel thread and the background jobs send them.
class reply_queue {
public:
    void push(std::uint64_t connection, bytes m) {
        {
            std::lock_guard lock(m_mutex);
            m_replies.push_back({connection, std::move(m)});
        }
        m_arrived.notify_all();
    }
    // The next one (bounded wait: a failure, not a hang).
    std::pair<std::uint64_t, message> next() {
        std::unique_lock lock(m_mutex);
        BOOST_TEST_REQUIRE(m_arrived.wait_for(lock, 30s, [&] { return !m_replies.empty(); }), "no deferred reply");
        auto [connection, m] = std::move(m_replies.front());
        m_replies.pop_front();
        return {connection, split(m)};
    }
    std::size_t waiting() {
        std::lock_guard lock(m_mutex);
        return m_replies.size();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_arrived;
    std::deque<std::pair<std::uint64_t, bytes>> m_replies;
};

model::platform_config stepped() {
    model::platform_config config;
    config.instance = "trn2.48xlarge";
    config.mode = model::time_mode::stepped;
    config.reset_duration = 1ms;
    return config;
}

struct service_fixture {
    model::simulation sim{stepped()};
    model::api api{sim};
    control::debug_stream_hub hub{[] {}};
    reply_queue replies;
    control::runtime_service service{api, hub, [this](std::uint64_t c, bytes m) { replies.push(c, std::move(m)); }};
    std::uint32_t next_request = 1;

    ~service_fixture() { control::profile_budget::shared()->set_limit(control::profile_budget::default_limit()); }

    // handle()'s reply, if it answered at once.
    template <typename Body>
    std::optional<message> send(std::uint64_t connection, message_type type, const Body& body) {
        const auto m = make_message(type, next_request++, body);
        const auto header = decode_header(m.data(), m.size());
        auto reply =
            service.handle(connection, control::peer_credentials{1000 + static_cast<std::uint32_t>(connection), 0, 0},
                           "app", header, m.data() + header_size, m.size() - header_size);
        if (!reply) return std::nullopt;
        return split(*reply);
    }
    template <typename Body>
    message now(std::uint64_t connection, message_type type, const Body& body) {
        auto reply = send(connection, type, body);
        BOOST_TEST_REQUIRE(reply.has_value(), "no reply at once");
        return *reply;
    }

    // A session on `connection` with the program loaded: its model id.
    std::uint32_t open_and_load(std::uint64_t connection) {
        const auto opened = now(connection, message_type::open_session, open_session{1, core_selection::count, 0, 1});
        BOOST_TEST_REQUIRE(opened.header.type == static_cast<std::uint16_t>(message_type::session_opened));
        const auto loaded = now(connection, message_type::load_model, load_model{-1, program_yaml});
        BOOST_TEST_REQUIRE(loaded.header.type == static_cast<std::uint16_t>(message_type::model_loaded));
        return body_of<model_loaded>(loaded).model_id;
    }
    // One profiled execution: its profile id.
    std::uint32_t run_profiled(std::uint64_t connection, std::uint32_t model_id) {
        execute request{model_id, 1, 0, true};
        BOOST_TEST_REQUIRE(!send(connection, message_type::execute, request).has_value());
        sim.advance(1s); // far beyond its end
        const auto [to, reply] = replies.next();
        BOOST_TEST(to == connection);
        BOOST_TEST_REQUIRE(reply.header.type == static_cast<std::uint16_t>(message_type::executed));
        const auto done = body_of<executed>(reply);
        BOOST_TEST(done.status == nrt::success);
        BOOST_TEST_REQUIRE(done.profile_id != 0u);
        return done.profile_id;
    }
    message read(std::uint64_t connection, std::vector<std::uint32_t> ids, std::uint64_t offset = 0) {
        if (auto reply = send(connection, message_type::read_profile, read_profile{std::move(ids), offset})) {
            return *reply;
        }
        auto [to, reply] = replies.next();
        BOOST_TEST(to == connection);
        return reply;
    }
    void close(std::uint64_t connection) {
        BOOST_TEST(now(connection, message_type::close_session, empty_body{}).header.type ==
                   static_cast<std::uint16_t>(message_type::ok));
    }
};

std::string file_of(service_fixture& f, std::uint64_t connection, const std::vector<std::uint32_t>& ids) {
    std::string file;
    for (;;) {
        const auto r = f.read(connection, ids, file.size());
        BOOST_TEST_REQUIRE(r.header.type == static_cast<std::uint16_t>(message_type::profile_data),
                           "error: " << (r.header.type == static_cast<std::uint16_t>(message_type::error)
                                             ? body_of<error_reply>(r).message
                                             : ""));
        const auto piece = body_of<profile_data>(r);
        file += piece.bytes;
        if (file.size() >= piece.total_bytes || piece.bytes.empty()) return file;
    }
}

} // namespace

BOOST_FIXTURE_TEST_CASE(a_read_that_builds_its_file_is_answered_later_from_another_thread, service_fixture) {
    const auto model_id = open_and_load(1);
    const auto first = run_profiled(1, model_id);
    const auto second = run_profiled(1, model_id);
    // The I/O thread only posts the build: it answers nothing now.
    BOOST_TEST(!send(1, message_type::read_profile, read_profile{{first, second}, 0}).has_value());
    const auto [to, reply] = replies.next();
    BOOST_TEST(to == 1u);
    BOOST_TEST_REQUIRE(reply.header.type == static_cast<std::uint16_t>(message_type::profile_data));
    const auto piece = body_of<profile_data>(reply);
    BOOST_TEST(piece.total_bytes > max_profile_chunk_bytes);
    // The pieces that follow come from the file built: at once.
    const auto next = send(1, message_type::read_profile, read_profile{{first, second}, piece.bytes.size()});
    BOOST_TEST_REQUIRE(next.has_value());
    BOOST_TEST(next->header.type == static_cast<std::uint16_t>(message_type::profile_data));
    // The whole file is the two executions, in the order asked.
    const auto decoded = profile::decode_session(file_of(*this, 1, {second, first}));
    BOOST_TEST_REQUIRE(decoded.size() == 2u);
    BOOST_TEST(decoded[0].execution == 2u);
    BOOST_TEST(decoded[1].execution == 1u);
    BOOST_TEST(decoded[0].instructions.size() == 10000u + 5 * 64); // and every trn2 engine's preamble
}

BOOST_FIXTURE_TEST_CASE(a_read_naming_a_profile_twice_is_invalid_and_builds_nothing, service_fixture) {
    const auto model_id = open_and_load(1);
    const auto id = run_profiled(1, model_id);
    for (const std::size_t copies : {std::size_t{2}, max_profile_ids}) {
        BOOST_TEST_CONTEXT(copies << " copies") {
            const auto e =
                error_of(now(1, message_type::read_profile, read_profile{std::vector<std::uint32_t>(copies, id), 0}));
            BOOST_TEST(e.code == nrt::invalid);
            BOOST_TEST(e.message == "profile " + std::to_string(id) +
                                        " is named more than once: a session file holds each profile once");
        }
    }
    BOOST_TEST(replies.waiting() == 0u);
}

BOOST_FIXTURE_TEST_CASE(profiles_of_every_process_share_one_budget_given_back_when_a_session_ends, service_fixture) {
    auto& budget = *control::profile_budget::shared();
    BOOST_TEST_REQUIRE(budget.held() == 0u);
    const auto a_model = open_and_load(1);
    const auto b_model = open_and_load(2);
    const auto a_profile = run_profiled(1, a_model);
    const auto one_profile = budget.held();
    BOOST_TEST_REQUIRE(one_profile > 10000 * sizeof(profile::instruction_record));
    // Room for one profile and a half: another process's profile is refused.
    budget.set_limit(one_profile + one_profile / 2);
    const auto b_profile = run_profiled(2, b_model);
    BOOST_TEST(budget.held() == one_profile);
    const auto e = error_of(now(2, message_type::read_profile, read_profile{{b_profile}, 0}));
    BOOST_TEST(e.code == nrt::resource);
    BOOST_TEST(e.message.find("profile " + std::to_string(b_profile) + " was not kept") == 0u, e.message);
    BOOST_TEST(e.message.find("the emulator gives to the profiles of every process together") != std::string::npos,
               e.message);
    // The first process's profile is still read, its file counted too.
    BOOST_TEST(profile::decode_session(file_of(*this, 1, {a_profile})).size() == 1u);
    BOOST_TEST(budget.held() > one_profile);
    // Its session ends: everything it held is given back, and the other's next profile is kept.
    close(1);
    BOOST_TEST(budget.held() == 0u);
    const auto kept = run_profiled(2, b_model);
    BOOST_TEST(profile::decode_session(file_of(*this, 2, {kept})).size() == 1u);
    // Dropped, it is given back too (with the file that held it).
    BOOST_TEST(now(2, message_type::drop_profiles, drop_profiles{{kept}}).header.type ==
               static_cast<std::uint16_t>(message_type::ok));
    BOOST_TEST(budget.held() == 0u);
}
