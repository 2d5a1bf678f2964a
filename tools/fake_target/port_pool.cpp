// UDP port leasing for answer candidates. Ports are really bound so that a prober which
// sends STUN to a candidate finds a socket there, and so that exhaustion happens the way it
// does on BDS: the bind of the next port simply fails.
#include "port_pool.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <array>
#include <map>

namespace fake_target {

namespace net = boost::asio;
using udp = net::ip::udp;

struct udp_port_pool::impl : std::enable_shared_from_this<udp_port_pool::impl> {
  // One leased port: the socket that holds it and the timer that gives it back.
  struct held {
    udp::socket socket;
    net::steady_timer timer;
    ice_credentials credentials;
    std::string peer_fingerprint;
    std::unique_ptr<game_session> game;
    std::array<char, 65536> buffer{};
    udp::endpoint from;
    explicit held(net::io_context& ioc) : socket(ioc), timer(ioc) {}
  };

  net::io_context& ioc;
  net::ip::address address;
  std::optional<port_range> range;
  std::chrono::milliseconds hold;
  stun_mode mode;
  counters& stats;
  const game_settings& game;
  std::map<std::uint16_t, std::shared_ptr<held>> leases;
  /// Drives the joins' DTLS retransmissions and usrsctp's timers, from the first join on.
  net::steady_timer ticks;
  bool ticking = false;

  impl(net::io_context& context, const std::string& bind, std::optional<port_range> ports,
       std::chrono::milliseconds hold_for, stun_mode stun, counters& counted, const game_settings& g)
      : ioc(context), address(net::ip::make_address(bind)), range(ports), hold(hold_for), mode(stun),
        stats(counted), game(g), ticks(context) {}

  void tick() {
    ticks.expires_after(std::chrono::milliseconds(10));
    ticks.async_wait([pool = weak_from_this()](boost::system::error_code ec) {
      const auto alive = pool.lock();
      if (ec || !alive) return;
      sctp_timers(10);
      for (auto& [port, lease] : alive->leases)
        if (lease->game) lease->game->tick();
      alive->tick();
    });
  }

  // A nominating check starts the join as the server's side: DTLS as the client toward the
  // address the check came from (a=setup:active).
  void start_join(const std::shared_ptr<held>& lease, std::string_view datagram) {
    if (game.mode == game_mode::off || lease->game || !has_use_candidate(datagram)) return;
    auto send = [weak = std::weak_ptr<held>(lease), to = lease->from](std::string_view d) {
      if (const auto l = weak.lock()) {
        boost::system::error_code ignored;
        l->socket.send_to(net::buffer(d.data(), d.size()), to, 0, ignored);
      }
    };
    lease->game = std::make_unique<game_session>(game, lease->peer_fingerprint, std::move(send), stats);
    if (!ticking) {
      ticking = true;
      init_sctp();
      tick();
    }
    lease->game->start();
  }

  // Answers connectivity checks on a leased port until its socket closes. The handler holds
  // the lease weakly, and the pool too: a released port or a pool gone at shutdown ends it.
  void receive(const std::shared_ptr<held>& entry) {
    entry->socket.async_receive_from(
        net::buffer(entry->buffer), entry->from,
        [pool = weak_from_this(), weak = std::weak_ptr<held>(entry)](boost::system::error_code ec, std::size_t n) {
          const auto alive = pool.lock();
          const auto lease = weak.lock();
          if (ec || !alive || !lease) return;
          // RFC 7983: a first byte of 20 to 63 is DTLS, which the join on this port reads.
          const auto first = n > 0 ? static_cast<unsigned char>(lease->buffer[0]) : 0;
          if (first >= 20 && first <= 63) {
            if (lease->game) lease->game->on_datagram(std::string_view(lease->buffer.data(), n));
            alive->receive(lease);
            return;
          }
          ++alive->stats.stun_requests;
          const auto from = lease->from.address();
          std::string raw;
          if (from.is_v4()) {
            const auto b = from.to_v4().to_bytes();
            raw.assign(b.begin(), b.end());
          } else {
            const auto b = from.to_v6().to_bytes();
            raw.assign(b.begin(), b.end());
          }
          if (auto reply = answer_check(std::string_view(lease->buffer.data(), n), lease->credentials, alive->mode,
                                        raw, lease->from.port())) {
            ++alive->stats.stun_answers;
            boost::system::error_code ignored;
            // One datagram of about 100 bytes: a blocking send on UDP does not wait.
            lease->socket.send_to(net::buffer(*reply), lease->from, 0, ignored);
            alive->start_join(lease, std::string_view(lease->buffer.data(), n));
          }
          alive->receive(lease);
        });
  }


  // Binds one port; a failure (port taken by anyone, us included) is not an error here,
  // it just means this port cannot be offered.
  std::shared_ptr<held> try_bind(std::uint16_t port) {
    auto entry = std::make_shared<held>(ioc);
    boost::system::error_code ec;
    entry->socket.open(address.is_v6() ? udp::v6() : udp::v4(), ec);
    if (!ec) entry->socket.bind(udp::endpoint(address, port), ec);
    if (ec) return nullptr;
    return entry;
  }

  std::shared_ptr<held> bind_any() {
    if (!range) return try_bind(0);
    for (unsigned port = range->first; port <= range->last; ++port) {
      if (leases.count(static_cast<std::uint16_t>(port))) continue;
      if (auto entry = try_bind(static_cast<std::uint16_t>(port))) return entry;
    }
    return nullptr;
  }
};

udp_port_pool::udp_port_pool(net::io_context& ioc, const std::string& address,
                             std::optional<port_range> range, std::chrono::milliseconds hold, stun_mode mode,
                             counters& stats, const game_settings& game)
    : impl_(std::make_shared<impl>(ioc, address, range, hold, mode, stats, game)) {}

udp_port_pool::~udp_port_pool() = default;

std::optional<std::uint16_t> udp_port_pool::lease(const ice_credentials& credentials,
                                                  const std::string& peer_fingerprint) {
  auto entry = impl_->bind_any();
  if (!entry) return std::nullopt;
  entry->credentials = credentials;
  entry->peer_fingerprint = peer_fingerprint;
  boost::system::error_code ec;
  const auto port = entry->socket.local_endpoint(ec).port();
  if (ec) return std::nullopt;
  impl_->leases[port] = entry;
  impl_->receive(entry);

  // The release handler holds the pool weakly: at shutdown the pool goes away first and a
  // late timer must not touch it.
  entry->timer.expires_after(impl_->hold);
  entry->timer.async_wait([pool = std::weak_ptr<impl>(impl_), port](boost::system::error_code) {
    if (const auto alive = pool.lock()) alive->leases.erase(port);
  });
  return port;
}

std::size_t udp_port_pool::in_use() const {
  return impl_->leases.size();
}

}  // namespace fake_target
