#include "neuron/model/state/ecc.h"

#include "neuron/model/spec/errors.h"
#include "neuron/model/state/published_state.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace neuron::model {
namespace {

constexpr std::uint32_t field_max = 0xffff;

constexpr std::array<std::string_view, 5> kind_names{"sram", "hbm", "hbm-repairable", "sram-corrected",
                                                     "hbm-corrected"};

std::uint32_t add_saturating(std::uint32_t field, std::uint32_t count) {
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{field} + count, field_max));
}

std::uint32_t add_uncorrected(std::uint32_t word, std::uint32_t count) {
    return (word & 0xffff0000u) | add_saturating(word & field_max, count);
}

std::uint32_t add_corrected(std::uint32_t word, std::uint32_t count) {
    return (add_saturating(word >> 16, count) << 16) | (word & field_max);
}

std::uint32_t uncorrected(std::uint32_t word) { return word == register_read_failure ? 0 : (word & field_max); }

std::uint32_t corrected(std::uint32_t word) { return word == register_read_failure ? 0 : (word >> 16); }

} // namespace

std::string_view ecc_kind_name(ecc_kind kind) { return kind_names[static_cast<std::size_t>(kind)]; }

ecc_kind parse_ecc_kind(std::string_view name) {
    for (std::size_t i = 0; i < kind_names.size(); ++i) {
        if (kind_names[i] == name) return static_cast<ecc_kind>(i);
    }
    throw invalid_argument_error(
        fmt::format("unknown ECC error kind '{}'; valid kinds: {}", name, fmt::join(kind_names, ", ")));
}

std::string_view register_name(ecc_register reg) {
    constexpr std::array<std::string_view, ecc_register_count> names{"sram", "hbm0", "hbm1",
                                                                     "hbm2", "hbm3", "hbm_repair_state"};
    return names[static_cast<std::size_t>(reg)];
}

ecc_unit::ecc_unit(published_state& state, std::uint32_t device) : m_state(state), m_device(device) {
    m_state.check_device(device);
}

void ecc_unit::check_supported(std::string_view what) const {
    if (!m_state.spec().has_ecc_reporting) {
        throw unsupported_error(fmt::format("{} devices report no ECC errors ({})", m_state.spec().device_name, what));
    }
}

void ecc_unit::inject(ecc_kind kind, std::int64_t count, std::optional<std::uint32_t> channel) {
    check_supported(fmt::format("cannot inject {}", ecc_kind_name(kind)));
    if (count < 1 || count > std::int64_t{UINT32_MAX}) {
        throw invalid_argument_error(fmt::format("ECC error count {} invalid: must be 1..{}", count, UINT32_MAX));
    }
    const bool sram = kind == ecc_kind::sram || kind == ecc_kind::sram_corrected;
    if (sram && channel) {
        throw invalid_argument_error(fmt::format("{} errors take no channel", ecc_kind_name(kind)));
    }
    const std::uint32_t channels = m_state.spec().memory_channels;
    if (channel && *channel >= channels) {
        throw invalid_argument_error(fmt::format("HBM channel {} out of range: {} has channels 0..{}", *channel,
                                                 m_state.spec().device_name, channels - 1));
    }
    if (kind == ecc_kind::hbm_repairable && m_state.spec().dhal_version < 3) {
        throw unsupported_error(
            fmt::format("{} firmware has no HBM repair state; inject 'hbm' instead", m_state.spec().device_name));
    }

    const auto reg = sram ? ecc_register::sram : hbm_channel_register(channel.value_or(0));
    const auto word = m_state.ecc_word(m_device, reg);
    const bool corrected = kind == ecc_kind::sram_corrected || kind == ecc_kind::hbm_corrected;
    const auto n = static_cast<std::uint32_t>(count);
    m_state.set_ecc_word(m_device, reg, corrected ? add_corrected(word, n) : add_uncorrected(word, n));
    if (kind == ecc_kind::hbm_repairable) set_repair_state(hbm_repair_state::pending_repair);
}

void ecc_unit::set_repair_state(hbm_repair_state state) {
    check_supported("no repair state");
    if (m_state.spec().dhal_version < 3) {
        throw unsupported_error(fmt::format("{} firmware has no HBM repair state", m_state.spec().device_name));
    }
    const auto word = m_state.ecc_word(m_device, ecc_register::hbm_repair_state);
    m_state.set_ecc_word(m_device, ecc_register::hbm_repair_state, (word & ~3u) | static_cast<std::uint32_t>(state));
}

bool ecc_unit::repair_pending() const {
    const auto word = m_state.ecc_word(m_device, ecc_register::hbm_repair_state);
    return m_state.spec().dhal_version >= 3 &&
           (word & 3u) == static_cast<std::uint32_t>(hbm_repair_state::pending_repair);
}

void ecc_unit::write_register(ecc_register reg, std::uint32_t value) {
    check_supported(fmt::format("cannot write {}", register_name(reg)));
    const bool hbm = reg >= ecc_register::hbm0 && reg <= ecc_register::hbm3;
    const auto channel = static_cast<std::uint32_t>(reg) - static_cast<std::uint32_t>(ecc_register::hbm0);
    if (hbm && channel >= m_state.spec().memory_channels) {
        throw invalid_argument_error(
            fmt::format("{} has only {} HBM channels", m_state.spec().device_name, m_state.spec().memory_channels));
    }
    m_state.set_ecc_word(m_device, reg, value);
}

ecc_readout read_ecc(const published_state& state, std::uint32_t device, const ecc_reading& how) {
    const auto& spec = state.spec();
    if (!spec.has_ecc_reporting) return {};

    ecc_readout out;
    out.sram_ecc_uncorrected = uncorrected(state.ecc_word(device, ecc_register::sram));
    out.sram_ecc_corrected = corrected(state.ecc_word(device, ecc_register::sram));
    std::uint32_t total = 0;
    for (std::uint32_t c = 0; c < std::min(spec.memory_channels, how.channels); ++c) {
        total += uncorrected(state.ecc_word(device, hbm_channel_register(c)));
        out.mem_ecc_corrected += corrected(state.ecc_word(device, hbm_channel_register(c)));
    }
    if (spec.dhal_version < 3 || !how.repair_split) {
        out.mem_ecc_uncorrected = total;
        return out;
    }
    // Trn2: the repair state decides which file shows the count. State 0 with
    // errors is the firmware's legacy encoding of "unrepairable". (The driver
    // also special-cases a repair state without errors; both files read 0
    // then, which is what these rules give anyway.)
    const auto repair = state.ecc_word(device, ecc_register::hbm_repair_state) & 3u;
    if (repair == static_cast<std::uint32_t>(hbm_repair_state::pending_repair)) {
        out.mem_ecc_repairable_uncorrected = total;
    } else if (repair == static_cast<std::uint32_t>(hbm_repair_state::none_pending) ||
               repair == static_cast<std::uint32_t>(hbm_repair_state::repair_failed)) {
        out.mem_ecc_uncorrected = total;
    }
    return out;
}

} // namespace neuron::model
