// Figure 11: what profiling costs. A program of about 10^6 instructions runs
// on one trn2 core, once as it is (the baseline: the simulation alone) and
// once profiled, its session file encoded, read back and written as a
// Perfetto trace. The difference is what a profile costs beyond the
// simulation; the trace's size per instruction is judged too. The program
// is the shipped example's generator scaled up (a tiled bf16 matmul with
// activations, 983 040 matmuls); the synthetic layer of figure 8, with a
// DMA transfer every four instructions, is shown beside it. Each side runs
// in a child process.
//
// Then the views of a session file near the 256 MiB a view reads: that
// profile's execution written 11 times (192 MiB), each view run in a child
// of its own from the file to an output that keeps nothing, judged by its
// peak RSS against the file's size.

#include "figures.h"
#include "support/child_measure.h"
#include "support/measure.h"
#include "support/workloads.h"

#include "neuron/model/program/kernel_generators.h"
#include "neuron/model/program/program_builder.h"
#include "neuron/model/runtime/platform.h"
#include "neuron/model/runtime/simulation.h"
#include "neuron/profile/perfetto_view.h"
#include "neuron/profile/session_file.h"
#include "neuron/profile/session_files.h"
#include "neuron/profile/summary_views.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace neuron::bench {
namespace {

using namespace std::chrono_literals;

model::kernel big_matmul() {
    model::tiled_matmul_params p;
    p.m = 30720; // 240 x 64 x 64 matmuls of 128 x 128 x 512
    p.k = 8192;
    p.n = 32768;
    p.activation = true;
    return model::tiled_matmul(p).program;
}

// The run's wall time (ms) and, profiled, the trace's bytes per instruction.
// The timeline of the matmul, profiled.
std::shared_ptr<profile::core_timeline> matmul_profile() {
    model::platform_config config;
    config.instance = "trn2.48xlarge";
    model::simulation sim(config);
    auto timeline = std::make_shared<profile::core_timeline>();
    sim.call([&](model::platform& p) {
        model::compiled_model m;
        m.name = "bench";
        m.program = std::make_shared<model::kernel>(big_matmul());
        model::run_options options;
        options.profile = timeline;
        p.device(0).core(0).run(model::build_program(m, p.published().spec()), 1, nullptr, options);
    });
    sim.advance(100s);
    return timeline;
}

child_result run(model::kernel k, bool profiled) {
    model::platform_config config;
    config.instance = "trn2.48xlarge";
    model::simulation sim(config);
    auto timeline = profiled ? std::make_shared<profile::core_timeline>() : nullptr;
    const auto start = clock::now();
    const auto instructions = sim.call([&](model::platform& p) {
        model::compiled_model m;
        m.name = "bench";
        m.program = std::make_shared<model::kernel>(std::move(k));
        const auto program = model::build_program(m, p.published().spec());
        model::run_options options;
        options.profile = timeline;
        p.device(0).core(0).run(program, 1, nullptr, options);
        return program->instruction_count();
    });
    sim.advance(100s); // far beyond its end
    child_result r;
    r.count = static_cast<double>(instructions);
    if (profiled) {
        if (timeline->instructions.size() != instructions) return {};
        const auto file = profile::encode_session(std::span(timeline.get(), 1));
        const auto read_back = profile::decode_session(file);
        const auto trace = profile::perfetto_trace(read_back, false);
        r.extra = static_cast<double>(trace.size()) / static_cast<double>(instructions);
    }
    r.wall_ms = std::chrono::duration<double, std::milli>(clock::now() - start).count();
    return r;
}

void report(const std::string& name, const std::optional<child_result>& plain,
            const std::optional<child_result>& profiled, bool judged) {
    if (!plain || !profiled || profiled->count == 0) {
        print_unmeasured("11 " + name, "a child process failed to report");
        return;
    }
    figure cost;
    cost.name = fmt::format("11 {}: profile beyond the simulation", name);
    cost.ours = profiled->wall_ms - plain->wall_ms;
    cost.unit = "ms";
    cost.judged = judged ? goal::value_at_most : goal::info;
    cost.target = 1000;
    cost.note =
        fmt::format("{:.0f} instructions simulated, recorded, session file written and read, perfetto written "
                    "in {:.0f} ms; simulated alone in {:.0f} ms; peak RSS {:.0f} MiB against {:.0f} MiB",
                    profiled->count, profiled->wall_ms, plain->wall_ms, profiled->max_rss_mib, plain->max_rss_mib);
    print(cost);
    figure size;
    size.name = fmt::format("11 {}: perfetto bytes/instruction", name);
    size.ours = profiled->extra;
    size.unit = "B";
    size.judged = judged ? goal::value_at_most : goal::info;
    size.target = 40;
    size.note = "the .pftrace of that profile, without flows: slices, DMA runs, semaphores, DMA counters";
    print(size);
}

} // namespace

// Writes the session file of `copies` executions of the matmul's profile
// to `path`: its size.
child_result write_session(const std::string& path, std::size_t copies) {
    const auto timeline = matmul_profile();
    const std::vector<const profile::core_timeline*> all(copies, timeline.get());
    const auto file = profile::encode_session(all, profile::max_session_file_bytes);
    std::ofstream(path, std::ios::binary) << file;
    child_result r;
    r.extra = static_cast<double>(file.size());
    r.count = static_cast<double>(timeline->instructions.size() * copies);
    return r;
}

void report_view(const std::string& name, const std::string& path, double file_bytes,
                 const std::function<void(const profile::session_files&, const profile::output&)>& view,
                 double target) {
    const auto r = in_child([&] {
        const auto start = clock::now();
        std::uint64_t written = 0;
        view(profile::session_files({path}), [&](std::string_view piece) { written += piece.size(); });
        child_result c;
        c.wall_ms = std::chrono::duration<double, std::milli>(clock::now() - start).count();
        c.extra = static_cast<double>(written);
        return c;
    });
    if (!r) {
        print_unmeasured("11 view " + name, "the child process failed");
        return;
    }
    figure f;
    f.name = fmt::format("11 view {}: peak RSS / session file", name);
    f.ours = r->max_rss_mib * double(1 << 20) / file_bytes;
    f.unit = "x";
    f.judged = goal::value_at_most;
    f.target = target;
    f.note = fmt::format("{:.0f} MiB file, peak RSS {:.0f} MiB, {:.1f} s, {:.0f} MiB written", file_bytes / (1 << 20),
                         r->max_rss_mib, r->wall_ms / 1000, r->extra / (1 << 20));
    print(f);
}

void view_memory(const context& c) {
    char dir[] = "/tmp/neuron-bench-views.XXXXXX";
    if (::mkdtemp(dir) == nullptr) {
        print_unmeasured("11 view", "no temporary directory");
        return;
    }
    const auto path = std::string(dir) + "/session.ntff";
    const auto made = in_child([&] { return write_session(path, c.quick ? 2 : 11); });
    if (made && made->extra > 0) {
        using profile::output;
        using profile::session_files;
        report_view(
            "summary-text", path, made->extra,
            [](const session_files& f, const output& out) { profile::summary_text(f, out); }, 1);
        report_view(
            "json", path, made->extra, [](const session_files& f, const output& out) { profile::profile_json(f, out); },
            1);
        report_view(
            "perfetto", path, made->extra,
            [](const session_files& f, const output& out) { profile::perfetto_trace(f, false, out); }, 4);
    } else {
        print_unmeasured("11 view", "the child writing the session file failed");
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
}

void profile_speed(const context& c) {
    report("matmul", in_child([] { return run(big_matmul(), false); }),
           in_child([] { return run(big_matmul(), true); }), true);
    report("DMA-heavy layer", in_child([] { return run(synthetic_layer(125'000), false); }),
           in_child([] { return run(synthetic_layer(125'000), true); }), false);
    view_memory(c);
}

} // namespace neuron::bench
