#pragma once

#include "arguments.h"

#include "neuron/tools/host_sampler.h"

namespace neuron::cli {

// The options ls, monitor and top share: which tree and which emulator.
void add_sample_options(argument_parser& parser);
tools::sample_sources read_sample_sources(const argument_parser::result& options);

} // namespace neuron::cli
