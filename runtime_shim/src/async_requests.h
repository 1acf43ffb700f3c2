#pragma once

// The work behind each scheduling call of the asynchronous API, checked when
// it is scheduled (a bad argument fails the call, not the request) and run
// later on its execution unit. Both published forms of the API (2.x and 3.0)
// schedule these.

#include "execution_units.h"

#include <variant>

namespace neuron::shim {

struct async_work {
    xu_address where;
    xu_start start;
};
using work_or_status = std::variant<NRT_STATUS, async_work>;

// Work that needs nothing done when it is queued.
xu_start now(xu_work work);
// An execution, submitted to the emulator when it is queued.
xu_start execution_start(const char* fn, nrt_model_t* model, const nrt_tensor_set_t* input, nrt_tensor_set_t* output);

// The logical core a tensor belongs to: a device tensor's, else the process's first.
std::uint32_t lnc_of(const nrt_tensor_t* tensor);

work_or_status tensor_write_work(const char* fn, nrt_tensor_t* tensor, const void* buf, std::uint64_t offset,
                                 std::uint64_t size, xu_kind kind, int queue);
work_or_status tensor_read_work(const char* fn, void* buf, const nrt_tensor_t* tensor, std::uint64_t offset,
                                std::uint64_t size, xu_kind kind, int queue);
work_or_status tensor_copy_work(const char* fn, const nrt_tensor_t* src, std::uint64_t src_offset, nrt_tensor_t* dst,
                                std::uint64_t dst_offset, std::uint64_t size, int queue);
work_or_status execute_work(const char* fn, nrt_model_t* model, const nrt_tensor_set_t* input, nrt_tensor_set_t* output,
                            int queue);

// Schedules checked work; `done` hears its outcome. Writes the id on success.
NRT_STATUS schedule_work(const char* fn, work_or_status checked, nrta_seq_t* req_sequence, xu_done done);

} // namespace neuron::shim
