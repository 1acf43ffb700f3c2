#include "neuron/sysfs/kernfs_order.h"

namespace neuron::sysfs {
namespace {

constexpr std::uint64_t golden_ratio_64 = 0x61C8864680B583EBull;
constexpr std::uint32_t int_max = 0x7fffffffu;

} // namespace

std::uint32_t kernfs_name_hash(std::string_view name) {
    std::uint64_t hash = 0;
    for (const char ch : name) {
        const std::uint64_t c = static_cast<unsigned char>(ch);
        hash = (hash + (c << 4) + (c >> 4)) * 11;
    }
    auto folded = static_cast<std::uint32_t>((hash * golden_ratio_64) >> 32);
    folded &= int_max;
    if (folded < 2) folded += 2;
    if (folded >= int_max) folded = int_max - 1;
    return folded;
}

bool kernfs_before(std::string_view a, std::string_view b) {
    const auto ha = kernfs_name_hash(a);
    const auto hb = kernfs_name_hash(b);
    if (ha != hb) return ha < hb;
    return a < b;
}

} // namespace neuron::sysfs
