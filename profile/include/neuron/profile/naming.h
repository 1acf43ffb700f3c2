#pragma once

#include "neuron/profile/timeline.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

// How neuron-profile names what a timeline holds (nrt-api.md §5.2, §5.3):
// one place for the labels of rows, tracks, opcodes and queues.
namespace neuron::profile {

// The engine's timeline label: "Tensor", "Vector", "Scalar", "GpSimd",
// "Sync"; a matmul's is "TensorMatrix" (the vendor's MultiplyMoving row).
std::string_view label_of(const core_timeline& t, const instruction_record& r);
// The opcode as the vendor's rows show it: MATMUL, ACTIVATE, else the NKI
// name in capitals (TENSOR_TENSOR, DMA_COPY, ...).
std::string opcode_of(const core_timeline& t, const instruction_record& r);
// The same, for each of t.opcodes in turn (what views index by record.opcode).
std::vector<std::string> shown_opcodes(const core_timeline& t);
// The DMA queue a transfer went on: "q" + the issuing engine + "IO" + the
// queue, e.g. qSyncIO0.
std::string queue_of(const transfer_record& r);
// Every semaphore the timeline changes, named as its track: "S[5] (Tensor)",
// the semaphore and the first engine or queue that adds to it.
std::map<std::uint32_t, std::string> semaphore_tracks(const core_timeline& t);

} // namespace neuron::profile
