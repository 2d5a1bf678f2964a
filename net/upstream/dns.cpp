// c-ares on Asio: the channel lives on one strand, its sockets are watched with
// stream_descriptor waits, and a steady_timer drives its timeouts.
#include "net/upstream/dns.hpp"

#include <ares.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "base/text.hpp"

namespace netherscope::net::upstream {

namespace asio = boost::asio;

namespace {

using clock_type = std::chrono::steady_clock;

std::optional<std::uint16_t> parse_port(std::string_view text) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value == 0 || value > 65535)
    return std::nullopt;
  return static_cast<std::uint16_t>(value);
}

// One entry of --dns-servers: "ip", "ipv4:port", "[ipv6]:port" or a bare IPv6 address.
std::optional<dns_server> parse_server(std::string_view item) {
  auto split = base::split_host_port(item);
  if (!split || (split->has_port && split->port.empty()))
    return std::nullopt;
  auto host = split->host;
  auto port = split->port;
  boost::system::error_code ec;
  auto address = asio::ip::make_address(std::string{host}, ec);
  if (ec)
    return std::nullopt;
  // c-ares takes a bare address per server; a scope (fe80::1%eth0) would be lost on the way.
  if (address.is_v6() && address.to_v6().scope_id() != 0)
    return std::nullopt;
  dns_server server{address, 53};
  if (!port.empty()) {
    auto number = parse_port(port);
    if (!number)
      return std::nullopt;
    server.port = *number;
  }
  return server;
}

dns_status status_of(int code) {
  switch (code) {
    case ARES_SUCCESS:
      return dns_status::ok;
    case ARES_ENOTFOUND:
    case ARES_ENODATA:
      return dns_status::not_found;
    case ARES_ETIMEOUT:
      return dns_status::timeout;
    case ARES_ESERVFAIL:
    case ARES_EREFUSED:
    case ARES_EFORMERR:
    case ARES_ENOTIMP:
    case ARES_EBADRESP:
    case ARES_ECONNREFUSED:
    case ARES_EOF:
      return dns_status::server_failure;
    case ARES_EBADNAME:
    case ARES_ENONAME:
      return dns_status::bad_name;
    default:
      return dns_status::failure;
  }
}

dns_answer failed(dns_status status, std::string detail) {
  dns_answer answer;
  answer.status = status;
  answer.detail = std::move(detail);
  return answer;
}

// The addresses of a successful getaddrinfo, in c-ares's order (RFC 6724 sorting).
std::vector<asio::ip::address> addresses_of(const ares_addrinfo* info) {
  std::vector<asio::ip::address> out;
  for (auto node = info ? info->nodes : nullptr; node != nullptr; node = node->ai_next) {
    if (node->ai_family == AF_INET && node->ai_addrlen >= sizeof(sockaddr_in)) {
      sockaddr_in sa{};
      std::memcpy(&sa, node->ai_addr, sizeof sa);
      out.push_back(asio::ip::address_v4{ntohl(sa.sin_addr.s_addr)});
    } else if (node->ai_family == AF_INET6 && node->ai_addrlen >= sizeof(sockaddr_in6)) {
      sockaddr_in6 sa{};
      std::memcpy(&sa, node->ai_addr, sizeof sa);
      asio::ip::address_v6::bytes_type bytes;
      std::memcpy(bytes.data(), &sa.sin6_addr, bytes.size());
      out.push_back(asio::ip::address_v6{bytes, sa.sin6_scope_id});
    }
  }
  return out;
}

// The shortest TTL among the records, never negative. The hosts file gives 0, so its
// answers are read again each time, as the system resolver would.
std::chrono::seconds ttl_of(const ares_addrinfo* info) {
  std::optional<int> shortest;
  for (auto node = info ? info->nodes : nullptr; node != nullptr; node = node->ai_next)
    shortest = std::min(shortest.value_or(node->ai_ttl), node->ai_ttl);
  return std::chrono::seconds{std::max(shortest.value_or(0), 0)};
}

// c-ares needs ares_library_init once per process before any channel; on Linux it does
// little, but it is not thread-safe, so it runs exactly once.
int library_status() {
  static std::once_flag once;
  static int status = ARES_SUCCESS;
  std::call_once(once, [] { status = ares_library_init(ARES_LIB_INIT_ALL); });
  return status;
}

} // namespace

std::optional<std::vector<dns_server>> parse_dns_servers(std::string_view text,
                                                         std::string& error) {
  std::vector<dns_server> servers;
  for (auto item : base::split(text, ',')) {
    item = base::trim(item, base::ascii_whitespace);
    auto server = parse_server(item);
    if (!server) {
      error = "'" + std::string{item}
              + "' is not a name server such as 127.0.0.1, 127.0.0.1:5353 or [::1]:53";
      return std::nullopt;
    }
    servers.push_back(*server);
  }
  return servers;
}

// -- the resolver ---------------------------------------------------------------

struct dns_resolver::impl : std::enable_shared_from_this<impl> {
  using strand_type = asio::strand<asio::io_context::executor_type>;

  /// A caller waiting for a lookup.
  struct waiter {
    asio::any_io_executor ex;
    callback done;
  };

  /// One socket c-ares opened, watched for readiness. c-ares owns the descriptor.
  struct watch {
    watch(ares_socket_t fd, const strand_type& strand) : fd(fd), descriptor(strand) {
      // nop
    }
    ares_socket_t fd;
    asio::posix::stream_descriptor descriptor;
    bool want_read = false;
    bool want_write = false;
    /// Whether a wait is outstanding, so at most one of each kind is.
    bool reading = false;
    bool writing = false;
    /// False once c-ares has closed it: a late wait must not touch the descriptor number,
    /// which may belong to a new socket by then.
    bool open = true;
  };

  struct cached {
    dns_answer answer;
    clock_type::time_point expires;
  };

  /// What c-ares hands back to its callback: the resolver and the name asked for.
  struct query_context {
    impl* owner;
    std::string name;
  };

  impl(asio::io_context& ioc, dns_settings s)
    : settings(std::move(s)), strand(asio::make_strand(ioc)), timer(strand) {
    // nop
  }

  ~impl() {
    shut_down();
  }

  // -- c-ares callbacks (they run inside ares_* calls, so on the strand) ------------

  static void on_socket_state(void* data, ares_socket_t fd, int readable, int writable) {
    static_cast<impl*>(data)->socket_state(fd, readable != 0, writable != 0);
  }

  static void on_addrinfo(void* arg, int status, int, ares_addrinfo* result) {
    std::unique_ptr<query_context> ctx{static_cast<query_context*>(arg)};
    std::unique_ptr<ares_addrinfo, void (*)(ares_addrinfo*)> owned{result, &ares_freeaddrinfo};
    ctx->owner->complete(ctx->name, status, result);
  }

  // -- lookups ------------------------------------------------------------------

  void start(std::string name, waiter w) {
    if (stopping)
      return;
    auto now = clock_type::now();
    if (auto hit = cache.find(name); hit != cache.end()) {
      if (now < hit->second.expires)
        return deliver(w, hit->second.answer);
      cache.erase(hit);
    }
    auto [flight, fresh] = flights.try_emplace(name);
    flight->second.push_back(std::move(w));
    if (!fresh)
      return;
    ares_addrinfo_hints hints{};
    hints.ai_family = AF_UNSPEC;
    auto ctx = std::make_unique<query_context>(query_context{this, name});
    // The callback may run inside this call (a hosts-file hit), which is why the flight
    // is recorded first. c-ares reads the hosts file here, on the strand: a small local
    // file, read the way getaddrinfo reads it, never the network.
    ares_getaddrinfo(channel, name.c_str(), nullptr, &hints, &on_addrinfo, ctx.release());
    arm_timer();
  }

  void complete(const std::string& name, int status, const ares_addrinfo* result) {
    if (stopping)
      return;
    dns_answer answer;
    std::chrono::seconds ttl{0};
    if (status == ARES_SUCCESS) {
      answer.addresses = addresses_of(result);
      ttl = ttl_of(result);
    }
    if (answer.addresses.empty()) {
      auto code = status == ARES_SUCCESS ? ARES_ENODATA : status;
      answer = failed(status_of(code), ares_strerror(code));
      // Only a name server's "no" is remembered; a timeout or failure may be over by the
      // next call, and concurrent callers already share this one.
      if (answer.status == dns_status::not_found)
        ttl = settings.negative_ttl;
    }
    remember(name, answer, ttl);
    auto flight = flights.extract(name);
    if (flight.empty())
      return;
    for (auto& w : flight.mapped())
      deliver(w, answer);
  }

  static void deliver(waiter& w, dns_answer answer) {
    asio::post(w.ex, [done = std::move(w.done), answer = std::move(answer)]() mutable {
      done(std::move(answer));
    });
  }

  void remember(const std::string& name, const dns_answer& answer, std::chrono::seconds ttl) {
    ttl = std::min(ttl, settings.max_ttl);
    if (ttl <= std::chrono::seconds::zero() || settings.cache_entries == 0)
      return;
    auto now = clock_type::now();
    if (cache.size() >= settings.cache_entries && cache.find(name) == cache.end()) {
      // A full cache is rare and small (cache_entries), so a scan is cheaper to keep right
      // than an ordered index: drop what has expired, else what expires first.
      for (auto it = cache.begin(); it != cache.end();)
        it = it->second.expires <= now ? cache.erase(it) : std::next(it);
      if (cache.size() >= settings.cache_entries)
        cache.erase(std::min_element(cache.begin(), cache.end(), [](auto& a, auto& b) {
          return a.second.expires < b.second.expires;
        }));
    }
    cache[name] = cached{answer, now + ttl};
  }

  // -- sockets and the timer ----------------------------------------------------

  void socket_state(ares_socket_t fd, bool readable, bool writable) {
    auto found = watches.find(fd);
    if (!readable && !writable) {
      if (found == watches.end())
        return;
      close_watch(*found->second);
      watches.erase(found);
      return;
    }
    if (stopping)
      return;
    if (found == watches.end()) {
      auto w = std::make_shared<watch>(fd, strand);
      boost::system::error_code ec;
      w->descriptor.assign(fd, ec);
      // Without a watch the socket's queries still end, by c-ares's timeout.
      if (ec)
        return;
      found = watches.emplace(fd, std::move(w)).first;
    }
    found->second->want_read = readable;
    found->second->want_write = writable;
    arm(found->second);
  }

  static void close_watch(watch& w) {
    w.open = false;
    // c-ares closes the descriptor right after telling us; releasing it makes Asio stop
    // waiting on it (pending waits end with operation_aborted) and never close it twice.
    w.descriptor.release();
  }

  void arm(const std::shared_ptr<watch>& w) {
    using wait = asio::posix::descriptor_base;
    if (w->want_read && !w->reading) {
      w->reading = true;
      w->descriptor.async_wait(wait::wait_read,
                               [self = shared_from_this(), w](boost::system::error_code ec) {
                                 self->on_ready(w, true, ec);
                               });
    }
    if (w->want_write && !w->writing) {
      w->writing = true;
      w->descriptor.async_wait(wait::wait_write,
                               [self = shared_from_this(), w](boost::system::error_code ec) {
                                 self->on_ready(w, false, ec);
                               });
    }
  }

  void on_ready(const std::shared_ptr<watch>& w, bool read, boost::system::error_code ec) {
    (read ? w->reading : w->writing) = false;
    if (stopping || !w->open || ec == asio::error::operation_aborted)
      return;
    if (!(read ? w->want_read : w->want_write))
      return;
    // Any other error is c-ares's to see when it reads or writes.
    ares_process_fd(channel, read ? w->fd : ARES_SOCKET_BAD, read ? ARES_SOCKET_BAD : w->fd);
    if (w->open)
      arm(w);
    arm_timer();
  }

  void arm_timer() {
    if (stopping)
      return;
    timeval tv{};
    auto* left = ares_timeout(channel, nullptr, &tv);
    if (left == nullptr) {
      timer.cancel();
      return;
    }
    timer.expires_after(std::chrono::seconds{left->tv_sec}
                        + std::chrono::microseconds{left->tv_usec});
    timer.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (ec || self->stopping)
        return;
      // No descriptor: c-ares only checks its deadlines, resending or failing queries.
      ares_process_fd(self->channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
      self->arm_timer();
    });
  }

  void shut_down() {
    if (stopping)
      return;
    stopping = true;
    // Waiters are dropped, not called: their executors have stopped or are going away.
    flights.clear();
    cache.clear();
    timer.cancel();
    if (channel != nullptr) {
      // Closes every socket (telling socket_state) and ends every query (complete()
      // ignores them now).
      ares_destroy(channel);
      channel = nullptr;
    }
    for (auto& entry : watches)
      close_watch(*entry.second);
    watches.clear();
  }

  // -- member variables -----------------------------------------------------------

  dns_settings settings;
  /// Every use of the channel runs here: c-ares 1.18 channels are not thread-safe.
  strand_type strand;
  asio::steady_timer timer;
  ares_channel channel = nullptr;
  bool stopping = false;
  /// Names being looked up, with everyone waiting for each.
  std::unordered_map<std::string, std::vector<waiter>> flights;
  std::unordered_map<ares_socket_t, std::shared_ptr<watch>> watches;
  std::unordered_map<std::string, cached> cache;
};

std::shared_ptr<dns_resolver> dns_resolver::make(asio::io_context& ioc, dns_settings settings,
                                                 std::string& error) {
  if (auto status = library_status(); status != ARES_SUCCESS) {
    error = std::string{"cannot start c-ares: "} + ares_strerror(status);
    return nullptr;
  }
  if (settings.timeout.count() < 1 || settings.timeout > std::chrono::minutes{10}
      || settings.tries < 1 || settings.tries > 100) {
    error = "the DNS timeout must be 1 ms to 10 min, and tries 1 to 100";
    return nullptr;
  }
  auto im = std::make_shared<impl>(ioc, std::move(settings));
  ares_options options{};
  options.timeout = static_cast<int>(im->settings.timeout.count());
  options.tries = static_cast<int>(im->settings.tries);
  options.sock_state_cb = &impl::on_socket_state;
  options.sock_state_cb_data = im.get();
  // The hosts file, then DNS: what nsswitch's usual "hosts: files dns" gives getaddrinfo,
  // fixed here so that an odd /etc/host.conf cannot leave localhost unresolvable.
  char lookups[] = "fb";
  options.lookups = lookups;
  // No search list: target names come from strangers and are asked as written, so the
  // host's resolv.conf cannot turn "db" into "db.corp.example".
  options.domains = nullptr;
  options.ndomains = 0;
  int mask = ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES | ARES_OPT_SOCK_STATE_CB | ARES_OPT_LOOKUPS
             | ARES_OPT_DOMAINS;
  if (auto status = ares_init_options(&im->channel, &options, mask); status != ARES_SUCCESS) {
    im->channel = nullptr;
    error = std::string{"cannot start the DNS resolver: "} + ares_strerror(status);
    return nullptr;
  }
  if (!im->settings.servers.empty()) {
    std::vector<ares_addr_port_node> nodes(im->settings.servers.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      auto& server = im->settings.servers[i];
      auto& node = nodes[i];
      node.next = i + 1 < nodes.size() ? &nodes[i + 1] : nullptr;
      node.udp_port = server.port;
      node.tcp_port = server.port;
      if (server.address.is_v4()) {
        node.family = AF_INET;
        node.addr.addr4.s_addr = htonl(server.address.to_v4().to_uint());
      } else {
        node.family = AF_INET6;
        auto bytes = server.address.to_v6().to_bytes();
        std::memcpy(node.addr.addr6._S6_un._S6_u8, bytes.data(), bytes.size());
      }
    }
    if (auto status = ares_set_servers_ports(im->channel, nodes.data());
        status != ARES_SUCCESS) {
      error = std::string{"cannot use the DNS servers given: "} + ares_strerror(status);
      return nullptr;
    }
  }
  return std::shared_ptr<dns_resolver>(new dns_resolver(std::move(im)));
}

bool is_localhost_name(std::string_view host) {
  if (!host.empty() && host.back() == '.')
    host.remove_suffix(1);
  constexpr std::string_view name = "localhost";
  if (host.size() < name.size()
      || !base::iequals(host.substr(host.size() - name.size()), name))
    return false;
  return host.size() == name.size() || host[host.size() - name.size() - 1] == '.';
}

void dns_resolver::resolve(const std::string& host, asio::any_io_executor ex, callback done) {
  // A literal is its own answer: no query, no cache, and no trip through the strand. So is a
  // localhost name (RFC 6761 §6.3): a machine without /etc/hosts, a minimal container say,
  // would otherwise send it to a name server, which may answer anything or nothing.
  boost::system::error_code ec;
  auto literal = asio::ip::make_address(host, ec);
  if (!ec || is_localhost_name(host)) {
    dns_answer answer;
    if (!ec) {
      answer.addresses.push_back(literal);
    } else {
      // IPv4 first: it is what servers on loopback most often listen on.
      answer.addresses.push_back(asio::ip::address_v4::loopback());
      answer.addresses.push_back(asio::ip::address_v6::loopback());
    }
    asio::post(ex, [done = std::move(done), answer = std::move(answer)]() mutable {
      done(std::move(answer));
    });
    return;
  }
  if (host.empty()) {
    asio::post(ex, [done = std::move(done)] {
      done(failed(dns_status::bad_name, "empty host name"));
    });
    return;
  }
  // Names are case-insensitive (RFC 4343), so one spelling's answer serves all of them.
  asio::post(impl_->strand, [im = impl_, name = base::ascii_lower(host),
                             w = impl::waiter{std::move(ex), std::move(done)}]() mutable {
    im->start(std::move(name), std::move(w));
  });
}

void dns_resolver::stop() {
  impl_->shut_down();
}

} // namespace netherscope::net::upstream
