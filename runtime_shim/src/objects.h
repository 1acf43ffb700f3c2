#pragma once

// The objects behind the API's opaque handles.

#include "nrt/nrt.h"

#include "neuron/protocol/messages.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace neuron::shim {

// Bytes a tensor views: owned (allocated by the shim, accounted on the
// emulator as tensor memory) or the caller's (attach_buffer). Slices share it.
struct tensor_storage {
    std::uint8_t* data = nullptr;
    std::size_t size = 0;
    bool owned = false;
    std::optional<std::uint64_t> allocation; // the emulator's accounting of it
    std::uint64_t generation = 0;            // the nrt_init it was accounted under
    std::optional<std::uint32_t> device_vnc; // device memory on this logical core
    ~tensor_storage();
};

} // namespace neuron::shim

struct nrt_tensor {
    std::string name;
    nrt_tensor_placement_t placement = NRT_TENSOR_PLACEMENT_VIRTUAL;
    int vnc = -1;
    std::shared_ptr<neuron::shim::tensor_storage> storage; // none: allocated empty
    std::size_t offset = 0;
    std::size_t size = 0;
    std::atomic<std::uint64_t> completions{0}; // executions that completed it as an output

    std::uint8_t* data() const { return storage ? storage->data + offset : nullptr; }
};

struct nrt_model {
    std::uint32_t id = 0;
    int vnc = 0;                   // as this process numbers its cores
    std::uint32_t global_core = 0; // the instance's logical core
    std::string name;
    std::uint64_t generation = 0;
    std::uint64_t exec_timeout_ns = 0; // NEURON_RT_EXEC_TIMEOUT when it was loaded; 0: the default
    std::vector<neuron::protocol::model_tensor> tensors;
};

namespace neuron::shim {

struct tensor_set {
    std::map<std::string, nrt_tensor*> tensors;
};

} // namespace neuron::shim
