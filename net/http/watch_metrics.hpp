// The watched servers' part of GET /metrics: each public watched server's latest check under
// the metric names and labels of the existing Minecraft status exporters (itzg/mc-monitor's
// minecraft_status_*), so dashboards made for those work unchanged, plus a transport label and
// two families of our own (docs/WATCHES.md, "Exporter").
//
// Pure: /metrics appends this to render_metrics' text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/history_row.hpp"
#include "core/history_slice.hpp"

namespace netherscope::net::http {

/// A public watched server and its latest check.
using watched_server = core::watched_check;

/// A label value as the text format (0.0.4) writes it: valid UTF-8, with backslash, double
/// quote and line feed escaped.
std::string label_value(std::string_view text);

/// Renders the families, each with HELP and TYPE and all its samples together:
/// minecraft_status_healthy and minecraft_status_response_time_seconds per transport that was
/// asked (nethernet always, raknet when the check sent a RakNet ping),
/// minecraft_status_players_online_count and minecraft_status_players_max_count once, under
/// the transport that gave the counts, all labelled server_host, server_port,
/// server_edition="bedrock", server_version and transport; then netherscope_watch_joinable
/// and netherscope_watch_last_check_timestamp_seconds labelled server_host and server_port.
/// Servers are written in host and port order; a server given twice is written once (the
/// first given). No servers, no text.
std::string render_watch_metrics(std::vector<watched_server> servers);

} // namespace netherscope::net::http
