#include "neuron/model/driver/counter_bank.h"

#include "neuron/model/driver/notifier.h"
#include "neuron/model/state/published_state.h"

namespace neuron::model {
namespace {

using word = std::atomic<std::uint64_t>;

std::uint64_t get(const word& w) { return w.load(std::memory_order_relaxed); }
void put(word& w, std::uint64_t v) { w.store(v, std::memory_order_relaxed); }

} // namespace

counter_bank::counter_bank(published_state& state, notifier& notifications)
        : m_state(state), m_notifier(notifications) {}

void counter_bank::increment(counter_ref counter, std::uint64_t delta) {
    auto& total = m_state.counter_word(counter, counter_field::total);
    if (delta == 0) return;
    auto& present = m_state.counter_word(counter, counter_field::present);
    auto& peak = m_state.counter_word(counter, counter_field::peak);

    const std::uint64_t new_total = get(total) + delta;
    put(total, new_total);
    put(present, delta);
    field_mask changed = field_mask(counter_field::total) | counter_field::present;
    if (new_total > get(peak)) {
        put(peak, new_total);
        changed = changed | counter_field::peak;
    }
    m_notifier.counter_changed(counter, changed);
}

void counter_bank::decrement(counter_ref counter, std::uint64_t delta) {
    auto& total = m_state.counter_word(counter, counter_field::total);
    if (delta == 0) return;
    auto& present = m_state.counter_word(counter, counter_field::present);

    put(total, get(total) - delta);
    put(present, delta);
    m_notifier.counter_changed(counter, field_mask(counter_field::total) | counter_field::present);
}

void counter_bank::clear(counter_ref counter, counter_field field) {
    put(m_state.counter_word(counter, field), 0);
    m_notifier.counter_changed(counter, field);
}

void counter_bank::set(counter_ref counter, std::uint64_t value) {
    auto& total = m_state.counter_word(counter, counter_field::total);
    auto& present = m_state.counter_word(counter, counter_field::present);
    auto& peak = m_state.counter_word(counter, counter_field::peak);
    field_mask changed;
    if (get(total) != value) {
        put(total, value);
        changed = changed | counter_field::total;
    }
    if (get(present) != value) {
        put(present, value);
        changed = changed | counter_field::present;
    }
    if (value > get(peak)) {
        put(peak, value);
        changed = changed | counter_field::peak;
    }
    if (!changed.empty()) m_notifier.counter_changed(counter, changed);
}

void counter_bank::restore(counter_ref counter, counter_field field, std::uint64_t value) {
    auto& word = m_state.counter_word(counter, field);
    if (get(word) == value) return;
    put(word, value);
    m_notifier.counter_changed(counter, field);
}

void counter_bank::shift(counter_ref counter, counter_field field, std::uint64_t delta) {
    auto& word = m_state.counter_word(counter, field);
    if (delta == 0) return;
    put(word, get(word) + delta);
    m_notifier.counter_changed(counter, field);
}

counter_value counter_bank::value(counter_ref counter) const { return m_state.counter(counter); }

} // namespace neuron::model
