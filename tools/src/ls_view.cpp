#include "neuron/tools/ls_view.h"

#include "ls_devices.h"
#include "ls_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace neuron::tools {
namespace {

using detail::ls_process;

enum class column {
    device,
    cores,
    core_ids,
    memory,
    connected,
    bdf,
    short_bdf,
    pid,
    cpu_affinity,
    numa_node,
    command,
    runtime_version
};

detail::table_column header_of(column c) {
    switch (c) {
    case column::device: return {"NEURON", "DEVICE"};
    case column::cores: return {"NEURON", "CORES"};
    case column::core_ids: return {"NEURON", "CORE IDS"};
    case column::memory: return {"NEURON", "MEMORY"};
    case column::connected: return {"CONNECTED", "DEVICES"};
    case column::bdf:
    case column::short_bdf: return {"PCI", "BDF"};
    case column::pid: return {"PID", ""};
    case column::cpu_affinity: return {"CPU", "AFFINITY"};
    case column::numa_node: return {"NUMA", "NODE"};
    case column::command: return {"COMMAND", ""};
    case column::runtime_version: return {"RUNTIME", "VERSION"};
    }
    return {};
}

bool is_process_column(column c) { return c == column::pid || c == column::command || c == column::runtime_version; }

std::string or_na(std::string_view value) { return value.empty() ? std::string("NA") : std::string(value); }

std::string core_ids_text(const host_sample& h, const device_sample& d) {
    const auto ids = detail::core_ids(h, d);
    if (ids.empty()) return "NA";
    if (ids.size() == 1) return fmt::format("{}", ids.front());
    return fmt::format("{}-{}", ids.front(), ids.back());
}

std::string memory_text(std::uint64_t bytes) { return bytes == 0 ? "NA" : fmt::format("{} GB", bytes >> 30); }

std::string device_cell(column c, const host_sample& h, const device_sample& d) {
    switch (c) {
    case column::device: return fmt::format("{}", d.index);
    case column::cores: return fmt::format("{}", logical_cores_of(h, d));
    case column::core_ids: return core_ids_text(h, d);
    case column::memory: return memory_text(d.memory_bytes);
    case column::connected: return d.connected.empty() ? "NA" : fmt::format("{}", fmt::join(d.connected, ", "));
    case column::bdf: return or_na(d.bdf);
    case column::short_bdf: return or_na(detail::short_bdf(d.bdf));
    case column::cpu_affinity: return or_na(d.cpu_affinity);
    case column::numa_node: return or_na(d.numa_node);
    default: return {};
    }
}

// A device with no process (while others have one) shows NA in each process column.
std::string process_cell(column c, const ls_process* p, std::size_t command_limit) {
    if (p == nullptr) return "NA";
    switch (c) {
    case column::pid: return fmt::format("{}", p->pid);
    case column::command: return p->command.empty() ? "NA" : detail::truncated(p->command, command_limit);
    case column::runtime_version: return or_na(p->runtime_version);
    default: return {};
    }
}

std::vector<column> columns_of(const host_sample& h, const ls_options& o, bool with_processes) {
    // Absent where the driver lists no link (one device); a device given
    // alone to a container keeps its links, and the column.
    const bool connected = std::ranges::any_of(h.devices, [](const device_sample& d) { return !d.connected.empty(); });
    std::vector<column> cols;
    if (o.topology || o.wide || o.all_processes) {
        cols = {column::device, column::cores, column::memory};
        if (connected) cols.push_back(column::connected);
        cols.push_back(column::short_bdf);
        if (with_processes) cols.insert(cols.end(), {column::pid, column::command, column::runtime_version});
        return cols;
    }
    cols = {column::device, column::cores, column::core_ids, column::memory};
    if (connected) cols.push_back(column::connected);
    cols.push_back(column::bdf);
    if (with_processes) cols.push_back(column::pid);
    cols.insert(cols.end(), {column::cpu_affinity, column::numa_node});
    if (with_processes) cols.push_back(column::runtime_version);
    return cols;
}

std::string table_of(const host_sample& h, const ls_options& o) {
    // The drawing's table has no process columns.
    std::vector<std::vector<ls_process>> processes(h.devices.size());
    if (!o.topology) {
        for (std::size_t i = 0; i < h.devices.size(); ++i)
            processes[i] = detail::processes_on(h, h.devices[i], o.all_processes);
    }
    const bool any = std::ranges::any_of(processes, [](const auto& list) { return !list.empty(); });
    const bool many = std::ranges::any_of(processes, [](const auto& list) { return list.size() > 1; });
    const auto cols = columns_of(h, o, any);
    const std::size_t command_limit = o.wide ? 80 : 40;

    std::vector<detail::table_column> headers;
    for (const auto c : cols) headers.push_back(header_of(c));
    std::vector<detail::table_row> rows;
    for (std::size_t i = 0; i < h.devices.size(); ++i) {
        const auto& list = processes[i];
        const std::size_t count = std::max<std::size_t>(1, list.size());
        for (std::size_t p = 0; p < count; ++p) {
            detail::table_row row;
            for (const auto c : cols) {
                if (is_process_column(c)) {
                    row.cells.push_back(process_cell(c, p < list.size() ? &list[p] : nullptr, command_limit));
                } else {
                    row.cells.push_back(p == 0 ? device_cell(c, h, h.devices[i]) : std::string());
                }
            }
            row.rule_after = many && p + 1 == count;
            rows.push_back(std::move(row));
        }
    }
    return detail::render_table(headers, rows);
}

} // namespace

std::string ls_text(const host_sample& h, const ls_options& options) {
    std::string out = fmt::format("instance-type: {}\ninstance-id: {}\n", or_na(h.instance_type), or_na(h.instance_id));
    if (detail::shows_lnc(h)) out += fmt::format("logical-neuroncore-config: {}\n", detail::lnc_of(h));
    out += table_of(h, options);
    if (options.topology) {
        const auto drawing = ls_topology(h);
        if (!drawing.empty()) out += "\n\n" + drawing;
    }
    return out;
}

} // namespace neuron::tools
