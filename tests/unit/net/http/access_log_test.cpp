// The access log's pure pieces: the routes it leaves out, the code it reads back from an
// error body, and the request ids.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <thread>
#include <vector>

#include "net/http/access_log.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

TEST_CASE("access log: probes' routes are left out by default", "[access_log]") {
  for (auto route : {"/healthz", "/readyz", "/metrics"})
    CHECK(is_probe_route(route));
  for (auto route : {"/", "/api/info", "/api/offer", "/openapi.json", "unknown", "/healthz/"})
    CHECK_FALSE(is_probe_route(route));
}

TEST_CASE("access log: the code of an error body", "[access_log]") {
  CHECK(error_code_of(R"({"ok":false,"code":"not_found","error":"no route /x"})") == "not_found");
  CHECK(error_code_of(R"({"code":"quota_exhausted"})") == "quota_exhausted");
  CHECK(error_code_of(R"({"ok":false,"code":7})").empty());
  CHECK(error_code_of(R"({"ok":true})").empty());
  CHECK(error_code_of(R"(["code"])").empty());
  CHECK(error_code_of("<h1>Sign-in did not complete</h1>").empty());
  CHECK(error_code_of("").empty());
  CHECK(error_code_of(R"({"code":"x")").empty());
}

TEST_CASE("access log: request ids are unique, and differ between processes", "[access_log]") {
  request_ids ids;
  REQUIRE(ids.prefix().size() == 12);
  CHECK(ids.prefix().find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(ids.next() == ids.prefix() + "-1");
  CHECK(ids.next() == ids.prefix() + "-2");
  // Taken from several threads at once, no id repeats.
  std::vector<std::vector<std::string>> taken(4);
  std::vector<std::thread> threads;
  for (auto& mine : taken)
    threads.emplace_back([&ids, &mine] {
      for (int i = 0; i < 1000; ++i)
        mine.push_back(ids.next());
    });
  for (auto& t : threads)
    t.join();
  std::set<std::string> all;
  for (auto& mine : taken)
    all.insert(mine.begin(), mine.end());
  CHECK(all.size() == 4000);
  CHECK(all.count(ids.prefix() + "-fa2") == 1); // 4002 in hex: the last one taken
  // Another process (another instance) draws another prefix.
  request_ids other;
  CHECK(other.prefix() != ids.prefix());
}
