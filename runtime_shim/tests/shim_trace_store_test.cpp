#define BOOST_TEST_MODULE shim_trace_store
// The system-trace store on its own (src/sys_trace.*): capture ownership,
// rings, filters, drain, the execution events and the JSON it writes.

#include "sys_trace.h"

#include <boost/test/unit_test.hpp>
#include <yaml-cpp/yaml.h>

#include <set>
#include <thread>
#include <vector>

using namespace neuron::shim::sys_trace;

namespace {

YAML::Node fetch(fetch_filter filter = {}) {
    const auto json = fetch_json(filter);
    const auto document = YAML::Load(json);
    BOOST_TEST_REQUIRE(document["data_version"].as<int>() == 2);
    BOOST_TEST_REQUIRE(document["events"].IsSequence(), json);
    return document["events"];
}

// A capture for one case, always stopped.
struct capture {
    explicit capture(capture_settings settings = {}, capture_owner owner = capture_owner::sys_trace) : m_owner(owner) {
        BOOST_TEST_REQUIRE(!start(owner, settings).has_value());
    }
    ~capture() { stop(m_owner); }
    capture_owner m_owner;
};

std::string type_of(const YAML::Node& e) { return e["event_type"].as<std::string>(); }
std::string phase_of(const YAML::Node& e) { return e["phase"].as<std::string>(); }
std::uint64_t u64(const YAML::Node& n) { return n.as<std::uint64_t>(); }

} // namespace

BOOST_AUTO_TEST_CASE(nothing_is_recorded_without_a_capture) {
    { const api_event call(event_type::nrt_load, 0); }
    record_execution(0, 1, 2, 3, 4, 5, NRT_SUCCESS, 0);
    BOOST_TEST(!running().has_value());
    const capture c;
    BOOST_TEST(fetch().size() == 0u);
}

BOOST_AUTO_TEST_CASE(an_api_call_is_a_start_and_a_stop) {
    const capture c;
    const auto before = host_now_ns();
    {
        api_event call(event_type::nrt_tensor_write, 1, "a");
        call.set_status(NRT_INVALID);
    }
    const auto after = host_now_ns();
    const auto events = fetch();
    BOOST_TEST_REQUIRE(events.size() == 2u);
    BOOST_TEST(type_of(events[0]) == "nrt_tensor_write");
    BOOST_TEST(phase_of(events[0]) == "start");
    BOOST_TEST(phase_of(events[1]) == "stop");
    BOOST_TEST(u64(events[0]["tracking_id"]) == u64(events[1]["tracking_id"]));
    BOOST_TEST(u64(events[0]["id"]) < u64(events[1]["id"]));
    for (const auto& e : events) {
        BOOST_TEST(u64(e["nc_idx"]) == 1u);
        BOOST_TEST(u64(e["data"]["nc_idx"]) == 1u);
        BOOST_TEST(e["data"]["tensor_name"].as<std::string>() == "a");
        BOOST_TEST(u64(e["timestamp_ns"]) >= before);
        BOOST_TEST(u64(e["timestamp_ns"]) <= after);
    }
    BOOST_TEST(!events[0]["data"]["status"].IsDefined());
    BOOST_TEST(events[1]["data"]["status"].as<int>() == NRT_INVALID);
    BOOST_TEST(events[1]["data"]["status_name"].as<std::string>() == "NRT_INVALID");
}

BOOST_AUTO_TEST_CASE(a_call_on_no_core_is_recorded_on_core_0) {
    const capture c;
    { const api_event call(event_type::nrt_load, -1); }
    const auto events = fetch();
    BOOST_TEST_REQUIRE(events.size() == 2u);
    BOOST_TEST(u64(events[0]["nc_idx"]) == 0u);
}

BOOST_AUTO_TEST_CASE(execute_event_is_only_for_the_synchronous_calls) {
    BOOST_TEST((execute_event("nrt_execute") == event_type::nrt_execute));
    BOOST_TEST((execute_event("nrt_execute_repeat") == event_type::nrt_execute));
    BOOST_TEST(!execute_event("nrta_execute_schedule").has_value());
}

BOOST_AUTO_TEST_CASE(a_full_ring_drops_its_oldest_events) {
    capture_settings settings;
    settings.max_events_per_nc = 3;
    const capture c(settings);
    for (int i = 0; i < 3; ++i) {
        const api_event call(event_type::nrt_tensor_read, 0);
    } // 6 events
    { const api_event other(event_type::nrt_tensor_read, 1); }
    const auto events = fetch();
    std::vector<std::uint64_t> ids;
    for (const auto& e : events) {
        if (u64(e["nc_idx"]) == 0) ids.push_back(u64(e["id"]));
    }
    BOOST_TEST(ids == (std::vector<std::uint64_t>{4, 5, 6}));
    BOOST_TEST(events.size() == 5u); // core 1 has a ring of its own
}

BOOST_AUTO_TEST_CASE(disabled_cores_and_types_are_not_recorded) {
    capture_settings settings;
    settings.nc_overrides[1] = false;
    settings.types.reset(static_cast<std::size_t>(event_type::nrt_tensor_copy));
    settings.types.reset(static_cast<std::size_t>(event_type::timestamp_sync_point));
    const capture c(settings);
    { const api_event call(event_type::nrt_tensor_read, 1); }
    { const api_event call(event_type::nrt_tensor_copy, 0); }
    { const api_event call(event_type::nrt_tensor_read, 0); }
    record_execution(0, 10, 20, 100, 200, 1, NRT_SUCCESS, 0);
    const auto events = fetch();
    BOOST_TEST_REQUIRE(events.size() == 4u);
    BOOST_TEST(type_of(events[0]) == "nrt_tensor_read");
    BOOST_TEST(type_of(events[2]) == "nc_exec_running");
    BOOST_TEST(type_of(events[3]) == "nc_exec_running");

    capture_settings only_core_2;
    only_core_2.ncs_by_default = false;
    only_core_2.nc_overrides[2] = true;
    BOOST_TEST(!only_core_2.captures(0u));
    BOOST_TEST(only_core_2.captures(2u));
}

BOOST_AUTO_TEST_CASE(fetch_drains_by_core_and_cap) {
    const capture c;
    for (int i = 0; i < 3; ++i) {
        { const api_event call(event_type::nrt_tensor_read, 0); }
        { const api_event call(event_type::nrt_tensor_read, 1); }
    }
    const auto core_1 = fetch({.nc_idx = 1});
    BOOST_TEST(core_1.size() == 6u);
    for (const auto& e : core_1) BOOST_TEST(u64(e["nc_idx"]) == 1u);
    const auto capped = fetch({.nc_idx = std::nullopt, .max_events_per_nc = 4});
    BOOST_TEST_REQUIRE(capped.size() == 4u);
    const auto rest = fetch();
    BOOST_TEST_REQUIRE(rest.size() == 2u);
    BOOST_TEST(u64(capped[3]["id"]) < u64(rest[0]["id"])); // the oldest went first
    BOOST_TEST(fetch().size() == 0u);
}

BOOST_AUTO_TEST_CASE(an_execution_is_a_device_pair_and_a_sync_point) {
    const capture c;
    // 5 us on the device; the host saw 10 us around it.
    record_execution(1, 1'000, 6'000, 10'000'000, 10'010'000, 7, NRT_EXEC_OOB, 42);
    const auto events = fetch();
    BOOST_TEST_REQUIRE(events.size() == 3u);
    const auto start = events[0], stop = events[1], sync = events[2];
    BOOST_TEST(type_of(start) == "nc_exec_running");
    BOOST_TEST(phase_of(start) == "start");
    BOOST_TEST(phase_of(stop) == "stop");
    BOOST_TEST(u64(start["tracking_id"]) == u64(stop["tracking_id"]));
    BOOST_TEST(u64(start["data"]["nc_timestamp_ns"]) == 1'000u);
    BOOST_TEST(u64(stop["data"]["nc_timestamp_ns"]) == 6'000u);
    BOOST_TEST(u64(start["timestamp_ns"]) == 10'005'000u); // sync cpu + (device - sync device)
    BOOST_TEST(u64(stop["timestamp_ns"]) == 10'010'000u);
    BOOST_TEST(start["data"]["model_id"].as<int>() == 7);
    BOOST_TEST(stop["data"]["status_name"].as<std::string>() == "NRT_EXEC_OOB");
    BOOST_TEST(type_of(sync) == "timestamp_sync_point");
    BOOST_TEST(phase_of(sync) == "instant");
    BOOST_TEST(u64(sync["data"]["cpu_timestamp_ns"]) == 10'010'000u);
    BOOST_TEST(u64(sync["data"]["nc_timestamp_ns"]) == 6'000u);
    for (const auto& e : events) {
        BOOST_TEST(u64(e["nc_idx"]) == 1u);
        BOOST_TEST(u64(e["nrta_seq_id"]) == 42u);
        BOOST_TEST(u64(e["data"]["exec_id"]) == u64(start["data"]["exec_id"]));
    }

    // A device time longer than the host interval: the host start stays in it.
    record_execution(0, 0, 1'000'000'000, 5'000, 9'000, 7, NRT_SUCCESS, 0);
    const auto slow = fetch();
    BOOST_TEST_REQUIRE(slow.size() == 3u);
    BOOST_TEST(u64(slow[0]["timestamp_ns"]) == 5'000u);
    BOOST_TEST(!slow[0]["nrta_seq_id"].IsDefined());
}

BOOST_AUTO_TEST_CASE(one_capture_per_process) {
    const capture c(capture_settings{}, capture_owner::inspect);
    BOOST_TEST((start(capture_owner::sys_trace, {}) == capture_owner::inspect));
    BOOST_TEST(!stop(capture_owner::sys_trace));
    BOOST_TEST((running() == capture_owner::inspect));
}

BOOST_AUTO_TEST_CASE(a_call_spanning_two_captures_records_only_its_start) {
    std::optional<capture> first(std::in_place);
    auto call = std::make_unique<api_event>(event_type::nrt_execute, 0);
    BOOST_TEST(fetch().size() == 1u);
    first.reset();
    const capture second;
    call.reset();
    BOOST_TEST(fetch().size() == 0u);
}

BOOST_AUTO_TEST_CASE(strings_are_escaped_json) {
    const capture c;
    const std::string name = std::string("q\"uote\\\n\x01 caf\xc3\xa9 bad\xff") + "\xe2\x82";
    { const api_event call(event_type::nrt_tensor_read, 0, name); }
    const auto json = fetch_json({});
    BOOST_TEST(json.find(R"("q\"uote\\\n\u0001 café bad\ufffd\ufffd\ufffd")") != std::string::npos, json);
    const auto events = YAML::Load(json)["events"];
    BOOST_TEST(events[0]["data"]["tensor_name"].as<std::string>() ==
               "q\"uote\\\n\x01 caf\xc3\xa9 bad\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
}

BOOST_AUTO_TEST_CASE(threads_record_at_once) {
    const capture c;
    constexpr int threads = 4;
    constexpr int calls = 500;
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([t] {
            for (int i = 0; i < calls; ++i) {
                const api_event call(event_type::nrta_tensor_write, t % 2);
            }
        });
    }
    for (auto& w : workers) w.join();
    const auto events = fetch();
    BOOST_TEST_REQUIRE(events.size() == static_cast<std::size_t>(2 * threads * calls));
    std::set<std::uint64_t> ids;
    std::map<std::uint64_t, int> phases; // tracking id -> starts - stops, each seen once
    for (const auto& e : events) {
        ids.insert(u64(e["id"]));
        phases[u64(e["tracking_id"])] += phase_of(e) == "start" ? 1 : 10;
    }
    BOOST_TEST(ids.size() == events.size());
    BOOST_TEST(phases.size() == static_cast<std::size_t>(threads * calls));
    for (const auto& [id, sum] : phases) BOOST_TEST(sum == 11, "tracking id " << id);
}
