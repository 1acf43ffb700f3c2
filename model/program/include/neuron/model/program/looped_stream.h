#pragma once

#include "neuron/model/spec/errors.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

// An engine's instruction stream as it is written: a sequence of items, each
// an instruction or a loop (a block of items that runs `trips` times, with
// per-trip changes). Memory follows the text, not the trips: a loop of 10^7
// trips is one block. Readers walk what runs with a stream_cursor; counts
// come from the text (trips x body). Used for the unbound kernel (of
// kernel_op) and the bound program (of instruction).
namespace neuron::model {

// Loops nest at most this deep (a cursor holds one frame per level).
inline constexpr std::size_t max_loop_depth = 8;
// A wait step that applies to every semaphore a body instruction waits on.
inline constexpr std::uint32_t every_semaphore = UINT32_MAX;

// A per-trip change of a loop: trip t of it adds t x `step` to the value
// that an instruction of its body (at any depth) waits for on `semaphore`
// (or on any, with every_semaphore), so trip t can wait for the t-th
// signal of a producer.
struct wait_step {
    std::uint32_t semaphore = every_semaphore;
    std::uint32_t step = 0;
};

// A wait of an instruction: until `semaphore` is at least `value`.
struct semaphore_wait {
    std::uint32_t semaphore = UINT32_MAX; // UINT32_MAX: none
    std::uint32_t value = 0;
};
// An instruction waits on at most this many semaphores: its first wait,
// and up to three more, in order (the first unused one ends them).
inline constexpr std::size_t max_waits = 4;
using more_waits = std::array<semaphore_wait, max_waits - 1>;

// An item of a block's body: instruction `index` of the stream's text, or
// block `index` of its blocks.
struct stream_item {
    std::uint32_t index = 0;
    bool block = false;
};

struct loop_block {
    std::uint64_t trips = 1;
    // Bytes trip t adds (t x this) to the output offset of each body
    // instruction (kernels only: the binder checks where they write).
    std::uint64_t offset_stride = 0;
    std::vector<wait_step> steps;
    std::vector<stream_item> body;
    std::uint64_t per_trip = 0; // instructions one trip runs (saturating)

    // What the block runs in all, saturating at UINT64_MAX.
    std::uint64_t executed() const {
        const auto n = static_cast<unsigned __int128>(trips) * per_trip;
        return n > UINT64_MAX ? UINT64_MAX : static_cast<std::uint64_t>(n);
    }
    // What trip `trip` adds to a wait on `semaphore`.
    std::uint64_t wait_change(std::uint32_t semaphore, std::uint64_t trip) const {
        std::uint64_t step = 0;
        for (const auto& s : steps) {
            if (s.semaphore == every_semaphore || s.semaphore == semaphore) step += s.step;
        }
        return step * trip;
    }
};

inline std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

template <typename Op>
class stream_cursor;

template <typename Op>
class looped_stream {
public:
    using value_type = Op;
    using const_iterator = stream_cursor<Op>;

    looped_stream() : m_blocks(1) {}
    looped_stream(std::initializer_list<Op> ops) : looped_stream() {
        for (const auto& op : ops) push_back(op);
    }

    // ---- writing: instructions go into the innermost open loop ----
    void push_back(const Op& op) {
        open().body.push_back({static_cast<std::uint32_t>(m_ops.size()), false});
        m_ops.push_back(op);
        ++open().per_trip;
    }
    // Opens a loop of `trips` (at least 1) inside the innermost open one.
    void begin_loop(std::uint64_t trips, std::uint64_t offset_stride = 0, std::vector<wait_step> steps = {}) {
        if (trips == 0) throw invalid_argument_error("a loop runs at least one trip");
        if (m_open.size() >= max_loop_depth) {
            throw invalid_argument_error("loops nest at most 8 deep");
        }
        const auto index = static_cast<std::uint32_t>(m_blocks.size());
        open().body.push_back({index, true});
        loop_block b;
        b.trips = trips;
        b.offset_stride = offset_stride;
        b.steps = std::move(steps);
        m_blocks.push_back(std::move(b));
        m_open.push_back(index);
    }
    // Closes the innermost open loop, which must have a body.
    void end_loop() {
        if (m_open.empty()) throw invalid_argument_error("no loop is open");
        const auto& closed = open();
        if (closed.body.empty()) throw invalid_argument_error("a loop needs a body");
        const auto n = closed.executed();
        m_open.pop_back();
        open().per_trip = saturating_add(open().per_trip, n);
    }
    bool complete() const { return m_open.empty(); }
    void reserve(std::size_t n) {
        m_ops.reserve(n);
        m_blocks[0].body.reserve(n);
    }
    void clear() { *this = looped_stream(); }

    // ---- the text ----
    // Its instructions in the order written (a loop's body once).
    const std::vector<Op>& text() const { return m_ops; }
    std::vector<Op>& text() { return m_ops; }
    // blocks()[0] is the stream itself (one trip); the others are its loops.
    const std::vector<loop_block>& blocks() const { return m_blocks; }
    bool looped() const { return m_blocks.size() > 1; }
    // Instruction i of the text (of a stream without loops: the i-th to run).
    const Op& operator[](std::size_t i) const { return m_ops[i]; }
    Op& operator[](std::size_t i) { return m_ops[i]; }
    const Op& at(std::size_t i) const { return m_ops.at(i); }
    Op& at(std::size_t i) { return m_ops.at(i); }
    const Op& front() const { return m_ops.front(); }
    Op& front() { return m_ops.front(); }
    const Op& back() const { return m_ops.back(); }
    Op& back() { return m_ops.back(); }

    // ---- what runs ----
    // Instructions it runs (loops counted trips x body), saturating.
    std::uint64_t size() const { return m_blocks[0].per_trip; }
    bool empty() const { return m_ops.empty(); }
    // Walks what runs, in order (a stream_cursor).
    stream_cursor<Op> begin() const { return stream_cursor<Op>(*this); }
    stream_cursor<Op> end() const { return stream_cursor<Op>(); }

    // The same structure with each instruction of the text mapped once.
    template <typename To, typename F>
    looped_stream<To> map(F&& f) const {
        looped_stream<To> out;
        out.m_blocks = m_blocks;
        out.m_ops.reserve(m_ops.size());
        for (const auto& op : m_ops) out.m_ops.push_back(f(op));
        return out;
    }

private:
    template <typename>
    friend class looped_stream;

    loop_block& open() { return m_blocks[m_open.empty() ? 0 : m_open.back()]; }

    std::vector<Op> m_ops;
    std::vector<loop_block> m_blocks;
    std::vector<std::uint32_t> m_open; // loops being written
};

// Where a walk of a stream is: a stack of (block, item, trip), one frame per
// loop it is in. It always stands on an instruction, or at the end. Cheap
// to copy (no allocation).
template <typename Op>
class stream_cursor {
public:
    using value_type = Op;
    using difference_type = std::ptrdiff_t;
    using reference = const Op&;
    using pointer = const Op*;
    using iterator_category = std::forward_iterator_tag;

    stream_cursor() = default; // at the end
    explicit stream_cursor(const looped_stream<Op>& s) : m_ops(s.text().data()), m_blocks(s.blocks().data()) {
        if (s.blocks()[0].body.empty()) return;
        enter(m_blocks[0]);
        settle();
    }
    // Copies only the frames in use: engines copy cursors at every stretch.
    stream_cursor(const stream_cursor& o) { *this = o; }
    stream_cursor& operator=(const stream_cursor& o) {
        m_ops = o.m_ops;
        m_blocks = o.m_blocks;
        m_current = o.m_current;
        m_position = o.m_position;
        m_depth = o.m_depth;
        if (m_depth == 1) {
            m_frames[0] = o.m_frames[0]; // a stream without loops: no call to memmove
        } else {
            std::copy(o.m_frames.begin(), o.m_frames.begin() + m_depth, m_frames.begin());
        }
        return *this;
    }

    bool done() const { return m_current == nullptr; }
    const Op& operator*() const { return *m_current; }
    const Op* operator->() const { return m_current; }
    // Instructions run before this one (its index in the unrolled stream).
    std::uint64_t position() const { return m_position; }
    // Loops it is in, and the trip of each, outermost first.
    std::size_t depth() const { return m_depth == 0 ? 0 : m_depth - 1; }
    std::uint64_t trip(std::size_t level) const { return m_frames[level + 1].trip; }

    // The value this instruction waits for on `semaphore`, written `value`:
    // what the loops it is in add on this trip.
    std::uint64_t wait_value(std::uint32_t semaphore, std::uint32_t value) const {
        std::uint64_t v = value;
        for (std::uint32_t f = 1; f < m_depth; ++f) v += m_frames[f].block->wait_change(semaphore, m_frames[f].trip);
        return v;
    }
    // Its output offset on this trip, written `offset`.
    std::uint64_t offset(std::uint64_t offset) const {
        for (std::uint32_t f = 1; f < m_depth; ++f) offset += m_frames[f].block->offset_stride * m_frames[f].trip;
        return offset;
    }

    // Consecutive instruction items of a body are consecutive in the text,
    // so within a run of them the cursor only steps a pointer.
    void advance() {
        ++m_position;
        auto& f = m_frames[m_depth - 1];
        if (++f.at != f.run_end) {
            ++m_current;
            return;
        }
        step_out();
    }
    // The instructions from this one to the next loop or the end of its
    // body, as written (never empty, unless at the end).
    std::span<const Op> run() const {
        if (m_current == nullptr) return {};
        const auto& f = m_frames[m_depth - 1];
        return {m_current, static_cast<std::size_t>(f.run_end - f.at)};
    }
    // Moves `n` instructions on within run() (n at most its size).
    void skip(std::size_t n) {
        m_position += n;
        auto& f = m_frames[m_depth - 1];
        f.at += n;
        if (f.at != f.run_end) {
            m_current += n;
            return;
        }
        step_out();
    }
    stream_cursor& operator++() {
        advance();
        return *this;
    }
    stream_cursor operator++(int) {
        auto was = *this;
        advance();
        return was;
    }
    // Cursors compare equal only at the end (enough for a range for).
    bool operator==(const stream_cursor& o) const { return m_current == o.m_current; }

private:
    struct frame {
        const stream_item* at;
        const stream_item* run_end; // the end of the run of instruction items `at` is in
        const stream_item* end;
        const loop_block* block;
        std::uint64_t trip;
    };

    void enter(const loop_block& b) {
        const auto* body = b.body.data();
        m_frames[m_depth++] = {body, body, body + b.body.size(), &b, 0};
    }
    // At the end of a run: the loop it stands at, the next trip or the item
    // after a loop that ended.
    void step_out() {
        for (;;) {
            auto& f = m_frames[m_depth - 1];
            if (f.at != f.end) break;
            if (++f.trip < f.block->trips) {
                f.at = f.block->body.data();
                break;
            }
            if (--m_depth == 0) {
                m_current = nullptr;
                return;
            }
            ++m_frames[m_depth - 1].at; // past the loop that ended
        }
        settle();
    }
    // Enters the loops the cursor stands at, down to an instruction, and
    // finds where its run ends.
    void settle() {
        for (;;) {
            auto& f = m_frames[m_depth - 1];
            if (!f.at->block) {
                m_current = m_ops + f.at->index;
                f.run_end = f.at + 1;
                while (f.run_end != f.end && !f.run_end->block) ++f.run_end;
                return;
            }
            enter(m_blocks[f.at->index]);
        }
    }

    const Op* m_ops = nullptr;
    const loop_block* m_blocks = nullptr;
    const Op* m_current = nullptr;
    std::uint64_t m_position = 0;
    std::uint32_t m_depth = 0;
    std::array<frame, max_loop_depth + 1> m_frames;
};

// Calls f(op, loops) for each instruction of the text, in the order
// written, with the loops it is in (outermost first): checks and totals
// computed from the text, not by walking the trips.
template <typename Op, typename F>
void each_in_text(const looped_stream<Op>& s, F&& f) {
    std::array<const loop_block*, max_loop_depth> loops{};
    std::size_t depth = 0;
    const auto walk = [&](const auto& self, const loop_block& b) -> void {
        for (const auto& it : b.body) {
            if (!it.block) {
                f(s.text()[it.index], std::span<const loop_block* const>(loops.data(), depth));
                continue;
            }
            loops[depth++] = &s.blocks()[it.index];
            self(self, s.blocks()[it.index]);
            --depth;
        }
    };
    walk(walk, s.blocks()[0]);
}

// How many times an instruction in `loops` runs (saturating).
inline std::uint64_t runs_in(std::span<const loop_block* const> loops) {
    unsigned __int128 n = 1;
    for (const auto* b : loops) {
        n *= b->trips;
        if (n > UINT64_MAX) return UINT64_MAX;
    }
    return static_cast<std::uint64_t>(n);
}

// Calls f(op, runs) for each instruction of the text, with how many times
// it runs.
template <typename Op, typename F>
void each_with_runs(const looped_stream<Op>& s, F&& f) {
    each_in_text(s, [&](const Op& op, std::span<const loop_block* const> loops) { f(op, runs_in(loops)); });
}

} // namespace neuron::model
