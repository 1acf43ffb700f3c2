#define BOOST_TEST_MODULE control_server
#include "neuron/control/control_server.h"
#include "neuron/model/ecc.h"
#include "neuron/model/errors.h"
#include "neuron/model/platform.h"
#include "neuron/model/simulation.h"
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
using namespace std::chrono_literals;
using model::counter_kind;
using model::counter_ref;

namespace neuron::model {
inline std::ostream& operator<<(std::ostream& os, device_state s) { return os << static_cast<int>(s); }
} // namespace neuron::model

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
    encode_header(w, {wire_magic, static_cast<std::uint16_t>(wire_version + 1), static_cast<std::uint16_t>(message_type::hello), 1, 0});
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
    BOOST_TEST(survivor->call<instance_description>(message_type::describe_instance, empty_body{},
                                                    message_type::instance_description)
                   .name == "trn2.48xlarge");
    BOOST_TEST(status().find("survivor") != std::string::npos);
    BOOST_TEST(sim.call([](model::platform& p) { return p.owners().core_owner(0, 0).has_value(); }));
}

BOOST_FIXTURE_TEST_CASE(describe_instance_reports_trn2_48xlarge, server_fixture) {
    const auto r = runtime();
    const auto d = r->call<instance_description>(message_type::describe_instance, empty_body{}, message_type::instance_description);
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
    BOOST_CHECK_EXCEPTION(open_range(*second, 2, 4), request_refused, refused_with(nrt_status::resource, "logical NeuronCore 2"));
    BOOST_CHECK_EXCEPTION(open(*second, core_selection::count, 0, 64), request_refused, refused_with(nrt_status::resource, ""));
    // A refused request leaves the connection usable.
    BOOST_TEST(open_range(*second, 4, 4).first == 4u);
}

BOOST_FIXTURE_TEST_CASE(a_range_outside_the_instance_is_invalid, server_fixture) {
    const auto r = runtime();
    BOOST_CHECK_EXCEPTION(open_range(*r, 60, 8), request_refused, refused_with(nrt_status::invalid, "trn2.48xlarge"));
    BOOST_CHECK_EXCEPTION(open_range(*r, 64, 1), request_refused, refused_with(nrt_status::invalid, ""));
    BOOST_CHECK_EXCEPTION(open_range(*r, 0, 0), request_refused, refused_with(nrt_status::invalid, ""));
    BOOST_CHECK_EXCEPTION(open_range(*r, 0, 129, 1), request_refused, refused_with(nrt_status::invalid, ""));
    BOOST_CHECK_EXCEPTION(open(*r, core_selection::count, 0, 65), request_refused, refused_with(nrt_status::invalid, "64"));
    BOOST_CHECK_EXCEPTION(open(*r, core_selection::count, 0, 0), request_refused, refused_with(nrt_status::invalid, ""));
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

    const auto host = r->call<allocated>(message_type::allocate, allocate{1, memory_location::host, 2, 100},
                                         message_type::allocated)
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
    BOOST_CHECK_EXCEPTION((r->call<allocated>(message_type::allocate, allocate{1, memory_location::device, 9, 200ull << 30},
                                              message_type::allocated)),
                          request_refused, refused_with(nrt_status::resource, ""));
}

BOOST_FIXTURE_TEST_CASE(allocating_before_open_session_is_invalid, server_fixture) {
    const auto r = runtime();
    BOOST_CHECK_EXCEPTION((r->call<allocated>(message_type::allocate, allocate{0, memory_location::device, 9, 1},
                                              message_type::allocated)),
                          request_refused, refused_with(nrt_status::invalid, "no runtime session"));
}

BOOST_FIXTURE_TEST_CASE(load_model_returns_the_plan_and_counts_at_release, server_fixture) {
    const auto r = runtime();
    const auto session = open_range(*r, 2, 2); // logical 2: physical (0,4),(0,5)
    const auto m = load(*r, add_yaml);
    BOOST_TEST(m.name == "add");
    BOOST_TEST(m.logical_core == session.first);
    BOOST_TEST(m.model_id != 0u);
    BOOST_TEST_REQUIRE(m.tensors.size() == 3u);
    BOOST_TEST(m.tensors[0].name == "a");
    BOOST_TEST(m.tensors[0].size == 24u);
    BOOST_TEST(m.tensors[0].dtype == 0xAu);
    BOOST_TEST((m.tensors[2].usage == tensor_usage::output));
    BOOST_TEST((m.tensors[2].rule == output_rule::sum));
    BOOST_TEST(m.tensors[2].sources == std::vector<std::string>({"a", "b"}), boost::test_tools::per_element());
    // The next load goes to the next core without a model.
    BOOST_TEST(load(*r, add_yaml).logical_core == 3u);

    BOOST_TEST(counter(0, 4, counter_kind::device_mem).total == add_device_bytes);
    BOOST_TEST(counter(0, 4, counter_kind::device_model_code).total == 1048576u);
    BOOST_TEST(counter(0, counter_ref::device_level, counter_kind::host_dma_buffers).total == 2u * 262144u);
    BOOST_TEST(counter(0, 4, counter_kind::model_load_count).total == 0u); // held by the session
    close_session(*r);
    BOOST_TEST(counter(0, 4, counter_kind::model_load_count).total == 1u);
    BOOST_TEST(counter(0, 6, counter_kind::model_load_count).total == 1u);
    BOOST_TEST(counter(0, 4, counter_kind::device_mem).total == 0u);
}

BOOST_FIXTURE_TEST_CASE(a_stranger_file_or_a_bad_model_file_is_invalid, server_fixture) {
    const auto r = runtime();
    open_range(*r, 0, 1);
    const std::string neff("NEFF\0\0\0\x02\x1f\x8b\x08\0\0\0\0\0\xff", 17);
    BOOST_CHECK_EXCEPTION(load(*r, neff), request_refused, refused_with(nrt_status::invalid, "neither a NEFF nor an emulated model file"));
    BOOST_CHECK_EXCEPTION(load(*r, "neuron_emu_model: 1\nname: x\nnmae: y\n"), request_refused,
                          refused_with(nrt_status::invalid, "model:3:1: unknown key 'nmae'"));
    BOOST_CHECK_EXCEPTION(load(*r, add_yaml, 5), request_refused, refused_with(nrt_status::invalid, "not owned"));
    close_session(*r);
    BOOST_TEST(counter(0, 0, counter_kind::invalid_error).total == 2u); // the two refused files
    BOOST_TEST(counter(0, 0, counter_kind::model_load_count).total == 0u);
}

BOOST_FIXTURE_TEST_CASE(executed_is_replied_only_once_stepped_time_passes_the_duration, server_fixture) {
    const auto r = runtime();
    open_range(*r, 0, 1);
    const auto m = load(*r, add_yaml);
    const auto start = advance(0ns);
    send_execute(*r, 1000, m.model_id);
    BOOST_TEST(quiet(*r)); // stepped time has not moved
    BOOST_TEST(advance(std::chrono::nanoseconds(add_duration_ns - 1)) == start + add_duration_ns - 1);
    BOOST_TEST(quiet(*r));
    BOOST_TEST(advance(1ns) == start + add_duration_ns);
    const auto done = wait_executed(*r, 1000);
    BOOST_TEST(done.status == 0u);
    BOOST_TEST(done.completed == 1u);

    send_execute(*r, 1001, m.model_id, 3); // one after the other on the core
    advance(std::chrono::nanoseconds(2 * add_duration_ns));
    BOOST_TEST(quiet(*r));
    advance(std::chrono::nanoseconds(add_duration_ns));
    const auto three = wait_executed(*r, 1001);
    BOOST_TEST(three.status == 0u);
    BOOST_TEST(three.completed == 3u);

    BOOST_CHECK_EXCEPTION((r->call<executed>(message_type::execute, execute{m.model_id + 100, 1}, message_type::executed)),
                          request_refused, refused_with(nrt_status::invalid, "no loaded model"));
    BOOST_CHECK_EXCEPTION((r->call<executed>(message_type::execute, execute{m.model_id, 0}, message_type::executed)),
                          request_refused, refused_with(nrt_status::invalid, "at least once"));
    BOOST_CHECK_EXCEPTION(
        (r->call<executed>(message_type::execute, execute{m.model_id, 1, UINT64_MAX}, message_type::executed)),
        request_refused, refused_with(nrt_status::invalid, "execution timeout"));
}

BOOST_FIXTURE_TEST_CASE(a_fault_trigger_gives_the_execution_its_status, server_fixture) {
    const auto r = runtime();
    open_range(*r, 0, 1);
    const auto m = load(*r, "neuron_emu_model: 1\nname: f\nwork: {tensor: 2400}\nfaults:\n"
                            "  - {status: NRT_EXEC_OOB, on_execution: 2}\n");
    send_execute(*r, 2000, m.model_id, 3);
    advance(1ms);
    const auto done = wait_executed(*r, 2000);
    BOOST_TEST(done.status == 1006u); // the first failing repeat's
    BOOST_TEST(done.completed == 3u);
    close_session(*r);
    BOOST_TEST(counter(0, 0, counter_kind::oob_error).total == 1u);
    BOOST_TEST(counter(0, 0, counter_kind::success).total == 2u);
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

    r.reset(); // the process went away
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

BOOST_FIXTURE_TEST_CASE(the_status_report_mentions_the_instance_and_sessions, server_fixture) {
    const auto r = runtime("status-app");
    open_range(*r, 5, 2);
    load(*r, add_yaml);
    const auto json = status();
    BOOST_TEST(json.find("\"instance\": \"trn2.48xlarge\"") != std::string::npos, json);
    BOOST_TEST(json.find("\"driver_version\": \"2.24.7.0\"") != std::string::npos, json);
    BOOST_TEST(json.find("\"label\": \"status-app\"") != std::string::npos, json);
    BOOST_TEST(json.find("\"first_logical_core\": 5") != std::string::npos, json);
    BOOST_TEST(json.find("\"logical_cores\": 2") != std::string::npos, json);
    BOOST_TEST(json.find("\"mode\": \"stepped\"") != std::string::npos, json);
    BOOST_TEST(json.find("sessions=1") != std::string::npos, json);
}

BOOST_FIXTURE_TEST_CASE(inject_ecc_reaches_the_device, server_fixture) {
    ctl().call<empty_body>(message_type::inject_ecc, inject_ecc{3, "hbm", 2, -1}, message_type::ok);
    ctl().call<empty_body>(message_type::inject_ecc, inject_ecc{3, "sram", 1, -1}, message_type::ok);
    const auto ecc = model::read_ecc(sim.published(), 3);
    BOOST_TEST(ecc.mem_ecc_uncorrected == 2u);
    BOOST_TEST(ecc.sram_ecc_uncorrected == 1u);
    BOOST_TEST(model::read_ecc(sim.published(), 2).mem_ecc_uncorrected == 0u);
    BOOST_CHECK_EXCEPTION((ctl().call<empty_body>(message_type::inject_ecc, inject_ecc{0, "bogus", 1, -1}, message_type::ok)),
                          request_refused, refused_with(nrt_status::invalid, "bogus"));
    BOOST_CHECK_EXCEPTION((ctl().call<empty_body>(message_type::inject_ecc, inject_ecc{16, "hbm", 1, -1}, message_type::ok)),
                          request_refused, refused_with(nrt_status::invalid, ""));
    BOOST_CHECK_EXCEPTION((ctl().call<empty_body>(message_type::inject_ecc, inject_ecc{0, "hbm", 0, -1}, message_type::ok)),
                          request_refused, refused_with(nrt_status::invalid, ""));
}

BOOST_FIXTURE_TEST_CASE(inject_fault_strikes_the_next_execution_on_the_device, server_fixture) {
    const auto r = runtime();
    open_range(*r, 0, 1);
    const auto m = load(*r, add_yaml);
    ctl().call<empty_body>(message_type::inject_fault, inject_fault{0, -1, "sram_uncorrectable", "tensor", -1},
                           message_type::ok);
    send_execute(*r, 3000, m.model_id);
    advance(1ms);
    const auto done = wait_executed(*r, 3000);
    BOOST_TEST(done.status == 1202u); // NRT_EXEC_HW_ERR_NC_UE
    BOOST_TEST(model::read_ecc(sim.published(), 0).sram_ecc_uncorrected >= 1u);
    BOOST_TEST(model::read_ecc(sim.published(), 1).sram_ecc_uncorrected == 0u);
}

BOOST_FIXTURE_TEST_CASE(inject_fault_refuses_what_the_model_cannot_arm, server_fixture) {
    const auto refused = [&](const inject_fault& request, const std::string& text) {
        BOOST_CHECK_EXCEPTION((ctl().call<empty_body>(message_type::inject_fault, request, message_type::ok)),
                              request_refused, refused_with(nrt_status::invalid, text));
    };
    refused({0, -1, "bogus", "", -1}, "unknown fault kind 'bogus' (one of: dma_abort, out_of_bounds,");
    refused({16, -1, "dma_abort", "", -1}, "");
    refused({0, 99, "dma_abort", "", -1}, "");
    refused({0, 0, "out_of_bounds", "tensor", 0}, "not both");
    refused({0, 0, "out_of_bounds", "warp", -1}, "'warp' is not an engine");
    refused({0, 0, "dma_abort", "tensor", -1}, "strikes a DMA queue, not an engine");
    refused({0, 0, "collectives_hang", "", 0}, "takes no engine or queue");
}

BOOST_FIXTURE_TEST_CASE(reset_device_is_queued_unless_a_runtime_holds_the_device, server_fixture) {
    BOOST_TEST(reset(1) == "queued");
    BOOST_TEST(sim.published().reset_state(1) == model::device_state::resetting);
    BOOST_TEST(reset(1) == "already_pending");
    const auto r = runtime("holder");
    open_range(*r, 0, 1); // device 0
    BOOST_TEST(reset(0) == "refused_device_open");
    BOOST_TEST(sim.published().reset_state(0) == model::device_state::ready);
    advance(1ms);
    BOOST_TEST(sim.published().reset_state(1) == model::device_state::ready);
    BOOST_CHECK_EXCEPTION(reset(16), request_refused, refused_with(nrt_status::invalid, ""));
}

BOOST_FIXTURE_TEST_CASE(fail_resets_makes_the_next_reset_fail, server_fixture) {
    ctl().call<empty_body>(message_type::fail_resets, fail_resets{2, 1}, message_type::ok);
    BOOST_TEST(reset(2) == "queued");
    advance(1ms);
    BOOST_TEST(sim.published().reset_state(2) == model::device_state::invalid);
    BOOST_TEST(counter(2, 0, counter_kind::reset_fail_count).total == 1u);
    BOOST_TEST(reset(2) == "queued");
    advance(1ms);
    BOOST_TEST(sim.published().reset_state(2) == model::device_state::ready);
    BOOST_CHECK_EXCEPTION((ctl().call<empty_body>(message_type::fail_resets, fail_resets{2, -1}, message_type::ok)),
                          request_refused, refused_with(nrt_status::invalid, ""));
}

BOOST_FIXTURE_TEST_CASE(advance_moves_stepped_time, server_fixture) {
    const auto start = sim.published().clock().now_ns();
    BOOST_TEST(advance(1500ns) == start + 1500);
    BOOST_TEST(advance(1s) == start + 1500 + 1'000'000'000);
    BOOST_TEST(sim.published().clock().now_ns() == start + 1500 + 1'000'000'000);
    BOOST_TEST(advance(0ns) == start + 1500 + 1'000'000'000);
}

BOOST_FIXTURE_TEST_CASE(emit_debug_to_a_core_without_a_client_is_discarded, server_fixture) {
    const auto nobody = emit(5, 100);
    BOOST_TEST(nobody.accepted == 0u);
    BOOST_TEST(nobody.dropped == 0u);
    BOOST_TEST(nobody.discarded == 100u);
    const auto r = runtime();
    open_range(*r, 5, 1);
    const auto unconnected = emit(5, 7);
    BOOST_TEST(unconnected.discarded == 7u);
    BOOST_TEST(status().find("\"discarded\": 7") != std::string::npos);
    BOOST_CHECK_EXCEPTION(emit(5, 1, "float64"), request_refused, refused_with(nrt_status::invalid, "float64"));
    BOOST_CHECK_EXCEPTION(emit(5, 1, "float32", {}), request_refused, refused_with(nrt_status::invalid, "dimensions"));
    BOOST_CHECK_EXCEPTION(emit(64, 1), request_refused, refused_with(nrt_status::invalid, "out of range"));
    BOOST_CHECK_EXCEPTION(emit(5, 0), request_refused, refused_with(nrt_status::invalid, "count"));
}

BOOST_FIXTURE_TEST_CASE(a_debug_stream_takes_up_to_its_capacity_and_delivers_in_order, server_fixture) {
    const auto r = runtime("streamer");
    const auto session = open_range(*r, 2, 2);
    stream_client stream(*this, session.token, 3);
    const auto result = emit(3, 70000);
    BOOST_TEST(result.accepted == 65536u);
    BOOST_TEST(result.dropped == 4464u);
    BOOST_TEST(result.discarded == 0u);
    BOOST_TEST(stream.counters->accepted.load() == 65536u);
    BOOST_TEST(stream.counters->dropped.load() == 4464u);

    const int fd = stream.connection->fd();
    for (std::uint32_t i = 0; i < 65536; ++i) {
        const auto message = receive_message(fd, 10'000);
        BOOST_TEST_REQUIRE(message.has_value(), "event " << i << " did not arrive");
        const auto& d = message->bytes;
        BOOST_TEST_REQUIRE(d.size() == 64u + 1024u + 4u);
        BOOST_TEST_REQUIRE(read_at<std::uint64_t>(d, 0) == 1028u);
        BOOST_TEST_REQUIRE(read_at<std::uint32_t>(d, 8) == 1u);
        BOOST_TEST_REQUIRE(read_at<std::uint32_t>(d, 64 + 512) == 1u); // the session's second core
        BOOST_TEST_REQUIRE(read_at<float>(d, 64 + 1024) == static_cast<float>(i));
        stream.counters->consumed.fetch_add(1);
    }
    BOOST_TEST(!receive_message(fd, 200).has_value()); // the 4464 dropped ones never come
    // Read events make room again.
    const auto again = emit(3, 10);
    BOOST_TEST(again.accepted == 10u);
    const auto message = receive_message(fd, 10'000);
    BOOST_TEST_REQUIRE(message.has_value());
    BOOST_TEST(std::string(reinterpret_cast<const char*>(message->bytes.data() + 64)) == "event");
    BOOST_TEST(read_at<float>(message->bytes, 64 + 1024) == 0.0f);
}

BOOST_FIXTURE_TEST_CASE(a_second_stream_client_on_a_core_is_refused, server_fixture) {
    const auto r = runtime();
    const auto session = open_range(*r, 0, 2);
    stream_client first(*this, session.token, 0);
    const auto second = client(peer_role::debug_stream, "second");
    BOOST_CHECK_EXCEPTION((second->call<empty_body>(message_type::open_stream, open_stream{session.token, 0, 16},
                                                    message_type::stream_opened)),
                          request_refused, refused_with(nrt_status::invalid, "already has a debug stream client"));
    BOOST_CHECK_THROW(receive_message(second->fd(), 10'000), connection_error);

    const auto stranger = client(peer_role::debug_stream, "stranger");
    BOOST_CHECK_EXCEPTION((stranger->call<empty_body>(message_type::open_stream, open_stream{session.token + 1, 0, 16},
                                                      message_type::stream_opened)),
                          request_refused, refused_with(nrt_status::invalid, "no open runtime session"));
    const auto outside = client(peer_role::debug_stream, "outside");
    BOOST_CHECK_EXCEPTION((outside->call<empty_body>(message_type::open_stream, open_stream{session.token, 2, 16},
                                                     message_type::stream_opened)),
                          request_refused, refused_with(nrt_status::invalid, "not owned"));
    stream_client neighbour(*this, session.token, 1);
    BOOST_TEST(emit(0, 1).accepted == 1u);
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
    BOOST_CHECK_EXCEPTION(std::make_unique<control::control_server>(sim, second),
                          model::model_error,
                          [this](const model::model_error& e) {
                              BOOST_TEST_INFO(e.what());
                              return std::string(e.what()).find("another emulator is serving at " + path) != std::string::npos;
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
    server.reset(); // its connections closed; the execution is still queued in the model
    sim.advance(1ms); // completes it: its reply must go nowhere
    BOOST_TEST(owners() == 0u);
}
