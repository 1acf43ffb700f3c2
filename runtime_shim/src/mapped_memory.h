#pragma once

// Device memory as the process sees it: the bytes of every tensor (which the
// shim keeps in the process) and the HBM regions nrt_get_hbm_mmap_va maps.
// nrt_memcpy_to_device writes only inside these.

#include "nrt/nrt.h"

#include <cstddef>
#include <cstdint>

namespace neuron::shim {

void add_mapping(const void* start, std::size_t size);
void remove_mapping(const void* start);
// True when [dest, dest+size) lies inside one mapping.
bool inside_mapping(const void* dest, std::size_t size);

// The region hbm_idx of device `device`, mapped on first request and
// unmapped at nrt_close: NRT_INVALID_HANDLE past the device's last region.
NRT_STATUS hbm_region(const char* fn, int device, int hbm_idx, void*& addr, std::size_t& size);
void unmap_hbm_regions();

} // namespace neuron::shim
