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
    std::array<char, 1500> buffer{};
    udp::endpoint from;
    explicit held(net::io_context& ioc) : socket(ioc), timer(ioc) {}
  };

  net::io_context& ioc;
  net::ip::address address;
  std::optional<port_range> range;
  std::chrono::milliseconds hold;
  stun_mode mode;
  counters& stats;
  std::map<std::uint16_t, std::shared_ptr<held>> leases;

  impl(net::io_context& context, const std::string& bind, std::optional<port_range> ports,
       std::chrono::milliseconds hold_for, stun_mode stun, counters& counted)
      : ioc(context), address(net::ip::make_address(bind)), range(ports), hold(hold_for), mode(stun),
        stats(counted) {}

  // Answers connectivity checks on a leased port until its socket closes. The handler holds
  // the lease weakly, and the pool too: a released port or a pool gone at shutdown ends it.
  void receive(const std::shared_ptr<held>& entry) {
    entry->socket.async_receive_from(
        net::buffer(entry->buffer), entry->from,
        [pool = weak_from_this(), weak = std::weak_ptr<held>(entry)](boost::system::error_code ec, std::size_t n) {
          const auto alive = pool.lock();
          const auto lease = weak.lock();
          if (ec || !alive || !lease) return;
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
                             counters& stats)
    : impl_(std::make_shared<impl>(ioc, address, range, hold, mode, stats)) {}

udp_port_pool::~udp_port_pool() = default;

std::optional<std::uint16_t> udp_port_pool::lease(const ice_credentials& credentials) {
  auto entry = impl_->bind_any();
  if (!entry) return std::nullopt;
  entry->credentials = credentials;
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
