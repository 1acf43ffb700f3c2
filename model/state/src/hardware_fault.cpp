#include "neuron/model/state/hardware_fault.h"

#include "neuron/model/spec/nrt_status.h"

#include <array>
#include <string>

namespace neuron::model {
namespace {

constexpr std::array faults{
    fault_row{fault_kind::dma_abort, "dma_abort", 1203, false, dma_strike::any, std::nullopt},
    fault_row{fault_kind::out_of_bounds, "out_of_bounds", 1006, true, dma_strike::any, std::nullopt},
    fault_row{fault_kind::hbm_uncorrectable, "hbm_uncorrectable", 1201, false, dma_strike::device_memory,
              ecc_kind::hbm},
    fault_row{fault_kind::hbm_repairable, "hbm_repairable", 1205, false, dma_strike::device_memory,
              ecc_kind::hbm_repairable},
    fault_row{fault_kind::sram_uncorrectable, "sram_uncorrectable", 1202, true, dma_strike::none, ecc_kind::sram},
    fault_row{fault_kind::notification_overflow, "notification_overflow", 1204, false, dma_strike::none, std::nullopt},
    fault_row{fault_kind::collectives_hang, "collectives_hang", 1200, false, dma_strike::none, std::nullopt},
};

constexpr bool in_enum_order() {
    for (std::size_t i = 0; i < faults.size(); ++i) {
        if (static_cast<std::size_t>(faults[i].kind) != i) return false;
    }
    return true;
}
static_assert(in_enum_order(), "fault_info() indexes the table by kind");

} // namespace

const fault_row& fault_info(fault_kind kind) { return faults[static_cast<std::size_t>(kind)]; }

std::span<const fault_row> fault_rows() { return faults; }

std::optional<fault_kind> fault_from_name(std::string_view name) {
    for (const auto& f : faults) {
        if (f.name == name) return f.kind;
    }
    return std::nullopt;
}

std::optional<fault_kind> fault_for_status(std::uint32_t status) {
    for (const auto& f : faults) {
        if (f.status == status) return f.kind;
    }
    return std::nullopt;
}

std::optional<fault_kind> fault_reading(ecc_kind kind) {
    for (const auto& f : faults) {
        if (f.ecc == kind && f.on_dma == dma_strike::device_memory) return f.kind;
    }
    return std::nullopt;
}

fault_kind as_struck(fault_kind kind, bool repair_pending) {
    return kind == fault_kind::hbm_uncorrectable && repair_pending ? fault_kind::hbm_repairable : kind;
}

std::string_view fault_names() {
    static const std::string names = [] {
        std::string all;
        for (const auto& f : faults) all += (all.empty() ? "" : ", ") + std::string(f.name);
        return all;
    }();
    return names;
}

} // namespace neuron::model
