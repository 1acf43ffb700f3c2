#pragma once

#include <cstdint>
#include <string_view>

namespace neuron::model {

// Where an instruction or a DMA transfer reads and writes.
enum class memory_kind : std::uint8_t { hbm, sbuf, psum };
std::string_view memory_name(memory_kind kind);

} // namespace neuron::model
