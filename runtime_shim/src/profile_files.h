#pragma once

// Profile files: the session files the emulator builds from the profiles it
// recorded (protocol read_profile), written where the application asked.

#include "nrt/nrt_status.h"

#include "control_client.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace neuron::shim::profile_files {

// The session file holding `ids` in that order, read piece by piece.
std::string fetch(control_client& client, std::span<const std::uint32_t> ids);
// The emulator forgets them.
void drop(control_client& client, std::span<const std::uint32_t> ids);
// Creates or truncates `path` with `bytes` (common/safe_output_file.h: never
// through a planted link); NRT_FAILURE, logged, when it cannot or may not.
NRT_STATUS write(const char* fn, const std::string& path, const std::string& bytes);
// `dir` and its parents, as mkdir -p by the same rules; NRT_FAILURE, logged,
// when it cannot or may not.
NRT_STATUS make_directories(const char* fn, const std::string& dir);
// The emulated instance's id, as inspect names its directory:
// NEURON_EMU_INSTANCE_ID, else "i-" and 17 hex digits hashed from the
// instance's name (stable across runs of one instance type); none, logged,
// without either.
std::optional<std::string> instance_id(const char* fn);

} // namespace neuron::shim::profile_files
