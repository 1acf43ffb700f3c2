#pragma once

// neuron-ls's views of one host sample (reference nrt-api.md §4.1; the
// formats, their eras and sources: docs/neuron-ls-facts.md). The layouts are
// those of the tools of SDK 2.25 and later, as far as captures show them:
//
// - default: NEURON DEVICE, CORES, CORE IDS, MEMORY, [CONNECTED DEVICES],
//   PCI BDF ("0000:cc:00.0"), [PID], CPU AFFINITY, NUMA NODE, [RUNTIME
//   VERSION]; no COMMAND (two real captures of these tools with processes
//   have none).
// - --wide / --show-all-procs: the layout the docs still show for them:
//   DEVICE, CORES, MEMORY, [CONNECTED], short BDF ("cc:00.0"), [PID,
//   COMMAND, RUNTIME VERSION]; COMMAND cut to 40 characters, 80 with --wide.
// - --topology: DEVICE, CORES, MEMORY, [CONNECTED], short BDF, then the
//   drawing of the links `connected` shows.
//
// Process columns appear when some device has a process; CONNECTED DEVICES
// when some device has a link (not on one-device instances). Unknown values
// print NA.

#include "neuron/tools/host_sample.h"
#include "neuron/tools/logrus_line.h"
#include "neuron/tools/no_devices_error.h"

#include <string>

namespace neuron::tools {

struct ls_options {
    bool wide = false;          // -w: COMMAND cut at 80 characters, not 40
    bool all_processes = false; // -a: every process with the device open, not only runtimes
    bool topology = false;      // -t: the narrow table, then the drawing
};

// The text neuron-ls prints: header lines, the table, the drawing with -t.
std::string ls_text(const host_sample& h, const ls_options& options);

// `neuron-ls --json-output`: a top-level array, one object per device, in the
// format of the SDK 2.28 tools (the SDK the emulator is): no instance_type or
// instance_id keys (only tools later than 2.28 add them), no trailing
// newline. Runtimes only, as the default table.
std::string ls_json(const host_sample& h);

// The drawing alone ("Neuron Device Topology" ...): empty for one device.
std::string ls_topology(const host_sample& h);

// What neuron-ls logs at level fatal when it has no device to show (then it
// exits 1 with nothing on stdout): msg "Failed to load MLA system
// information" and an error field. The field is the 2.28 tools' own for no
// device; for no driver it is taken to be the same (the tools discover
// devices by listing the driver's), and for a tree permissions keep out it
// is Go's error for the path (`open PATH: permission denied`), which no
// capture shows (docs/neuron-ls-facts.md).
logrus_entry ls_failure_entry(const no_devices_error& failure);

} // namespace neuron::tools
