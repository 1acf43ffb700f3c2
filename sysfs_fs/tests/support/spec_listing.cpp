#include "spec_listing.h"

#include "neuron/model/spec/instance_catalogue.h"

#include <fmt/format.h>

#include <algorithm>
#include <dirent.h>
#include <functional>
#include <set>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace neuron::sysfs::testing {
namespace {

// §8: the 24 status directories of 2.24.
const std::vector<std::string> status_dirs = {"success",
                                              "failure",
                                              "invalid_error",
                                              "resource_error",
                                              "timeout",
                                              "hw_error",
                                              "execute_failed_to_queue",
                                              "resource_nc_error",
                                              "unsupported_neff_version",
                                              "exec_bad_input",
                                              "execute_completed_with_num_error",
                                              "execute_completed_with_error",
                                              "oob_error",
                                              "generic_error",
                                              "hw_collectives_error",
                                              "hw_hbm_ue_error",
                                              "hw_nc_ue_error",
                                              "hw_dma_abort_error",
                                              "execute_sw_nq_overflow",
                                              "execute_sw_semaphore_error",
                                              "execute_sw_event_error",
                                              "execute_sw_psum_collision",
                                              "execute_sw_sequencer_fatal",
                                              "hw_repairable_hbm_ue_error"};
const std::vector<std::string> other_info_dirs = {"model_load_count", "reset_req_count", "reset_fail_count",
                                                  "inference_count",  "flop_count",      "nc_time_in_use"};
const std::vector<std::string> device_mem_dirs = {
    "model_code",     "tensors",       "constants",    "model_shared_scratchpad",
    "runtime_memory", "driver_memory", "collectives",  "nonshared_scratchpad",
    "notifications",  "dma_rings",     "uncategorized"};
const std::vector<std::string> host_mem_dirs = {"dma_buffers",   "tensors",       "constants", "application_memory",
                                                "driver_memory", "notifications", "dma_rings", "uncategorized"};

struct version {
    int major;
    int minor;
    auto operator<=>(const version&) const = default;
};

version parse_version(std::string_view text) {
    version v{};
    if (std::sscanf(std::string(text).c_str(), "%d.%d", &v.major, &v.minor) != 2) {
        throw std::invalid_argument(fmt::format("bad release '{}'", text));
    }
    return v;
}

class listing_builder {
public:
    void dir(const std::string& path) { m_listing[path] = {'d', 0755, {}}; }
    void attr(const std::string& path, unsigned mode) {
        add_parents(path);
        m_listing[path] = {'f', mode, {}};
    }
    void link(const std::string& path, const std::string& target) {
        add_parents(path);
        m_listing[path] = {'l', 0777, target};
    }
    void counter(const std::string& dir_path, bool peak) {
        attr(dir_path + "/total", 0644);
        attr(dir_path + "/present", 0644);
        if (peak) attr(dir_path + "/peak", 0644);
    }
    spec_listing take() { return std::move(m_listing); }

private:
    void add_parents(const std::string& path) {
        for (auto slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
            m_listing.emplace(path.substr(0, slash), spec_entry{'d', 0755, {}});
        }
    }
    spec_listing m_listing;
};

// The machine's, beside the driver's (drivers/firmware/dmi-id.c on a Nitro instance).
void add_dmi_identity(listing_builder& b) {
    const std::string id = "devices/virtual/dmi/id/";
    for (const auto* name :
         {"bios_vendor", "bios_version", "bios_date", "bios_release", "sys_vendor", "product_name", "product_version",
          "product_sku", "board_vendor", "board_name", "board_version", "board_asset_tag", "chassis_vendor",
          "chassis_type", "chassis_version", "chassis_asset_tag", "modalias"}) {
        b.attr(id + name, 0444);
    }
    b.attr(id + "product_serial", 0400);
    b.attr(id + "product_uuid", 0400);
    b.attr(id + "uevent", 0644);
    b.link(id + "subsystem", "../../../../class/dmi");
    b.link("class/dmi/id", "../../devices/virtual/dmi/id");
}

// The §1 diagram (driver 2.24.7.0), with the kernel's generic device entries.
spec_listing listing_2_24(const model::instance_type& instance) {
    const bool inf1 = instance.kind == model::device_kind::inferentia;
    listing_builder b;
    for (std::uint32_t d = 0; d < instance.device_count; ++d) {
        const auto dev = fmt::format("devices/virtual/neuron_device/neuron{}", d);
        b.link(fmt::format("class/neuron_device/neuron{}", d), "../../" + dev);
        b.attr(dev + "/dev", 0444);
        b.attr(dev + "/uevent", 0644);
        b.link(dev + "/subsystem", "../../../../class/neuron_device");
        for (const auto* name : {"async", "autosuspend_delay_ms", "control"}) b.attr(dev + "/power/" + name, 0644);
        for (const auto* name : {"runtime_active_kids", "runtime_active_time", "runtime_enabled", "runtime_status",
                                 "runtime_suspended_time", "runtime_usage"}) {
            b.attr(dev + "/power/" + name, 0444);
        }
        b.attr(dev + "/reset", 0600);
        b.attr(dev + "/core_count", 0400);
        b.attr(dev + "/connected_devices", 0400);
        b.attr(dev + "/info/notify_delay", 0644);
        if (!inf1) b.attr(dev + "/info/serial_number", 0644);
        for (const auto* name : {"arch_type", "instance_type", "device_name"}) {
            b.attr(dev + "/info/architecture/" + name, 0644);
        }
        for (const auto& name : host_mem_dirs) b.counter(dev + "/stats/memory_usage/host_mem/" + name, true);
        if (!inf1) {
            for (const auto* name : {"sram_ecc_uncorrected", "mem_ecc_uncorrected", "mem_ecc_repairable_uncorrected"}) {
                b.attr(dev + "/stats/hardware/" + name, 0644);
            }
        }
        b.attr(dev + "/stats/power/utilization", 0644);
        for (std::uint32_t c = 0; c < instance.cores_per_device(); ++c) {
            const auto core = fmt::format("{}/neuron_core{}", dev, c);
            b.attr(core + "/info/architecture/arch_type", 0644);
            for (const auto& name : status_dirs) b.counter(core + "/stats/status/" + name, false);
            b.counter(core + "/stats/memory_usage/host_mem", true);
            b.counter(core + "/stats/memory_usage/device_mem", true);
            for (const auto& name : device_mem_dirs) b.counter(core + "/stats/memory_usage/device_mem/" + name, true);
            for (const auto& name : other_info_dirs) b.counter(core + "/stats/other_info/" + name, false);
            if (!inf1) b.attr(core + "/stats/tensor_engine/pe_cntrs", 0644);
        }
    }
    for (const auto* name : {"node_id_2", "node_id_4", "server_id_2", "server_id_4", "ultraserver_mode"}) {
        b.attr(std::string("class/neuron_device/") + name, 0444);
    }
    add_dmi_identity(b);
    return b.take();
}

std::vector<std::string> components(const std::string& path) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (;;) {
        const auto slash = path.find('/', start);
        parts.push_back(path.substr(start, slash - start));
        if (slash == std::string::npos) return parts;
        start = slash + 1;
    }
}

bool has_component(const std::string& path, std::string_view name) {
    const auto parts = components(path);
    return std::find(parts.begin(), parts.end(), name) != parts.end();
}

void remove_if(spec_listing& l, const std::function<bool(const std::string&)>& doomed) {
    std::erase_if(l, [&](const auto& entry) { return doomed(entry.first); });
}

// Removes directories a removal left empty, except those that exist empty.
void drop_empty_directories(spec_listing& l, const std::function<bool(const std::string&)>& kept_empty) {
    for (bool again = true; again;) {
        std::set<std::string> parents;
        for (const auto& [path, entry] : l) {
            if (const auto slash = path.rfind('/'); slash != std::string::npos) parents.insert(path.substr(0, slash));
        }
        const auto removed = std::erase_if(l, [&](const auto& entry) {
            return entry.second.type == 'd' && !parents.contains(entry.first) && !kept_empty(entry.first);
        });
        again = removed > 0;
    }
}

// Maps every path through `rename`; entries it returns empty for are dropped.
void rewrite(spec_listing& l, const std::function<std::string(const std::string&)>& rename) {
    spec_listing out;
    for (auto& [path, entry] : l) {
        auto renamed = rename(path);
        if (!renamed.empty()) out[renamed] = entry;
    }
    l = std::move(out);
}

std::string replace_component(const std::string& path, std::string_view from, std::string_view to) {
    auto parts = components(path);
    std::string out;
    for (auto& p : parts) {
        if (p == from) p = to;
        out += out.empty() ? p : "/" + p;
    }
    return out;
}

// 2.8.4.0's row undone: 2.7 kept everything under neuronN/metrics/.
void to_2_7(spec_listing& l, const model::instance_type& instance) {
    rewrite(l, [](const std::string& path) -> std::string {
        const auto parts = components(path);
        if (parts.size() < 4 || parts[0] != "devices") return path;
        const std::string dev = "devices/virtual/neuron_device/" + parts[3];
        if (parts.size() == 4) return path;
        const auto& first = parts[4];
        if (first == "info" || first == "stats") return {};
        if (first.starts_with("neuron_core")) {
            if (parts.size() == 5) return dev + "/metrics/" + first;
            if (parts[5] == "info") return {};
            if (parts[5] != "stats") return path;
            if (parts.size() == 6) return {};
            if (parts.back() == "peak") return {};
            std::string rest;
            for (std::size_t i = 6; i < parts.size(); ++i) rest += "/" + parts[i];
            return dev + "/metrics/" + first + rest;
        }
        return path;
    });
    rewrite(l, [](const std::string& path) -> std::string {
        if (has_component(path, "reset_fail_count")) return {};
        auto p = replace_component(path, "execute_completed_with_error", "infer_completed_with_error");
        p = replace_component(p, "execute_completed_with_num_error", "infer_completed_with_num_error");
        p = replace_component(p, "execute_failed_to_queue", "infer_failed_to_queue");
        return replace_component(p, "reset_req_count", "reset_count");
    });
    for (std::uint32_t d = 0; d < instance.device_count; ++d) {
        const auto metrics = fmt::format("devices/virtual/neuron_device/neuron{}/metrics", d);
        l[metrics] = {'d', 0755, {}};
        l[metrics + "/arch_type"] = {'f', 0600, {}};
        l[metrics + "/refresh_rate"] = {'f', 0600, {}};
        for (std::uint32_t c = 0; c < instance.cores_per_device(); ++c) {
            l[fmt::format("{}/neuron_core{}/dynamic_metrics", metrics, c)] = {'d', 0755, {}};
        }
    }
}

} // namespace

spec_listing expected_listing(std::string_view instance_name, std::string_view release_text) {
    const auto& instance = model::find_instance_type(instance_name);
    const auto release = parse_version(release_text);
    auto l = listing_2_24(instance);
    const auto before = [&](int major, int minor) { return release < version{major, minor}; };
    const auto drop_named = [&](std::initializer_list<std::string_view> names) {
        remove_if(l, [&](const std::string& path) {
            return std::any_of(names.begin(), names.end(), [&](auto n) { return has_component(path, n); });
        });
    };
    if (before(2, 23)) {
        drop_named({"hw_repairable_hbm_ue_error", "mem_ecc_repairable_uncorrected", "tensor_engine", "node_id_2",
                    "node_id_4", "server_id_2", "server_id_4", "ultraserver_mode"});
    }
    if (before(2, 21)) {
        drop_named({"execute_sw_semaphore_error", "execute_sw_event_error", "execute_sw_psum_collision",
                    "execute_sw_sequencer_fatal", "nc_time_in_use"});
        remove_if(l, [](const std::string& p) { return p.find("/stats/power") != std::string::npos; });
    }
    if (before(2, 20)) drop_named({"execute_sw_nq_overflow"});
    if (before(2, 19)) drop_named({"hw_collectives_error", "hw_hbm_ue_error", "hw_nc_ue_error", "hw_dma_abort_error"});
    if (before(2, 18)) drop_named({"dma_rings"});
    if (before(2, 17)) {
        drop_named({"driver_memory", "collectives", "nonshared_scratchpad", "notifications", "uncategorized"});
    }
    if (before(2, 16)) drop_named({"oob_error"});
    if (before(2, 15)) {
        drop_named({"serial_number"});
        for (auto& [path, entry] : l) {
            const bool metric = entry.type == 'f' && entry.mode == 0644 && path.starts_with("devices/") &&
                                !path.ends_with("/uevent") && path.find("/power/") == std::string::npos;
            if (metric || path.find("/stats/power/") != std::string::npos) entry.mode = 0600;
        }
    }
    if (before(2, 14)) drop_named({"hardware"});
    if (before(2, 13)) drop_named({"connected_devices"});
    if (before(2, 12)) drop_named({"flop_count"});
    if (before(2, 10)) {
        remove_if(l, [](const std::string& p) {
            const auto parts = components(p);
            // device-level stats/memory_usage/host_mem/<category>, per-core device_mem/<category>
            const bool device_categories = parts.size() >= 8 && parts[4] == "stats" && parts[6] == "host_mem";
            const bool core_categories = parts.size() >= 10 && parts[7] == "device_mem";
            return device_categories || core_categories;
        });
    }
    if (before(2, 9)) drop_named({"notify_delay"});
    if (before(2, 8)) to_2_7(l, instance);
    drop_empty_directories(l, [](const std::string& p) { return p.ends_with("/dynamic_metrics"); });
    return l;
}

spec_listing walk_directory(const std::string& root) {
    spec_listing out;
    std::function<void(const std::string&, const std::string&)> walk = [&](const std::string& dir,
                                                                           const std::string& rel) {
        DIR* d = ::opendir(dir.c_str());
        if (d == nullptr) throw std::runtime_error(fmt::format("opendir {} failed", dir));
        std::vector<std::string> names;
        while (const dirent* e = ::readdir(d)) {
            const std::string_view n = e->d_name;
            if (n != "." && n != "..") names.emplace_back(n);
        }
        ::closedir(d);
        for (const auto& name : names) {
            const auto path = dir + "/" + name;
            const auto relative = rel.empty() ? name : rel + "/" + name;
            struct stat st {};
            if (::lstat(path.c_str(), &st) != 0) throw std::runtime_error(fmt::format("lstat {} failed", path));
            spec_entry e;
            e.mode = st.st_mode & 07777;
            if (S_ISDIR(st.st_mode)) {
                e.type = 'd';
                out[relative] = e;
                walk(path, relative);
            } else if (S_ISLNK(st.st_mode)) {
                e.type = 'l';
                char target[4096];
                const auto n = ::readlink(path.c_str(), target, sizeof(target));
                e.target.assign(target, n > 0 ? static_cast<std::size_t>(n) : 0);
                out[relative] = e;
            } else {
                out[relative] = e;
            }
        }
    };
    walk(root, "");
    return out;
}

} // namespace neuron::sysfs::testing
