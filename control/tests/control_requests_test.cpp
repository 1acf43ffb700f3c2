#define BOOST_TEST_MODULE control_requests
// Requests over the socket once a session is open: models and their
// executions, the control verbs (status, injections, resets, time, device
// prints) and the debug streams they feed.
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

namespace neuron::model {
inline std::ostream& operator<<(std::ostream& os, device_state s) { return os << static_cast<int>(s); }
} // namespace neuron::model

#include "support/server_harness.h"

using namespace neuron::control::testing;

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
    BOOST_CHECK_EXCEPTION(load(*r, neff), request_refused,
                          refused_with(nrt_status::invalid, "neither a NEFF nor an emulated model file"));
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

    BOOST_CHECK_EXCEPTION(
        (r->call<executed>(message_type::execute, execute{m.model_id + 100, 1}, message_type::executed)),
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
    BOOST_CHECK_EXCEPTION(
        (ctl().call<empty_body>(message_type::inject_ecc, inject_ecc{0, "bogus", 1, -1}, message_type::ok)),
        request_refused, refused_with(nrt_status::invalid, "bogus"));
    BOOST_CHECK_EXCEPTION(
        (ctl().call<empty_body>(message_type::inject_ecc, inject_ecc{16, "hbm", 1, -1}, message_type::ok)),
        request_refused, refused_with(nrt_status::invalid, ""));
    BOOST_CHECK_EXCEPTION(
        (ctl().call<empty_body>(message_type::inject_ecc, inject_ecc{0, "hbm", 0, -1}, message_type::ok)),
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
