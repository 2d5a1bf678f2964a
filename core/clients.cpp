#include "core/clients.hpp"

#include <algorithm>

#include <boost/json/array.hpp>

#include "base/json_access.hpp"

namespace netherscope::core {

namespace json = boost::json;

namespace {

// The facts, with the short names of docs/PROTOCOL.md "Client versions and transports", which
// gives each its full reference. Keep the two tables the same.
const std::vector<client_range> table = {
  {"1.26.20 and earlier", 0, 1000,
   {reach::yes, evidence::verified, "Geyser issue #5109"},
   {reach::no, evidence::verified, "go-nethernet PR #25 (HTTP signalling came with 1.26.30)"},
   "RakNet is their only transport for joins by address."},
  {"1.26.30 to 1.26.45", 1001, 2169,
   {reach::yes, evidence::verified, "jdw-incident (BDS 1.26.45 on RakNet, real clients)"},
   {reach::yes, evidence::verified,
    "go-nethernet endpoint/handler.go (commit 2a30b6d); itzg#673"},
   "How these clients choose is not fully known: they ask /v1/join first and fall back to "
   "RakNet when nothing answers there; Pumpkin PR #3032 reports them trying RakNet against a "
   "server without it."},
  {"1.26.50", 2170, 2177,
   {reach::yes, evidence::reported, "minecraft-data PR #1321 (RakNet deprecated, not removed)"},
   {reach::yes, evidence::reported, "minecraft-data PR #1321; PowerNukkitX PR #3214"},
   "NetherNet is the default transport from 1.26.50."},
  {"1.26.51", 2178, 2193,
   {reach::yes, evidence::verified,
    "jdw-incident (retail clients joined BDS 1.26.51.1 with transport=raknet)"},
   {reach::yes, evidence::verified, "mcutil#15 (a real client joined over NetherNet)"},
   "Also reported as 1.26.52. BDS 1.26.51 logs that NetherNet is its only supported transport, "
   "yet RakNet joins were seen to work."},
  {"later than 1.26.51", 2194, -1,
   {reach::no, evidence::reported, "itzg/mc-monitor PR #172; axolotl-pm/PocketMine-MP PR #40"},
   {reach::yes, evidence::reported, "minecraft-data PR #1321 (the default since 1.26.50)"},
   "Reports name 1.26.60 as the release from which NetherNet is the only transport."},
};

/// The weaker of two tags: a sentence resting on both is only as sure as the less sure.
evidence weaker(evidence a, evidence b) {
  return static_cast<std::uint8_t>(a) > static_cast<std::uint8_t>(b) ? a : b;
}

/// How clients of one range reach the server over what answered.
struct joining {
  reach can = reach::no;
  /// "nethernet", "raknet", or empty.
  std::string_view over;
  evidence tag = evidence::verified;
};

joining join_of(const client_range& row, const transports_seen& seen) {
  if (seen.nethernet && row.nethernet.can == reach::yes)
    return {reach::yes, "nethernet", row.nethernet.tag};
  if (seen.raknet && row.raknet.can == reach::yes)
    return {reach::yes, "raknet", row.raknet.tag};
  if (seen.nethernet && row.nethernet.can == reach::unknown)
    return {reach::unknown, "nethernet", row.nethernet.tag};
  if (seen.raknet && row.raknet.can == reach::unknown)
    return {reach::unknown, "raknet", row.raknet.tag};
  // Without the ping, a range that could use RakNet is not known to be shut out.
  if (!seen.raknet_tried && row.raknet.can != reach::no)
    return {reach::unknown, {}, evidence::unknown};
  joining out;
  // Shut out: what answered is observed; that its clients cannot use it may be a report.
  if (seen.nethernet)
    out.tag = weaker(out.tag, row.nethernet.tag);
  if (seen.raknet)
    out.tag = weaker(out.tag, row.raknet.tag);
  return out;
}

json::object fact_json(const transport_fact& fact) {
  json::object o;
  o["can"] = to_string(fact.can);
  o["evidence"] = to_string(fact.tag);
  o["source"] = fact.source;
  return o;
}

std::string protocol_text(std::int64_t protocol, const std::string& version) {
  return "protocol " + std::to_string(protocol) + (version.empty() ? "" : " (" + version + ")");
}

/// "1.26.30 to 1.26.45 (verified), 1.26.50 (reported)".
std::string range_list(const std::vector<std::pair<const client_range*, evidence>>& ranges) {
  std::string out;
  for (const auto& [row, tag] : ranges)
    out += (out.empty() ? "" : ", ") + std::string{row->versions} + " ("
           + std::string{to_string(tag)} + ")";
  return out;
}

std::vector<std::string> summary_of(const transports_seen& seen,
                                    const std::vector<joining>& joins) {
  std::vector<std::string> out;
  if (seen.nethernet && seen.raknet)
    out.emplace_back("Both transports answered: NetherNet signalling (GET /v1/join) and RakNet "
                     "status (the UDP ping).");
  else if (seen.nethernet)
    out.emplace_back(seen.raknet_tried
                       ? "NetherNet signalling (GET /v1/join) answered; RakNet status did not."
                       : "NetherNet signalling (GET /v1/join) answered; RakNet was not asked.");
  else if (seen.raknet)
    out.emplace_back("RakNet status answered; NetherNet signalling (GET /v1/join) did not.");
  else
    out.emplace_back(seen.raknet_tried
                       ? "Neither NetherNet signalling (GET /v1/join) nor RakNet status answered, "
                         "so no client version is shown to reach the server."
                       : "NetherNet signalling (GET /v1/join) did not answer, and RakNet was not "
                         "asked.");

  auto protocol = seen.nethernet_protocol >= 0 ? seen.nethernet_protocol : seen.raknet_protocol;
  const auto& version = seen.nethernet_protocol >= 0 ? seen.nethernet_version
                                                     : seen.raknet_version;
  if (protocol >= 0) {
    auto* row = client_range_of(protocol);
    out.push_back("The server reports " + protocol_text(protocol, version) + ", which falls in "
                  + std::string{row->versions}
                  + ". BDS, PocketMine and Pumpkin let in only clients on their own protocol; "
                    "Geyser lets in a range of versions but names only its newest.");
    if (seen.nethernet_protocol >= 0 && seen.raknet_protocol >= 0
        && seen.nethernet_protocol != seen.raknet_protocol)
      out.push_back("Its NetherNet status reports "
                    + protocol_text(seen.nethernet_protocol, seen.nethernet_version)
                    + " and its RakNet pong "
                    + protocol_text(seen.raknet_protocol, seen.raknet_version) + ".");
  } else if (seen.nethernet || seen.raknet) {
    out.emplace_back("The server did not say its protocol, so which version it lets in is not "
                     "known.");
  }

  std::vector<std::pair<const client_range*, evidence>> over_nethernet;
  std::vector<std::pair<const client_range*, evidence>> over_raknet;
  std::vector<std::pair<const client_range*, evidence>> shut_out;
  const auto& rows = client_versions();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (joins[i].can == reach::no)
      shut_out.emplace_back(&rows[i], joins[i].tag);
    else if (joins[i].over == "nethernet")
      over_nethernet.emplace_back(&rows[i], joins[i].tag);
    else if (joins[i].over == "raknet")
      over_raknet.emplace_back(&rows[i], joins[i].tag);
  }
  if (!over_nethernet.empty())
    out.push_back("Clients that reach it over NetherNet: " + range_list(over_nethernet) + ".");
  if (!over_raknet.empty())
    out.push_back("Clients that reach it over RakNet: " + range_list(over_raknet) + ".");
  if (!shut_out.empty() && (seen.nethernet || seen.raknet))
    out.push_back("Clients that cannot reach it over what answered: " + range_list(shut_out)
                  + ".");
  if (seen.nethernet && seen.raknet)
    out.emplace_back("A client that can use NetherNet uses it whenever /v1/join answers, and is "
                     "reported not to fall back to RakNet when its offer is then refused.");
  if (seen.raknet)
    out.emplace_back("A RakNet pong shows that something answers RakNet status; it does not "
                     "prove that RakNet joins work (Pumpkin answers pings without a RakNet game "
                     "transport).");
  return out;
}

/// The protocol and version of a rendered status reply's "info" object.
void read_info(const std::string& body, std::int64_t& protocol, std::string& version) {
  auto parsed = base::parse_object(body);
  if (!parsed)
    return;
  auto* info = parsed->if_contains("info");
  if (info == nullptr || !info->is_object())
    return;
  const auto& o = info->get_object();
  if (auto* p = o.if_contains("protocol"); p != nullptr && p->is_int64())
    protocol = p->get_int64();
  if (auto* v = base::string_at(o, "version"))
    version = std::string{base::view(*v)};
}

} // namespace

const std::vector<client_range>& client_versions() {
  return table;
}

std::int32_t newest_known_protocol() {
  std::int64_t newest = 0;
  for (const auto& row : table)
    newest = std::max(newest, row.protocol_max);
  return static_cast<std::int32_t>(newest);
}

const client_range* client_range_of(std::int64_t protocol) {
  if (protocol < 0)
    return nullptr;
  for (const auto& row : table)
    if (protocol >= row.protocol_min && (row.protocol_max < 0 || protocol <= row.protocol_max))
      return &row;
  return nullptr;
}

transports_seen seen_from(const core::info_reply& info, const core::raknet_reply& raknet) {
  transports_seen seen;
  seen.nethernet = info.error.ok();
  if (seen.nethernet)
    read_info(info.body, seen.nethernet_protocol, seen.nethernet_version);
  seen.raknet_tried = raknet.tried;
  seen.raknet = raknet.tried && raknet.ok;
  if (seen.raknet) {
    seen.raknet_protocol = raknet.protocol;
    seen.raknet_version = raknet.version;
  }
  return seen;
}

json::object describe_clients(const transports_seen& seen) {
  json::object out;
  out["nethernet"] = seen.nethernet;
  out["raknet"] = seen.raknet_tried ? json::value(seen.raknet) : json::value(nullptr);
  auto protocol = seen.nethernet_protocol >= 0 ? seen.nethernet_protocol : seen.raknet_protocol;
  const auto& version = seen.nethernet_protocol >= 0 ? seen.nethernet_version
                                                     : seen.raknet_version;
  out["protocol"] = protocol >= 0 ? json::value(protocol) : json::value(nullptr);
  out["version"] = version.empty() ? json::value(nullptr) : json::value(version);
  const auto* own = client_range_of(protocol);
  std::vector<joining> joins;
  json::array ranges;
  for (const auto& row : client_versions()) {
    auto join = join_of(row, seen);
    joins.push_back(join);
    json::object r;
    r["versions"] = row.versions;
    r["protocolMin"] = row.protocol_min > 0 ? json::value(row.protocol_min) : json::value(nullptr);
    r["protocolMax"] = row.protocol_max >= 0 ? json::value(row.protocol_max)
                                             : json::value(nullptr);
    r["raknet"] = fact_json(row.raknet);
    r["nethernet"] = fact_json(row.nethernet);
    r["canJoin"] = to_string(join.can);
    r["over"] = join.over.empty() ? json::value(nullptr) : json::value(join.over);
    r["evidence"] = to_string(join.tag);
    r["serverProtocol"] = own == &row;
    r["note"] = row.note;
    ranges.push_back(std::move(r));
  }
  out["ranges"] = std::move(ranges);
  json::array summary;
  for (auto& sentence : summary_of(seen, joins))
    summary.emplace_back(std::move(sentence));
  out["summary"] = std::move(summary);
  return out;
}

std::string_view to_string(evidence tag) {
  switch (tag) {
    case evidence::verified:
      return "verified";
    case evidence::reported:
      return "reported";
    case evidence::unknown:
      return "unknown";
  }
  return "unknown";
}

std::string_view to_string(reach can) {
  switch (can) {
    case reach::yes:
      return "yes";
    case reach::no:
      return "no";
    case reach::unknown:
      return "unknown";
  }
  return "unknown";
}

} // namespace netherscope::core
