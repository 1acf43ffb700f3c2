#pragma once

#include "neuron/profile/timeline.h"

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>

// What the views read and where they write: timelines one at a time and
// output in pieces, so that what a view holds is one timeline and its own
// working set, not every timeline nor its whole output.
namespace neuron::profile {

// Where a view writes: each piece in order, as it is ready.
using output = std::function<void(std::string_view)>;

// The timelines a view shows, in order. A source may decode them anew on
// each pass, one at a time: a view that goes through them twice (json: the
// summaries, then the rows) still holds one.
class timeline_source {
public:
    virtual ~timeline_source() = default;
    virtual void each(const std::function<void(const core_timeline&)>& visit) const = 0;
};

// Timelines already in memory.
class timeline_span final : public timeline_source {
public:
    explicit timeline_span(std::span<const core_timeline> timelines) : m_timelines(timelines) {}
    void each(const std::function<void(const core_timeline&)>& visit) const override {
        for (const auto& t : m_timelines) visit(t);
    }

private:
    std::span<const core_timeline> m_timelines;
};

// Text gathered until it is worth a write (flush_at bytes).
class output_buffer {
public:
    explicit output_buffer(const output& out, std::size_t flush_at = std::size_t{1} << 20)
            : m_out(out), m_flush_at(flush_at) {}
    std::string& text() { return m_text; }
    // Writes what is gathered once it is flush_at bytes or more.
    void written() {
        if (m_text.size() >= m_flush_at) flush();
    }
    void flush() {
        if (!m_text.empty()) m_out(m_text);
        m_text.clear();
    }

private:
    const output& m_out;
    std::size_t m_flush_at;
    std::string m_text;
};

// What a view wrote, whole: for tests and small profiles.
template <typename View>
std::string whole_output(View&& view) {
    std::string all;
    view(output([&all](std::string_view piece) { all.append(piece); }));
    return all;
}

} // namespace neuron::profile
