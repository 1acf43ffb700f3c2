#include "neuron/model/nrt_status.h"

#include <array>

namespace neuron::model {
namespace {

struct status_row {
    std::uint32_t value;
    std::string_view name;
    std::optional<counter_kind> counter;
};

constexpr auto none = std::nullopt;

// nrt-api.md §1 for the names; driver-sysfs.md §8 for the directories.
constexpr std::array rows{
    status_row{0, "NRT_SUCCESS", counter_kind::success},
    status_row{1, "NRT_FAILURE", counter_kind::failure},
    status_row{2, "NRT_INVALID", counter_kind::invalid_error},
    status_row{3, "NRT_INVALID_HANDLE", none},
    status_row{4, "NRT_RESOURCE", counter_kind::resource_error},
    status_row{5, "NRT_TIMEOUT", counter_kind::timeout},
    status_row{6, "NRT_HW_ERROR", counter_kind::hw_error},
    status_row{7, "NRT_QUEUE_FULL", counter_kind::execute_failed_to_queue},
    status_row{9, "NRT_LOAD_NOT_ENOUGH_NC", counter_kind::resource_nc_error},
    status_row{10, "NRT_UNSUPPORTED_NEFF_VERSION", counter_kind::unsupported_neff_version},
    status_row{11, "NRT_FAIL_HOST_MEM_ALLOC", none},
    status_row{13, "NRT_UNINITIALIZED", none},
    status_row{14, "NRT_CLOSED", none},
    status_row{15, "NRT_QUEUE_EMPTY", none},
    status_row{101, "NRT_EXEC_UNIT_UNRECOVERABLE", none},
    status_row{1002, "NRT_EXEC_BAD_INPUT", counter_kind::exec_bad_input},
    status_row{1003, "NRT_EXEC_COMPLETED_WITH_NUM_ERR", counter_kind::execute_completed_with_num_error},
    status_row{1004, "NRT_EXEC_COMPLETED_WITH_ERR", counter_kind::execute_completed_with_error},
    status_row{1005, "NRT_EXEC_NC_BUSY", none},
    status_row{1006, "NRT_EXEC_OOB", counter_kind::oob_error},
    status_row{1100, "NRT_COLL_PENDING", none},
    status_row{1200, "NRT_EXEC_HW_ERR_COLLECTIVES", counter_kind::hw_collectives_error},
    status_row{1201, "NRT_EXEC_HW_ERR_HBM_UE", counter_kind::hw_hbm_ue_error},
    status_row{1202, "NRT_EXEC_HW_ERR_NC_UE", counter_kind::hw_nc_ue_error},
    status_row{1203, "NRT_EXEC_HW_ERR_DMA_ABORT", counter_kind::hw_dma_abort_error},
    status_row{1204, "NRT_EXEC_SW_NQ_OVERFLOW", counter_kind::execute_sw_nq_overflow},
    status_row{1205, "NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE", counter_kind::hw_repairable_hbm_ue_error},
    status_row{1206, "NRT_NETWORK_PROXY_FAILURE", none},
};

const status_row* find(std::uint32_t status) {
    for (const auto& row : rows) {
        if (row.value == status) return &row;
    }
    return nullptr;
}

} // namespace

std::optional<counter_kind> status_counter(std::uint32_t status) {
    const auto* row = find(status);
    return row == nullptr ? std::nullopt : row->counter;
}

std::optional<std::string_view> status_name(std::uint32_t status) {
    const auto* row = find(status);
    if (row == nullptr) return std::nullopt;
    return row->name;
}

std::optional<std::uint32_t> status_from_name(std::string_view name) {
    for (const auto& row : rows) {
        if (row.name == name) return row.value;
    }
    return std::nullopt;
}

} // namespace neuron::model
