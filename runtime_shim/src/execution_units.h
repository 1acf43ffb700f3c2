#pragma once

// The asynchronous API's execution units (nrt-api-surface.md §7.1-§7.2): per
// logical core of the process, a kind (tensor read, write, other tensor
// operations, compute, collectives) and a queue. Each unit runs its requests
// in order on a thread of its own and numbers them from 1; the sequence id
// of a request carries the unit's id in its top 16 bits.

#include "nrt/nrt_async.h"

#include <cstdint>
#include <functional>
#include <variant>

namespace neuron::shim {

enum class xu_kind : std::uint8_t { tensor_read = 0, tensor_write = 1, tensor_op = 2, compute = 3, collectives = 4 };

struct xu_address {
    std::uint32_t lnc = 0; // as this process numbers its cores
    xu_kind kind = xu_kind::compute;
    int queue = 0;
};

// Requests a unit takes before schedule answers NRT_QUEUE_FULL (ours: the
// reference gives no figure; 64 is above the implicit mode's limit of 63).
inline constexpr std::size_t max_pending_per_unit = 64;

// A request's work, run on the unit's thread: its status.
using xu_work = std::function<NRT_STATUS()>;
// Called when the request is queued, in queue order (an execution is
// submitted to the emulator then, so that a core's executions follow each
// other in simulated time): the work to run on the unit's thread.
// It is told the id the request gets.
using xu_start = std::function<xu_work(nrta_seq_t)>;
// Told the request's id and status once it has run (or was abandoned).
using xu_done = std::function<void(nrta_seq_t, NRT_STATUS)>;

// The queues a kind has: 2 for the tensor kinds, 1 for compute and collectives.
int queues_of(xu_kind kind);
// NRT_SUCCESS when the process has logical core `lnc` and the kind that queue; else logged INVALID.
NRT_STATUS check_address(const char* fn, const xu_address& where);

// Queues `work`: its id, or NRT_QUEUE_FULL, NRT_EXEC_UNIT_UNRECOVERABLE (the
// unit failed fatally before), NRT_INVALID (no such unit). Logged.
std::variant<NRT_STATUS, nrta_seq_t> schedule(const char* fn, const xu_address& where, xu_start start, xu_done done);

// NRT_INVALID (logged) for an id no unit handed out, or a NULL `completed`.
NRT_STATUS is_completed(const char* fn, nrta_seq_t seq, bool* completed);
// The unit's last completed request (sequence 0 before any).
NRT_STATUS last_completed(const char* fn, const xu_address& where, nrta_seq_t* seq);
// An eventfd that becomes readable once `seq` completed; the caller closes it.
NRT_STATUS completion_fd(const char* fn, nrta_seq_t seq, int& fd);

// Blocks until every unit of logical core `lnc` (every unit: -1) is idle.
// False, without waiting for it, when called from a unit's own thread (a
// callback) while that unit has more work queued.
bool drain_units(int lnc);
// Runs what is queued to its end, then stops every unit (nrt_close).
void stop_units();
// True on an execution unit's thread: in a request's work or done handler.
bool on_unit_thread();
// True once the asynchronous API was used since nrt_init (until nrt_close).
bool units_in_use();

} // namespace neuron::shim
