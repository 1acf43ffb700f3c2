#include "tree_sampler.h"

#include "directory_entries.h"

#include "neuron/model/spec/device_spec.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <fcntl.h>
#include <optional>
#include <string_view>
#include <unistd.h>

namespace neuron::tools {
namespace {

// sysfs files are at most a page.
std::optional<std::string> read_text(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    std::string text(4096, '\0');
    const auto n = ::read(fd, text.data(), text.size());
    ::close(fd);
    if (n < 0) return std::nullopt;
    text.resize(static_cast<std::size_t>(n));
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

bool permission_denied(int error) { return error == EACCES || error == EPERM; }

std::optional<std::uint64_t> parse_number(const std::optional<std::string>& text) {
    if (!text) return std::nullopt;
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (error != std::errc{} || end != text->data() + text->size()) return std::nullopt;
    return value;
}

std::optional<std::uint64_t> read_number(const std::string& path) { return parse_number(read_text(path)); }

// "neuron12" -> 12; anything else: none.
std::optional<std::uint32_t> index_after(std::string_view name, std::string_view prefix) {
    if (!name.starts_with(prefix) || name.size() == prefix.size()) return std::nullopt;
    std::uint32_t index = 0;
    const auto digits = name.substr(prefix.size());
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (error != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
    return index;
}

// "12, 3, 4, 1"
std::vector<std::uint32_t> parse_links(std::string_view text) {
    std::vector<std::uint32_t> links;
    while (!text.empty()) {
        const auto comma = text.find(',');
        auto word = text.substr(0, comma);
        while (!word.empty() && word.front() == ' ') word.remove_prefix(1);
        std::uint32_t id = 0;
        const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), id);
        if (error == std::errc{} && end == word.data() + word.size()) links.push_back(id);
        if (comma == std::string_view::npos) break;
        text.remove_prefix(comma + 1);
    }
    return links;
}

// Each category directory's present value.
memory_breakdown read_categories(const std::string& dir) {
    memory_breakdown memory;
    for (const auto& name : directory_entries(dir)) {
        if (const auto present = read_number(dir + "/" + name + "/present")) memory[name] = *present;
    }
    return memory;
}

std::uint64_t memory_of(const std::string& device_name) {
    for (const auto kind : {model::device_kind::inferentia, model::device_kind::inferentia2,
                            model::device_kind::trainium, model::device_kind::trainium2}) {
        const auto& spec = model::spec_of(kind);
        if (spec.device_name == device_name) return spec.memory_bytes();
    }
    return 0;
}

device_sample read_device(const std::string& dir, std::uint32_t index) {
    auto listing = list_directory(dir);
    if (permission_denied(listing.error)) throw no_devices_error(dir, "open", listing.error);
    device_sample d;
    d.index = index;
    d.physical_cores = static_cast<std::uint32_t>(parse_number(read_text(dir + "/core_count")).value_or(0));
    d.connected = parse_links(read_text(dir + "/connected_devices").value_or(""));
    d.device_name = read_text(dir + "/info/architecture/device_name").value_or("");
    d.memory_bytes = memory_of(d.device_name);
    d.host_mem = read_categories(dir + "/stats/memory_usage/host_mem");
    const auto hardware = dir + "/stats/hardware/";
    d.mem_ecc_corrected = read_number(hardware + "mem_ecc_corrected");
    d.mem_ecc_uncorrected = read_number(hardware + "mem_ecc_uncorrected");
    d.sram_ecc_corrected = read_number(hardware + "sram_ecc_corrected");
    d.sram_ecc_uncorrected = read_number(hardware + "sram_ecc_uncorrected");
    std::vector<core_sample> cores;
    for (const auto& name : listing.names) {
        if (const auto core = index_after(name, "neuron_core")) {
            cores.push_back(core_sample{*core, read_categories(dir + "/" + name + "/stats/memory_usage/device_mem")});
        }
    }
    std::sort(cores.begin(), cores.end(), [](const core_sample& a, const core_sample& b) { return a.index < b.index; });
    if (d.physical_cores == 0) d.physical_cores = static_cast<std::uint32_t>(cores.size());
    d.cores = std::move(cores);
    return d;
}

} // namespace

std::vector<device_sample> read_devices(const std::string& sysfs_root) {
    const auto listing = list_directory(sysfs_root);
    if (listing.error == ENOENT || listing.error == ENOTDIR) {
        throw no_devices_error(discovery_failure::no_driver, sysfs_root);
    }
    if (listing.error != 0) throw no_devices_error(sysfs_root, "open", listing.error);
    std::vector<device_sample> devices;
    for (const auto& name : listing.names) {
        if (const auto index = index_after(name, "neuron")) {
            devices.push_back(read_device(sysfs_root + "/" + name, *index));
        }
    }
    if (devices.empty()) throw no_devices_error(discovery_failure::no_devices, sysfs_root);
    std::sort(devices.begin(), devices.end(),
              [](const device_sample& a, const device_sample& b) { return a.index < b.index; });
    return devices;
}

} // namespace neuron::tools
