#pragma once

#include "neuron/model/driver/owner_id.h"
#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/model/spec/logical_cores.h"

#include <systemc>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace neuron::model {

// Collectives among the runtime sessions of the instance (nrt_barrier,
// nrt_all_gather, nrta_cc_*, send/receive): the ranks of a group meet, their
// contributions travel a ring over the instance's NeuronLink topology, and
// every rank gets all of them in rank order. A group whose ranks do not all
// arrive within the timeout ends, for those that did, in the collectives-hang
// status (NRT_EXEC_HW_ERR_COLLECTIVES).
// A group is one user's: ranks of processes of different users never meet,
// whatever they call their group. A rank belongs to the process that first
// took it until that process's session ends: another process arriving for
// it is refused, and the group goes on as if it never came.
// send_receive: rank 0 sends its contribution to rank 1, which contributes
// nothing. The two meet by the logical cores they run on, each naming the
// other's as its peer (a session's cores are its own), so no other process
// can stand in for either side; a group only tells a pair's transfers
// apart, and takes no ranks. Both sides declare the transfer's length and
// where the piece starts: when they differ both fail (NRT_INVALID).
enum class collective_kind : std::uint8_t { barrier = 0, all_gather = 1, send_receive = 2 };
std::string_view collective_name(collective_kind kind);

struct collective_arrival {
    owner_id owner = 0;
    std::uint32_t user = 0; // the uid of the owner's process (SO_PEERCRED): groups are per user
    std::string group;      // the communicator: the same name on every rank
    collective_kind kind = collective_kind::barrier;
    std::uint32_t rank = 0;
    std::uint32_t ranks = 1;
    physical_core core;                     // where this rank runs
    std::vector<std::uint8_t> contribution; // all_gather: the same size on every rank
    std::chrono::nanoseconds timeout{};     // from this rank's arrival
    // send_receive: the global logical cores of this side and the other,
    // the transfer's length as this side declares it, and where this piece
    // starts in it.
    std::uint32_t logical_core = 0;
    std::uint32_t peer_core = 0;
    std::uint64_t transfer_bytes = 0;
    std::uint64_t offset = 0;
};

struct collective_outcome {
    std::uint32_t status = 0; // NRT_STATUS
    std::string message;      // why, when it failed
    std::vector<std::uint8_t> gathered;
};
using collective_done = std::function<void(const collective_outcome&)>;

// The cost of one step of a ring: a rank's contribution to its neighbour.
// Ours (the reference gives no NeuronLink figures): a step costs a fixed
// `step_latency` per link hop plus the bytes at one DMA engine's rate across
// devices, or at the device memory's rate within one.
inline constexpr std::chrono::nanoseconds collective_step_latency{2000};

// Ranks one process may have waiting at once (ours: a bound on what one
// client holds in the emulator, far above what a job keeps in flight).
inline constexpr std::size_t max_waiting_per_owner = 256;
// Groups one process may hold ranks in at once (ours: a job uses a handful).
inline constexpr std::size_t max_groups_per_owner = 256;

class collectives : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(collectives);
    collectives(sc_core::sc_module_name name, const instance_type& instance);

    // Throws invalid_argument_error for a rank outside the group, a group
    // larger than the instance or a rank another process holds,
    // resource_busy_error past max_waiting_per_owner or max_groups_per_owner.
    void join(collective_arrival arrival, collective_done done);
    // The owner's session ended: its ranks leave, told NRT_CLOSED, and are
    // free for another process; the others wait on to their timeout.
    void forget(owner_id owner);

    // The simulated time a whole collective takes, cores in rank order.
    sc_core::sc_time cost(collective_kind kind, const std::vector<physical_core>& cores, std::size_t bytes) const;

private:
    struct waiting_rank {
        collective_arrival arrival;
        collective_done done;
    };
    struct operation {
        collective_kind kind;
        std::uint32_t ranks = 0;
        std::size_t bytes = 0;
        std::map<std::uint32_t, waiting_rank> arrived;
        sc_core::sc_time deadline;
        std::optional<sc_core::sc_time> finishes; // every rank arrived
        std::string refused;                      // why the ranks that met fail (NRT_INVALID), if they do
    };

    // A group as its ranks name it, within its user's.
    using group_key = std::pair<std::uint32_t, std::string>;

    void settle();
    // Refuses a rank another process holds; takes it (once every other check passed: `take`).
    void claim(const collective_arrival& arrival, bool take);
    // Where an arrival meets the others: its group, or for a send/receive
    // the sender's and receiver's cores and its group.
    static group_key key_of(const collective_arrival& arrival);
    // A send/receive piece whose two sides disagree: why, or nothing.
    static std::string mismatch(const operation& op);
    std::size_t waiting_of(owner_id owner) const;
    void wake_at(const sc_core::sc_time& when);
    unsigned hops(std::uint32_t from_device, std::uint32_t to_device) const;
    void finish(operation& op, std::uint32_t status, const std::string& message);

    const instance_type& m_instance;
    std::vector<std::vector<unsigned>> m_hops; // device to device, over connected_devices
    std::map<group_key, std::deque<operation>> m_groups;
    std::map<group_key, std::map<std::uint32_t, owner_id>> m_ranks; // who holds each rank of a group
    std::map<owner_id, std::size_t> m_groups_of;                    // groups an owner holds ranks in
    sc_core::sc_event m_due;
};

} // namespace neuron::model
