#pragma once

// Every NRT_STATUS the runtime defines (nrt-api.md §1): the one list of
// values and identifiers. The shim names statuses with it, the model keys its
// status/ counters by its values, and the control protocol's error codes are
// its values. abi_checks.cpp holds it against the shim's nrt_status.h enum at
// compile time.

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace neuron::runtime_api {

struct nrt_status_row {
    std::uint32_t value;
    const char* name; // a string literal: the shim hands it to C callers as it is
};

// Values are sparse; 8 and 12 are unused.
inline constexpr std::array nrt_status_table{
    nrt_status_row{0, "NRT_SUCCESS"},
    nrt_status_row{1, "NRT_FAILURE"},
    nrt_status_row{2, "NRT_INVALID"},
    nrt_status_row{3, "NRT_INVALID_HANDLE"},
    nrt_status_row{4, "NRT_RESOURCE"},
    nrt_status_row{5, "NRT_TIMEOUT"},
    nrt_status_row{6, "NRT_HW_ERROR"},
    nrt_status_row{7, "NRT_QUEUE_FULL"},
    nrt_status_row{9, "NRT_LOAD_NOT_ENOUGH_NC"},
    nrt_status_row{10, "NRT_UNSUPPORTED_NEFF_VERSION"},
    nrt_status_row{11, "NRT_FAIL_HOST_MEM_ALLOC"},
    nrt_status_row{13, "NRT_UNINITIALIZED"},
    nrt_status_row{14, "NRT_CLOSED"},
    nrt_status_row{15, "NRT_QUEUE_EMPTY"},
    nrt_status_row{101, "NRT_EXEC_UNIT_UNRECOVERABLE"},
    nrt_status_row{1002, "NRT_EXEC_BAD_INPUT"},
    nrt_status_row{1003, "NRT_EXEC_COMPLETED_WITH_NUM_ERR"},
    nrt_status_row{1004, "NRT_EXEC_COMPLETED_WITH_ERR"},
    nrt_status_row{1005, "NRT_EXEC_NC_BUSY"},
    nrt_status_row{1006, "NRT_EXEC_OOB"},
    nrt_status_row{1100, "NRT_COLL_PENDING"},
    nrt_status_row{1200, "NRT_EXEC_HW_ERR_COLLECTIVES"},
    nrt_status_row{1201, "NRT_EXEC_HW_ERR_HBM_UE"},
    nrt_status_row{1202, "NRT_EXEC_HW_ERR_NC_UE"},
    nrt_status_row{1203, "NRT_EXEC_HW_ERR_DMA_ABORT"},
    nrt_status_row{1204, "NRT_EXEC_SW_NQ_OVERFLOW"},
    nrt_status_row{1205, "NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE"},
    nrt_status_row{1206, "NRT_NETWORK_PROXY_FAILURE"},
};

// The row of a value ("NRT_EXEC_HW_ERR_HBM_UE" for 1201); nothing for a value
// the runtime does not define.
constexpr std::optional<nrt_status_row> nrt_status_of(std::uint32_t value) {
    const auto it = std::ranges::find(nrt_status_table, value, &nrt_status_row::value);
    if (it == nrt_status_table.end()) return std::nullopt;
    return *it;
}

// The row of an identifier ("NRT_EXEC_OOB"), matched exactly; nothing for
// another string.
constexpr std::optional<nrt_status_row> nrt_status_named(std::string_view name) {
    const auto it =
        std::ranges::find_if(nrt_status_table, [name](const nrt_status_row& row) { return name == row.name; });
    if (it == nrt_status_table.end()) return std::nullopt;
    return *it;
}

namespace detail {

constexpr bool nrt_status_table_is_unique() {
    for (std::size_t i = 0; i < nrt_status_table.size(); ++i) {
        for (std::size_t j = i + 1; j < nrt_status_table.size(); ++j) {
            if (nrt_status_table[i].value == nrt_status_table[j].value) return false;
            if (std::string_view{nrt_status_table[i].name} == nrt_status_table[j].name) return false;
        }
    }
    return true;
}
static_assert(nrt_status_table_is_unique(), "nrt_status_table repeats a value or a name");

// Fails to compile for a name the table does not hold.
consteval std::uint32_t nrt_status_value(std::string_view name) {
    const auto row = nrt_status_named(name);
    if (!row) throw "not an NRT_STATUS identifier in nrt_status_table";
    return row->value;
}

} // namespace detail

// The statuses the emulator's code produces or tests for, by the table's
// values (model::nrt_status is this namespace).
namespace nrt_status {
inline constexpr std::uint32_t success = detail::nrt_status_value("NRT_SUCCESS");
inline constexpr std::uint32_t failure = detail::nrt_status_value("NRT_FAILURE");
inline constexpr std::uint32_t invalid = detail::nrt_status_value("NRT_INVALID");
inline constexpr std::uint32_t resource = detail::nrt_status_value("NRT_RESOURCE");
inline constexpr std::uint32_t timeout = detail::nrt_status_value("NRT_TIMEOUT");
inline constexpr std::uint32_t hw_error = detail::nrt_status_value("NRT_HW_ERROR");
inline constexpr std::uint32_t load_not_enough_nc = detail::nrt_status_value("NRT_LOAD_NOT_ENOUGH_NC");
inline constexpr std::uint32_t closed = detail::nrt_status_value("NRT_CLOSED");
inline constexpr std::uint32_t exec_completed_with_err = detail::nrt_status_value("NRT_EXEC_COMPLETED_WITH_ERR");
inline constexpr std::uint32_t exec_hw_err_hbm_ue = detail::nrt_status_value("NRT_EXEC_HW_ERR_HBM_UE");
inline constexpr std::uint32_t exec_hw_err_nc_ue = detail::nrt_status_value("NRT_EXEC_HW_ERR_NC_UE");
inline constexpr std::uint32_t exec_hw_err_repairable_hbm_ue =
    detail::nrt_status_value("NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE");
inline constexpr std::uint32_t exec_hw_err_collectives = detail::nrt_status_value("NRT_EXEC_HW_ERR_COLLECTIVES");
} // namespace nrt_status

} // namespace neuron::runtime_api
