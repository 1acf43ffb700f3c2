#define BOOST_TEST_MODULE control_server_peers
// Who a client is, as the kernel tells the server (SO_PEERCRED), and what
// that lets it reach: its pid and label as shown to others, debug streams of
// its own sessions only, the control verbs only as root or the emulator's
// user, and a share of the connections per process and per user. Clients in
// other processes (and as other users) are peer_probe children.
#include "neuron/control/control_server.h"
#include "neuron/model/state/ecc.h"
#include "neuron/protocol/simple_client.h"
#include "neuron/test_support/skip.h"
#include "neuron/test_support/spawned_process.h"

#include "support/server_harness.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace neuron;
using namespace neuron::protocol;
using namespace neuron::runtime_api;
using namespace neuron::control::testing;
using namespace std::chrono_literals;

namespace {

constexpr std::uint32_t nobody = 65534;

// A peer_probe child; its first line of output is the outcome.
struct probe {
    test_support::spawned_process process;

    probe(const std::string& socket, std::vector<std::string> args) : process(options(socket, std::move(args))) {}

    static test_support::spawn_options options(const std::string& socket, std::vector<std::string> args) {
        test_support::spawn_options o;
        o.argv = {PEER_PROBE, socket};
        o.argv.insert(o.argv.end(), args.begin(), args.end());
        o.input = test_support::stream_target::piped();
        o.output = test_support::stream_target::piped();
        return o;
    }
    std::string outcome() {
        const auto line = process.read_line(10s);
        BOOST_TEST_REQUIRE(line.has_value(), "peer_probe said nothing: " << process.command());
        return *line;
    }
};

// The socket and its directory open to every user, as `serve --control-mode 0666` leaves them.
struct open_to_everyone : harness {
    explicit open_to_everyone(control::control_limits limits = {}) {
        test_support::require_root("the test runs clients as another user");
        BOOST_TEST_REQUIRE(::chmod(dir.path().c_str(), 0711) == 0);
        start(0666, limits);
    }
};

std::string status_field(const std::string& json, const std::string& key) {
    const auto at = json.find("\"" + key + "\": ");
    BOOST_TEST_REQUIRE(at != std::string::npos, key << " not in " << json);
    const auto from = at + key.size() + 4;
    return json.substr(from, json.find_first_of(",}", from) - from);
}

} // namespace

BOOST_FIXTURE_TEST_CASE(the_pid_a_client_claims_is_not_believed, server_fixture) {
    raw_connection raw(path);
    send_message(raw.fd(), make_message(message_type::hello, 1, hello{peer_role::runtime, 1, "claims pid 1"}));
    BOOST_TEST_REQUIRE(next_reply(raw.fd(), 10'000).has_value());
    send_message(raw.fd(), make_message(message_type::open_session, 2, open_session{2, core_selection::count, 0, 1}));
    const auto r = next_reply(raw.fd(), 10'000);
    BOOST_TEST_REQUIRE(r.has_value());
    BOOST_TEST_REQUIRE(r->header.type == static_cast<std::uint16_t>(message_type::session_opened));
    BOOST_TEST(status_field(status(), "pid") == std::to_string(::getpid()));
}

BOOST_FIXTURE_TEST_CASE(a_label_longer_than_a_process_tag_is_refused, server_fixture) {
    raw_connection raw(path);
    send_message(raw.fd(),
                 make_message(message_type::hello, 1, hello{peer_role::runtime, 1, std::string(200 * 1024, 'x')}));
    refused_and_closed(raw.fd(), "a label of 204800 bytes; at most 255");
    const auto fits = client(peer_role::runtime, std::string(255, 'y'));
    BOOST_TEST(open(*fits, core_selection::count, 0, 1).count == 1u);
}

BOOST_FIXTURE_TEST_CASE(another_sessions_label_is_escaped_where_an_error_names_it, server_fixture) {
    const auto first = client(peer_role::runtime, "evil\n\x1b[2J");
    open_range(*first, 0, 1);
    const auto second = runtime("second");
    BOOST_CHECK_EXCEPTION(open_range(*second, 0, 1), request_refused, [](const request_refused& e) {
        const std::string text = e.what();
        BOOST_TEST_INFO(text);
        return text.find("in use by evil\\n\\x1b[2J") != std::string::npos && text.find('\n') == std::string::npos &&
               text.find('\x1b') == std::string::npos;
    });
}

BOOST_FIXTURE_TEST_CASE(one_sessions_token_says_nothing_of_the_next, server_fixture) {
    // The tokens used to be a salt XOR n times a constant: from the first,
    // the second was one guess away.
    constexpr std::uint64_t step = 0x9E3779B97F4A7C15ull;
    const auto a = runtime("a");
    const auto b = runtime("b");
    const auto first = open(*a, core_selection::count, 0, 1).token;
    const auto second = open(*b, core_selection::count, 0, 1).token;
    BOOST_TEST(first != second);
    for (std::uint64_t n = 1; n <= 64; ++n) {
        const auto salt = first ^ (n * step);
        BOOST_TEST((second != (salt ^ ((n + 1) * step))), "the second token follows from the first (n = " << n << ")");
    }
}

BOOST_FIXTURE_TEST_CASE(a_debug_stream_is_only_for_the_process_that_owns_the_session, server_fixture) {
    const auto app = runtime("owner");
    const auto session = open(*app, core_selection::count, 0, 1);
    probe intruder(path, {"open-stream", std::to_string(session.token), std::to_string(session.first)});
    BOOST_TEST(intruder.outcome() ==
               fmt::format("refused {} the stream names no open runtime session of this process", nrt_status::invalid));
    // The owner's own connect is not blocked by the attempt.
    stream_client own(*this, session.token, session.first);
    BOOST_TEST(emit(session.first, 2).accepted == 2u);
}

BOOST_FIXTURE_TEST_CASE(what_a_stream_client_writes_to_its_counters_does_not_reach_the_status, server_fixture) {
    const auto app = runtime("liar");
    const auto session = open(*app, core_selection::count, 0, 1);
    stream_client stream(*this, session.token, session.first, 8);
    stream.counters->accepted = 1'000'000'000;
    stream.counters->dropped = 500'000'000;
    stream.counters->consumed = 1'000'000'000'000;
    emit(session.first, 3);
    const auto json = status();
    BOOST_TEST(status_field(json, "accepted") == "3");
    BOOST_TEST(status_field(json, "consumed") == "3"); // no more than it was given
    BOOST_TEST(status_field(json, "dropped") == "0");
    BOOST_TEST(stream.counters->accepted.load() == 3u); // the page shows the server's count again
}

BOOST_AUTO_TEST_CASE(another_user_reads_the_status_and_changes_nothing) {
    open_to_everyone server;
    probe injecting(server.path, {"--uid", std::to_string(nobody), "ctl", "inject-ecc"});
    BOOST_TEST(injecting.outcome().starts_with(
        fmt::format("refused {} only root or the emulator's own user may change the emulator", nrt_status::invalid)));
    BOOST_TEST(model::read_ecc(server.sim.published(), 0).mem_ecc_uncorrected == 0u);
    probe advancing(server.path, {"--uid", std::to_string(nobody), "ctl", "advance"});
    BOOST_TEST(advancing.outcome().starts_with("refused"));
    probe reading(server.path, {"--uid", std::to_string(nobody), "ctl", "status"});
    BOOST_TEST(reading.outcome() == "ok");
    // A runtime of that user is served, as the socket's mode says.
    probe runtime_of_nobody(server.path, {"--uid", std::to_string(nobody), "hello", "runtime"});
    BOOST_TEST(runtime_of_nobody.outcome() == "ok");
    server.ctl().call<empty_body>(message_type::inject_ecc, inject_ecc{0, "hbm", 1, -1}, message_type::ok);
    BOOST_TEST(model::read_ecc(server.sim.published(), 0).mem_ecc_uncorrected == 1u);
}

BOOST_FIXTURE_TEST_CASE(one_process_holds_at_most_its_share_of_the_connections, harness) {
    control::control_limits limits;
    limits.max_per_process = 3;
    start(0600, limits);
    status();
    const auto second = client(peer_role::control, "second");
    const auto third = client(peer_role::runtime, "third");
    // Told why, whether the refusal came before the hello was sent or after.
    BOOST_CHECK_EXCEPTION(client(peer_role::control, "fourth"), request_refused, [](const request_refused& e) {
        BOOST_TEST_INFO(e.what());
        return e.code() == nrt_status::resource &&
               std::string(e.what()) ==
                   fmt::format("process {} holds 3 connections to the emulator, the most one process may", ::getpid());
    });
    probe other_process(path, {"hello", "control"});
    BOOST_TEST(other_process.outcome() == "ok");
}

BOOST_AUTO_TEST_CASE(one_user_holds_at_most_its_share_and_root_still_gets_in) {
    control::control_limits limits;
    limits.max_per_user = 3;
    open_to_everyone server(limits);
    probe holder(server.path, {"--uid", std::to_string(nobody), "hold", "control", "3"});
    BOOST_TEST_REQUIRE(holder.outcome() == "held 3");
    probe one_more(server.path, {"--uid", std::to_string(nobody), "hello", "runtime"});
    BOOST_TEST(one_more.outcome() ==
               fmt::format("refused {} user {} holds 3 connections to the emulator, the most one user may",
                           nrt_status::resource, nobody));
    std::vector<std::unique_ptr<simple_client>> roots;
    for (int i = 0; i < 5; ++i) roots.push_back(server.client(peer_role::control, "root"));
    BOOST_TEST(server.status().find("trn2.48xlarge") != std::string::npos);
    holder.process.close_input(); // its connections close: the user has room again
    BOOST_TEST_REQUIRE(holder.process.wait(10s).has_value());
    probe after(server.path, {"--uid", std::to_string(nobody), "hello", "runtime"});
    BOOST_TEST(after.outcome() == "ok");
}
