#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <type_traits>

namespace neuron::model {

// A record of several words the kernel thread rewrites while other threads
// read it: a sequence lock, so a reader gets the words of one write, never a
// mix of two. The writer never waits; a reader retries while a write is under
// way (a few stores long).
template <typename T>
class published_record {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % sizeof(std::uint64_t) == 0);
    static constexpr std::size_t word_count = sizeof(T) / sizeof(std::uint64_t);

public:
    published_record() { write(T{}); }

    // Kernel thread only.
    void write(const T& value) {
        const auto words = std::bit_cast<std::array<std::uint64_t, word_count>>(value);
        const auto seq = m_seq.load(std::memory_order_relaxed);
        m_seq.store(seq + 1, std::memory_order_relaxed);
        // Release stores, not a fence (ThreadSanitizer does not model
        // fences): a reader that sees any new word also sees the odd count.
        for (std::size_t i = 0; i < word_count; ++i) m_words[i].store(words[i], std::memory_order_release);
        m_seq.store(seq + 2, std::memory_order_release);
    }

    // Any thread.
    T read() const {
        std::array<std::uint64_t, word_count> words;
        for (;;) {
            const auto seq = m_seq.load(std::memory_order_acquire);
            if (seq % 2 != 0) continue;
            // Acquire loads keep the second read of the count after them.
            for (std::size_t i = 0; i < word_count; ++i) words[i] = m_words[i].load(std::memory_order_acquire);
            if (m_seq.load(std::memory_order_relaxed) == seq) break;
        }
        return std::bit_cast<T>(words);
    }

private:
    std::atomic<std::uint64_t> m_seq{0};
    std::array<std::atomic<std::uint64_t>, word_count> m_words{};
};

} // namespace neuron::model
