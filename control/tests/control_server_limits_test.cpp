#define BOOST_TEST_MODULE control_server_limits
// What one client, or many, cannot do to the control server: leak its
// descriptors, spin it at the descriptor limit, hold connections without a
// hello, pin memory through a debug stream or a huge repeat count, or leave
// its queue on cores another process takes next.
#include "neuron/control/control_server.h"
#include "neuron/model/runtime/platform.h"
#include "neuron/model/runtime/simulation.h"
#include "neuron/model/spec/nrt_status.h"
#include "neuron/protocol/simple_client.h"

#include "../../protocol/tests/support/descriptors.h"
#include "support/server_harness.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <string>
#include <vector>

using namespace neuron;
using namespace neuron::protocol;
using namespace neuron::runtime_api;
using namespace neuron::control::testing;
using namespace std::chrono_literals;

namespace {

// Lines the server logs, kept for the test.
struct captured_log {
    std::mutex mutex;
    std::vector<std::string> lines;

    control::rate_limited_log::sink sink() {
        return [this](std::string_view line) {
            std::lock_guard lock(mutex);
            lines.emplace_back(line);
        };
    }
    std::size_t containing(const std::string& text) {
        std::lock_guard lock(mutex);
        std::size_t n = 0;
        for (const auto& l : lines) n += l.find(text) != std::string::npos ? 1 : 0;
        return n;
    }
};

// accept4 fails with EMFILE while `failing` is set, as at the descriptor limit.
std::atomic<bool> accept_failing{false};
std::atomic<std::size_t> accept_calls{0};
int accept_at_the_limit(int fd, sockaddr* address, socklen_t* length, int flags) {
    ++accept_calls;
    if (accept_failing) {
        errno = EMFILE;
        return -1;
    }
    return ::accept4(fd, address, length, flags);
}

struct accept_seam {
    socket_calls saved = socket_sys();
    accept_seam() { socket_sys().accept4 = accept_at_the_limit; }
    ~accept_seam() { socket_sys() = saved; }
};

// The seam outlives the server's thread, which reads it.
struct harness_at_the_limit : accept_seam, harness {};

bytes hello_message(peer_role role) { return make_message(message_type::hello, 1, hello{role, 1, "raw"}); }

std::uint64_t stream_queued_bytes(harness& h) {
    std::uint64_t total = 0;
    const auto json = h.status();
    for (std::size_t at = json.find("\"queued_bytes\": "); at != std::string::npos;
         at = json.find("\"queued_bytes\": ", at + 1)) {
        total += std::stoull(json.substr(at + 16));
    }
    return total;
}

} // namespace

BOOST_FIXTURE_TEST_CASE(descriptors_passed_with_messages_are_closed_however_many, server_fixture) {
    raw_connection raw(path);
    testing::send_with_descriptors(raw.fd(), hello_message(peer_role::control), {raw.fd(), raw.fd(), raw.fd()});
    BOOST_TEST_REQUIRE(next_reply(raw.fd(), 10'000).has_value());
    const auto before = testing::open_descriptor_count(); // the server's end of `raw` included
    for (int i = 0; i < 50; ++i) {
        testing::send_with_descriptors(raw.fd(), make_message(message_type::status, 2, empty_body{}),
                                       std::vector<int>(i % 2 == 0 ? 2 : 64, raw.fd()));
        const auto r = next_reply(raw.fd(), 10'000);
        BOOST_TEST_REQUIRE(r.has_value());
        BOOST_TEST_REQUIRE(r->header.type == static_cast<std::uint16_t>(message_type::status_report));
    }
    BOOST_TEST(testing::open_descriptor_count() == before, "the server kept descriptors a client passed");
}

BOOST_FIXTURE_TEST_CASE(at_the_descriptor_limit_accepting_pauses_instead_of_spinning, harness_at_the_limit) {
    captured_log log;
    control::control_limits limits;
    limits.accept_pause = 1h; // only a closing connection resumes it here
    start(0600, limits, log.sink());
    status(); // the control client connects while descriptors are plentiful
    raw_connection closing_later(path);
    send_message(closing_later.fd(), hello_message(peer_role::control));
    BOOST_TEST_REQUIRE(next_reply(closing_later.fd(), 10'000).has_value());

    accept_failing = true;
    accept_calls = 0;
    raw_connection waiting(path); // in the backlog: the server cannot accept it
    send_message(waiting.fd(), hello_message(peer_role::control));
    for (int i = 0; i < 200; ++i) status();
    BOOST_TEST(accept_calls.load() == 1u, "accept was retried " << accept_calls.load() << " times: the loop spins");
    BOOST_TEST(log.containing("cannot accept connections") == 1u);

    accept_failing = false;
    ::shutdown(closing_later.fd(), SHUT_RDWR); // a descriptor frees: accepting resumes
    const auto answered = next_reply(waiting.fd(), 10'000);
    BOOST_TEST_REQUIRE(answered.has_value(), "the waiting client was never accepted");
    BOOST_TEST(answered->header.type == static_cast<std::uint16_t>(message_type::hello_ok));
    BOOST_TEST(log.containing("cannot accept connections") == 1u);
}

BOOST_FIXTURE_TEST_CASE(connections_beyond_the_limit_are_told_why_and_closed, harness) {
    control::control_limits limits;
    limits.max_connections = 3;
    start(0600, limits);
    status(); // one
    raw_connection second(path);
    raw_connection third(path);
    send_message(third.fd(), hello_message(peer_role::control));
    BOOST_TEST_REQUIRE(next_reply(third.fd(), 10'000).has_value());
    {
        raw_connection fourth(path);
        const auto r = next_reply(fourth.fd(), 10'000);
        BOOST_TEST_REQUIRE(r.has_value());
        BOOST_TEST(r->header.type == static_cast<std::uint16_t>(message_type::error));
        const auto e = body_of<error_reply>(*r);
        BOOST_TEST(e.code == nrt_status::resource);
        BOOST_TEST(e.message.find("at most 3 connections") != std::string::npos, e.message);
        BOOST_CHECK_THROW(receive_message(fourth.fd(), 10'000), connection_error);
    }
    ::shutdown(second.fd(), SHUT_RDWR);
    BOOST_TEST(status().find("trn2.48xlarge") != std::string::npos);
    // The closed one left room for a newcomer once the server saw it go.
    raw_connection newcomer(path);
    send_message(newcomer.fd(), hello_message(peer_role::control));
    const auto r = next_reply(newcomer.fd(), 10'000);
    BOOST_TEST_REQUIRE(r.has_value());
    BOOST_TEST(r->header.type == static_cast<std::uint16_t>(message_type::hello_ok));
}

BOOST_FIXTURE_TEST_CASE(a_connection_that_says_no_hello_is_closed_after_the_timeout, harness) {
    control::control_limits limits;
    limits.hello_timeout = 50ms;
    start(0600, limits);
    status(); // a greeted connection, idle from here on
    raw_connection silent(path);
    refused_and_closed(silent.fd(), "no hello within 50 ms");
    BOOST_TEST(status().find("trn2.48xlarge") != std::string::npos, "the greeted idle connection was closed too");
}

BOOST_FIXTURE_TEST_CASE(a_huge_repeat_count_holds_one_execution_in_the_model_at_a_time, server_fixture) {
    const auto r = runtime("repeater");
    open_range(*r, 0, 1);
    const auto m = load(*r, add_yaml);
    send_execute(*r, 7, m.model_id, UINT32_MAX);
    advance(std::chrono::nanoseconds(10 * add_duration_ns));
    BOOST_TEST(sim.call([](model::platform& p) { return p.executions().pending(); }) == 1u);
    BOOST_TEST(status().find("\"sessions\"") != std::string::npos); // the server still answers
}

BOOST_FIXTURE_TEST_CASE(a_killed_process_leaves_its_cores_free_of_its_queue, server_fixture) {
    auto killed = runtime("killed");
    open_range(*killed, 0, 1);
    const auto m = load(*killed, add_yaml);
    send_execute(*killed, 1, m.model_id, 1'000'000); // about a minute of simulated work
    for (std::uint32_t i = 0; i < 100; ++i) send_execute(*killed, 2 + i, m.model_id, 1000);
    advance(std::chrono::nanoseconds(add_duration_ns / 2));
    killed.reset(); // kill -9: the connection closes with the work queued
    status();       // settles the hang-up
    BOOST_TEST(sim.call([](model::platform& p) { return p.executions().pending(); }) == 0u);

    const auto next = runtime("next");
    open_range(*next, 0, 1);
    const auto mine = load(*next, add_yaml);
    send_execute(*next, 9, mine.model_id);
    advance(std::chrono::nanoseconds(add_duration_ns));
    const auto done = wait_executed(*next, 9);
    BOOST_TEST(done.status == model::nrt_status::success);
    BOOST_TEST(done.completed == 1u);
}

BOOST_FIXTURE_TEST_CASE(closing_the_session_answers_its_unfinished_execution, server_fixture) {
    const auto r = runtime("closer");
    open_range(*r, 0, 1);
    const auto m = load(*r, add_yaml);
    send_execute(*r, 5, m.model_id, 10);
    advance(std::chrono::nanoseconds(3 * add_duration_ns));
    send_message(r->fd(), make_message(message_type::close_session, 6, empty_body{}));
    const auto executed_reply = wait_executed(*r, 5);
    BOOST_TEST(executed_reply.status == model::nrt_status::closed);
    BOOST_TEST(executed_reply.completed == 3u);
    const auto closed = next_reply(r->fd(), 10'000);
    BOOST_TEST_REQUIRE(closed.has_value());
    BOOST_TEST(closed->header.type == static_cast<std::uint16_t>(message_type::ok));
}

BOOST_FIXTURE_TEST_CASE(a_stream_that_is_never_read_pins_at_most_its_limit, harness) {
    control::control_limits limits;
    limits.streams.per_stream_bytes = 6u << 20;
    limits.streams.total_bytes = 8u << 20;
    start(0600, limits);
    const auto r = runtime("hoarder");
    const auto session = open_range(*r, 0, 2);
    stream_client first(*this, session.token, 0);
    stream_client second(*this, session.token, 1);
    // The client claims to have read everything: its capacity never fills.
    first.counters->consumed.store(UINT64_MAX);
    second.counters->consumed.store(UINT64_MAX);

    // 64 KiB events: a 1 MiB datagram needs a high-order kernel allocation,
    // which fails now and then on a loaded machine.
    constexpr std::uint32_t event_bytes = 64u << 10;
    const auto events = [&](std::uint32_t core, std::uint32_t count) {
        return ctl().call<debug_emitted>(message_type::emit_debug,
                                         emit_debug{core, count, "big", "uint8", {event_bytes}, 0},
                                         message_type::debug_emitted);
    };
    // What the server holds once the I/O thread has sent all the socket
    // takes: the events wake it while it serves a request, and it may serve
    // the next request before it sends, so a reading counts once a second
    // one finds the same.
    const auto settled_queue = [&] {
        auto held = stream_queued_bytes(*this);
        for (int i = 0; i < 100; ++i) {
            const auto again = stream_queued_bytes(*this);
            if (again == held) break;
            held = again;
        }
        return held;
    };
    // Until the first stream's socket is full and the server holds all its
    // bound allows (a refused round alone is not enough: the I/O thread may
    // still have been moving the queue into the socket, on a loaded machine).
    // Read once: a later reading may be lower, as the kernel may refuse an
    // event already held (ENOBUFS under memory pressure), which frees it.
    bool full = false;
    for (int round = 0; round < 60 && !full; ++round) {
        const auto a = events(0, 64);
        const auto held = settled_queue();
        BOOST_TEST(held <= limits.streams.per_stream_bytes);
        full = a.accepted == 0 && held > limits.streams.per_stream_bytes - 2 * event_bytes;
    }
    BOOST_TEST_REQUIRE(full, "the first stream never stopped taking events");
    // The second stream's socket first takes what its send buffer holds
    // (kernel memory, not the server's): how much of a burst the I/O thread
    // moves there meanwhile is a race. Once the second stream drops, the
    // server holds for it only what the total leaves.
    std::uint64_t dropped_by_second = 0;
    for (int round = 0; round < 60 && dropped_by_second == 0; ++round) {
        dropped_by_second += events(1, 64).dropped;
        BOOST_TEST(settled_queue() <= limits.streams.total_bytes);
    }
    BOOST_TEST_REQUIRE(dropped_by_second > 0u, "the second stream never dropped an event");
    BOOST_TEST(stream_queued_bytes(*this) <= limits.streams.total_bytes);
    BOOST_TEST(second.counters->dropped.load() == dropped_by_second);
    BOOST_TEST(first.counters->dropped.load() > 0u);
}

BOOST_FIXTURE_TEST_CASE(control_requests_out_of_range_are_refused, server_fixture) {
    const auto refused = [&](auto&& request) {
        BOOST_CHECK_EXCEPTION(request(), request_refused, refused_with(nrt_status::invalid, ""));
    };
    refused([&] { ctl().call<empty_body>(message_type::inject_ecc, inject_ecc{0, "hbm", 1, -5}, message_type::ok); });
    refused([&] {
        ctl().call<empty_body>(message_type::inject_ecc, inject_ecc{0, "hbm", 1, INT32_MAX}, message_type::ok);
    });
    refused([&] { // -1 is "every core": nothing below it is a core
        ctl().call<empty_body>(message_type::inject_fault, inject_fault{0, -2, "dma_abort", "", -1}, message_type::ok);
    });
    refused([&] {
        ctl().call<empty_body>(message_type::inject_fault, inject_fault{0, 0, "dma_abort", "", -7}, message_type::ok);
    });
    refused([&] {
        ctl().call<empty_body>(message_type::inject_fault, inject_fault{0, 0, "dma_abort", "", INT32_MAX},
                               message_type::ok);
    });
    refused([&] {
        ctl().call<debug_emitted>(message_type::emit_debug, emit_debug{0, 1, "p", "float32", {1}, 7},
                                  message_type::debug_emitted);
    });
    refused([&] { // ten million one-MiB tensors
        ctl().call<debug_emitted>(message_type::emit_debug, emit_debug{0, 10'000'000, "p", "uint8", {1u << 20}, 0},
                                  message_type::debug_emitted);
    });
}

BOOST_FIXTURE_TEST_CASE(a_model_file_that_would_never_finish_is_refused_and_the_session_goes_on, server_fixture) {
    const auto r = runtime("loader");
    open_range(*r, 0, 1);
    // Ten to the tenth nodes once its aliases are expanded, in 600 bytes.
    std::string bomb = "neuron_emu_model: 1\nname: bomb\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int level = 1; level <= 9; ++level) {
        bomb += fmt::format("a{}: &a{} [", level, level);
        for (int i = 0; i < 10; ++i) bomb += fmt::format("{}*a{}", i == 0 ? "" : ", ", level - 1);
        bomb += "]\n";
    }
    bomb += "inputs: *a9\n";
    BOOST_CHECK_EXCEPTION(load(*r, "neuron_emu_model: 1\nname: a\ninputs: &x [*x]\n"), request_refused,
                          refused_with(nrt_status::invalid, "alias *x is inside the node it names"));
    BOOST_CHECK_EXCEPTION(load(*r, bomb), request_refused,
                          refused_with(nrt_status::invalid, "more than 1000000 nodes"));
    BOOST_TEST(load(*r, add_yaml).name == "add"); // the same session loads a good one
    BOOST_TEST(status().find("\"sessions\"") != std::string::npos);
}
