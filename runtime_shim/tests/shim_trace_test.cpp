#define BOOST_TEST_MODULE shim_trace
// The system trace and the profile/inspect calls end to end: the C
// programs sys_trace, trace_bad_input and profile_calls against a served
// emulator (or none, for the calls that need no runtime).

#include "support/shim_harness.h"

#include "neuron/common/regular_file.h"
#include "neuron/profile/session_file.h"
#include "neuron/profile/summary.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

using namespace neuron::shim::testing;

namespace {

const std::vector<std::string> all_types = {"nc_exec_running",  "cc_running",
                                            "cc_exec_barrier",  "numerical_err",
                                            "nrt_model_switch", "timestamp_sync_point",
                                            "hw_notify",        "nrt_load",
                                            "nrt_unload",       "nrt_execute",
                                            "nrt_tensor_read",  "nrt_tensor_write",
                                            "nrt_tensor_copy",  "nrta_execute_schedule",
                                            "nrta_tensor_read", "nrta_tensor_write",
                                            "nrta_tensor_copy"};

std::string joined(const std::string& head, const std::vector<std::string>& names) {
    std::string line = head;
    for (const auto& n : names) line += " " + n;
    return line;
}

std::uint64_t now_ns() {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count());
}

struct event {
    std::string type, phase;
    std::uint64_t id = 0, tracking_id = 0, nc = 0, timestamp = 0;
    YAML::Node data;
    std::string name() const {
        for (const auto* key : {"tensor_name", "model_name"}) {
            if (data[key]) return data[key].as<std::string>();
        }
        return "";
    }
};

// The events of the program's "json NAME {...}" line.
std::vector<event> fetched(const std::vector<std::string>& lines, const std::string& name) {
    const auto prefix = "json " + name + " ";
    const auto line = find_line(lines, prefix);
    BOOST_TEST_REQUIRE(!line.empty(), "no fetch named " << name);
    const auto document = YAML::Load(line.substr(prefix.size()));
    BOOST_TEST_REQUIRE(document["data_version"].as<int>() == 2, line);
    std::vector<event> events;
    for (const auto& e : document["events"]) {
        events.push_back({e["event_type"].as<std::string>(), e["phase"].as<std::string>(), e["id"].as<std::uint64_t>(),
                          e["tracking_id"].as<std::uint64_t>(), e["nc_idx"].as<std::uint64_t>(),
                          e["timestamp_ns"].as<std::uint64_t>(), e["data"]});
        BOOST_TEST(e["thread_id"].as<std::uint64_t>() > 0u);
        BOOST_TEST(e["data"]["nc_idx"].as<std::uint64_t>() == events.back().nc);
    }
    return events;
}

// "TYPE PHASE NAME" per event, NAME the tensor's or model's ("-" for none).
std::vector<std::string> shape(const std::vector<event>& events) {
    std::vector<std::string> rows;
    for (const auto& e : events) rows.push_back(e.type + " " + e.phase + " " + (e.name().empty() ? "-" : e.name()));
    return rows;
}

// Each call a start/stop pair; an execution on the device (nc_exec_running
// and its timestamp_sync_point) inside nrt_execute's pair.
std::vector<std::string> calls(std::initializer_list<std::pair<std::string, std::string>> list) {
    std::vector<std::string> rows;
    for (const auto& [type, name] : list) {
        rows.push_back(type + " start " + name);
        if (type == "nrt_execute") {
            rows.push_back("nc_exec_running start -");
            rows.push_back("nc_exec_running stop -");
            rows.push_back("timestamp_sync_point instant -");
        }
        rows.push_back(type + " stop " + name);
    }
    return rows;
}

// add.yaml's work lasts 50 us on the device after its engine's 1.6 us
// preamble, and each execution pays the generation's fixed 12.6 us
// (core_costs.h): so long does each
// nc_exec_running last, by the device clock its sync point maps onto the host's.
void check_device_times(const std::vector<event>& events) {
    std::map<std::uint64_t, std::uint64_t> started;
    for (const auto& e : events) {
        if (e.type != "nc_exec_running") continue;
        const auto device_ns = e.data["nc_timestamp_ns"].as<std::uint64_t>();
        if (e.phase == "start") {
            started[e.tracking_id] = device_ns;
        } else {
            BOOST_TEST_REQUIRE(started.contains(e.tracking_id));
            BOOST_TEST(device_ns - started[e.tracking_id] == 64'200u);
        }
    }
}

// Every start has one stop of the same type, core and tracking id, later.
void check_pairs(const std::vector<event>& events) {
    std::map<std::uint64_t, std::vector<event>> by_tracking;
    for (const auto& e : events) by_tracking[e.tracking_id].push_back(e);
    for (const auto& [id, pair] : by_tracking) {
        if (pair.size() == 1 && pair[0].phase == "instant") continue;
        BOOST_TEST_CONTEXT("tracking id " << id) {
            BOOST_TEST_REQUIRE(pair.size() == 2u);
            BOOST_TEST(pair[0].phase == "start");
            BOOST_TEST(pair[1].phase == "stop");
            BOOST_TEST(pair[0].type == pair[1].type);
            BOOST_TEST(pair[0].nc == pair[1].nc);
            BOOST_TEST(pair[0].id < pair[1].id);
            BOOST_TEST(pair[0].timestamp <= pair[1].timestamp);
        }
    }
}

std::set<std::uint64_t> cores_of(const std::vector<event>& events) {
    std::set<std::uint64_t> cores;
    for (const auto& e : events) cores.insert(e.nc);
    return cores;
}

// Each refused call ("NAME STATUS" with a status in `refusals`) logged exactly one ERROR line.
void one_log_line_per_refusal(const program_result& r, std::size_t at_least) {
    const auto sections = marked_sections(r.err);
    std::size_t refused = 0;
    for (const auto& l : r.lines) {
        if (!(l.ends_with(" NRT_INVALID") || l.ends_with(" NRT_RESOURCE")) || l.starts_with("FAIL")) continue;
        ++refused;
        const auto name = l.substr(0, l.find(' '));
        BOOST_TEST_CONTEXT(name) {
            BOOST_TEST_REQUIRE(sections.contains(name));
            const auto logged = log_lines(sections.at(name));
            BOOST_TEST(logged.size() == 1u, l << " with " << logged.size() << " log lines:\n" << sections.at(name));
            for (const auto& line : logged) BOOST_TEST(contains(line, "ERROR"), line);
        }
    }
    BOOST_TEST(refused >= at_least);
}

std::string section(const program_result& r, const std::string& name) {
    const auto sections = marked_sections(r.err);
    return sections.contains(name) ? sections.at(name) : "(no section " + name + ")";
}

void require_clean_run(const program_result& r, const std::string& name) {
    BOOST_TEST_REQUIRE(r.status == 0, name << " exited " << r.status << "\n" << r.err);
    for (const auto& l : r.lines) BOOST_TEST(!l.starts_with("FAIL"), l);
    BOOST_TEST(find_line(r.lines, "checks ").ends_with(" failed 0"));
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(shim_trace, diagnostics)

// A capture from before nrt_init to nrt_sys_trace_stop records each API
// call as a start/stop pair on its core; fetches filter by core, cap per
// core and drain; a full ring keeps its newest events; a capture outlives
// nrt_close.
BOOST_AUTO_TEST_CASE(capture_fetch_and_drain) {
    require_mount("this test");
    served_instance emu;
    const auto before = now_ns();
    const auto r =
        run_program(emu.dir(), "sys_trace", {.args = {"events", shipped_model("add.yaml")}, .control = emu.control()});
    const auto after = now_ns();
    require_clean_run(r, "sys_trace events");

    BOOST_TEST(find_line(r.lines, "types ") == joined("types", all_types));
    BOOST_TEST(find_line(r.lines, "enabled_default ") == joined("enabled_default", all_types));
    auto two_off = all_types;
    std::erase(two_off, "nrt_tensor_read");
    std::erase(two_off, "hw_notify");
    BOOST_TEST(find_line(r.lines, "enabled_two_off ") == joined("enabled_two_off", two_off));
    BOOST_TEST(find_line(r.lines, "enabled_reset ") == joined("enabled_reset", all_types));

    const auto core1 = fetched(r.lines, "core1");
    const auto capped = fetched(r.lines, "capped");
    const auto rest = fetched(r.lines, "rest");
    const auto model_run = calls(
        {{"nrt_tensor_write", "a"}, {"nrt_tensor_write", "b"}, {"nrt_execute", "add"}, {"nrt_tensor_read", "out"}});
    auto loaded_and_run = calls({{"nrt_load", "-"}});
    loaded_and_run.insert(loaded_and_run.end(), model_run.begin(), model_run.end());
    BOOST_TEST(shape(core1) == loaded_and_run, boost::test_tools::per_element());
    BOOST_TEST((cores_of(core1) == std::set<std::uint64_t>{1}));
    // The two oldest of core 0, then the rest of it: no nrt_tensor_copy (turned off).
    BOOST_TEST(shape(capped) == calls({{"nrt_load", "-"}}), boost::test_tools::per_element());
    BOOST_TEST(shape(rest) == model_run, boost::test_tools::per_element());
    BOOST_TEST((cores_of(capped) == std::set<std::uint64_t>{0}));
    BOOST_TEST((cores_of(rest) == std::set<std::uint64_t>{0}));
    BOOST_TEST(capped.back().id < rest.front().id);
    BOOST_TEST(fetched(r.lines, "again").empty());

    std::vector<event> all = core1;
    all.insert(all.end(), capped.begin(), capped.end());
    all.insert(all.end(), rest.begin(), rest.end());
    check_pairs(all);
    check_device_times(all);
    std::set<std::uint64_t> ids;
    for (const auto& e : all) {
        ids.insert(e.id);
        BOOST_TEST(e.timestamp >= before);
        BOOST_TEST(e.timestamp <= after);
    }
    BOOST_TEST(ids.size() == all.size(), "an event was fetched twice");

    // Rings of 4: the last two of five writes on core 0 (ids 7-10); core 1 off.
    const auto ring = fetched(r.lines, "ring");
    BOOST_TEST(shape(ring) == calls({{"nrt_tensor_write", "a"}, {"nrt_tensor_write", "a"}}),
               boost::test_tools::per_element());
    BOOST_TEST_REQUIRE(ring.size() == 4u);
    BOOST_TEST(ring.front().id == 7u);
    BOOST_TEST(ring.back().id == 10u);
    BOOST_TEST((cores_of(ring) == std::set<std::uint64_t>{0}));

    const auto closed = fetched(r.lines, "closed");
    BOOST_TEST(shape(closed) == calls({{"nrt_unload", "add"}, {"nrt_unload", "add"}}),
               boost::test_tools::per_element());
    BOOST_TEST((cores_of(closed) == std::set<std::uint64_t>{0, 1}));
    emu.stop();
}

// Inspect shares the capture: its filters apply, the fetch API reads it,
// nrt_sys_trace_start/stop are refused while it runs; nrt_inspect_begin
// takes its filters from NEURON_RT_INSPECT_*.
BOOST_AUTO_TEST_CASE(inspect_captures_the_trace) {
    require_mount("this test");
    served_instance emu;
    const auto r = run_program(emu.dir(), "sys_trace",
                               {.args = {"inspect", shipped_model("add.yaml")},
                                .env = {{"NEURON_RT_INSPECT_ENABLE", "1"},
                                        {"NEURON_RT_INSPECT_OUTPUT_DIR", emu.dir() / "inspect"},
                                        {"NEURON_RT_INSPECT_EVENT_FILTER_NC", "1"},
                                        {"NEURON_RT_INSPECT_EVENT_FILTER_TYPE", "software,^nrt_tensor_read"}},
                                .control = emu.control()});
    require_clean_run(r, "sys_trace inspect");
    const auto with_options = fetched(r.lines, "inspect_options");
    BOOST_TEST(shape(with_options) == calls({{"nrt_execute", "add"}, {"nrt_tensor_read", "out"}}),
               boost::test_tools::per_element());
    BOOST_TEST((cores_of(with_options) == std::set<std::uint64_t>{0}));
    BOOST_TEST(contains(section(r, "trace_start_during_inspect"), "nrt_inspect_begin"));
    BOOST_TEST(contains(section(r, "trace_stop_during_inspect"), "nrt_inspect_begin"));

    const auto from_environment = fetched(r.lines, "inspect_env");
    // Software events only: the device's nc_exec_running and sync point are filtered out.
    const std::vector<std::string> software_only{"nrt_tensor_write start a", "nrt_tensor_write stop a",
                                                 "nrt_tensor_write start b", "nrt_tensor_write stop b",
                                                 "nrt_execute start add",    "nrt_execute stop add"};
    BOOST_TEST(shape(from_environment) == software_only, boost::test_tools::per_element());
    BOOST_TEST((cores_of(from_environment) == std::set<std::uint64_t>{1}));
    BOOST_TEST(fetched(r.lines, "after_inspect").empty());
    BOOST_TEST(!std::filesystem::exists(emu.dir() / "inspect"));
    emu.stop();
}

// nrt_inspect_begin reads NEURON_RT_INSPECT_*: the others count only with
// ENABLE=1; a value it cannot use is refused with one log line naming it.
// Needs no emulator (no nrt_init).
BOOST_AUTO_TEST_CASE(inspect_begin_from_the_environment) {
    temp_dir tmp("shim");
    struct run {
        std::map<std::string, std::string> env;
        std::string begin, trace_start, logged;
    };
    const std::vector<run> runs = {
        {{}, "NRT_SUCCESS", "NRT_SUCCESS", ""},
        {{{"NEURON_RT_INSPECT_ENABLE", "1"}}, "NRT_SUCCESS", "NRT_INVALID", ""},
        {{{"NEURON_RT_INSPECT_ENABLE", "1"}, {"NEURON_RT_INSPECT_SYSTEM_PROFILE", "0"}},
         "NRT_SUCCESS",
         "NRT_SUCCESS",
         ""},
        {{{"NEURON_RT_INSPECT_ENABLE", "0"}, {"NEURON_RT_INSPECT_EVENT_FILTER_TYPE", "bogus"}},
         "NRT_SUCCESS",
         "NRT_SUCCESS",
         ""},
        {{{"NEURON_RT_INSPECT_ENABLE", "1"}, {"NEURON_RT_INSPECT_EVENT_FILTER_TYPE", "software,bogus"}},
         "NRT_INVALID",
         "NRT_SUCCESS",
         "'bogus'"},
        {{{"NEURON_RT_INSPECT_ENABLE", "1"}, {"NEURON_RT_INSPECT_EVENT_FILTER_NC", "3-1"}},
         "NRT_INVALID",
         "NRT_SUCCESS",
         "NEURON_RT_INSPECT_EVENT_FILTER_NC"},
        {{{"NEURON_RT_INSPECT_ENABLE", "yes"}}, "NRT_INVALID", "NRT_SUCCESS", "NEURON_RT_INSPECT_ENABLE"},
        {{{"NEURON_RT_INSPECT_ENABLE", "1"}, {"NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC", "0"}},
         "NRT_INVALID",
         "NRT_SUCCESS",
         "NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC"},
        {{{"NEURON_RT_INSPECT_ENABLE", "1"}, {"NEURON_RT_INSPECT_DEVICE_PROFILE", "sometimes"}},
         "NRT_INVALID",
         "NRT_SUCCESS",
         "NEURON_RT_INSPECT_DEVICE_PROFILE"},
    };
    for (const auto& expected : runs) {
        std::string shown;
        for (const auto& [k, v] : expected.env) shown += k + "=" + v + " ";
        BOOST_TEST_CONTEXT(shown) {
            const auto r =
                run_program(tmp, "sys_trace", {.args = {"begin"}, .env = expected.env, .control = tmp / "none.sock"});
            require_clean_run(r, "sys_trace begin");
            BOOST_TEST(find_line(r.lines, "inspect_begin ") == "inspect_begin " + expected.begin);
            BOOST_TEST(find_line(r.lines, "trace_start ") == "trace_start " + expected.trace_start);
            const auto logged = log_lines(section(r, "inspect_begin"));
            BOOST_TEST(logged.size() == (expected.logged.empty() ? 0u : 1u), section(r, "inspect_begin"));
            if (!expected.logged.empty() && !logged.empty())
                BOOST_TEST(contains(logged[0], expected.logged), logged[0]);
        }
    }
}

// NULL pointers, unknown names, double starts, stops without starts and a
// fetch into a buffer that is not NULL: the expected status and one log line
// for each refusal, naming what was unknown.
BOOST_AUTO_TEST_CASE(bad_input_into_every_trace_and_profile_call) {
    require_mount("this test");
    served_instance emu;
    const auto r = run_program(emu.dir(), "trace_bad_input",
                               {.args = {shipped_model("add.yaml"), emu.dir() / "profiles"}, .control = emu.control()});
    require_clean_run(r, "trace_bad_input");
    BOOST_TEST(find_line(r.lines, "void_calls_with_null") == "void_calls_with_null done");
    one_log_line_per_refusal(r, 60);
    BOOST_TEST(contains(section(r, "type_unknown"), "'nrt_teleport'"), section(r, "type_unknown"));
    BOOST_TEST(contains(section(r, "inspect_type_unknown"), "'nrt_teleport'"));
    BOOST_TEST(contains(section(r, "activity_unknown"), "'gpu_util'"));
    BOOST_TEST(contains(section(r, "start_again"), "nrt_sys_trace_start"));
    BOOST_TEST(contains(section(r, "inspect_during_trace"), "nrt_sys_trace_start"));
    BOOST_TEST(contains(section(r, "fetch_into_a_buffer"), "*buffer"));
    BOOST_TEST(fetched(r.lines, "no_capture").empty());
    BOOST_TEST(!std::filesystem::exists(emu.dir() / "profiles"));
    emu.stop();
}

namespace {

std::vector<neuron::profile::core_timeline> session_at(const std::filesystem::path& path) {
    BOOST_TEST_REQUIRE(std::filesystem::is_regular_file(path), path << " was not written");
    return neuron::profile::decode_session(neuron::common::read_regular_file(path, 1u << 26));
}

std::vector<std::uint64_t> executions_in(const std::vector<neuron::profile::core_timeline>& timelines) {
    std::vector<std::uint64_t> out;
    for (const auto& t : timelines) {
        BOOST_TEST(t.model_name == "add");
        // The work of its tensor and vector engines, after every engine's preamble.
        const auto work = std::count_if(t.instructions.begin(), t.instructions.end(),
                                        [&](const auto& i) { return t.opcodes[i.opcode] == "work"; });
        BOOST_TEST(work == 2);
        out.push_back(t.execution);
    }
    return out;
}

// The one file in `dir` whose name matches `pattern`.
std::filesystem::path only_file(const std::filesystem::path& dir, const std::string& pattern) {
    std::vector<std::filesystem::path> found;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        if (std::regex_match(e.path().filename().string(), std::regex(pattern))) found.push_back(e.path());
    }
    BOOST_TEST_REQUIRE(found.size() == 1u, dir << " holds " << found.size() << " files named " << pattern);
    return found.front();
}

} // namespace

// Each profile call writes the session file of the executions it covers,
// named as the runtime names them; a profile with no execution writes
// nothing and says so; the system trace inspect would write is the one
// file neuron-emu does not write, and it says so.
BOOST_AUTO_TEST_CASE(profile_calls_write_session_files) {
    require_mount("this test");
    served_instance emu;
    const auto dir = emu.dir() / "profiles";
    std::filesystem::create_directories(dir);
    const auto r = run_program(
        emu.dir(), "profile_calls",
        {.args = {shipped_model("add.yaml"), dir}, .env = {{"NEURON_RT_LOG_LEVEL", "WARN"}}, .control = emu.control()});
    require_clean_run(r, "profile_calls");
    const std::vector<std::string> activities = {"system_profile", "device_profile", "host_memory", "cpu_util"};
    BOOST_TEST(find_line(r.lines, "activities ") == joined("activities", activities));
    BOOST_TEST(find_line(r.lines, "enabled_default ") == joined("enabled_default", activities));
    BOOST_TEST(find_line(r.lines, "enabled_none") == "enabled_none");
    BOOST_TEST(find_line(r.lines, "enabled_two ") == "enabled_two system_profile cpu_util");
    BOOST_TEST(find_line(r.lines, "enabled_reset ") == joined("enabled_reset", activities));

    const auto pid = find_line(r.lines, "pid ").substr(4);
    const auto instance_dir = find_line(r.lines, "instance_dir ").substr(13);
    BOOST_TEST_REQUIRE(instance_dir.starts_with(dir + "/"), instance_dir);
    BOOST_TEST(std::regex_match(instance_dir.substr(dir.size() + 1), std::regex("i-[0-9a-f]{17}_pid_" + pid)),
               instance_dir);

    // Executions 1 and 2 under nrt_profile_start, 3 continuous, 4 and 5 in
    // the session, 6 under inspect.
    const std::filesystem::path out = dir;
    BOOST_TEST(executions_in(session_at(out / "model.ntff")) == std::vector<std::uint64_t>{2});
    BOOST_TEST(executions_in(session_at(out / "continuous" / ("profile_pid_" + pid + "_vnc_0_1.ntff"))) ==
               std::vector<std::uint64_t>{3});
    BOOST_TEST(executions_in(session_at(out / "session.ntff")) == (std::vector<std::uint64_t>{4, 5}));
    const auto inspected =
        only_file(out / "inspect" / std::filesystem::path(instance_dir).filename(), "[0-9]+_instid_0_vnc_0\\.ntff");
    BOOST_TEST(executions_in(session_at(inspected)) == std::vector<std::uint64_t>{6});

    BOOST_TEST(!std::filesystem::exists(out / "idle.ntff"));
    const auto idle = log_lines(section(r, "profile_stop_idle"));
    BOOST_TEST_REQUIRE(idle.size() == 1u, section(r, "profile_stop_idle"));
    BOOST_TEST(contains(idle[0], "WARN"), idle[0]);
    BOOST_TEST(contains(idle[0], "did not run since nrt_profile_start: nothing written to " + dir + "/idle.ntff"),
               idle[0]);
    const auto system_trace = log_lines(section(r, "inspect_stop"));
    BOOST_TEST_REQUIRE(system_trace.size() == 1u, section(r, "inspect_stop"));
    BOOST_TEST(contains(system_trace[0], "does not write this file: nothing written to " + dir +
                                             "/inspect (the system trace, ntrace.pb)"),
               system_trace[0]);
    for (const auto* quiet : {"profile_start_idle", "profile_start", "profile_stop", "continuous_start",
                              "continuous_save", "continuous_stop", "session_start", "session_stop",
                              "session_serialize", "session_drop_all", "inspect_begin"}) {
        BOOST_TEST(log_lines(section(r, quiet)).empty(), quiet << ":\n" << section(r, quiet));
    }
    BOOST_TEST(log_lines(section(r, "continuous_during_inspect")).size() == 1u);

    // The same emulated instance, another process: the same instance id.
    const auto again = run_program(emu.dir(), "sys_trace", {.args = {"instance_dir", dir}, .control = emu.control()});
    const auto line = find_line(again.lines, "instance_dir ");
    BOOST_TEST(line.starts_with("instance_dir NRT_SUCCESS "), line);
    const auto id_of = [](const std::string& path) { return path.substr(0, path.find("_pid_")); };
    BOOST_TEST(id_of(line.substr(25)) == id_of(instance_dir));
    emu.stop();
}

// In an output directory every user may write, another user's links stand
// where the profiles go (a file each, a directory for continuous profiling
// and for inspect): every call refuses to write through them, logs why
// naming the path, and what they point to (a file and a directory only
// root may write, say) stays as it was.
BOOST_AUTO_TEST_CASE(profile_and_inspect_files_are_not_written_through_planted_links) {
    require_mount("this test");
    served_instance emu;
    const std::filesystem::path shared = emu.dir() / "shared";
    std::filesystem::create_directories(shared);
    std::filesystem::permissions(shared, std::filesystem::perms::all | std::filesystem::perms::sticky_bit);
    const auto victim = emu.dir() / "victim";
    std::ofstream(victim) << "precious\n";
    const std::filesystem::path private_dir = emu.dir() / "private";
    std::filesystem::create_directories(private_dir);
    std::filesystem::create_symlink(victim, shared / "model.ntff");
    std::filesystem::create_symlink(victim, shared / "session.ntff");
    std::filesystem::create_symlink(private_dir, shared / "continuous");
    std::filesystem::create_symlink(private_dir, shared / "inspect");
    const auto r = run_program(emu.dir(), "profile_calls",
                               {.args = {shipped_model("add.yaml"), shared.string()},
                                .env = {{"NEURON_RT_LOG_LEVEL", "WARN"}},
                                .control = emu.control()});
    for (const auto& [call, refusal] : std::vector<std::pair<std::string, std::string>>{
             {"profile_stop", (shared / "model.ntff").string() + ": a symbolic link: refusing to write through it"},
             {"continuous_save", (shared / "continuous").string() +
                                     ": 'continuous' on the way is a symbolic link in a directory others can write"},
             {"session_serialize", (shared / "session.ntff").string() + ": a symbolic link"},
             {"inspect_stop", "'inspect' on the way is a symbolic link in a directory others can write"}}) {
        BOOST_TEST_CONTEXT(call) {
            BOOST_TEST(find_line(r.lines, call + " ") == call + " NRT_FAILURE");
            std::vector<std::string> errors;
            for (const auto& line : log_lines(section(r, call))) {
                if (contains(line, "ERROR")) errors.push_back(line);
            }
            BOOST_TEST_REQUIRE(errors.size() == 1u, section(r, call));
            BOOST_TEST(contains(errors[0], refusal), errors[0]);
        }
    }
    BOOST_TEST(neuron::common::read_regular_file(victim, 100) == "precious\n");
    BOOST_TEST(std::filesystem::is_empty(private_dir));
    emu.stop();
}

// NEURON_RT_INSPECT_ENABLE captures without a call, from nrt_init to
// nrt_close; in session mode every execution of a core goes in one file,
// whose summaries add up to what sysfs counted for the process.
BOOST_AUTO_TEST_CASE(inspect_variables_capture_every_execution_and_agree_with_sysfs) {
    require_mount("this test");
    served_instance emu;
    const auto dir = emu.dir() / "inspect";
    const auto r = run_program(emu.dir(), "profile_calls",
                               {.args = {shipped_model("add.yaml"), "env"},
                                .env = {{"NEURON_RT_INSPECT_ENABLE", "1"},
                                        {"NEURON_RT_INSPECT_SYSTEM_PROFILE", "0"},
                                        {"NEURON_RT_INSPECT_DEVICE_PROFILE", "session"},
                                        {"NEURON_RT_INSPECT_OUTPUT_DIR", dir}},
                                .control = emu.control()});
    require_clean_run(r, "profile_calls env");
    const auto pid = find_line(r.lines, "pid ").substr(4);
    const auto instance_dir = only_file(dir, "i-[0-9a-f]{17}_pid_" + pid);
    const auto timelines = session_at(only_file(instance_dir, "profile_nc_0_session_1\\.ntff"));
    BOOST_TEST(executions_in(timelines) == (std::vector<std::uint64_t>{1, 2}));
    std::uint64_t flops = 0;
    double seconds = 0;
    for (const auto& t : timelines) {
        for (const auto& f : neuron::profile::summarize(t)) {
            if (f.key == "model_flops") flops += std::get<std::uint64_t>(f.value);
            if (f.key == "total_time") seconds += std::get<double>(f.value);
        }
    }
    BOOST_TEST(flops == emu.core_counter(0, 0, "other_info/flop_count"));
    // nc_time_in_use counts whole microseconds per execution.
    const auto micros = static_cast<double>(emu.core_counter(0, 0, "other_info/nc_time_in_use"));
    BOOST_TEST(std::abs(seconds * 1e6 - micros) <= 2.0, seconds * 1e6 << " us profiled, " << micros << " us counted");
    emu.stop();
}

// NEURON_EMU_INSTANCE_ID names the instance; without it and without an
// emulator to ask, there is no instance directory. Needs no emulator.
BOOST_AUTO_TEST_CASE(instance_id_from_the_environment) {
    temp_dir tmp("shim");
    const auto named = run_program(tmp, "sys_trace",
                                   {.args = {"instance_dir", "/out"},
                                    .env = {{"NEURON_EMU_INSTANCE_ID", "i-0123456789abcdef0"}},
                                    .control = tmp / "none.sock"});
    const auto pid = find_line(named.lines, "pid ").substr(4);
    BOOST_TEST(find_line(named.lines, "instance_dir ") ==
               "instance_dir NRT_SUCCESS /out/i-0123456789abcdef0_pid_" + pid);
    const auto unnamed =
        run_program(tmp, "sys_trace", {.args = {"instance_dir", "/out"}, .control = tmp / "none.sock"});
    BOOST_TEST(find_line(unnamed.lines, "instance_dir ") == "instance_dir NRT_FAILURE -");
    BOOST_TEST(log_lines(section(unnamed, "instance_dir")).size() == 1u, unnamed.err);
}

BOOST_AUTO_TEST_SUITE_END()
