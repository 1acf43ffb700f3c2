#include "inspect_neff_command.h"

#include "arguments.h"
#include "usage_error.h"

#include "neuron/common/json_writer.h"
#include "neuron/common/printable.h"
#include "neuron/common/regular_file.h"
#include "neuron/neff/neff_file.h"

#include <fmt/format.h>

namespace neuron::cli {
namespace {

constexpr int exit_bad_input = 2;
// The largest NEFF read: compiled models of large networks run to a few GiB.
constexpr std::size_t max_neff_bytes = std::size_t{8} << 30;
constexpr std::array<std::string_view, neff::engine_count> engine_labels{"tensor", "vector", "scalar", "gpsimd",
                                                                         "sync"};

std::string shape_text(const std::vector<std::uint64_t>& shape) {
    std::string out;
    for (const auto d : shape) out += fmt::format("{}{}", out.empty() ? "" : "x", d);
    return out;
}

std::string text_of(const std::string& path, const neff::neff_info& n) {
    std::string out = fmt::format("{}: NEFF version {}, '{}' from compiler {}, {} NeuronCore{}, {} MACs ({} FLOPs)\n",
                                  common::printable(path), n.format_version, common::printable(n.name, 100),
                                  common::printable(n.tool_version, 100), n.cores.size(),
                                  n.cores.size() == 1 ? "" : "s", n.macs, 2 * n.macs);
    for (const auto* list : {&n.inputs, &n.outputs}) {
        for (const auto& t : *list) {
            out += fmt::format("  {} {:<24} {:<10} [{}] {} bytes\n", list == &n.inputs ? "input " : "output",
                               common::printable(t.name, 100), t.dtype, shape_text(t.shape), t.bytes);
        }
    }
    for (const auto& g : n.cores) {
        const auto c = neff::charge(g);
        out += fmt::format("  {}: model_code {} constants {} model_shared_scratchpad {} (high-water {}) "
                           "nonshared_scratchpad {} dma_rings {}\n",
                           g.name, c.model_code, c.constants, c.scratchpad, g.scratchpad_bytes, c.nonshared_scratchpad,
                           c.dma_rings);
        std::string engines;
        for (std::size_t e = 0; e < neff::engine_count; ++e) {
            engines += fmt::format("{}{} {}", engines.empty() ? "" : ", ", engine_labels[e], g.instructions[e]);
        }
        out += fmt::format("  {}: instructions: {}; DMA transfers {}\n", g.name, engines, g.dma_transfers);
    }
    return out;
}

void json_of(common::json_writer& w, const std::string& path, const neff::neff_info& n) {
    w.begin_object();
    w.key("file").value(path).key("format_version").value(n.format_version).key("name").value(n.name);
    w.key("tool_version").value(n.tool_version).key("macs").value(n.macs).key("traffic_bytes").value(n.traffic_bytes);
    for (const auto* list : {&n.inputs, &n.outputs}) {
        w.key(list == &n.inputs ? "inputs" : "outputs").begin_array();
        for (const auto& t : *list) {
            w.begin_object().key("name").value(t.name).key("dtype").value(t.dtype).key("shape").begin_array();
            for (const auto d : t.shape) w.value(d);
            w.end_array().key("bytes").value(t.bytes).end_object();
        }
        w.end_array();
    }
    w.key("cores").begin_array();
    for (const auto& g : n.cores) {
        const auto c = neff::charge(g);
        w.begin_object().key("name").value(g.name);
        w.key("memory").begin_object().key("model_code").value(c.model_code).key("constants").value(c.constants);
        w.key("model_shared_scratchpad").value(c.scratchpad).key("scratchpad_high_water").value(g.scratchpad_bytes);
        w.key("nonshared_scratchpad").value(c.nonshared_scratchpad).key("dma_rings").value(c.dma_rings).end_object();
        w.key("instructions").begin_object();
        for (std::size_t e = 0; e < neff::engine_count; ++e) w.key(engine_labels[e]).value(g.instructions[e]);
        w.end_object().key("dma_transfers").value(g.dma_transfers).end_object();
    }
    w.end_array().end_object();
}

} // namespace

int run_inspect_neff(std::span<const std::string> args) {
    argument_parser p("inspect-neff");
    p.flag("json", "print JSON: one object per file in an array").positionals("FILE...", "compiled NEFFs");
    const auto r = p.parse(args);
    if (r.positional().empty()) throw usage_error("inspect-neff: give one or more NEFF files");
    bool all_read = true;
    common::json_writer json;
    json.begin_array();
    std::string text;
    for (const auto& path : r.positional()) {
        try {
            const auto info = neff::read_neff(common::read_regular_file(path, max_neff_bytes));
            if (r.has("json")) {
                json_of(json, path, info);
            } else {
                text += text_of(path, info);
            }
        } catch (const common::file_error& e) {
            fmt::print(stderr, "neuron-emu: inspect-neff: {}\n", common::printable_message(e.what()));
            all_read = false;
        } catch (const neff::neff_error& e) {
            fmt::print(stderr, "neuron-emu: inspect-neff: {}: {}\n", common::printable(path),
                       common::printable_message(e.what()));
            all_read = false;
        }
    }
    json.end_array();
    fmt::print("{}", r.has("json") ? json.str() : text);
    return all_read ? 0 : exit_bad_input;
}

} // namespace neuron::cli
