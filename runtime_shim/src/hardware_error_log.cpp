#include "hardware_error_log.h"

#include "log.h"

#include <string>

namespace neuron::shim {
namespace {

using message_fn = std::string (*)(std::string_view function, const execution_place& where);

struct hardware_error_row {
    std::uint32_t status;
    std::string_view module;
    std::string_view function; // empty: the API call's own
    message_fn message;
};

std::string n(std::uint32_t value) { return std::to_string(value); }

// The lines as nrt-troubleshoot.rst quotes them; where it elides the end of
// one ("…"), the line ends where the quote does.
constexpr hardware_error_row rows[] = {
    {1202, "NRT", "",
     [](std::string_view, const execution_place& w) {
         return "(FATAL-RT-UNDEFINED-STATE) [ND " + n(w.device) + "][NC " + n(w.core) +
                "] Uncorrectable memory error is detected, metadata: 0x16.";
     }},
    {1201, "NRT", "",
     [](std::string_view, const execution_place&) {
         return std::string("Uncorrectable HBM memory error is detected. Execution results may be invalid. "
                            "Please terminate this instance");
     }},
    {1205, "NRT", "",
     [](std::string_view, const execution_place&) {
         return std::string("Uncorrectable HBM memory error is detected. Execution results may be invalid. "
                            "Please reload the neuron driver or reboot");
     }},
    {1203, "NRT", "",
     [](std::string_view, const execution_place& w) {
         return "[MLA " + n(w.device) + "][NC " + n(w.core) + "] DMA TX engine " + n(w.dma_engine) +
                " is in an abort state";
     }},
    {1200, "NRT", "",
     [](std::string_view, const execution_place& w) {
         return "missing collectives status on Neuron Device " + n(w.device) + " NC " + n(w.core) +
                ", model 0 - suspected hang in collectives operation 0 out of 100";
     }},
    {1006, "TDRV", "generate_custom_notification_msg",
     [](std::string_view, const execution_place& w) {
         return "nd" + n(w.device) + ":nc" + n(w.core) + ":h_model.id" + n(w.model_id) +
                ": Received notification generated at runtime: failed to run scatter/gather (indirect memory "
                "copy), due to out-of-bound access.";
     }},
    // Ours: the reference quotes no line for an execution the runtime gave up on.
    {5, "NRT", "",
     [](std::string_view, const execution_place& w) {
         return "[ND " + n(w.device) + "][NC " + n(w.core) + "] execution of model id " + n(w.model_id) +
                " did not complete within NEURON_RT_EXEC_TIMEOUT";
     }},
    {1204, "NRT", "nrt_infodump",
     [](std::string_view function, const execution_place&) {
         return "Failure: NRT_EXEC_SW_NQ_OVERFLOW in " + std::string(function) + "()";
     }},
};

} // namespace

void log_hardware_error(std::string_view function, std::uint32_t status, const execution_place& where) {
    for (const auto& row : rows) {
        if (row.status != status) continue;
        log(log_level::error, row.module, row.function.empty() ? function : row.function, row.message(function, where));
        return;
    }
}

} // namespace neuron::shim
