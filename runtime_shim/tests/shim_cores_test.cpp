#define BOOST_TEST_MODULE shim_cores
// Core ownership and topology end to end (nrt-api.md §3.2, §3.7): processes
// competing for logical NeuronCores through NEURON_RT_VISIBLE_CORES and
// NEURON_RT_NUM_CORES, and the counts, instance info and version a process
// sees before and after nrt_init under each LNC.

#include "support/shim_harness.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::shim::testing;

namespace {

program_options cores(served_instance& emu, std::map<std::string, std::string> env) {
    return {.env = std::move(env), .control = emu.control()};
}

// The session that a process with this pid holds, from ctl status.
YAML::Node session_of(served_instance& emu, pid_t pid) {
    for (const auto& s : emu.status()["sessions"]) {
        if (s["pid"].as<pid_t>() == pid) return s;
    }
    return YAML::Node();
}

// Starts a session program with `env`, runs init, and returns its answer and stderr.
struct init_result {
    std::string answer;
    std::string err;
};

init_result try_init(served_instance& emu, std::map<std::string, std::string> env) {
    program p(emu.dir(), "session", cores(emu, std::move(env)));
    const auto answer = p.call("init");
    p.call("quit");
    p.require_exit(0);
    return {answer, p.err()};
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(shim_cores, diagnostics)

// nrt_init takes its cores exclusively until nrt_close or exit; another
// process asking for them fails with NRT_RESOURCE and a log line that names
// the owner. VISIBLE_CORES must be contiguous; NUM_CORES takes free cores.
BOOST_AUTO_TEST_CASE(processes_compete_for_cores) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.32xlarge"});

    program a(emu.dir(), "session", cores(emu, {{"NEURON_RT_VISIBLE_CORES", "0"}}));
    BOOST_TEST(a.call("init") == "init NRT_SUCCESS visible=1");
    const auto a_session = session_of(emu, a.pid());
    BOOST_TEST_REQUIRE(a_session.IsMap());
    BOOST_TEST(a_session["first_logical_core"].as<int>() == 0);

    // B wants A's core.
    const auto refused = try_init(emu, {{"NEURON_RT_VISIBLE_CORES", "0"}});
    BOOST_TEST(refused.answer == "init NRT_RESOURCE visible=0");
    const auto logged = log_lines(refused.err);
    BOOST_TEST_REQUIRE(logged.size() == 1u, refused.err);
    BOOST_TEST(contains(logged[0], "nrt_init"), logged[0]);
    BOOST_TEST(contains(logged[0], "pid " + std::to_string(a.pid())), "the line names the owner: " << logged[0]);
    const auto overlapping = try_init(emu, {{"NEURON_RT_VISIBLE_CORES", "0-1"}});
    BOOST_TEST(overlapping.answer == "init NRT_RESOURCE visible=0");

    // B takes core 1 next to A.
    program b(emu.dir(), "session", cores(emu, {{"NEURON_RT_VISIBLE_CORES", "1"}}));
    BOOST_TEST(b.call("init") == "init NRT_SUCCESS visible=1");
    BOOST_TEST(session_of(emu, b.pid())["first_logical_core"].as<int>() == 1);

    // NUM_CORES takes the first free run of cores.
    program c(emu.dir(), "session", cores(emu, {{"NEURON_RT_NUM_CORES", "2"}}));
    BOOST_TEST(c.call("init") == "init NRT_SUCCESS visible=2");
    BOOST_TEST(session_of(emu, c.pid())["first_logical_core"].as<int>() == 2);
    // VISIBLE_CORES wins over NUM_CORES; ranges and lists.
    program d(emu.dir(), "session", cores(emu, {{"NEURON_RT_VISIBLE_CORES", "4-5,6"}, {"NEURON_RT_NUM_CORES", "1"}}));
    BOOST_TEST(d.call("init") == "init NRT_SUCCESS visible=3");
    BOOST_TEST(session_of(emu, d.pid())["first_logical_core"].as<int>() == 4);
    const auto too_many = try_init(emu, {{"NEURON_RT_NUM_CORES", "32"}});
    BOOST_TEST(too_many.answer == "init NRT_RESOURCE visible=0", "only 25 of 32 cores are free");

    // Not contiguous: refused before any core is taken, naming the variable.
    const auto gap = try_init(emu, {{"NEURON_RT_VISIBLE_CORES", "8,10"}});
    BOOST_TEST(gap.answer.starts_with("init NRT_"), gap.answer);
    BOOST_TEST(gap.answer != "init NRT_SUCCESS visible=2");
    BOOST_TEST(contains(gap.err, "NEURON_RT_VISIBLE_CORES"), gap.err);
    BOOST_TEST(log_lines(gap.err).size() == 1u, gap.err);
    const auto decreasing = try_init(emu, {{"NEURON_RT_VISIBLE_CORES", "9,8"}});
    BOOST_TEST(decreasing.answer != "init NRT_SUCCESS visible=2");
    const auto beyond = try_init(emu, {{"NEURON_RT_VISIBLE_CORES", "31-32"}});
    BOOST_TEST(beyond.answer != "init NRT_SUCCESS visible=2", "trn1.32xlarge has cores 0-31");
    // The widest range there is: refused at once, never expanded core by core.
    for (const auto* huge : {"0-4294967295", "4294967295", "1-4294967295,5"}) {
        const auto refused_at_once = try_init(emu, {{"NEURON_RT_VISIBLE_CORES", huge}});
        BOOST_TEST(refused_at_once.answer.starts_with("init NRT_"), refused_at_once.answer);
        BOOST_TEST(!refused_at_once.answer.starts_with("init NRT_SUCCESS"), huge << ": " << refused_at_once.answer);
        BOOST_TEST(contains(refused_at_once.err, "NEURON_RT_VISIBLE_CORES"), refused_at_once.err);
    }
    const auto listed = try_init(emu, {{"NEURON_RT_VISIBLE_CORES", "8,9"}});
    BOOST_TEST(listed.answer == "init NRT_SUCCESS visible=2");

    // A ends without nrt_close: its core is free again.
    BOOST_TEST(a.call("exit") == "exit");
    a.require_exit(0);
    emu.ctl_ok({"status"});
    const auto after_a = try_init(emu, {{"NEURON_RT_VISIBLE_CORES", "0"}});
    BOOST_TEST(after_a.answer == "init NRT_SUCCESS visible=1");
    BOOST_TEST(log_lines(after_a.err).empty(), after_a.err);

    // B, C and D end with nrt_close.
    for (auto* p : {&b, &c, &d}) {
        BOOST_TEST(p->call("close") == "close done");
        BOOST_TEST(p->call("quit") == "quit");
        p->require_exit(0);
    }
    BOOST_TEST(emu.status()["sessions"].size() == 0u);
    const auto everything = try_init(emu, {});
    BOOST_TEST(everything.answer == "init NRT_SUCCESS visible=32");
    emu.stop();
}

// trn2.48xlarge: 16 devices of 8 physical cores; LNC 2 by default (64
// logical cores), 128 with NEURON_LOGICAL_NC_CONFIG=1. The total ignores
// VISIBLE_CORES; the visible count is what nrt_init takes (or would take).
BOOST_AUTO_TEST_CASE(topology_on_trn2) {
    require_mount("this test");
    served_instance emu({.instance = "trn2.48xlarge"});

    const auto plain = run_program(emu.dir(), "topology", {.control = emu.control()});
    BOOST_TEST_REQUIRE(plain.status == 0, plain.err);
    const auto& l = plain.lines;
    BOOST_TEST(find_line(l, "before total") == "before total NRT_SUCCESS 64");
    BOOST_TEST(find_line(l, "before visible") == "before visible NRT_SUCCESS 64");
    BOOST_TEST(find_line(l, "before instance") == "before instance NRT_SUCCESS family=5 size=7 arch=TRN revision=" +
                                                      field(find_line(l, "before instance"), "revision"));
    BOOST_TEST(find_line(l, "init") == "init NRT_SUCCESS");
    BOOST_TEST(find_line(l, "after total ") == "after total NRT_SUCCESS 64");
    BOOST_TEST(find_line(l, "after total_vnc") == "after total_vnc NRT_SUCCESS 64");
    BOOST_TEST(find_line(l, "after visible ") == "after visible NRT_SUCCESS 64");
    BOOST_TEST(find_line(l, "after visible_vnc") == "after visible_vnc NRT_SUCCESS 64");
    BOOST_TEST(find_line(l, "after instance") == find_line(l, "before instance").replace(0, 6, "after"));
    const auto memory = find_line(l, "after memory");
    BOOST_TEST(memory.starts_with("after memory NRT_SUCCESS used=0 "), memory);
    BOOST_TEST(std::stoull(field(memory, "limit")) > 0u, memory);
    BOOST_TEST(field(memory, "size") == "16");

    const auto version = find_line(l, "version ");
    BOOST_TEST(version.starts_with("version NRT_SUCCESS major=2 "), version);
    BOOST_TEST(!field(version, "detail").empty(), version);
    BOOST_TEST(find_line(l, "version_prefix") == "version_prefix NRT_SUCCESS untouched=1");

    const auto lnc1 =
        run_program(emu.dir(), "topology", {.env = {{"NEURON_LOGICAL_NC_CONFIG", "1"}}, .control = emu.control()});
    BOOST_TEST_REQUIRE(lnc1.status == 0, lnc1.err);
    BOOST_TEST(find_line(lnc1.lines, "before total") == "before total NRT_SUCCESS 128");
    BOOST_TEST(find_line(lnc1.lines, "before visible") == "before visible NRT_SUCCESS 128");
    BOOST_TEST(find_line(lnc1.lines, "after total ") == "after total NRT_SUCCESS 128");
    BOOST_TEST(find_line(lnc1.lines, "after visible ") == "after visible NRT_SUCCESS 128");

    const auto some =
        run_program(emu.dir(), "topology", {.env = {{"NEURON_RT_VISIBLE_CORES", "2-5"}}, .control = emu.control()});
    BOOST_TEST_REQUIRE(some.status == 0, some.err);
    BOOST_TEST(find_line(some.lines, "before total") == "before total NRT_SUCCESS 64");
    BOOST_TEST(find_line(some.lines, "before visible") == "before visible NRT_SUCCESS 4");
    BOOST_TEST(find_line(some.lines, "after total ") == "after total NRT_SUCCESS 64");
    BOOST_TEST(find_line(some.lines, "after visible ") == "after visible NRT_SUCCESS 4");

    const auto counted = run_program(
        emu.dir(), "topology",
        {.env = {{"NEURON_RT_NUM_CORES", "3"}, {"NEURON_LOGICAL_NC_CONFIG", "1"}}, .control = emu.control()});
    BOOST_TEST_REQUIRE(counted.status == 0, counted.err);
    BOOST_TEST(find_line(counted.lines, "before visible") == "before visible NRT_SUCCESS 3");
    BOOST_TEST(find_line(counted.lines, "after visible ") == "after visible NRT_SUCCESS 3");
    BOOST_TEST(find_line(counted.lines, "after total ") == "after total NRT_SUCCESS 128");

    // Each nrt_init resets the physical cores it takes (reset_req_count, +1
    // at probe): all of them twice (LNC 2 and LNC 1, all cores), logical 2-5
    // under LNC 2 = neuron0 cores 4-7 and neuron1 cores 0-3, logical 0-2
    // under LNC 1 = neuron0 cores 0-2.
    emu.ctl_ok({"status"});
    const auto resets = [&](std::uint32_t device, std::uint32_t core) {
        return emu.core_counter(device, core, "other_info/reset_req_count");
    };
    for (std::uint32_t c = 0; c < 8; ++c) {
        BOOST_TEST(resets(0, c) == (c <= 2 || c >= 4 ? 4u : 3u), "neuron0 core " << c);
        BOOST_TEST(resets(1, c) == (c <= 3 ? 4u : 3u), "neuron1 core " << c);
        BOOST_TEST(resets(15, c) == 3u, "neuron15 core " << c);
    }
    emu.stop();
}

// trn1 has LNC 1 only: NEURON_LOGICAL_NC_CONFIG=2 is refused at nrt_init
// with a log line naming the variable.
BOOST_AUTO_TEST_CASE(topology_on_trn1_refuses_lnc_2) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.32xlarge"});
    const auto plain = run_program(emu.dir(), "topology", {.control = emu.control()});
    BOOST_TEST_REQUIRE(plain.status == 0, plain.err);
    BOOST_TEST(find_line(plain.lines, "before total") == "before total NRT_SUCCESS 32");
    BOOST_TEST(find_line(plain.lines, "after visible ") == "after visible NRT_SUCCESS 32");
    BOOST_TEST(
        find_line(plain.lines, "before instance").starts_with("before instance NRT_SUCCESS family=2 size=6 arch=TRN"));

    const auto lnc2 =
        run_program(emu.dir(), "topology", {.env = {{"NEURON_LOGICAL_NC_CONFIG", "2"}}, .control = emu.control()});
    BOOST_TEST_REQUIRE(lnc2.status == 0, lnc2.err);
    const auto init = find_line(lnc2.lines, "init ");
    BOOST_TEST(init.starts_with("init NRT_"), init);
    BOOST_TEST(init != "init NRT_SUCCESS");
    BOOST_TEST(find_line(lnc2.lines, "after ").empty());
    const auto logged = log_lines(lnc2.err);
    BOOST_TEST(!logged.empty(), lnc2.err);
    bool named = false;
    for (const auto& line : logged)
        named = named || (contains(line, "nrt_init") && contains(line, "NEURON_LOGICAL_NC_CONFIG"));
    BOOST_TEST(named, "no nrt_init log line names NEURON_LOGICAL_NC_CONFIG:\n" << lnc2.err);
    BOOST_TEST(emu.status()["sessions"].size() == 0u);

    const auto three =
        run_program(emu.dir(), "topology", {.env = {{"NEURON_LOGICAL_NC_CONFIG", "3"}}, .control = emu.control()});
    BOOST_TEST(find_line(three.lines, "init ") != "init NRT_SUCCESS", "LNC is 1 or 2 only");
    emu.stop();
}

BOOST_AUTO_TEST_SUITE_END()
