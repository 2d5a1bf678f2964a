#include "support/fake_xbox.hpp"

#include <fstream>
#include <stdexcept>

#include <sys/stat.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "base/cidr.hpp"
#include "base/crypto.hpp"
#include "support/http.hpp"

namespace netherscope::test {

namespace json = boost::json;

fake_xbox_process::fake_xbox_process(std::vector<std::string> args) {
  std::vector<std::string> argv{FAKE_XBOX_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  proc_ = std::make_unique<child_process>(argv);
  auto line = proc_->wait_for_line(
    [](const std::string& l) { return l.find("\"event\":\"listening\"") != std::string::npos; },
    std::chrono::seconds(20));
  if (!line)
    throw std::runtime_error("fake_xbox did not start");
  auto event = json::parse(*line).as_object();
  port_ = static_cast<unsigned>(event.at("port").as_int64());
  base_url_ = std::string{event.at("base_url").as_string()};
  kid_ = std::string{event.at("kid").as_string()};
}

net::xbox::endpoints fake_xbox_process::endpoints() const {
  net::xbox::endpoints map;
  for (auto host : net::xbox::production_hosts)
    map.bases[std::string{host}] = base_url_;
  return map;
}

void fake_xbox_process::control(const json::object& switches) {
  auto reply = http_request(port_, "POST", "/_fake/control",
                            {{"Content-Type", "application/json"}}, json::serialize(switches));
  if (reply.status != 200)
    throw std::runtime_error("fake_xbox control refused: " + reply.error + reply.body);
}

json::object fake_xbox_process::stats() {
  auto reply = http_request(port_, "GET", "/_fake/stats");
  auto value = reply.json();
  if (!value.is_object() || !value.as_object().contains("stats"))
    throw std::runtime_error("fake_xbox stats unreadable: " + reply.error + reply.body);
  return value.as_object().at("stats").as_object();
}

std::int64_t fake_xbox_process::stat(const std::string& name) {
  auto all = stats();
  auto it = all.find(name);
  return it == all.end() ? 0 : it->value().as_int64();
}

std::shared_ptr<net::upstream::http_client> make_chain_client(boost::asio::io_context& ioc) {
  net::upstream::client_settings settings;
  settings.policy = net::upstream::address_policy{
    {*base::parse_cidr("0.0.0.0/0"), *base::parse_cidr("::/0")}, {}};
  std::string error;
  auto client = net::upstream::http_client::make(ioc, settings, error);
  if (!client)
    throw std::runtime_error("no HTTP client for the chain: " + error);
  return client;
}

std::string write_key_file(const std::string& dir, const std::string& name) {
  auto path = dir + "/" + name;
  std::ofstream{path} << base::base64_encode(*base::random_bytes(32)) << "\n";
  ::chmod(path.c_str(), 0600);
  return path;
}

std::string write_endpoints_file(const std::string& dir, const fake_xbox_process& fake) {
  json::object map;
  for (const auto& [host, base] : fake.endpoints().bases)
    map[host] = base;
  auto path = dir + "/xbox-endpoints.json";
  std::ofstream{path} << json::serialize(map);
  return path;
}

} // namespace netherscope::test
