#pragma once

#include "neuron/control/background_jobs.h"
#include "neuron/neff/neff_file.h"
#include "neuron/protocol/model_messages.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace neuron::control {

// What NEFFs on their way to being loaded may hold (README "Limits").
struct neff_upload_limits {
    // Host memory for NEFFs being loaded, every process together: the pieces
    // received, and the files queued for or being read on the NEFF thread.
    std::uint64_t max_held_bytes = std::uint64_t{8} << 30;
    // Ours: an upload that receives no piece for this long is dropped, and
    // what it held with it; the runtime sends its pieces back to back.
    std::chrono::milliseconds idle_timeout{60'000};
};

// NEFFs on their way to being loaded, and the one budget of host memory
// they share: what is actually held, the pieces received (not the size
// their first piece announced) and each whole file until the NEFF thread
// is done with it. An upload that falls idle is dropped; a connection that
// closes takes its upload and its queued files with it, and stops the one
// being read. I/O thread, except where said.
class neff_uploads {
public:
    using clock = std::function<std::chrono::steady_clock::time_point()>;
    // What the NEFF thread does with a file: reads it, asking `stopped`
    // often. Must not throw.
    using reader = std::function<void(const std::string& bytes, const neff::stop_test& stopped)>;

    explicit neff_uploads(
        background_jobs& thread, neff_upload_limits limits = {},
        clock now = [] { return std::chrono::steady_clock::now(); });
    ~neff_uploads();
    neff_uploads(const neff_uploads&) = delete;
    neff_uploads& operator=(const neff_uploads&) = delete;

    // A piece of the connection's NEFF: offset 0 starts one (dropping the
    // one before), the others continue it. Throws request_error: a piece
    // that continues nothing, past the budget (NRT_RESOURCE, the upload
    // dropped), or of an upload that timed out (NRT_TIMEOUT).
    void add_piece(std::uint64_t connection, const protocol::model_piece& piece);
    // The file a load_model ends: the pieces before it, then `last`; the
    // upload is over. Throws request_error when they do not make the
    // announced size, or the upload timed out.
    std::string finish(std::uint64_t connection, std::string last);
    // Queues `bytes` for `read` on the NEFF thread; they count against the
    // budget until it returns. Throws request_error (NRT_RESOURCE) past the
    // budget. Not run at all when the connection drops first.
    void read_later(std::uint64_t connection, std::string bytes, reader read);
    // The connection closed (or its NEFF was refused): its pieces are freed,
    // its queued files too, and the one being read is told to stop.
    void drop(std::uint64_t connection);

    // Any thread.
    std::uint64_t held_bytes() const;

private:
    class budget;
    struct job;
    struct upload {
        std::string bytes;
        std::uint64_t total = 0;
        std::uint64_t reserved = 0; // bytes.capacity(), counted in the budget
        std::chrono::steady_clock::time_point last_piece;
    };
    void expire_idle();
    void release(upload& u);
    void grow(upload& u, std::uint64_t needed);

    background_jobs& m_thread;
    neff_upload_limits m_limits;
    clock m_now;
    std::shared_ptr<budget> m_budget;
    std::map<std::uint64_t, upload> m_uploads;                       // by connection
    std::set<std::uint64_t> m_timed_out;                             // until the connection starts again or closes
    std::map<std::uint64_t, std::vector<std::weak_ptr<job>>> m_jobs; // by connection; the posted job owns it
};

} // namespace neuron::control
