#define BOOST_TEST_MODULE shim_vendor_tools
// The vendor's tools against a served emulator with applications on it
// (issue: neuron-ls, neuron-monitor and neuron-top emulated): what neuron-ls
// shows of the processes holding devices, read from the emulator's status
// and /proc, with the tree read at the mount; and what neuron-monitor and
// neuron-top show of executions, ECC errors and memory over seconds of
// stepped time.

#include "support/shim_harness.h"

#include "neuron/common/line_reader.h"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace neuron::shim::testing;

namespace {

// `neuron-emu TOOL ...` against `emu`'s tree and control socket; its stdout.
std::string tool(served_instance& emu, std::vector<std::string> args) {
    args.insert(args.end(), {"--sysfs-root", emu.mount(), "--control", emu.control()});
    const auto result = neuron::cli::testing::run_to_end(emu.dir(), args);
    BOOST_TEST_REQUIRE(result.status == 0, "neuron-emu " << args.front() << " failed: " << result.err);
    return result.out;
}

program_options visible(served_instance& emu, const std::string& cores) {
    return {.env = {{"NEURON_RT_VISIBLE_CORES", cores}}, .control = emu.control()};
}

// A tool started with its stdout on a pipe and its stderr on a FIFO the case
// reads: in stepped time the tools say on stderr when they have taken their
// first sample, which is when the case may make time move.
class stepped_tool {
public:
    stepped_tool(served_instance& emu, std::vector<std::string> args) : m_fifo(emu.dir() / "tool-stderr") {
        BOOST_TEST_REQUIRE(::mkfifo(m_fifo.c_str(), 0600) == 0, std::strerror(errno));
        m_err = ::open(m_fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC); // so that the tool's open does not block
        BOOST_TEST_REQUIRE(m_err >= 0, std::strerror(errno));
        m_err_lines = neuron::common::line_reader(m_err);
        args.insert(args.end(), {"--sysfs-root", emu.mount(), "--control", emu.control()});
        m_process.emplace(args, neuron::cli::testing::process_streams{.stderr_path = m_fifo});
    }
    ~stepped_tool() {
        m_process.reset();
        if (m_err >= 0) ::close(m_err);
    }
    stepped_tool(const stepped_tool&) = delete;
    stepped_tool& operator=(const stepped_tool&) = delete;

    neuron::cli::testing::emulator& process() { return *m_process; }

    // (The harness's require_exit would read its stderr as a file: a FIFO blocks.)
    void require_exit_0() {
        const auto status = m_process->wait();
        BOOST_TEST_REQUIRE(status.has_value(), "the tool did not exit");
        BOOST_TEST_REQUIRE((WIFEXITED(*status) && WEXITSTATUS(*status) == 0), "the tool's wait status is " << *status);
    }

    // The next stderr line; fails the case when none comes in time.
    std::string err_line() {
        const auto line = m_err_lines.next(line_timeout);
        BOOST_TEST_REQUIRE(line.has_value(), "no line on the tool's stderr; so far: " << m_err_lines.partial());
        return *line;
    }

private:
    std::string m_fifo;
    int m_err = -1;
    neuron::common::line_reader m_err_lines{-1};
    std::optional<neuron::cli::testing::emulator> m_process;
};

// Runs one execution of the app's model "m" within the next second of
// stepped time.
void execute_within_a_second(served_instance& emu, program& app) {
    app.send("exec m");
    BOOST_TEST_REQUIRE(wait_until_waiting_for_answer(app.pid()), "the execution never reached the emulator");
    emu.ctl_ok({"advance", "--ns", "1000000000"});
    BOOST_TEST(app.expect("exec m") == "exec m NRT_SUCCESS");
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(shim_vendor_tools, diagnostics)

BOOST_AUTO_TEST_CASE(ls_shows_each_device_with_the_processes_holding_its_cores) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.32xlarge"});
    program app(emu.dir(), "session", visible(emu, "2-3")); // device 1
    BOOST_TEST(app.call("init") == "init NRT_SUCCESS visible=2");

    const auto json = YAML::Load(tool(emu, {"ls", "--json-output"}));
    BOOST_TEST_REQUIRE(json.size() == 16u);
    const auto device = json[1];
    BOOST_TEST(device["neuron_device"].as<int>() == 1);
    BOOST_TEST(device["bdf"].as<std::string>() == "0000:10:1e.0");
    BOOST_TEST(device["nc_count"].as<int>() == 2);
    BOOST_TEST_REQUIRE(device["neuron_processes"].size() == 1u);
    const auto process = device["neuron_processes"][0];
    BOOST_TEST(process["pid"].as<pid_t>() == app.pid());
    // Its command line, cut at 40 characters as neuron-ls cuts it.
    const auto command = program_path("session");
    BOOST_TEST(process["command"].as<std::string>() == (command.size() > 40 ? command.substr(0, 37) + "..." : command));
    BOOST_TEST(process["neuron_runtime_version"].as<std::string>() == "2.30.50");
    BOOST_TEST(json[0]["neuron_processes"].size() == 0u);
    BOOST_TEST(json[2]["neuron_processes"].size() == 0u);

    // The table: the runtime's pid and version on device 1, NA on the others.
    const auto table = tool(emu, {"ls"});
    BOOST_TEST(table.starts_with("instance-type: trn1.32xlarge\ninstance-id: i-0"));
    const auto width = std::max<std::size_t>(3, std::to_string(app.pid()).size());
    BOOST_TEST(table.find(fmt::format("| 1      | 2      | 2-3      | 32 GB  | 13, 0, 5, 2   | 0000:10:1e.0 | {:<{}} | "
                                      "0-31,64-95   | 0    | 2.30.50 |",
                                      app.pid(), width)) != std::string::npos,
               table);
    BOOST_TEST(table.find(fmt::format("| 0      | 2      | 0-1      | 32 GB  | 12, 3, 4, 1   | 0000:10:1b.0 | {:<{}} | "
                                      "0-31,64-95   | 0    | NA      |",
                                      "NA", width)) != std::string::npos,
               table);

    app.call("quit");
    app.require_exit(0);
    BOOST_TEST(tool(emu, {"ls"}).find("PID") == std::string::npos, "no process: no process columns");
}

BOOST_AUTO_TEST_CASE(ls_without_an_emulator_shows_the_tree_and_no_processes) {
    require_mount("this test");
    served_instance emu({.instance = "inf2.xlarge"});
    const auto result =
        neuron::cli::testing::run_to_end(emu.dir(), {"ls", "--sysfs-root", emu.mount(), "--control", ""});
    BOOST_TEST(result.status == 0, result.err);
    BOOST_TEST(result.out.find("| 0      | 2      | 0-1      | 32 GB  |") != std::string::npos, result.out);
    BOOST_TEST(result.out.find("instance-id: NA") != std::string::npos,
               "the instance is unknown without EC2 or the emulator");
}

BOOST_AUTO_TEST_CASE(ls_with_no_tree_fails_as_neuron_ls_does) {
    require_mount("this test");
    served_instance emu({.instance = "inf2.xlarge"});
    const auto result =
        neuron::cli::testing::run_to_end(emu.dir(), {"ls", "--sysfs-root", emu.dir() / "nothing", "--control", ""});
    BOOST_TEST(result.status == 1);
    BOOST_TEST(result.out.empty());
    BOOST_TEST(result.err.ends_with(" level=fatal msg=\"Failed to load MLA system information\" "
                                    "error=\"failed to discover Neuron devices\"\n"),
               result.err);
}

BOOST_AUTO_TEST_CASE(monitor_reports_follow_executions_ecc_errors_and_memory_in_stepped_time) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.2xlarge", .time = "stepped"});
    program app(emu.dir(), "session",
                {.env = {{"NEURON_RT_VISIBLE_CORES", "0"}, {"NEURON_PROCESS_TAG", "app-1"}}, .control = emu.control()});
    BOOST_TEST(app.call("init") == "init NRT_SUCCESS visible=1");
    BOOST_TEST(app.call("load m " + shipped_model("matmul_activation.yaml")) == "load m NRT_SUCCESS vnc=0");
    BOOST_TEST(app.call("alloc m") == "alloc m NRT_SUCCESS");
    const auto config = emu.dir() / "monitor.json";
    std::ofstream(config) << R"({"period": "1s",
        "neuron_runtimes": [{"tag_filter": "^app-", "metrics": [{"type": "neuroncore_counters"},
                             {"type": "execution_stats"}, {"type": "memory_used"}]}],
        "system_metrics": [{"type": "neuron_hw_counters"}]})";

    stepped_tool monitor(emu, {"monitor", "-c", config, "--count", "4"});
    BOOST_TEST(monitor.err_line() ==
               "neuron-emu: monitor: the emulator's time is stepped; reports come as it is advanced");

    // At start, before time moves: over no time, nothing ran; the memory is held already.
    const auto at_start = monitor.process().read_line(line_timeout);
    BOOST_TEST_REQUIRE(at_start.has_value(), "no report at start");
    const auto zero = YAML::Load(*at_start)["neuron_runtime_data"][0]["report"];
    BOOST_TEST(zero["neuroncore_counters"]["period"].as<double>() == 0.0, *at_start);
    BOOST_TEST(zero["neuroncore_counters"]["neuroncores_in_use"]["0"]["flops"].as<double>() == 0.0);
    BOOST_TEST(zero["execution_stats"]["execution_summary"]["completed"].as<int>() == 0);
    BOOST_TEST(zero["memory_used"]["neuron_runtime_used_bytes"]["neuron_device"].as<std::uint64_t>() == 33u << 20);

    // The first second: one execution of 2 x 2048^3 flops.
    execute_within_a_second(emu, app);
    const auto first = monitor.process().read_line(line_timeout);
    BOOST_TEST_REQUIRE(first.has_value(), "no report for the first second");
    const auto one = YAML::Load(*first);
    BOOST_TEST_REQUIRE(one["neuron_runtime_data"].size() == 1u, *first);
    const auto runtime = one["neuron_runtime_data"][0];
    BOOST_TEST(runtime["pid"].as<pid_t>() == app.pid());
    BOOST_TEST(runtime["neuron_runtime_tag"].as<std::string>() == "app-1");
    const auto report = runtime["report"];
    const auto core = report["neuroncore_counters"]["neuroncores_in_use"]["0"];
    BOOST_TEST(core["flops"].as<double>() == 2.0 * 2048 * 2048 * 2048, "flops per second over the period");
    BOOST_TEST(core["neuroncore_utilization"].as<double>() > 0.0);
    BOOST_TEST(report["neuroncore_counters"]["period"].as<double>() == 1.0);
    const auto stats = report["execution_stats"];
    BOOST_TEST(stats["execution_summary"]["completed"].as<int>() == 1);
    BOOST_TEST(stats["error_summary"]["generic"].as<int>() == 0);
    BOOST_TEST(stats["latency_stats"]["total_latency"]["p50"].as<double>() > 0.0);
    BOOST_TEST(stats["latency_stats"]["device_latency"]["p50"].as<double>() > 0.0);
    const auto memory = report["memory_used"]["neuron_runtime_used_bytes"];
    // As the runtime counts it: three 8 MiB tensors, 1 MiB of code, the 8 MiB scratchpad.
    BOOST_TEST(memory["neuron_device"].as<std::uint64_t>() == 33u << 20, *first);
    BOOST_TEST(memory["usage_breakdown"]["neuroncore_memory_usage"]["0"]["tensors"].as<std::uint64_t>() == 24u << 20);
    BOOST_TEST(memory["usage_breakdown"]["neuroncore_memory_usage"]["0"]["model_code"].as<std::uint64_t>() == 1u << 20);
    BOOST_TEST(report["memory_used"]["loaded_models"][0]["name"].as<std::string>() == "matmul_activation", *first);
    BOOST_TEST(one["system_data"]["neuron_hw_counters"]["neuron_devices"][0]["mem_ecc_corrected"].as<int>() == 0);

    // The second: no execution, three corrected HBM errors.
    emu.ctl_ok({"inject-ecc", "--device", "0", "--kind", "hbm-corrected", "--count", "3"});
    emu.ctl_ok({"advance", "--ns", "1000000000"});
    const auto second = monitor.process().read_line(line_timeout);
    BOOST_TEST_REQUIRE(second.has_value(), "no report for the second second");
    const auto two = YAML::Load(*second);
    const auto idle = two["neuron_runtime_data"][0]["report"];
    BOOST_TEST(idle["execution_stats"]["execution_summary"]["completed"].as<int>() == 0);
    BOOST_TEST(idle["execution_stats"]["latency_stats"]["total_latency"].IsNull(), *second);
    BOOST_TEST(idle["neuroncore_counters"]["neuroncores_in_use"]["0"]["flops"].as<double>() == 0.0);
    BOOST_TEST(two["system_data"]["neuron_hw_counters"]["neuron_devices"][0]["mem_ecc_corrected"].as<int>() == 3,
               *second);

    // The third: the model unloaded, its tensors freed; the memory goes with them.
    BOOST_TEST(app.call("unload m") == "unload m NRT_SUCCESS");
    emu.ctl_ok({"advance", "--ns", "1000000000"});
    const auto third = monitor.process().read_line(line_timeout);
    BOOST_TEST_REQUIRE(third.has_value(), "no report for the third second");
    const auto three = YAML::Load(*third)["neuron_runtime_data"][0]["report"]["memory_used"];
    BOOST_TEST(three["neuron_runtime_used_bytes"]["neuron_device"].as<std::uint64_t>() == 0u, *third);
    BOOST_TEST(three["loaded_models"].size() == 0u, *third);
    monitor.require_exit_0(); // --count 4: the report at start and three seconds'
}

BOOST_AUTO_TEST_CASE(top_once_shows_an_execution_over_a_second_of_stepped_time) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.2xlarge", .time = "stepped"});
    program app(emu.dir(), "session", visible(emu, "0"));
    BOOST_TEST(app.call("init") == "init NRT_SUCCESS visible=1");
    BOOST_TEST(app.call("load m " + shipped_model("matmul_activation.yaml")) == "load m NRT_SUCCESS vnc=0");
    BOOST_TEST(app.call("alloc m") == "alloc m NRT_SUCCESS");

    stepped_tool top(emu, {"top", "--once"});
    BOOST_TEST(top.err_line() ==
               "neuron-emu: top: the emulator's time is stepped; the frame comes when it reaches 1000000000 ns");
    execute_within_a_second(emu, app);
    std::string frame;
    while (const auto line = top.process().read_line(line_timeout)) frame += *line + "\n";
    top.require_exit_0();

    BOOST_TEST(frame.find("running on i-0") != std::string::npos, frame);
    BOOST_TEST(frame.find("(trn1.2xlarge)") != std::string::npos, frame);
    BOOST_TEST(frame.find("\nNeuronCore v2 Utilization (Avg: ") != std::string::npos, frame);
    // One core busy for part of the second, the other idle.
    const auto nd0 = frame.substr(frame.find("ND0"));
    const auto first = nd0.find('[');
    const auto second = nd0.find('[', first + 1);
    BOOST_TEST_REQUIRE(second != std::string::npos, frame);
    BOOST_TEST(nd0.substr(first, 8) != "[ 0.00%]", frame);
    BOOST_TEST(nd0.substr(second, 8) == "[ 0.00%]", frame);
    BOOST_TEST(frame.find(fmt::format("[2]:{}", app.pid())) != std::string::npos, // untagged: its pid
               "the app has a tab:\n"
                   << frame);
    // The memory the tree shows on the app's core.
    const auto mib = std::uint64_t{1} << 20;
    const auto device_mem = [&](const std::string& category) {
        return emu.core_counter(0, 0, "memory_usage/device_mem/" + category, "present");
    };
    BOOST_TEST_REQUIRE(device_mem("tensors") == 8 * mib);
    BOOST_TEST_REQUIRE(device_mem("model_code") == 1 * mib);
    BOOST_TEST_REQUIRE(device_mem("model_shared_scratchpad") == 8 * mib);
    BOOST_TEST(frame.find("Device Used Memory  Total: 17.0MB  Tensors: 8.0MB  Constants: 0.0B  Model Code: 1.0MB  "
                          "Runtime Memory: 0.0B  Model Scratchpad: 8.0MB\n") != std::string::npos,
               frame);
}

BOOST_AUTO_TEST_SUITE_END()
