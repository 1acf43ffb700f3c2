// Writes to the sysfs tree's attributes: the first byte picks an attribute
// that has a store, the rest is what a process writes to it, handed to the
// attribute_writer the FUSE server uses (over a model port that records
// what it was asked). Checked: a write either fails with nothing accepted or
// accepts what kernfs hands the store (at most a page); notify_delay turns
// notifications on or off exactly for "0" and "-1"; and the kernel number
// parsers read back every number they print.

#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/model/state/published_state.h"
#include "neuron/sysfs/attribute.h"
#include "neuron/sysfs/attribute_writer.h"
#include "neuron/sysfs/generic_device_state.h"
#include "neuron/sysfs/kernel_parse.h"
#include "neuron/sysfs/model_port.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace neuron;
using sysfs::attribute_kind;

struct recording_port : sysfs::model_port {
    std::optional<bool> notifications;
    void clear_counter(const model::counter_ref&, model::counter_field) override {}
    void set_notifications(bool enabled) override { notifications = enabled; }
    void request_device_reset(std::uint32_t) override {}
};

[[noreturn]] void finding(const char* what) {
    std::fprintf(stderr, "sysfs_write_fuzzer: %s\n", what);
    std::abort();
}

std::vector<attribute_kind> writable_kinds() {
    std::vector<attribute_kind> out;
    for (int k = 0; k <= static_cast<int>(attribute_kind::pm_runtime_usage); ++k) {
        const auto kind = static_cast<attribute_kind>(k);
        if (sysfs::traits_of(kind).has_store) out.push_back(kind);
    }
    return out;
}

void check_number_round_trip(const std::uint8_t* data, std::size_t size) {
    std::uint64_t v = 0;
    std::memcpy(&v, data, std::min(size, sizeof(v)));
    if (sysfs::parse_kstrtoull(std::to_string(v) + "\n") != v)
        finding("kstrtoull does not read back an unsigned number");
    const auto s = static_cast<std::int64_t>(v);
    if (sysfs::parse_kstrtoll(std::to_string(s)) != s) finding("kstrtoll does not read back a signed number");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    static const auto& instance = model::find_instance_type("trn1.32xlarge");
    static const auto kinds = writable_kinds();
    static model::published_state state(instance, std::vector<std::uint64_t>(instance.device_count, 1),
                                        model::time_mode::stepped, 1.0, 0);
    static sysfs::generic_device_state generic(instance.device_count);
    recording_port port;
    sysfs::attribute_writer writer(state, generic, port, [](std::string_view) {});

    const auto kind = kinds[data[0] % kinds.size()];
    const std::string_view written(reinterpret_cast<const char*>(data + 1), size - 1);
    const auto attr = sysfs::attribute::of(kind, data[0] % instance.device_count);
    const auto result = writer.store(attr, written);

    const auto page = std::min(written.size(), sysfs::sysfs_page_size);
    if (result.error != 0 && result.accepted != 0) finding("a failed write reports bytes accepted");
    if (result.error == 0 && result.accepted != page) finding("a write reports another count than the page it wrote");
    if (kind == attribute_kind::notify_delay) {
        const auto value = sysfs::parse_kstrtoll(sysfs::store_text(written));
        const bool switches = value == 0 || value == -1;
        if (switches != port.notifications.has_value()) finding("notify_delay switched on something else than 0 or -1");
        if (switches && *port.notifications != (value == 0)) finding("notify_delay switched the wrong way");
    }
    check_number_round_trip(data + 1, size - 1);
    return 0;
}
