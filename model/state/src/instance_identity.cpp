#include "neuron/model/state/instance_identity.h"

#include <fmt/format.h>

namespace neuron::model {
namespace {

// splitmix64's finaliser: the UUID's bits spread from the serial number.
std::uint64_t mixed(std::uint64_t x) {
    x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31U);
}

} // namespace

instance_identity identity_of(const published_state& state) {
    const auto serial = state.serial_number(0);
    const auto high = mixed(serial);
    const auto low = mixed(high);
    return {
        std::string(state.instance().name),
        fmt::format("i-0{:016x}", serial),
        fmt::format("ec2{:05x}-{:04x}-{:04x}-{:04x}-{:012x}", high >> 44U, (high >> 28U) & 0xffffU,
                    (high >> 12U) & 0xffffU, low >> 48U, low & 0xffffffffffffULL),
    };
}

} // namespace neuron::model
