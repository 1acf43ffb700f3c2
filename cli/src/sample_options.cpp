#include "sample_options.h"

namespace neuron::cli {

void add_sample_options(argument_parser& parser) {
    parser
        .option("sysfs-root", "DIR", "the driver's tree: the directory of its neuronN directories",
                "/sys/devices/virtual/neuron_device")
        .option("control", "PATH", "the emulator's control socket (default: NEURON_EMU_CONTROL; none: no emulator)");
}

tools::sample_sources read_sample_sources(const argument_parser::result& options) {
    auto sources = tools::default_sources();
    sources.sysfs_root = options.value("sysfs-root");
    if (options.given("control")) sources.control_path = options.value("control");
    return sources;
}

} // namespace neuron::cli
