// The service's own HTTP client, set up as the tests that drive it directly need it: on the
// caller's io_context, allowed to reach loopback targets only.
#pragma once

#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>

#include "base/cidr.hpp"
#include "net/upstream/http_client.hpp"

namespace netherscope::test {

inline std::shared_ptr<net::upstream::http_client> loopback_client(boost::asio::io_context& ioc,
                                                         unsigned offers_per_minute = 6) {
  net::upstream::client_settings settings;
  settings.offers_per_minute = offers_per_minute;
  settings.policy = net::upstream::address_policy{{*base::parse_cidr("127.0.0.0/8")}, {}};
  std::string error;
  auto client = net::upstream::http_client::make(ioc, settings, error);
  INFO(error);
  REQUIRE(client);
  return client;
}

} // namespace netherscope::test
