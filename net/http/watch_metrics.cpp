#include "net/http/watch_metrics.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <tuple>

#include "core/api_json.hpp"

namespace netherscope::net::http {

namespace {

/// One sample's labels and value, before it is written.
struct sample_line {
  std::string labels;
  std::string value;
};

using sampler = std::function<void(const watched_server&, std::vector<sample_line>&)>;

std::string labels_of(const watched_server& s, std::string_view transport) {
  std::string out = "{server_host=\"" + label_value(s.host) + "\",server_port=\""
                    + std::to_string(s.port) + "\",server_edition=\"bedrock\",server_version=\""
                    + label_value(s.last.version) + "\"";
  if (!transport.empty())
    out += ",transport=\"" + std::string{transport} + "\"";
  return out + "}";
}

std::string address_labels(const watched_server& s) {
  return "{server_host=\"" + label_value(s.host) + "\",server_port=\"" + std::to_string(s.port)
         + "\"}";
}

std::string seconds(std::uint32_t us) {
  auto text = std::to_string(us / 1000000) + ".";
  auto fraction = std::to_string(us % 1000000);
  return text + std::string(6 - fraction.size(), '0') + fraction;
}

/// Each transport the check asked, and how long it took to answer (none: no answer).
std::vector<std::pair<std::string_view, std::optional<std::uint32_t>>>
transports(const core::history_row& row) {
  std::vector<std::pair<std::string_view, std::optional<std::uint32_t>>> out;
  out.emplace_back("nethernet", row.nethernet_us);
  if (row.raknet_checked)
    out.emplace_back("raknet", row.raknet_us);
  return out;
}

/// NetherNet is healthy when the check joined (its verdict is joinable only then): a status
/// that answers while players are turned away is the failure the exporter must show. RakNet is
/// healthy when its ping answered, which is all a RakNet server is asked.
bool healthy(const core::history_row& row, std::string_view transport) {
  if (transport == "raknet")
    return row.raknet_us.has_value();
  return core::is_joinable(row.verdict);
}

std::string_view count_transport(const core::history_row& row) {
  return row.players_from_raknet ? "raknet" : "nethernet";
}

void family(std::string& out, const std::vector<watched_server>& servers, std::string_view name,
            std::string_view help, const sampler& samples_of) {
  std::vector<sample_line> lines;
  for (const auto& s : servers)
    samples_of(s, lines);
  if (lines.empty())
    return;
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" gauge\n");
  for (const auto& line : lines)
    out.append(name).append(line.labels).append(" ").append(line.value).append("\n");
}

} // namespace

std::string label_value(std::string_view text) {
  std::string out;
  for (char c : core::valid_utf8(text)) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string render_watch_metrics(std::vector<watched_server> servers) {
  std::stable_sort(servers.begin(), servers.end(), [](const auto& a, const auto& b) {
    return std::tie(a.host, a.port) < std::tie(b.host, b.port);
  });
  servers.erase(std::unique(servers.begin(), servers.end(),
                            [](const auto& a, const auto& b) {
                              return a.host == b.host && a.port == b.port;
                            }),
                servers.end());

  std::string out;
  family(out, servers, "minecraft_status_healthy",
         "Whether players could join over the transport (1) or not (0) at its latest watch "
         "check: over NetherNet, a player's connection reached the game; over RakNet, the "
         "server answered its ping.",
         [](const watched_server& s, std::vector<sample_line>& lines) {
           for (const auto& [transport, us] : transports(s.last))
             lines.push_back({labels_of(s, transport), healthy(s.last, transport) ? "1" : "0"});
         });
  family(out, servers, "minecraft_status_response_time_seconds",
         "How long the server took to answer its status on the transport at its latest watch "
         "check.",
         [](const watched_server& s, std::vector<sample_line>& lines) {
           for (const auto& [transport, us] : transports(s.last))
             if (us)
               lines.push_back({labels_of(s, transport), seconds(*us)});
         });
  family(out, servers, "minecraft_status_players_online_count",
         "Players online at the latest watch check, from the transport that reported them.",
         [](const watched_server& s, std::vector<sample_line>& lines) {
           if (s.last.players)
             lines.push_back({labels_of(s, count_transport(s.last)),
                              std::to_string(*s.last.players)});
         });
  family(out, servers, "minecraft_status_players_max_count",
         "The server's player limit at the latest watch check, from the transport that "
         "reported it.",
         [](const watched_server& s, std::vector<sample_line>& lines) {
           if (s.last.max_players)
             lines.push_back({labels_of(s, count_transport(s.last)),
                              std::to_string(*s.last.max_players)});
         });
  family(out, servers, "netherscope_watch_joinable",
         "Whether players could join at the latest watch check (1) or not (0): a player's "
         "connection reached the game.",
         [](const watched_server& s, std::vector<sample_line>& lines) {
           lines.push_back({address_labels(s), core::is_joinable(s.last.verdict) ? "1" : "0"});
         });
  family(out, servers, "netherscope_watch_verdict_code",
         "The verdict of the latest watch check as its stored number (docs/WATCHES.md, "
         "\"Verdict codes\"): 1 joinable, 6 offline, 11 join_failed, ...",
         [](const watched_server& s, std::vector<sample_line>& lines) {
           lines.push_back({address_labels(s),
                            std::to_string(static_cast<unsigned>(s.last.verdict))});
         });
  family(out, servers, "netherscope_watch_last_check_timestamp_seconds",
         "When the latest watch check of the server finished, Unix seconds.",
         [](const watched_server& s, std::vector<sample_line>& lines) {
           lines.push_back({address_labels(s), std::to_string(s.last.at)});
         });
  return out;
}

} // namespace netherscope::net::http
