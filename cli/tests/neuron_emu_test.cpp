#define BOOST_TEST_MODULE neuron_emu
// The neuron-emu executable end to end: what a user sees on stdout and
// stderr, and the exit status.

#include "neuron/test_support/run_to_end.h"
#include "neuron/test_support/temporary_directory.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <string>
#include <sys/stat.h>

namespace {

using neuron::test_support::temporary_directory;

// neuron-emu ARGS as a shell reads them (a case uses its substitutions).
neuron::test_support::run_result run(const std::string& args) {
    const temporary_directory outputs("neuron-emu-test");
    return neuron::test_support::run_to_end({.argv = {"/bin/sh", "-c", fmt::format("{} {}", NEURON_EMU_BINARY, args)}},
                                            outputs.path(), std::chrono::minutes(2));
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const char* const all_instances[] = {"inf1.xlarge",   "inf1.2xlarge",  "inf1.6xlarge",   "inf1.24xlarge",
                                     "inf2.xlarge",   "inf2.8xlarge",  "inf2.24xlarge",  "inf2.48xlarge",
                                     "trn1.2xlarge",  "trn1.32xlarge", "trn1n.32xlarge", "trn2.3xlarge",
                                     "trn2.48xlarge", "trn2u.48xlarge"};

} // namespace

BOOST_AUTO_TEST_CASE(instances_prints_one_row_per_instance_type) {
    const auto r = run("instances");
    BOOST_TEST(r.status == 0);
    BOOST_TEST(r.err.empty());
    std::istringstream lines(r.out);
    std::string header;
    std::getline(lines, header);
    BOOST_TEST(contains(header, "INSTANCE"));
    BOOST_TEST(contains(header, "DEVICE_NAME"));
    for (const char* name : all_instances) {
        std::string row;
        BOOST_TEST_REQUIRE(static_cast<bool>(std::getline(lines, row)));
        BOOST_TEST(row.starts_with(name));
    }
    BOOST_TEST(
        contains(r.out, "trn2.48xlarge         16         8     128     96 GiB  NDv3  NCv3  Trn2          Trainium2"));
}

BOOST_AUTO_TEST_CASE(instances_json_carries_every_field) {
    const auto r = run("instances --json");
    BOOST_TEST_REQUIRE(r.status == 0);
    const auto doc = YAML::Load(r.out); // JSON is YAML: yaml-cpp parses it
    BOOST_TEST_REQUIRE(doc.IsSequence());
    BOOST_TEST_REQUIRE(doc.size() == std::size(all_instances));
    for (std::size_t i = 0; i < doc.size(); ++i) BOOST_TEST(doc[i]["name"].as<std::string>() == all_instances[i]);
    const auto inf2 = doc[4];
    BOOST_TEST(inf2["devices"].as<unsigned>() == 1u);
    BOOST_TEST(inf2["cores_per_device"].as<unsigned>() == 2u);
    BOOST_TEST(inf2["device_memory_bytes"].as<std::uint64_t>() == 34359738368u);
    BOOST_TEST(inf2["device_arch_type"].as<std::string>() == "NDv3");
    BOOST_TEST(inf2["core_arch_type"].as<std::string>() == "NCv2");
    BOOST_TEST(inf2["instance_type"].as<std::string>() == "Inf2");
    BOOST_TEST(inf2["device_name"].as<std::string>() == "Inferentia2");
    BOOST_TEST(doc[12]["device_memory_bytes"].as<std::uint64_t>() == 103079215104u);
}

BOOST_AUTO_TEST_CASE(demo_reports_session_resets_ecc_and_changed_counters) {
    const auto r = run("demo --instance trn1.32xlarge --reset-ms 200");
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    BOOST_TEST(contains(r.out, "trn1.32xlarge: 16 x Trainium1 (NDv2/NCv2)"));
    BOOST_TEST(contains(r.out, "write to neuron0/reset while the device is open: ignored"));
    BOOST_TEST(contains(r.out, "neuron0: reset requested: queued; reset reads 0"));
    // 100 executions of 1 ms, each with its fixed 12.6 us, run between the
    // session's core reset and the device resets: the demo steps 1 ms at a
    // time until they are done, at 0.302 s.
    BOOST_TEST(contains(r.out, "[   0.302 s] session ran 100 executions of 1 ms, the 2nd and the 50th forced to fail; "
                               "it answers NRT_EXEC_HW_ERR_HBM_UE"));
    BOOST_TEST(contains(r.out, "[   0.502 s] neuron0: reset reads 1 (READY)"));
    BOOST_TEST(contains(r.out, "[   0.702 s] neuron0: reset reads 2 (INVALID)"));
    BOOST_TEST(contains(r.out, "sram_ecc_uncorrected 1, mem_ecc_uncorrected 3, mem_ecc_repairable_uncorrected 0"));
    BOOST_TEST(contains(r.out, "neuron0/neuron_core0/stats/other_info/reset_req_count"));
    BOOST_TEST(contains(r.out, "neuron0/neuron_core1/stats/other_info/reset_fail_count"));
    BOOST_TEST(contains(r.out, "neuron0/neuron_core0/stats/status/hw_hbm_ue_error"));
    BOOST_TEST(contains(r.out, "neuron0/neuron_core0/stats/other_info/flop_count"));
    BOOST_TEST(contains(r.out, "neuron0/stats/memory_usage/host_mem/tensors"));
    BOOST_TEST(contains(r.out, "counters changed"));
}

BOOST_AUTO_TEST_CASE(demo_on_inf1_says_there_is_no_ecc_reporting) {
    const auto r = run("demo --instance inf1.xlarge --reset-ms 10");
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    BOOST_TEST(contains(r.out, "Inferentia devices report no ECC errors"));
}

BOOST_AUTO_TEST_CASE(an_unknown_instance_lists_the_valid_ones) {
    const auto r = run("demo --instance trn3.huge");
    BOOST_TEST(r.status == 2);
    BOOST_TEST(r.out.empty());
    BOOST_TEST(contains(r.err, "unknown instance type 'trn3.huge'; valid types: inf1.xlarge,"));
    BOOST_TEST(contains(r.err, "trn2u.48xlarge"));
}

BOOST_AUTO_TEST_CASE(bad_options_exit_2_with_one_clear_line) {
    const auto typo = run("instances --jsn");
    BOOST_TEST(typo.status == 2);
    BOOST_TEST(typo.err == "neuron-emu: instances: unknown option '--jsn'; did you mean '--json'?\n");
    const auto negative = run("demo --seed -1");
    BOOST_TEST(negative.status == 2);
    BOOST_TEST(negative.err == "neuron-emu: --seed '-1' is not a non-negative integer\n");
    const auto command = run("serve-all");
    BOOST_TEST(command.status == 2);
    BOOST_TEST(command.err == "neuron-emu: unknown command 'serve-all'\n");
    const auto nothing = run("");
    BOOST_TEST(nothing.status == 2);
    BOOST_TEST(contains(nothing.err, "usage: neuron-emu COMMAND"));
}

BOOST_AUTO_TEST_CASE(help_and_version_exit_0) {
    const auto help = run("help");
    BOOST_TEST(help.status == 0);
    BOOST_TEST(contains(help.out, "instances [--json]"));
    const auto demo_help = run("demo --help");
    BOOST_TEST(demo_help.status == 0);
    BOOST_TEST(contains(demo_help.out, "--reset-ms MS"));
    const auto version = run("version");
    BOOST_TEST(version.status == 0);
    BOOST_TEST(version.out.starts_with("neuron-emu "));
}

namespace {

// A directory of its own for one test's files, removed at the end.
struct scratch_dir : temporary_directory {
    scratch_dir() : temporary_directory("neuron-emu-check-model") {}
};

const std::string valid_model = "neuron_emu_model: 1\nname: m\ninputs:\n  - {name: a, dtype: float32, shape: [2]}\n";

} // namespace

BOOST_AUTO_TEST_CASE(check_model_summarises_a_valid_file_and_exits_0) {
    const scratch_dir dir;
    const auto r = run("check-model " + dir.write("m.yaml", valid_model));
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST(contains(r.out, "m.yaml: model 'm': 1 inputs, 0 outputs"), r.out);
}

BOOST_AUTO_TEST_CASE(check_model_exits_2_on_a_bad_file_with_one_line) {
    const scratch_dir dir;
    const auto bad = dir.write("bad.yaml", "neuron_emu_model: 1\nname: m\ninputs: &x [*x]\n");
    const auto good = dir.write("good.yaml", valid_model);
    const auto r = run(fmt::format("check-model {} {}", bad, good));
    BOOST_TEST(r.status == 2);
    BOOST_TEST(r.err == bad + ":3:13: alias *x is inside the node it names (&x at line 3): it would repeat forever\n",
               r.err);
    BOOST_TEST(contains(r.out, "good.yaml: model 'm'"), r.out); // the other files are still checked
}

BOOST_AUTO_TEST_CASE(check_model_counts_a_programs_instructions_per_engine) {
    const scratch_dir dir;
    const auto path =
        dir.write("mm.yaml", "neuron_emu_model: 1\nname: mm\n"
                             "program: {generate: tiled_matmul, m: 2048, k: 2048, n: 2048, activation: true}\n");
    const auto r = run("check-model " + path);
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST(r.out ==
                   path + ": model 'mm': 0 inputs, 0 outputs, 0 memory entries, 0 prints, 0 fault triggers, a program "
                          "of 1172 instructions (tensor 1024, scalar 128, sync 20)\n",
               r.out);
}

BOOST_AUTO_TEST_CASE(check_model_reports_a_program_syntax_error_where_it_is) {
    const scratch_dir dir;
    const auto path = dir.write("bad.yaml", "neuron_emu_model: 1\nname: m\nprogram:\n  tensor:\n"
                                            "    - {op: nc_matmull, stationary: [128, 128], moving: [128, 512]}\n");
    const auto r = run("check-model " + path);
    BOOST_TEST(r.status == 2);
    BOOST_TEST(r.err.starts_with(path + ":5:12: unknown opcode 'nc_matmull' (valid: nc_matmul, "), r.err);
}

BOOST_AUTO_TEST_CASE(check_model_takes_an_instance_type) {
    const scratch_dir dir;
    const auto path = dir.write("m.yaml", valid_model);
    for (const char* instance : {"inf1.xlarge", "inf2.xlarge", "trn2.3xlarge"}) {
        const auto r = run(fmt::format("check-model --instance {} {}", instance, path));
        BOOST_TEST(r.status == 0, instance << ": " << r.err);
    }
    BOOST_TEST(run(fmt::format("check-model --instance=trn2.48xlarge {}", path)).status == 0);
    const auto unknown = run("check-model --instance trn3.huge " + path);
    BOOST_TEST(unknown.status == 2);
    BOOST_TEST(contains(unknown.err, "unknown instance type 'trn3.huge'; valid types: inf1.xlarge,"), unknown.err);
    const auto option = run("check-model --instanse trn1.2xlarge " + path);
    BOOST_TEST(option.status == 2);
    BOOST_TEST(option.err == "neuron-emu: check-model: unknown option '--instanse'\n", option.err);
    const auto missing = run("check-model " + path + " --instance");
    BOOST_TEST(missing.status == 2);
    BOOST_TEST(missing.err == "neuron-emu: check-model: --instance needs a value\n", missing.err);
    const auto help = run("check-model --help");
    BOOST_TEST(help.status == 0);
    BOOST_TEST(contains(help.out, "usage: neuron-emu check-model [--instance TYPE] FILE..."), help.out);
}

// build_program's checks against the device, through check-model.
namespace {

// The file is refused with exit status 2 and one line "FILE:LINE:COLUMN: ...".
void refused_at(const std::string& text, const std::string& instance, int line, int column) {
    const scratch_dir dir;
    const auto path = dir.write("bad.yaml", text);
    const auto r = run(fmt::format("check-model --instance {} {}", instance, path));
    BOOST_TEST(r.status == 2, instance << ": accepted: " << r.out);
    BOOST_TEST(r.err.starts_with(fmt::format("{}:{}:{}: ", path, line, column)), instance << ": " << r.err);
    BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, r.err);
}

const std::string program_header = "neuron_emu_model: 1\nname: m\nprogram:\n";

} // namespace

BOOST_AUTO_TEST_CASE(check_model_refuses_an_opcode_on_an_engine_that_does_not_run_it) {
    refused_at(program_header + "  tensor:\n    - {op: activation, shape: [128, 512]}\n", "trn1.2xlarge", 5, 7);
}

BOOST_AUTO_TEST_CASE(check_model_refuses_a_wait_nobody_signals) {
    refused_at(program_header +
                   "  tensor:\n    - {op: nc_matmul, dtype: bfloat16, stationary: [128, 128], moving: [128, 512], "
                   "wait: {semaphore: 4, value: 1}}\n",
               "trn1.2xlarge", 5, 7);
    // Signalled, but never as far: two default copies add 32.
    refused_at(
        program_header +
            "  sync:\n    - {op: dma_copy, from: hbm, to: sbuf, bytes_per_partition: 1024, signal: 1, "
            "repeat: 2}\n  tensor:\n    - {op: nc_matmul, dtype: bfloat16, stationary: [128, 128], moving: [128, 512], "
            "wait: {semaphore: 1, value: 33}}\n",
        "trn1.2xlarge", 7, 7);
}

BOOST_AUTO_TEST_CASE(check_model_refuses_a_tile_beyond_the_generations_sbuf) {
    // 196600 + 2 x 1000 bytes: beyond trn1's 192 KiB per partition, within trn2's 224 KiB.
    const auto text =
        program_header + "  vector:\n    - {op: tensor_copy, dtype: bfloat16, shape: [128, 1000], offset: 196600}\n";
    refused_at(text, "trn1.2xlarge", 5, 7);
    const scratch_dir dir;
    const auto r = run("check-model --instance trn2.3xlarge " + dir.write("m.yaml", text));
    BOOST_TEST(r.status == 0, r.err);
}

BOOST_AUTO_TEST_CASE(check_model_refuses_a_semaphore_beyond_the_cores_count) {
    // 256 semaphores per core on NC-v2 and later, 32 on inf1.
    const auto text =
        program_header + "  sync:\n    - {op: dma_copy, from: hbm, to: hbm, bytes_per_partition: 64, signal: 40}\n";
    refused_at(text, "inf1.xlarge", 5, 7);
    const scratch_dir dir;
    const auto r = run("check-model " + dir.write("m.yaml", text));
    BOOST_TEST(r.status == 0, r.err);
}

BOOST_AUTO_TEST_CASE(check_model_refuses_a_generated_tile_beyond_sbuf_at_its_generator) {
    // Two tiles of 56 KiB in and out: the second output buffer ends at 224 KiB, beyond
    // trn1's SBUF, within trn2's. Errors on generated instructions point at the program.
    const auto text =
        program_header + "  {generate: elementwise, rows: 128, cols: 57344, tile_free: 28672, sbuf_budget: 229376}\n";
    refused_at(text, "trn1.2xlarge", 4, 3);
    const scratch_dir dir;
    const auto r = run("check-model --instance trn2.3xlarge " + dir.write("m.yaml", text));
    BOOST_TEST(r.status == 0, r.err);
}

BOOST_AUTO_TEST_CASE(check_model_refuses_what_is_not_a_regular_file_without_reading_it) {
    const scratch_dir dir;
    const auto fifo = dir / "fifo";
    BOOST_TEST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // No writer: a blocking open would wait forever. /dev/zero never ends.
    for (const auto& [path, kind] :
         {std::pair{fifo, "a FIFO"}, {std::string("/dev/zero"), "a character device"}, {dir.path(), "a directory"}}) {
        const auto r = run("check-model " + path);
        BOOST_TEST(r.status == 2, path);
        BOOST_TEST(r.err == fmt::format("neuron-emu: check-model: {}: {}, not a regular file\n", path, kind));
    }
    const auto missing = run("check-model " + dir / "none.yaml");
    BOOST_TEST(missing.status == 2);
    BOOST_TEST(contains(missing.err, "none.yaml: cannot open it: No such file or directory"), missing.err);
}

BOOST_AUTO_TEST_CASE(check_model_takes_what_nrt_load_takes_and_refuses_a_larger_file) {
    const scratch_dir dir;
    const auto pieces = dir.write("big.yaml", valid_model + "#" + std::string(1024 * 1024, 'x') + "\n");
    BOOST_TEST(run("check-model " + pieces).status == 0); // nrt_load sends it in pieces
    const auto big = dir.write("huge.yaml", valid_model + "#" + std::string(16 * 1024 * 1024, 'x') + "\n");
    const auto r = run("check-model " + big);
    BOOST_TEST(r.status == 2);
    BOOST_TEST(r.err == fmt::format("neuron-emu: check-model: {}: larger than 16777216 bytes, the most allowed\n", big),
               r.err);
}

BOOST_AUTO_TEST_CASE(errors_escape_control_characters_from_the_input) {
    const scratch_dir dir;
    const auto bad = dir.write("esc.yaml", "neuron_emu_model: 1\nname: m\n\"\\e]0;owned\\a\\nkey\": 1\n");
    const auto r = run("check-model " + bad);
    BOOST_TEST(r.status == 2);
    BOOST_TEST(r.err == bad +
                            ":3:1: unknown key '\\x1b]0;owned\\x07\\nkey' in the model file (valid: neuron_emu_model, "
                            "name, inputs, outputs, memory, work, program, prints, faults)\n",
               r.err);
    const auto command = run("\"$(printf 'a\\033[2Jb')\"");
    BOOST_TEST(command.status == 2);
    BOOST_TEST(command.err == "neuron-emu: unknown command 'a\\x1b[2Jb'\n", command.err);
}
