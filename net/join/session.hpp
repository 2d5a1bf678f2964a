// One join, from the answer to the first game packet, on sockets of its own: ICE, DTLS, SCTP,
// the two channels and RequestNetworkSettings, each stage timed, the whole bounded in time,
// datagrams and bytes. It runs in the join worker process (app/join_worker_main.cpp), so that
// a fault in the stages that read a hostile server's bytes cannot take the service down.
#pragma once

#include <functional>

#include "net/join/job.hpp"

namespace netherscope::net::join {

/// The most datagrams and bytes one join takes in before it gives up.
constexpr std::uint64_t max_datagrams_in = 4096;
constexpr std::uint64_t max_bytes_in = 2 * 1024 * 1024;

/// Hears the report as soon as the join's outcome is known, before the closing (SCTP shutdown,
/// up to 300 ms, then close_notify), so a caller need not wait for it.
using concluded_fn = std::function<void(const join_report&)>;

/// Runs the job and reports how it ended, through concluded when the join got as far as
/// closing, and as the result in every case. Sends only to the job's candidates, and answers
/// checks only from them.
join_report run_join(const join_job& job, concluded_fn concluded = {});

} // namespace netherscope::net::join
