#pragma once

#include "neuron/model/program/compiled_model.h"
#include "neuron/model/program/program.h"
#include "neuron/model/spec/device_spec.h"

#include <memory>
#include <string>

namespace neuron::model {

// At most this many instructions in the program of a NEFF; a longer NEFF
// runs each engine's stream in groups of consecutive instructions, one
// program instruction per group, so the latency stays the same.
inline constexpr std::uint64_t max_stream_instructions = std::uint64_t{1} << 20;

// What one execution of a NEFF's stream work runs on one device, its
// instruction set not decoded (README "What a NEFF runs"):
// - every engine runs its stream's instructions, each at the minimum
//   initiation interval (MIN_II);
// - the tensor engine's instructions share the MACs evenly, each as long as
//   a matmul of its share takes the PE array (one 128x128 pass per cycle)
//   when that is longer, the `cores` graphs' arrays working in parallel;
// - the traffic moves from HBM to SBUF in DMA transfers the Sync engine
//   issues (the engine with the most instructions where there is no Sync),
//   evenly spread along its stream, split over 16 DMA engines; again the
//   cores' share of one.
// Engines and transfers do not wait for each other: an execution lasts as
// long as its busiest engine or its traffic. Throws unsupported_error when
// the NEFF has instructions for an engine the device lacks.
std::shared_ptr<const program> stream_program(const std::string& model, const stream_work& work,
                                              const device_spec& spec);

} // namespace neuron::model
