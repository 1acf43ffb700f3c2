#pragma once

// A small timeline built by hand, with every kind of record, for the view
// tests. Times in ns below (records hold ps):
//
//   vector  tensor_copy   1000-2000
//   sync    dma_copy      1000-1600  -> transfer 0, hbm->sbuf, S[0] +16
//   sync    dma_copy      1600-2200  -> transfer 1, hbm->sbuf, S[0] +16
//   DMA     transfer 0    2300-3300  (qSyncIO0, 131072 bytes)
//   DMA     transfer 1    2900-3900  (overlaps: a second row)
//   tensor  nc_matmul     4000-5000  waits S[0] >= 32, signals S[1], "k.py:1"
//   tensor  nc_matmul     5000-6000
//   scalar  activation    5200-5700  waits S[1] >= 1, signals S[2]
//
// The execution runs from 1000 to 11000 ns on nd0 nc0 of a trn1.2xlarge.

#include "neuron/profile/timeline.h"

namespace neuron::profile::testing {

inline constexpr std::uint64_t ns = 1000; // ps

inline core_timeline small_timeline() {
    core_timeline t;
    t.instance_type = "trn1.2xlarge";
    t.model_name = "fixture";
    t.execution = 1;
    t.start_ps = 1000 * ns;
    t.end_ps = 11000 * ns;
    t.figures.core_clock_hz = 1'400'000'000;
    t.figures.engine_clock_hz = {1'400'000'000, 1'400'000'000, 1'400'000'000, 1'400'000'000, 1'400'000'000};
    t.figures.dma_engines = 16;
    t.figures.queues_per_dma_engine = 16;
    t.figures.dma_bytes_per_ns = 17;
    t.figures.memory_bytes_per_ns = 820;
    t.figures.cores_per_device = 2;
    t.opcodes = {"nc_matmul", "tensor_copy", "dma_copy", "activation", "work"};
    t.sources = {"k.py:1"};
    const auto dma = [&](std::uint32_t index, std::uint64_t start, std::uint32_t transfer) {
        instruction_record r;
        r.engine = 4;
        r.index = index;
        r.opcode = 2;
        r.start_ps = start * ns;
        r.end_ps = (start + 600) * ns;
        r.transfer = transfer;
        return r;
    };
    instruction_record copy;
    copy.engine = 1;
    copy.opcode = 1;
    copy.start_ps = 1000 * ns;
    copy.end_ps = 2000 * ns;
    copy.memories = touches_sbuf;
    instruction_record mm0;
    mm0.engine = 0;
    mm0.opcode = 0;
    mm0.start_ps = 4000 * ns;
    mm0.end_ps = 5000 * ns;
    mm0.macs = 8'388'608;
    mm0.wait_semaphore = 0;
    mm0.wait_value = 32;
    mm0.signal_semaphore = 1;
    mm0.signal_increment = 1;
    mm0.source = 0;
    mm0.memories = touches_sbuf | touches_psum;
    mm0.row_groups = 4;
    auto mm1 = mm0;
    mm1.index = 1;
    mm1.start_ps = 5000 * ns;
    mm1.end_ps = 6000 * ns;
    mm1.wait_semaphore = none;
    mm1.signal_semaphore = none;
    mm1.source = none;
    instruction_record act;
    act.engine = 2;
    act.opcode = 3;
    act.start_ps = 5200 * ns;
    act.end_ps = 5700 * ns;
    act.wait_semaphore = 1;
    act.wait_value = 1;
    act.signal_semaphore = 2;
    act.signal_increment = 1;
    t.instructions = {mm0, mm1, copy, act, dma(0, 1000, 0), dma(1, 1600, 1)};
    for (std::uint32_t x = 0; x < 2; ++x) {
        transfer_record r;
        r.issued_ps = (1600 + 600 * x) * ns;
        r.arrives_ps = r.issued_ps + 700 * ns;
        r.bytes_per_partition = 1024;
        r.partitions = 128;
        r.dma_engines = 16;
        r.signal_semaphore = 0;
        r.engine = 4;
        t.transfers.push_back(r);
    }
    t.dma_runs = {{2300 * ns, 3300 * ns, 131072, 0, 0xffff, false}, {2900 * ns, 3900 * ns, 131072, 1, 0xffff, false}};
    t.semaphores = {{3300 * ns, 0, 16}, {3900 * ns, 0, 32}, {5000 * ns, 1, 1}, {5700 * ns, 2, 1}};
    return t;
}

// The same, stopped by a DMA abort at 6000 ns.
inline core_timeline aborted_timeline() {
    auto t = small_timeline();
    t.faults.push_back({6000 * ns, "dma_abort", 1203, 3});
    t.status = 1203;
    return t;
}

} // namespace neuron::profile::testing
