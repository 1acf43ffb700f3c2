#pragma once

// The tensors an execution reads and writes, held from when it is
// submitted until its outputs are filled: reading, writing or freeing one
// waits until then (as the runtime's tensor calls wait while a queued
// execution uses the tensor). On an execution unit's own thread (a callback,
// an asynchronous read) nothing waits: that unit fills no outputs meanwhile.

#include "nrt/nrt.h"

#include <vector>

namespace neuron::shim {

struct tensor_storage;

class tensors_in_use {
public:
    tensors_in_use() = default;
    explicit tensors_in_use(std::vector<const tensor_storage*> held);
    ~tensors_in_use();
    tensors_in_use(tensors_in_use&& other) noexcept;
    tensors_in_use& operator=(tensors_in_use&& other) noexcept;
    tensors_in_use(const tensors_in_use&) = delete;
    tensors_in_use& operator=(const tensors_in_use&) = delete;

private:
    void release();
    std::vector<const tensor_storage*> m_held;
};

void wait_until_unused(const nrt_tensor_t* tensor);

} // namespace neuron::shim
