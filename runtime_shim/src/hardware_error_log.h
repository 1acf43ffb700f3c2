#pragma once

#include <cstdint>
#include <string_view>

namespace neuron::shim {

// Where an execution ran: the device and its physical NeuronCore (the first
// of the logical core's), and the model's id.
struct execution_place {
    std::uint32_t device = 0;
    std::uint32_t core = 0;
    std::uint32_t model_id = 0;
    std::uint32_t dma_engine = 0; // the one a DMA abort struck
};

// Logs the runtime's line for an execution stopped by a hardware error
// (nrt-api.md §1.2 "Hardware-error behaviours": 1006, 1200-1205) as ERROR;
// other statuses log nothing. `function` is the API call (nrt_execute...).
void log_hardware_error(std::string_view function, std::uint32_t status, const execution_place& where);

} // namespace neuron::shim
