#pragma once

#include "neuron/tools/logrus_line.h"

#include <string>

namespace neuron::cli {

// `entry` as the vendor's Go tools write it on stderr through logrus: the
// coloured line when stderr is a terminal, logfmt with the local time
// otherwise. With its newline.
std::string vendor_log_line(const tools::logrus_entry& entry);

} // namespace neuron::cli
