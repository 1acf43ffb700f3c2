#pragma once

#include "nrt/nrt.h"

#include <cstddef>

namespace neuron::shim {

// NRT_SUCCESS when `size` bytes at `offset` of the tensor exist and `buf` is
// usable; else NRT_INVALID, logged under `fn`.
NRT_STATUS check_tensor_io(const char* fn, const nrt_tensor* t, const void* buf, std::size_t offset, std::size_t size);

} // namespace neuron::shim
