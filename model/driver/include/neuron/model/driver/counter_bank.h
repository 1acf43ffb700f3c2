#pragma once

#include "neuron/model/spec/counter.h"

#include <cstdint>

namespace neuron::model {

class notifier;
class published_state;

// The driver's counter update rules (driver-sysfs.md §3, sm.c):
//   increment: total += d; present = d; peak = max(peak, total)
//   decrement: total -= d; present = d (u64 wrap kept; peak untouched)
//   a delta of 0 changes nothing; clear zeroes exactly one field.
//   set (2.10-2.16's polled memory categories): total = present = value;
//   peak = max(peak, value) [inferred: peak is total's high-water mark].
// Values live in the published store; this class is the only writer.
class counter_bank {
public:
    counter_bank(published_state& state, notifier& notifications);

    void increment(counter_ref counter, std::uint64_t delta);
    void decrement(counter_ref counter, std::uint64_t delta);
    // A write to the field's sysfs file: zero it, then notify that file.
    void clear(counter_ref counter, counter_field field);
    // Notifies the fields it changed, none when the value was already there.
    void set(counter_ref counter, std::uint64_t value);
    // One field changes from outside the driver's rules (a recorded host's):
    // takes `value` or grows by it (u64 wrap), notifying the field when it moved.
    void restore(counter_ref counter, counter_field field, std::uint64_t value);
    void shift(counter_ref counter, counter_field field, std::uint64_t delta);

    counter_value value(counter_ref counter) const;

private:
    published_state& m_state;
    notifier& m_notifier;
};

} // namespace neuron::model
