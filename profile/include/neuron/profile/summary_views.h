#pragma once

#include "neuron/profile/timeline.h"
#include "neuron/profile/view_output.h"

#include <span>
#include <string>

// The summary and instruction views of `neuron-emu profile view`
// (docs/profile-views.md): the formats neuron-profile's --output-format
// names, from timelines alone.
namespace neuron::profile {

// summary-text: one "key value" line per summary field, a blank line between
// profiles.
void summary_text(const timeline_source& profiles, const output& out);
// summary-json: {"<worker>": {fields}} with one key per profile: the global
// NeuronCore id, then "<id>.1", "<id>.2", ... for more profiles of one core.
void summary_json(const timeline_source& profiles, const output& out);
// json: {"summary": [{fields}, ...], "instruction": [{row}, ...]}: one row per
// instruction, in time order. It goes through the profiles twice.
void profile_json(const timeline_source& profiles, const output& out);

// The same, whole.
std::string summary_text(std::span<const core_timeline> profiles);
std::string summary_json(std::span<const core_timeline> profiles);
std::string profile_json(std::span<const core_timeline> profiles);

// What an instruction row's "operands" says: its waits, signals, DMA
// transfer and tiles, as the model knows them.
std::string operands_of(const core_timeline& t, const instruction_record& r);

} // namespace neuron::profile
