#define BOOST_TEST_MODULE program_timings
// Every program the repository ships (model files, the scenarios' models,
// the fuzzer's seeds, the generators as their tests use them) runs on a
// core with a profile, and what it did is compared, to the picosecond, with
// golden/program_timings.txt: per-engine busy time, end time, MACs, DMA
// figures and a digest of every profile record. Each runs again without a
// profile and must time the same. A change to how programs
// are represented or walked must leave all of it as it was; a change to
// costs rewrites the file on purpose (NEURON_UPDATE_PROGRAM_TIMINGS=1).
#include "neuron/control/model_file.h"
#include "neuron/model/hardware/neuron_core.h"
#include "neuron/model/program/kernel_generators.h"
#include "neuron/model/program/program_builder.h"
#include "neuron/model/runtime/platform.h"
#include "neuron/model/runtime/simulation.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using namespace neuron;
using namespace neuron::model;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

const fs::path root = NEURON_SOURCE_DIR;
const fs::path golden = root / "control/tests/golden/program_timings.txt";

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

struct named_model {
    std::string name;
    compiled_model model;
};

// Model files, and the models scenarios write inline.
std::vector<named_model> shipped_models() {
    std::vector<named_model> out;
    const auto add = [&](const std::string& name, const std::string& text) {
        try {
            auto m = control::parse_model_file(text, name);
            if (m.program || std::any_of(m.engine_cycles.begin(), m.engine_cycles.end(), [](auto c) { return c; }))
                out.push_back({name, std::move(m)});
        } catch (const std::exception&) {
            // a seed that is meant to be refused
        }
    };
    std::vector<fs::path> files;
    for (const auto* dir :
         {"runtime_shim/models", "runtime_shim/tests/models", "fuzz/corpus/model_file", "scenarios/models"}) {
        for (const auto& e : fs::directory_iterator(root / dir)) {
            if (e.path().extension() == ".yaml") files.push_back(e.path());
        }
    }
    std::vector<fs::path> scenarios;
    for (const auto& e : fs::recursive_directory_iterator(root / "scenarios")) {
        if (e.path().extension() == ".yaml" && e.path().parent_path().filename() != "models") {
            scenarios.push_back(e.path());
        }
    }
    std::sort(files.begin(), files.end());
    std::sort(scenarios.begin(), scenarios.end());
    for (const auto& f : files) add(fs::relative(f, root).string(), read_text(f));
    for (const auto& f : scenarios) {
        YAML::Node doc;
        try {
            doc = YAML::LoadFile(f.string());
        } catch (const std::exception&) {
            continue;
        }
        if (!doc.IsMap() || !doc["models"] || !doc["models"].IsMap()) continue;
        for (const auto& m : doc["models"]) {
            if (!m.second.IsMap()) continue;
            YAML::Emitter e;
            e << m.second;
            add(fmt::format("{}#{}", fs::relative(f, root).string(), m.first.as<std::string>()), e.c_str());
        }
    }
    return out;
}

std::vector<named_model> generated_models() {
    std::vector<named_model> out;
    const auto add = [&](std::string name, const kernel& k) {
        compiled_model m;
        m.name = name;
        m.program = std::make_shared<kernel>(k);
        out.push_back({std::move(name), std::move(m)});
    };
    add("tiled_matmul 2048^3 activation", tiled_matmul({.m = 2048, .k = 2048, .n = 2048, .activation = true}).program);
    add("tiled_matmul 2048^3 budget 64K",
        tiled_matmul({.m = 2048, .k = 2048, .n = 2048, .sbuf_budget = 64 * 1024}).program);
    add("tiled_matmul 512x512x1024 on vector",
        tiled_matmul({.m = 512, .k = 512, .n = 1024, .loads_on = engine_kind::vector}).program);
    add("tiled_matmul 300x200x700 fp32",
        tiled_matmul({.m = 300, .k = 200, .n = 700, .dtype = costs::element_type::fp32, .activation = true}).program);
    add("elementwise tensor_tensor 1024x4096",
        elementwise({.rows = 1024, .cols = 4096, .op = opcode::tensor_tensor, .tile_free = 1024}).program);
    add("elementwise activation 1000x3000", elementwise({.rows = 1000, .cols = 3000}).program);
    add("dma_copy 64 MiB", dma_copy({.bytes = 64 << 20}).program);
    add("dma_copy 1 MiB+5 to hbm", dma_copy({.bytes = (1 << 20) + 5, .to = memory_kind::hbm}).program);
    // A NEFF's counted work, as stream_program() spreads it.
    const auto neff = [&](std::string name, stream_work w) {
        compiled_model m;
        m.name = name;
        m.streams = w;
        out.push_back({std::move(name), std::move(m)});
    };
    neff("neff 1000/500/300/0/200", {{1000, 500, 300, 0, 200}, 4194304, 262144, 1});
    neff("neff 3M vector, 2 cores", {{0, 3'000'000, 0, 0, 100}, 0, 1 << 20, 2});
    return out;
}

std::uint64_t fnv(std::uint64_t h, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 0x100000001b3ull;
    }
    return h;
}

// What one profiled run did, relative to its start.
std::string describe(const run_report& r, std::uint64_t start_ps, std::uint64_t end_ps) {
    std::string busy;
    for (const auto b : r.busy_ps) busy += fmt::format("{}{}", busy.empty() ? "" : ",", b);
    const auto& t = *r.profile;
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (const auto& i : t.instructions) {
        for (const std::uint64_t v :
             {i.start_ps - start_ps, i.end_ps - start_ps, i.macs, std::uint64_t{i.index}, std::uint64_t{i.opcode},
              std::uint64_t{i.source}, std::uint64_t{i.wait_semaphore}, std::uint64_t{i.wait_value},
              std::uint64_t{i.signal_semaphore}, std::uint64_t{i.signal_increment}, std::uint64_t{i.transfer},
              std::uint64_t{i.weight_load_ps}, std::uint64_t{i.engine}, std::uint64_t{i.memories},
              std::uint64_t{i.row_groups}})
            h = fnv(h, v);
    }
    for (const auto& x : t.transfers) {
        for (const std::uint64_t v : {x.issued_ps - start_ps, x.arrives_ps - start_ps, x.bytes_per_partition,
                                      std::uint64_t{x.partitions}, std::uint64_t{x.dma_engines}, std::uint64_t{x.queue},
                                      std::uint64_t{x.signal_semaphore}, std::uint64_t{x.engine}})
            h = fnv(h, v);
    }
    for (const auto& d : t.dma_runs) {
        for (const std::uint64_t v : {d.start_ps - start_ps, d.end_ps - start_ps, d.bytes, std::uint64_t{d.transfer},
                                      std::uint64_t{d.engines}, std::uint64_t{d.cut}})
            h = fnv(h, v);
    }
    for (const auto& s : t.semaphores) {
        for (const std::uint64_t v : {s.at_ps - start_ps, std::uint64_t{s.index}, std::uint64_t{s.value}})
            h = fnv(h, v);
    }
    return fmt::format("end={} busy=[{}] macs={} dma={}/{}/{} instructions={} transfers={} runs={} profile={:016x}",
                       end_ps - start_ps, busy, r.macs, r.dma.busy_ps, r.dma.bytes, r.dma.hbm_bytes,
                       t.instructions.size(), t.transfers.size(), t.dma_runs.size(), h);
}

// Runs every program, one after the other, on core 0 of `instance`.
std::vector<std::string> timings(const std::string& instance) {
    platform_config config;
    config.instance = instance;
    config.mode = time_mode::stepped;
    config.reset_duration = 1s;
    config.start_epoch_ns = 1'789'180'860'000'000'000;
    simulation sim(config);
    auto models = shipped_models();
    for (auto& g : generated_models()) models.push_back(std::move(g));
    std::vector<std::string> lines;
    for (const auto& named : models) {
        // Not a structured binding: clang 14 cannot capture one in a lambda.
        const auto& name = named.name;
        const auto& m = named.model;
        struct outcome {
            std::optional<run_report> report;
            std::uint64_t start = 0, end = 0;
            std::string error;
        };
        const auto run = [&](bool profiled) {
            outcome o;
            sim.call([&](platform& p) {
                try {
                    auto program = build_program(m, p.published().spec());
                    o.start = static_cast<std::uint64_t>(sc_core::sc_time_stamp().value());
                    run_options options;
                    if (profiled) options.profile = std::make_shared<profile::core_timeline>();
                    p.device(0).core(0).run(
                        program, 1,
                        [&](const run_report& r) {
                            o.report = r;
                            o.end = static_cast<std::uint64_t>(sc_core::sc_time_stamp().value());
                        },
                        options);
                } catch (const std::exception& e) {
                    o.error = e.what();
                }
            });
            for (int i = 0; i < 1000 && o.error.empty() && !o.report; ++i) sim.advance(1ms);
            sim.advance(1ms); // idle between runs
            return o;
        };
        const auto profiled = run(true);
        if (!profiled.error.empty()) {
            lines.push_back(fmt::format("{} | {} | refused: {}", instance, name, profiled.error));
            continue;
        }
        BOOST_TEST_REQUIRE(profiled.report.has_value(), name << " did not end");
        lines.push_back(
            fmt::format("{} | {} | {}", instance, name, describe(*profiled.report, profiled.start, profiled.end)));
        // Unprofiled, the engines take shortcuts a profile would see
        // (engine::start_stretch()); they must not move any time.
        const auto plain = run(false);
        BOOST_TEST_REQUIRE(plain.report.has_value(), name << " did not end unprofiled");
        const auto& a = *profiled.report;
        const auto& b = *plain.report;
        BOOST_TEST((plain.end - plain.start == profiled.end - profiled.start && a.busy_ps == b.busy_ps &&
                    a.macs == b.macs && a.dma.busy_ps == b.dma.busy_ps && a.dma.bytes == b.dma.bytes &&
                    a.dma.hbm_bytes == b.dma.hbm_bytes),
                   name << " times the same with a profile and without (ends " << plain.end - plain.start << " and "
                        << profiled.end - profiled.start << " ps)");
    }
    return lines;
}

void check(const std::string& instance) {
    const auto got = timings(instance);
    if (std::getenv("NEURON_UPDATE_PROGRAM_TIMINGS") != nullptr) {
        std::vector<std::string> keep;
        std::istringstream in(read_text(golden));
        for (std::string line; std::getline(in, line);) {
            if (line.rfind(instance + " | ", 0) != 0) keep.push_back(line);
        }
        keep.insert(keep.end(), got.begin(), got.end());
        std::ofstream out(golden);
        for (const auto& l : keep) out << l << '\n';
        return;
    }
    std::map<std::string, std::string> want;
    std::istringstream in(read_text(golden));
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(instance + " | ", 0) != 0) continue;
        const auto cut = line.find(" | ", instance.size() + 3);
        want[line.substr(0, cut)] = line;
    }
    BOOST_TEST(got.size() == want.size(), instance << ": programs run against golden rows");
    for (const auto& line : got) {
        const auto cut = line.find(" | ", instance.size() + 3);
        const auto it = want.find(line.substr(0, cut));
        BOOST_TEST((it != want.end()), "no golden row for " << line);
        if (it != want.end()) BOOST_TEST(line == it->second);
    }
}

} // namespace

// SystemC allows one simulation per process: one instance per test case.
BOOST_AUTO_TEST_CASE(programs_time_as_recorded_on_trn1) { check("trn1.2xlarge"); }
BOOST_AUTO_TEST_CASE(programs_time_as_recorded_on_trn2) { check("trn2.3xlarge"); }
BOOST_AUTO_TEST_CASE(programs_time_as_recorded_on_inf1) { check("inf1.xlarge"); }
BOOST_AUTO_TEST_CASE(programs_time_as_recorded_on_inf2) { check("inf2.xlarge"); }
