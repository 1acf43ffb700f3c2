#pragma once

#include "neuron/control/model_file.h"
#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/neff/neff_file.h"

#include <cstdint>

namespace neuron::control {

// The scratchpad layout the runtime uses on `instance` with logical cores
// of `lnc` physical ones (reference/neff.md): contiguous 64 MiB pages where
// the generation supports it (not Trn2 with LNC=1), unless the process set
// NEURON_RT_CONTIGUOUS_SCRATCHPAD=0; otherwise pages of
// NEURON_SCRATCHPAD_PAGE_SIZE MiB (`page_mib`, 0: 512). There, a page size
// that is not a multiple of 512 below 4096 is refused (request_error
// NRT_INVALID), as is one the shim could not read.
neff::scratchpad_layout scratchpad_layout_for(const model::instance_type& instance, std::uint32_t lnc,
                                              bool contiguous_off, std::uint32_t page_mib);

// What a NEFF runs and holds, as the runtime loads it: its tensors in
// tensor_map order (inputs, then outputs) with their nrt dtypes, per graph
// the device memory charged to its physical core (model_code, constants,
// the shared scratchpad, nonshared scratchpad, dma_rings), and its stream
// work.
model_definition define_neff(const neff::neff_info& neff, const neff::scratchpad_layout& layout);

// nrt_dtype_t of a tensor_map dtype ("float8_e4m3" as nrt's float8e4m3);
// 0 (NRT_DTYPE_UNKNOWN) for one nrt has no type for (float64, bool).
std::uint32_t nrt_dtype_of(std::string_view neff_dtype);

} // namespace neuron::control
