#pragma once

#include "nrt/nrt.h"

#include "control_client.h"
#include "tensor_use.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace neuron::shim {

// NEURON_RT_EXEC_TIMEOUT in nanoseconds; 0 (the default applies) when unset
// or not a whole number of seconds from 1 to a year (then logged under fn).
std::uint64_t exec_timeout_ns(const char* fn);

// NRT_SUCCESS for a model of the current nrt_init, else logged INVALID or INVALID_HANDLE.
NRT_STATUS check_model(const char* fn, const nrt_model_t* model);

// An execution submitted to the emulator, or refused before (logged).
struct started_execution {
    const char* fn = nullptr;
    nrt_model_t* model = nullptr;
    NRT_STATUS refused = NRT_SUCCESS;
    std::shared_ptr<control_client> client;
    std::uint32_t request_id = 0;
    std::map<std::string, nrt_tensor*> inputs;
    std::map<std::string, nrt_tensor*> outputs;
    std::uint64_t submitted_ns = 0; // host clock
    std::uint64_t seq = 0;          // the asynchronous request's id, if it is one
    tensors_in_use held;            // its tensors, until its outputs are filled
};

// Checks the call and submits the execution: the model runs the executions
// of a core one after another in the order they were submitted.
started_execution start_execution(const char* fn, nrt_model_t* model, const nrt_tensor_set_t* input_set,
                                  nrt_tensor_set_t* output_set, int repeat);
// Waits for its end and fills the outputs: the status nrt_execute returns.
NRT_STATUS finish_execution(started_execution& started);

// What start_execution checks before it submits anything (logged): so that
// a call that only queues refuses what the execution would.
NRT_STATUS check_execution(const char* fn, const nrt_model_t* model, const nrt_tensor_set_t* input_set,
                           const nrt_tensor_set_t* output_set);

// Runs `model` `repeat` times on the emulator and fills its outputs: the
// status nrt_execute returns, the hardware errors logged as the runtime logs
// them under `fn`. Throws as control requests do (callers are guarded).
NRT_STATUS execute_model(const char* fn, nrt_model_t* model, const nrt_tensor_set_t* input_set,
                         nrt_tensor_set_t* output_set, int repeat);

} // namespace neuron::shim
