#define BOOST_TEST_MODULE control_server
#include "neuron/control/control_server.h"
#include "neuron/model/runtime/platform.h"
#include "neuron/model/runtime/simulation.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/state/ecc.h"
#include "neuron/protocol/simple_client.h"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace neuron;
using namespace neuron::protocol;
using namespace neuron::runtime_api;
using namespace std::chrono_literals;
using model::counter_kind;
using model::counter_ref;

#include "support/server_harness.h"

using namespace neuron::control::testing;

BOOST_FIXTURE_TEST_CASE(hello_with_each_role_is_answered, server_fixture) {
    for (const auto role : {peer_role::runtime, peer_role::control, peer_role::debug_stream}) {
        const auto c = client(role, "hello-test");
        BOOST_TEST(c->server().server.starts_with("neuron-emu "), c->server().server);
        BOOST_TEST(c->server().instance == "trn2.48xlarge");
    }
}

BOOST_FIXTURE_TEST_CASE(the_socket_is_private_to_its_owner, server_fixture) {
    struct stat st {};
    BOOST_TEST_REQUIRE(::lstat(path.c_str(), &st) == 0);
    BOOST_TEST(S_ISSOCK(st.st_mode));
    BOOST_TEST((st.st_mode & 07777) == 0600u);
}

BOOST_FIXTURE_TEST_CASE(a_first_message_that_is_not_hello_is_refused_and_closed, server_fixture) {
    raw_connection raw(path);
    send_message(raw.fd(), make_message(message_type::describe_instance, 1, empty_body{}));
    refused_and_closed(raw.fd(), "the first message must be a hello");
    raw_connection ctl_first(path);
    send_message(ctl_first.fd(), make_message(message_type::status, 1, empty_body{}));
    refused_and_closed(ctl_first.fd(), "hello");
}

BOOST_FIXTURE_TEST_CASE(another_protocol_version_is_refused_and_others_are_still_served, server_fixture) {
    raw_connection raw(path);
    wire_writer w;
    encode_header(w, {wire_magic, static_cast<std::uint16_t>(wire_version + 1),
                      static_cast<std::uint16_t>(message_type::hello), 1, 0});
    encode_fields(w, hello{peer_role::runtime, 1, "future"});
    auto message = w.bytes();
    const auto body_size = static_cast<std::uint32_t>(message.size() - header_size);
    std::memcpy(message.data() + 12, &body_size, 4);
    send_message(raw.fd(), message);
    refused_and_closed(raw.fd(), "protocol version " + std::to_string(wire_version + 1) +
                                     " is not supported; this side speaks " + std::to_string(wire_version));
    BOOST_TEST(status().find("trn2.48xlarge") != std::string::npos);
    const auto r = runtime();
    BOOST_TEST(open(*r, core_selection::count, 0, 1).count == 1u);
}

BOOST_FIXTURE_TEST_CASE(garbage_closes_only_that_connection, server_fixture) {
    const auto survivor = runtime("survivor");
    open_range(*survivor, 0, 2);

    raw_connection garbage(path);
    send_message(garbage.fd(), bytes{1, 2, 3, 4, 5});
    refused_and_closed(garbage.fd(), "shorter than a message header");

    raw_connection bad_hello(path);
    auto hello_message = make_message(message_type::hello, 1, hello{peer_role::runtime, 1, "x"});
    hello_message[header_size] = 9; // role
    send_message(bad_hello.fd(), hello_message);
    refused_and_closed(bad_hello.fd(), "unknown role");

    const auto truncated = runtime("truncated");
    auto open_message = make_message(message_type::open_session, 5, open_session{2, core_selection::range, 4, 1});
    open_message.pop_back();
    const std::uint32_t shorter = static_cast<std::uint32_t>(open_message.size() - header_size);
    std::memcpy(open_message.data() + 12, &shorter, 4);
    send_message(truncated->fd(), open_message);
    refused_and_closed(truncated->fd(), "open_session.count");

    const auto trailing = client(peer_role::control, "trailing");
    auto status_message = make_message(message_type::status, 5, empty_body{});
    status_message.push_back(0);
    status_message[12] = 1;
    send_message(trailing->fd(), status_message);
    refused_and_closed(trailing->fd(), "unexpected trailing bytes");

    const auto confused = runtime("confused");
    send_message(confused->fd(), make_message(message_type::status, 5, empty_body{}));
    refused_and_closed(confused->fd(), "not a runtime request");

    // The others are untouched.
    BOOST_TEST(survivor
                   ->call<instance_description>(message_type::describe_instance, empty_body{},
                                                message_type::instance_description)
                   .name == "trn2.48xlarge");
    BOOST_TEST(status().find("survivor") != std::string::npos);
    BOOST_TEST(sim.call([](model::platform& p) { return p.owners().core_owner(0, 0).has_value(); }));
}

BOOST_FIXTURE_TEST_CASE(describe_instance_reports_trn2_48xlarge, server_fixture) {
    const auto r = runtime();
    const auto d = r->call<instance_description>(message_type::describe_instance, empty_body{},
                                                 message_type::instance_description);
    BOOST_TEST(d.name == "trn2.48xlarge");
    BOOST_TEST(d.family == 5u); // NRT_INSTANCE_TRN2
    BOOST_TEST(d.size == 7u);   // NRT_INSTANCE_SIZE_48XL
    BOOST_TEST(d.arch_name == "TRN");
    BOOST_TEST(d.device_count == 16u);
    BOOST_TEST(d.physical_cores_per_device == 8u);
    BOOST_TEST(d.default_lnc == 2u);
    BOOST_TEST(d.max_lnc == 2u);
    BOOST_TEST(d.device_memory_bytes == 96ull << 30);
}

BOOST_FIXTURE_TEST_CASE(open_session_takes_all_a_range_or_a_count, server_fixture) {
    const auto all = runtime("all");
    const auto everything = open(*all, core_selection::all_free);
    BOOST_TEST(everything.lnc == 2u);
    BOOST_TEST(everything.first == 0u);
    BOOST_TEST(everything.count == 64u);
    BOOST_TEST(everything.token != 0u);
    BOOST_CHECK_EXCEPTION(open(*all, core_selection::all_free), request_refused,
                          refused_with(nrt_status::invalid, "already has a runtime session"));
    close_session(*all);

    const auto ranged = runtime("ranged");
    const auto range = open_range(*ranged, 4, 8);
    BOOST_TEST(range.first == 4u);
    BOOST_TEST(range.count == 8u);
    BOOST_TEST(range.token != everything.token);

    const auto counted = runtime("counted");
    const auto three = open(*counted, core_selection::count, 0, 3);
    BOOST_TEST(three.first == 0u); // 0..3 are free
    BOOST_TEST(three.count == 3u);

    const auto more = runtime("more");
    const auto five = open(*more, core_selection::count, 0, 5);
    BOOST_TEST(five.first == 12u); // the first run of 5 free logical cores
    BOOST_TEST(five.count == 5u);

    // LNC=1 counts physical cores: 6 and 7 are the only free ones before 34.
    const auto single = runtime("single");
    const auto one = open(*single, core_selection::count, 0, 1, 1);
    BOOST_TEST(one.lnc == 1u);
    BOOST_TEST(one.first == 6u);
    BOOST_TEST(sim.call([](model::platform& p) { return p.owners().core_owner(0, 6).has_value(); }));
    BOOST_TEST(!sim.call([](model::platform& p) { return p.owners().core_owner(0, 7).has_value(); }));
}

BOOST_FIXTURE_TEST_CASE(owned_cores_are_refused_naming_the_owner, server_fixture) {
    const auto first = runtime("first-app");
    open_range(*first, 0, 4);
    const auto second = runtime("second-app");
    BOOST_CHECK_EXCEPTION(open_range(*second, 2, 4), request_refused, refused_with(nrt_status::resource, "first-app"));
    BOOST_CHECK_EXCEPTION(open_range(*second, 2, 4), request_refused,
                          refused_with(nrt_status::resource, "logical NeuronCore 2"));
    BOOST_CHECK_EXCEPTION(open(*second, core_selection::count, 0, 64), request_refused,
                          refused_with(nrt_status::resource, ""));
    // A refused request leaves the connection usable.
    BOOST_TEST(open_range(*second, 4, 4).first == 4u);
}

BOOST_FIXTURE_TEST_CASE(a_range_outside_the_instance_is_invalid, server_fixture) {
    const auto r = runtime();
    BOOST_CHECK_EXCEPTION(open_range(*r, 60, 8), request_refused, refused_with(nrt_status::invalid, "trn2.48xlarge"));
    BOOST_CHECK_EXCEPTION(open_range(*r, 64, 1), request_refused, refused_with(nrt_status::invalid, ""));
    BOOST_CHECK_EXCEPTION(open_range(*r, 0, 0), request_refused, refused_with(nrt_status::invalid, ""));
    BOOST_CHECK_EXCEPTION(open_range(*r, 0, 129, 1), request_refused, refused_with(nrt_status::invalid, ""));
    BOOST_CHECK_EXCEPTION(open(*r, core_selection::count, 0, 65), request_refused,
                          refused_with(nrt_status::invalid, "64"));
    BOOST_CHECK_EXCEPTION(open(*r, core_selection::count, 0, 0), request_refused,
                          refused_with(nrt_status::invalid, ""));
    BOOST_CHECK_EXCEPTION(open_range(*r, 0, 1, 3), request_refused, refused_with(nrt_status::invalid, "size 3"));
    BOOST_TEST(owners() == 0u);
    BOOST_TEST(open_range(*r, 63, 1).first == 63u);
}

BOOST_FIXTURE_TEST_CASE(an_empty_range_is_described_without_wrapping_around, server_fixture) {
    const auto r = runtime();
    BOOST_CHECK_EXCEPTION(open_range(*r, 0, 0), request_refused, [](const request_refused& e) {
        BOOST_TEST_INFO(e.what());
        return e.code() == nrt_status::invalid && std::string(e.what()).find("4294967295") == std::string::npos;
    });
}

BOOST_FIXTURE_TEST_CASE(allocate_and_free_move_the_memory_counters, server_fixture) {
    const auto r = runtime();
    open_range(*r, 1, 1); // physical (0,2) and (0,3); memory counts on (0,2)
    const auto id = r->call<allocated>(message_type::allocate, allocate{1, memory_location::device, 9, 5000},
                                       message_type::allocated)
                        .id;
    BOOST_TEST((counter(0, 2, counter_kind::device_mem) == model::counter_value{8192, 8192, 8192}));
    BOOST_TEST((counter(0, 2, counter_kind::device_tensors) == model::counter_value{8192, 8192, 8192}));
    BOOST_TEST(counter(0, 3, counter_kind::device_mem).total == 0u);

    const auto host =
        r->call<allocated>(message_type::allocate, allocate{1, memory_location::host, 2, 100}, message_type::allocated)
            .id;
    BOOST_TEST(counter(0, 2, counter_kind::host_mem).total == 4096u);
    BOOST_TEST(counter(0, counter_ref::device_level, counter_kind::host_tensors).total == 4096u);

    r->call<empty_body>(message_type::free_memory, free_memory{id}, message_type::ok);
    BOOST_TEST((counter(0, 2, counter_kind::device_mem) == model::counter_value{0, 8192, 8192}));
    BOOST_TEST(counter(0, 2, counter_kind::device_tensors).total == 0u);
    r->call<empty_body>(message_type::free_memory, free_memory{host}, message_type::ok);
    BOOST_TEST(counter(0, 2, counter_kind::host_mem).total == 0u);

    BOOST_CHECK_EXCEPTION((r->call<empty_body>(message_type::free_memory, free_memory{id}, message_type::ok)),
                          request_refused, refused_with(nrt_status::invalid, ""));
    BOOST_CHECK_EXCEPTION((r->call<allocated>(message_type::allocate, allocate{0, memory_location::device, 9, 1},
                                              message_type::allocated)),
                          request_refused, refused_with(nrt_status::invalid, "not owned by this process"));
    BOOST_CHECK_EXCEPTION((r->call<allocated>(message_type::allocate, allocate{1, memory_location::device, 9, 0},
                                              message_type::allocated)),
                          request_refused, refused_with(nrt_status::invalid, ""));
    BOOST_CHECK_EXCEPTION(
        (r->call<allocated>(message_type::allocate, allocate{1, memory_location::device, 9, 200ull << 30},
                            message_type::allocated)),
        request_refused, refused_with(nrt_status::resource, ""));
}

BOOST_FIXTURE_TEST_CASE(allocating_before_open_session_is_invalid, server_fixture) {
    const auto r = runtime();
    BOOST_CHECK_EXCEPTION((r->call<allocated>(message_type::allocate, allocate{0, memory_location::device, 9, 1},
                                              message_type::allocated)),
                          request_refused, refused_with(nrt_status::invalid, "no runtime session"));
}

BOOST_FIXTURE_TEST_CASE(closing_the_runtime_connection_releases_everything_it_held, server_fixture) {
    auto r = runtime("leaver");
    open_range(*r, 0, 1);
    const auto m = load(*r, add_yaml);
    r->call<allocated>(message_type::allocate, allocate{0, memory_location::device, 9, 4096}, message_type::allocated);
    send_execute(*r, 3000, m.model_id, 2);
    advance(1ms);
    BOOST_TEST(wait_executed(*r, 3000).completed == 2u);
    BOOST_TEST(counter(0, 0, counter_kind::success).total == 0u);
    BOOST_TEST(counter(0, 0, counter_kind::inference_count).total == 0u);
    BOOST_TEST(counter(0, 0, counter_kind::device_mem).total == add_device_bytes + 4096);

    r.reset();                  // the process went away
    const auto json = status(); // control requests settle hang-ups first
    BOOST_TEST(json.find("leaver") == std::string::npos, json);
    BOOST_TEST(counter(0, 0, counter_kind::success).total == 2u);
    BOOST_TEST(counter(0, 0, counter_kind::inference_count).total == 2u);
    BOOST_TEST(counter(0, 0, counter_kind::flop_count).total == 2u * 2u * 12u);
    BOOST_TEST(counter(0, 0, counter_kind::model_load_count).total == 1u);
    BOOST_TEST(counter(0, 0, counter_kind::device_mem).total == 0u);
    BOOST_TEST(owners() == 0u);
    const auto next = runtime("next");
    BOOST_TEST(open_range(*next, 0, 1).first == 0u);
}

BOOST_FIXTURE_TEST_CASE(close_session_releases_everything_before_it_answers, server_fixture) {
    const auto r = runtime("closer");
    open_range(*r, 0, 1);
    const auto m = load(*r, add_yaml);
    send_execute(*r, 4000, m.model_id);
    advance(1ms);
    BOOST_TEST(wait_executed(*r, 4000).status == 0u);
    close_session(*r);
    BOOST_TEST(counter(0, 0, counter_kind::success).total == 1u);
    BOOST_TEST(counter(0, 0, counter_kind::inference_count).total == 1u);
    BOOST_TEST(counter(0, 0, counter_kind::device_mem).total == 0u);
    BOOST_TEST(owners() == 0u);
    BOOST_CHECK_EXCEPTION(load(*r, add_yaml), request_refused, refused_with(nrt_status::invalid, "no runtime session"));
    // The connection can start again.
    BOOST_TEST(open_range(*r, 0, 1).count == 1u);
    BOOST_TEST(owners() == 1u);
}

BOOST_FIXTURE_TEST_CASE(stop_releases_connected_clients_and_removes_the_socket, server_fixture) {
    const auto r = runtime("held");
    const auto session = open_range(*r, 0, 4);
    stream_client stream(*this, session.token, 1);
    load(*r, add_yaml);
    BOOST_TEST(owners() == 1u);
    server->stop();
    BOOST_TEST(!std::filesystem::exists(path));
    BOOST_TEST(owners() == 0u);
    BOOST_TEST(counter(0, 0, counter_kind::device_mem).total == 0u);
    BOOST_CHECK_THROW(receive_message(r->fd(), 10'000), connection_error);
    BOOST_CHECK_THROW(receive_message(stream.connection->fd(), 10'000), connection_error);
    BOOST_CHECK_THROW(simple_client(path, peer_role::control, "late"), connection_error);
    BOOST_CHECK_NO_THROW(server->stop()); // idempotent
}

BOOST_FIXTURE_TEST_CASE(a_stale_socket_file_is_replaced, harness) {
    const auto address = unix_address(path);
    const int dead = ::socket(AF_UNIX, SOCK_SEQPACKET, 0);
    BOOST_TEST_REQUIRE(::bind(dead, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0);
    ::close(dead); // the file stays, nobody listens
    BOOST_TEST_REQUIRE(std::filesystem::exists(path));
    start();
    BOOST_TEST(client(peer_role::control, "after")->server().instance == "trn2.48xlarge");
}

BOOST_FIXTURE_TEST_CASE(a_live_servers_path_is_refused, server_fixture) {
    control::control_options second;
    second.path = path;
    BOOST_CHECK_EXCEPTION(std::make_unique<control::control_server>(sim, second), model::model_error,
                          [this](const model::model_error& e) {
                              BOOST_TEST_INFO(e.what());
                              return std::string(e.what()).find("another emulator is serving at " + path) !=
                                     std::string::npos;
                          });
    BOOST_TEST(client(peer_role::control, "still")->server().instance == "trn2.48xlarge");
    BOOST_TEST(status().find("trn2.48xlarge") != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(a_path_that_is_not_a_socket_is_refused, harness) {
    std::FILE* file = std::fopen(path.c_str(), "w");
    BOOST_TEST_REQUIRE(file != nullptr);
    std::fclose(file);
    BOOST_CHECK_EXCEPTION(start(), model::model_error, [](const model::model_error& e) {
        BOOST_TEST_INFO(e.what());
        return std::string(e.what()).find("is not a socket") != std::string::npos;
    });
    BOOST_TEST(std::filesystem::is_regular_file(path)); // left alone
}

BOOST_FIXTURE_TEST_CASE(an_execution_still_running_when_the_server_goes_away_is_harmless, server_fixture) {
    const auto r = runtime();
    open_range(*r, 0, 1);
    const auto m = load(*r, add_yaml);
    send_execute(*r, 5000, m.model_id);
    BOOST_TEST(quiet(*r));
    server.reset();   // its connections closed; the execution is still queued in the model
    sim.advance(1ms); // completes it: its reply must go nowhere
    BOOST_TEST(owners() == 0u);
}
