#include "neuron/conformance/target.h"

#include "neuron/conformance/tree_io.h"
#include "neuron/sysfs/errors.h"
#include "neuron/sysfs/layout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fnmatch.h>
#include <regex>
#include <unistd.h>

namespace neuron::conformance {
namespace {

namespace fs = std::filesystem;

bool fuse_usable(std::string& why) {
    if (::geteuid() != 0) {
        why = fmt::format("the model target mounts FUSE and needs root (euid is {})", ::geteuid());
        return false;
    }
    if (::access("/dev/fuse", R_OK | W_OK) != 0) {
        why = fmt::format("the model target mounts FUSE and /dev/fuse is not usable: {}", std::strerror(errno));
        return false;
    }
    return true;
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

// The oldest release whose layout shows everything this tree shows.
const sysfs::driver_release& oldest_release_showing(const std::string& root, std::uint32_t cores) {
    const auto device = root + "/neuron0/";
    const auto core = device + "neuron_core0/stats/";
    const auto exists = [](const std::string& p) { return stat_path(p).error == 0; };
    struct marker {
        std::string path;
        const char* release;
    };
    const std::vector<marker> markers{
        {core + "tensor_engine/pe_cntrs", "2.23"},
        {core + "status/hw_repairable_hbm_ue_error", "2.23"},
        {core + "other_info/nc_time_in_use", "2.21"},
        {core + "status/execute_sw_nq_overflow", "2.20"},
        {core + "status/hw_hbm_ue_error", "2.19"},
        {core + "memory_usage/device_mem/dma_rings", "2.18"},
        {core + "memory_usage/device_mem/driver_memory", "2.17"},
        {core + "status/oob_error", "2.16"},
        {device + "info/serial_number", "2.15"},
        {device + "stats/hardware", "2.14"},
        {device + "connected_devices", "2.13"},
        {core + "other_info/flop_count", "2.12"},
        {core + "memory_usage/device_mem/model_code", "2.10"},
        {device + "info/notify_delay", "2.9"},
        {device + "neuron_core0/stats", "2.8"},
    };
    (void)cores;
    for (const auto& m : markers) {
        if (exists(m.path)) return sysfs::find_release(m.release);
    }
    return sysfs::find_release("2.7");
}

bool matches_any(const std::vector<std::string>& patterns, std::string_view name) {
    const std::string n(name);
    return std::any_of(patterns.begin(), patterns.end(),
                       [&](const std::string& p) { return ::fnmatch(p.c_str(), n.c_str(), 0) == 0; });
}

enum class verdict { yes, no, unknown };

verdict holds(const version_bound& b, const sysfs::driver_release& r, bool exact) {
    const sysfs::driver_version v{b.major, b.minor};
    const auto c = r.version <=> v;
    bool result = false;
    switch (b.op) {
    case version_bound::relation::less: result = c < 0; break;
    case version_bound::relation::less_equal: result = c <= 0; break;
    case version_bound::relation::equal: result = c == 0; break;
    case version_bound::relation::greater_equal: result = c >= 0; break;
    case version_bound::relation::greater: result = c > 0; break;
    }
    if (exact) return result ? verdict::yes : verdict::no;
    // Only the oldest possible release is known: a lower bound that holds
    // holds for every newer one; an upper bound that fails fails for them too.
    const bool lower = b.op == version_bound::relation::greater_equal || b.op == version_bound::relation::greater;
    if (lower) return result ? verdict::yes : verdict::unknown;
    return result ? verdict::unknown : verdict::no;
}

// The instance types a question about the target is answered from.
std::vector<const model::instance_type*> types_of(const target_description& t) {
    if (t.instance != nullptr) return {t.instance};
    return t.candidates;
}

} // namespace

std::string target_description::name() const {
    const auto release_text = release == nullptr ? std::string("unknown")
                              : release_exact    ? std::string(release->tag)
                                                 : fmt::format(">= {}", release->tag);
    if (what == kind::model) {
        return fmt::format("model {} driver {}", instance != nullptr ? instance->name : "?", release_text);
    }
    std::vector<std::string_view> names;
    for (const auto* c : types_of(*this)) names.push_back(c->name);
    return fmt::format("sysfs {} ({}, driver {})", root,
                       names.empty() ? "unknown instance" : fmt::format("{}", fmt::join(names, " or ")), release_text);
}

target_description describe_model_target(const std::string& instance, const std::string& driver_version) {
    target_description t;
    t.what = target_description::kind::model;
    t.instance = &model::find_instance_type(instance);
    t.release = &sysfs::find_release(driver_version);
    t.devices = t.instance->device_count;
    t.cores_per_device = t.instance->cores_per_device();
    for (const auto c : all_capabilities()) t.capabilities.insert(c);
    fuse_usable(t.unavailable);
    return t;
}

target_description model_target_for(const target_description& base, const scenario& s) {
    auto t = base;
    if (s.setup.instance) t.instance = &model::find_instance_type(*s.setup.instance);
    if (s.setup.driver_version) t.release = &sysfs::find_release(*s.setup.driver_version);
    t.devices = t.instance->device_count;
    t.cores_per_device = t.instance->cores_per_device();
    return t;
}

target_description detect_sysfs_target(const std::string& root, const std::optional<std::string>& instance,
                                       const std::optional<std::string>& driver_version) {
    target_description t;
    t.what = target_description::kind::sysfs;
    t.root = root;
    if (::geteuid() == 0) t.capabilities.insert(capability::root);
    // The real tree comes with the driver's other files at their host paths.
    std::error_code ignored;
    if (fs::equivalent(fs::path(root), fs::path("/sys/devices/virtual/neuron_device"), ignored)) {
        t.capabilities.insert(capability::host_paths);
    }
    const auto listing = list_directory(root);
    if (listing.error != 0) {
        t.unavailable = fmt::format("cannot list {}: {}", root, std::strerror(listing.error));
        return t;
    }
    const std::regex device_name("neuron[0-9]+");
    for (const auto& e : listing.entries) t.devices += std::regex_match(e, device_name) ? 1 : 0;
    if (t.devices == 0) {
        t.unavailable = fmt::format("{} holds no neuronN device directories", root);
        return t;
    }
    for (const auto& e : list_directory(root + "/neuron0").entries)
        t.cores_per_device += e.starts_with("neuron_core") ? 1 : 0;

    if (instance) {
        t.instance = &model::find_instance_type(*instance);
    } else {
        const auto name = trimmed(read_file(root + "/neuron0/info/architecture/device_name").text);
        for (const auto& type : model::instance_catalogue()) {
            if (type.spec().device_name == name && type.device_count == t.devices) t.candidates.push_back(&type);
        }
    }
    if (driver_version) {
        t.release = &sysfs::find_release(*driver_version);
    } else if (const auto module = read_file("/sys/module/neuron/version");
               module.error == 0 && fs::equivalent(fs::path(root), fs::path("/sys/devices/virtual/neuron_device"))) {
        try {
            t.release = &sysfs::find_release(trimmed(module.text));
        } catch (const sysfs::unknown_driver_version_error&) {
            const auto parts = trimmed(module.text);
            const auto second_dot = parts.find('.', parts.find('.') + 1);
            t.release = &sysfs::find_release(parts.substr(0, second_dot));
        }
    } else {
        t.release = &oldest_release_showing(root, t.cores_per_device);
        t.release_exact = false;
    }
    return t;
}

std::optional<std::string> skip_reason(const scenario& s, const target_description& t) {
    if (!t.unavailable.empty()) return t.unavailable;
    const auto types = types_of(t);
    const auto type_names = [&] {
        std::vector<std::string_view> names;
        for (const auto* c : types) names.push_back(c->name);
        return names.empty() ? std::string("unknown") : fmt::format("{}", fmt::join(names, " or "));
    };
    if (s.setup.refused && t.what == target_description::kind::sysfs) {
        return std::string("set up as a combination the driver refuses: no host can be it");
    }
    if (t.what == target_description::kind::sysfs) {
        if (s.setup.instance &&
            std::none_of(types.begin(), types.end(), [&](const auto* c) { return c->name == *s.setup.instance; })) {
            return fmt::format("set up for {}; the target is {}", *s.setup.instance, type_names());
        }
        if (s.setup.time == time_mode::realtime && t.served_time == time_mode::stepped) {
            return std::string("set up for realtime; the served emulator keeps stepped time");
        }
        if (s.setup.driver_version) {
            const auto& wanted = sysfs::find_release(*s.setup.driver_version);
            if (!t.release_exact || t.release != &wanted) {
                return fmt::format("set up for driver {}; the target's is {}", wanted.tag,
                                   t.release_exact ? std::string(t.release->tag) : "not known exactly");
            }
        }
    } else {
        try {
            (void)sysfs::layout(*t.instance, *t.release, 0);
        } catch (const sysfs::unsupported_combination_error& e) {
            // A scenario set up to be refused runs: the emulator must refuse it too.
            if (!s.setup.refused) return std::string(e.what());
        }
    }
    const auto& a = s.applies_to;
    const auto any_type = [&](auto predicate) { return std::any_of(types.begin(), types.end(), predicate); };
    if (!a.instances.empty() && !any_type([&](const auto* c) { return matches_any(a.instances, c->name); })) {
        return fmt::format("applies to {}; the target is {}", fmt::join(a.instances, ", "), type_names());
    }
    if (!a.devices.empty() && !any_type([&](const auto* c) {
            return std::find(a.devices.begin(), a.devices.end(), c->spec().device_name) != a.devices.end();
        })) {
        return fmt::format("applies to {} devices; the target is {}", fmt::join(a.devices, ", "), type_names());
    }
    if (!a.arch.empty() && !any_type([&](const auto* c) {
            return std::find(a.arch.begin(), a.arch.end(), c->spec().dhal_version) != a.arch.end();
        })) {
        std::vector<std::string> archs;
        for (const auto v : a.arch) archs.push_back(fmt::format("v{}", v));
        return fmt::format("applies to arch {}; the target is {}", fmt::join(archs, ", "), type_names());
    }
    for (const auto& bound : a.driver) {
        switch (holds(bound, *t.release, t.release_exact)) {
        case verdict::yes: break;
        case verdict::no: return fmt::format("applies to driver {}; the target's is {}", bound.str(), t.release->tag);
        case verdict::unknown:
            return fmt::format("applies to driver {}; the target's release is not known exactly (it is {} or later; "
                               "give --driver-version)",
                               bound.str(), t.release->tag);
        }
    }
    for (const auto c : s.requires_) {
        if (!t.capabilities.contains(c)) {
            return fmt::format("needs {}: the target cannot {}", capability_name(c), capability_meaning(c));
        }
    }
    return std::nullopt;
}

} // namespace neuron::conformance
