#include "neuron/tools/top_screen.h"

#include "neuron/common/printable.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace neuron::tools {
namespace {

using lines = std::vector<std::string>;

constexpr std::string_view key_help = " q: quit  arrows: move tree selection  enter: expand/collapse tree  "
                                      "x: expand/collapse entire tree  a/d: previous/next tab  f: FLOPS on/off  "
                                      "1-9: select tab";

// Columns of the memory details: the name takes what the others leave.
constexpr std::size_t model_id_width = 10, device_width = 15, host_width = 12;
constexpr std::size_t min_name_width = 20;
constexpr std::size_t vcpu_label_width = 19, memory_label_width = 20;

std::string centred(std::string_view text, std::size_t width) {
    const auto columns = top_columns(text);
    return columns >= width ? std::string(text) : std::string((width - columns) / 2, ' ') + std::string(text);
}

// Filled for the percentage, blank for the rest.
std::string bar(double percent, std::size_t width) {
    const auto filled = std::min<std::size_t>(
        width,
        static_cast<std::size_t>(std::lround(std::clamp(percent, 0.0, 100.0) / 100 * static_cast<double>(width))));
    return std::string(filled, '|') + std::string(width - filled, ' ');
}

std::string title(const host_sample& now) {
    std::string text = fmt::format("neuron-top {}", neuron_top_version);
    if (!now.instance_id.empty()) text += " running on " + common::printable(now.instance_id);
    if (!now.instance_type.empty()) text += " (" + common::printable(now.instance_type) + ")";
    return text;
}

void core_section(const host_sample& before, const host_sample& now, const top_state& state, std::size_t width,
                  lines& out) {
    const auto usage = top_core_usages(before, now, top_tab_runtime(now, state));
    double sum = 0, tflops = 0;
    std::size_t cores = 0, per_device = 0;
    for (const auto& device : usage) {
        per_device = std::max(per_device, device.size());
        for (const auto& c : device) {
            sum += c.utilization;
            tflops += c.tflops;
            ++cores;
        }
    }
    const auto version = top_core_version(now);
    const auto name = version.empty() ? std::string("NeuronCore") : "NeuronCore " + version;
    out.push_back(state.flops ? fmt::format("{} Utilization (Total: {:.2f} TFLOPS)", name, tflops)
                              : fmt::format("{} Utilization (Avg: {:.2f}%)", name, cores == 0 ? 0.0 : sum / cores));

    std::size_t label_width = 4;
    for (const auto& d : now.devices) label_width = std::max(label_width, fmt::format("ND{}", d.index).size() + 1);
    const std::size_t cell = per_device == 0 || width < label_width ? 0 : (width - label_width) / per_device;
    std::string header(label_width, ' ');
    for (std::size_t c = 0; c < per_device; ++c) {
        header += top_pad(centred(fmt::format("NC{}", c), cell > 0 ? cell - 1 : 0), std::max<std::size_t>(cell, 4));
    }
    out.push_back(header);
    for (std::size_t i = 0; i < usage.size(); ++i) {
        std::string row = top_pad(fmt::format("ND{}", now.devices[i].index), label_width);
        for (const auto& c : usage[i]) {
            const auto value =
                state.flops ? fmt::format("[{:5.2f}TF]", c.tflops) : fmt::format("[{:5.2f}%]", c.utilization);
            row += bar(c.utilization, cell > value.size() + 1 ? cell - value.size() - 1 : 0) + value + " ";
        }
        out.push_back(row);
    }
}

std::string vcpu_line(std::string_view label, const top_vcpu_usage& u, std::size_t width) {
    const auto value = fmt::format("[{:5.2f}%,{:5.2f}%]", u.user, u.system);
    const auto room = vcpu_label_width + value.size();
    return top_pad(label, vcpu_label_width) + bar(u.user + u.system, width > room ? width - room : 0) + value;
}

// Items in columns when they fit, else two spaces apart.
void memory_lines(const std::vector<std::string>& host, const std::vector<std::string>& device, std::size_t width,
                  lines& out) {
    const std::size_t column = width > memory_label_width ? (width - memory_label_width) / 6 : 0;
    bool fits = true;
    for (const auto* items : {&host, &device}) {
        for (const auto& item : *items) fits = fits && item.size() < column;
    }
    for (const auto* items : {&host, &device}) {
        std::string line = top_pad(items == &host ? "Host Used Memory" : "Device Used Memory", memory_label_width);
        for (const auto& item : *items) line += fits ? top_pad(item, column) : item + "  ";
        out.push_back(line);
    }
}

void memory_summary(const host_sample& now, const top_state& state, std::size_t width, lines& out) {
    const auto m = top_memory(now, top_tab_runtime(now, state));
    out.push_back("Memory Usage Summary");
    const std::vector<std::string> host{"Total: " + top_bytes(m.host_total), "Tensors: " + top_bytes(m.host_tensors),
                                        "Constants: " + top_bytes(m.host_constants),
                                        "DMA Buffers: " + top_bytes(m.host_dma_buffers),
                                        "App. Memory: " + top_bytes(m.host_app)};
    const std::vector<std::string> device{
        "Total: " + top_bytes(m.device.total()),          "Tensors: " + top_bytes(m.device.tensors),
        "Constants: " + top_bytes(m.device.constants),    "Model Code: " + top_bytes(m.device.model_code),
        "Runtime Memory: " + top_bytes(m.device.runtime), "Model Scratchpad: " + top_bytes(m.device.scratchpad)};
    memory_lines(host, device, width, out);
}

std::string tree_line(const top_tree_row& row, bool selected, bool open, std::size_t name_width) {
    const auto& n = *row.node;
    std::string name = selected ? ">" : " ";
    name += std::string(4 * row.depth, ' ');
    if (!n.children.empty()) name += open ? "[-] " : "[+] ";
    name += n.label;
    return top_pad(top_fit(name, name_width - 1), name_width) + top_pad(n.model_id, model_id_width) +
           top_pad(top_bytes(n.device_bytes), device_width) + top_bytes(n.host_bytes);
}

std::string tab_bar(const host_sample& now, const top_state& state) {
    const auto tabs = top_tabs(now);
    const auto* shown = top_tab_runtime(now, state);
    std::string line = "Neuron Apps ";
    for (std::size_t i = 0; i <= tabs.size(); ++i) {
        const auto* r = i == 0 ? nullptr : tabs[i - 1];
        const auto label = fmt::format("[{}]:{}", i + 1,
                                       r == nullptr     ? std::string("all")
                                       : r->tag.empty() ? std::to_string(r->pid)
                                                        : common::printable(r->tag));
        line += r == shown ? " >" + label + "<" : "  " + label + " ";
    }
    if (!now.runtime_error.empty()) line += "  (no runtimes: " + common::printable(now.runtime_error) + ")";
    return line;
}

std::string rtrim(std::string s) {
    s.erase(s.find_last_not_of(' ') + 1);
    return s;
}

} // namespace

std::string top_frame(const host_sample& before, const host_sample& now, const top_state& state, unsigned width,
                      unsigned height) {
    lines top{centred(title(now), width), ""};
    core_section(before, now, state, width, top);
    top.push_back("");
    top.push_back("vCPU Utilization");
    top.push_back(vcpu_line("System vCPU Usage", top_system_vcpu(before, now), width));
    top.push_back(vcpu_line("Runtime vCPU Usage", top_runtime_vcpu(before, now, top_tab_runtime(now, state)), width));
    top.push_back("");
    memory_summary(now, state, width, top);
    top.push_back("");
    top.push_back("Memory Usage Details");
    const std::size_t name_width = std::max(min_name_width, width > model_id_width + device_width + host_width
                                                                ? width - model_id_width - device_width - host_width
                                                                : std::size_t{0});
    top.push_back(std::string(name_width, ' ') + top_pad("Model ID", model_id_width) +
                  top_pad("Device Memory", device_width) + "Host Memory");
    const lines bottom{tab_bar(now, state), std::string(key_help)};

    const auto tree = top_memory_tree(now, top_tab_runtime(now, state));
    const auto rows = top_visible_rows(tree, state);
    const auto selected = top_selected_row(rows, state);
    lines all;
    if (height != 0 && height < top.size() + bottom.size()) {
        const auto kept_bottom = std::min<std::size_t>(height, bottom.size());
        all.assign(top.begin(), top.begin() + static_cast<std::ptrdiff_t>(height - kept_bottom));
        all.insert(all.end(), bottom.begin(), bottom.begin() + static_cast<std::ptrdiff_t>(kept_bottom));
    } else {
        all = top;
        const std::size_t room = height == 0 ? rows.size() : height - top.size() - bottom.size();
        // Scrolled just enough to show the selected row.
        const std::size_t first = selected >= room ? selected - room + 1 : 0;
        for (std::size_t i = first; i < rows.size() && i < first + room; ++i) {
            all.push_back(tree_line(rows[i], i == selected, state.expanded.contains(rows[i].node->key), name_width));
        }
        if (height != 0) all.resize(height - bottom.size());
        all.insert(all.end(), bottom.begin(), bottom.end());
    }
    std::string text;
    for (auto& line : all) text += rtrim(top_fit(line, width)) + "\n";
    return text;
}

} // namespace neuron::tools
