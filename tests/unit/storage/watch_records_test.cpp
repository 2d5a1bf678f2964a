// Watches: their stored form (damage refused), the record functions on both stores (LMDB in a
// temp dir, Redis on a real redis-server), the body of POST /api/watch, and what the watch
// actor refuses before it asks the store.
#include <catch2/catch.hpp>

#include <memory>

#include "actors/watch_actor.hpp"
#include "core/watch_json.hpp"
#include "core/watch_request.hpp"
#include "storage/watch_records.hpp"
#include "support/process.hpp"
#include "support/redis_server.hpp"
#include "support/store.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

storage::watch_record sample_watch(std::string id, std::uint64_t owner, std::string host,
                                   std::uint16_t port, std::uint32_t period,
                                   std::int64_t created, bool shown = false) {
  storage::watch_record w;
  w.owner = owner;
  w.watch.id = std::move(id);
  w.watch.host = std::move(host);
  w.watch.port = port;
  w.watch.period_seconds = period;
  w.watch.is_public = shown;
  w.watch.created = created;
  return w;
}

/// A store of the backend a section asks for.
struct watch_records_rig : test::backend_store {
  using backend_store::backend_store;

  /// add_watch in a write transaction of its own.
  core::failure add(const storage::watch_record& w, std::uint32_t limit) {
    core::failure out;
    in_records(*store, true, [&](storage::record_txn& t) {
      auto added = storage::add_watch(t, w, limit);
      REQUIRE(added);
      out = *added;
    });
    return out;
  }

  std::vector<storage::watch_record> list(std::uint64_t owner) {
    std::vector<storage::watch_record> out;
    in_records(*store, false, [&](storage::record_txn& t) {
      auto held = storage::list_watches(t, owner);
      REQUIRE(held);
      out = std::move(*held);
    });
    return out;
  }

  bool remove(std::uint64_t owner, const std::string& id) {
    bool out = false;
    in_records(*store, true, [&](storage::record_txn& t) {
      auto deleted = storage::delete_watch(t, owner, id);
      REQUIRE(deleted);
      out = *deleted;
    });
    return out;
  }

  std::vector<storage::watched_target> targets() {
    std::vector<storage::watched_target> out;
    in_records(*store, false, [&](storage::record_txn& t) {
      auto found = storage::watched_targets(t);
      REQUIRE(found);
      out = std::move(*found);
    });
    return out;
  }
};

} // namespace

TEST_CASE("watch records: a record reads back as written, and damage is refused", "[watch]") {
  auto w = sample_watch("AAAAAAAAAAAAAAAA", 42, "play.example.com", 19133, 120, 1'790'000'000,
                        true);
  auto bytes = storage::encode(w);
  CHECK(static_cast<std::uint8_t>(bytes[0]) == 1);
  auto back = storage::decode_watch(w.watch.id, bytes);
  REQUIRE(back);
  CHECK(back->owner == 42);
  CHECK(back->watch.id == w.watch.id);
  CHECK(back->watch.host == "play.example.com");
  CHECK(back->watch.port == 19133);
  CHECK(back->watch.period_seconds == 120);
  CHECK(back->watch.is_public);
  CHECK(back->watch.created == 1'790'000'000);

  // Every shorter record, a longer one and another version are refused.
  for (std::size_t n = 0; n < bytes.size(); ++n)
    CHECK_FALSE(storage::decode_watch("x", bytes.substr(0, n)));
  CHECK_FALSE(storage::decode_watch("x", bytes + "!"));
  auto other_version = bytes;
  other_version[0] = 2;
  CHECK_FALSE(storage::decode_watch("x", other_version));
  // The flags byte follows version, owner, created, port and period: 1 + 8 + 8 + 2 + 4.
  auto unknown_flag = bytes;
  unknown_flag[23] = 3;
  CHECK_FALSE(storage::decode_watch("x", unknown_flag));
  CHECK_FALSE(storage::decode_watch("x", storage::encode(sample_watch("x", 1, "a", 0, 60, 1))));
  CHECK_FALSE(storage::decode_watch("x", storage::encode(sample_watch("x", 1, "a", 1, 0, 1))));
  CHECK_FALSE(storage::decode_watch("x", storage::encode(sample_watch("x", 1, "", 1, 60, 1))));

  auto id = storage::new_watch_id();
  REQUIRE(id);
  CHECK(core::is_watch_id(*id));
  CHECK(*id != *storage::new_watch_id());
}

TEST_CASE("watch records: add, list, refuse duplicates and the limit, delete by the owner "
          "only, and the targets the scheduler reads",
          "[watch][redis]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  if (!backend_available(backend))
    return;
  INFO("backend " << backend);
  watch_records_rig s{backend};

  CHECK(s.add(sample_watch("bbbbbbbbbbbbbbbb", 7, "a.example", 19132, 300, 200), 3).ok());
  CHECK(s.add(sample_watch("aaaaaaaaaaaaaaaa", 7, "b.example", 19132, 600, 100, true), 3).ok());
  // Another account watches a.example too, more often.
  CHECK(s.add(sample_watch("cccccccccccccccc", 70, "a.example", 19132, 60, 300), 3).ok());

  auto mine = s.list(7);
  REQUIRE(mine.size() == 2);
  CHECK(mine[0].watch.id == "aaaaaaaaaaaaaaaa"); // oldest first
  CHECK(mine[1].watch.id == "bbbbbbbbbbbbbbbb");
  CHECK(s.list(70).size() == 1);
  CHECK(s.list(8).empty());

  // The same server again is refused, on another port it is another server.
  auto again = s.add(sample_watch("dddddddddddddddd", 7, "a.example", 19132, 900, 400), 3);
  CHECK(again.code == core::error_code::watch_exists);
  CHECK(again.message.find("bbbbbbbbbbbbbbbb") != std::string::npos);
  CHECK(s.add(sample_watch("dddddddddddddddd", 7, "a.example", 19133, 900, 400), 3).ok());
  auto full = s.add(sample_watch("eeeeeeeeeeeeeeee", 7, "c.example", 19132, 900, 500), 3);
  CHECK(full.code == core::error_code::watch_limit_reached);
  CHECK(s.list(7).size() == 3);

  auto targets = s.targets();
  REQUIRE(targets.size() == 3);
  CHECK(targets[0].host == "a.example");
  CHECK(targets[0].port == 19132);
  CHECK(targets[0].period_seconds == 60);
  CHECK(targets[0].watches == 2);
  CHECK_FALSE(targets[0].is_public);
  CHECK(targets[1].port == 19133);
  CHECK(targets[2].host == "b.example");
  CHECK(targets[2].is_public);

  // Only the owner deletes; another account's watch is as absent as an unknown one.
  CHECK_FALSE(s.remove(70, "bbbbbbbbbbbbbbbb"));
  CHECK_FALSE(s.remove(7, "zzzzzzzzzzzzzzzz"));
  CHECK(s.remove(7, "bbbbbbbbbbbbbbbb"));
  CHECK_FALSE(s.remove(7, "bbbbbbbbbbbbbbbb"));
  CHECK(s.list(7).size() == 2);
  in_records(*s.store, false, [](storage::record_txn& t) {
    auto count = storage::count_watches(t, 7);
    REQUIRE(count);
    CHECK(*count == 2);
    auto gone = storage::get_watch(t, "bbbbbbbbbbbbbbbb");
    REQUIRE(gone);
    CHECK_FALSE(*gone);
  });
  targets = s.targets();
  REQUIRE(targets.size() == 3);
  CHECK(targets[0].period_seconds == 60);
  CHECK(targets[0].watches == 1);

  // A damaged record is an error, never a watch.
  in_records(*s.store, true, [](storage::record_txn& t) {
    REQUIRE_FALSE(t.put(storage::record_table::watches, storage::watch_key("ffffffffffffffff"),
                        "\x01garbage"));
  });
  in_records(*s.store, false, [](storage::record_txn& t) {
    CHECK_FALSE(storage::get_watch(t, "ffffffffffffffff"));
    CHECK_FALSE(storage::watched_targets(t));
  });
}

TEST_CASE("watch requests: the body of POST /api/watch", "[watch]") {
  core::failure error;
  auto plain = core::parse_watch_body(R"({"host":"Play.Example.COM"})", error);
  REQUIRE(plain);
  CHECK(plain->host == "play.example.com");
  CHECK(plain->port == 19132);
  CHECK(plain->period_seconds == 300);
  CHECK_FALSE(plain->is_public);

  auto full = core::parse_watch_body(
    R"({"host":"0x7f.1","port":19133,"periodSeconds":120.0,"public":true})", error);
  REQUIRE(full);
  CHECK(full->host == "127.0.0.1"); // the same parser as /api/check
  CHECK(full->port == 19133);
  CHECK(full->period_seconds == 120);
  CHECK(full->is_public);

  auto refused = [](std::string_view body, std::string_view says) {
    core::failure why;
    INFO(body);
    CHECK_FALSE(core::parse_watch_body(body, why));
    CHECK(why.code == core::error_code::invalid_input);
    CHECK(why.message.find(says) != std::string::npos);
  };
  refused("", "JSON object");
  refused("[1]", "JSON object");
  refused(R"({"port":19132})", "host is required");
  refused(R"({"host":"bad host"})", "host");
  refused(R"({"host":"a.example","port":0})", "port must be");
  refused(R"({"host":"a.example","port":65536})", "port must be");
  refused(R"({"host":"a.example","periodSeconds":"300"})", "periodSeconds");
  refused(R"({"host":"a.example","periodSeconds":1.5})", "periodSeconds");
  refused(R"({"host":"a.example","periodSeconds":-60})", "periodSeconds");
  refused(R"({"host":"a.example","public":"yes"})", "public must be");
  refused(R"({"host":"a.example","tls":true})", "unknown field \"tls\"");
  refused(R"({"host":"a.example","period":60})", "unknown field \"period\"");

  // The account page's form sends the same fields as text, read with the same rules.
  auto form = core::parse_watch_text(" 0x7f.1 ", "19133", "120", true, error);
  REQUIRE(form);
  CHECK(form->host == "127.0.0.1");
  CHECK(form->port == 19133);
  CHECK(form->period_seconds == 120);
  CHECK(form->is_public);
  auto defaults = core::parse_watch_text("Play.Example.COM", "", "", false, error);
  REQUIRE(defaults);
  CHECK(defaults->host == "play.example.com");
  CHECK(defaults->port == 19132);
  CHECK(defaults->period_seconds == 300);
  CHECK_FALSE(defaults->is_public);
  struct text_case {
    const char* host;
    const char* port;
    const char* period;
    const char* says;
  };
  for (auto c : {text_case{"", "", "", "host is required"}, text_case{"bad host", "", "", "host"},
                 text_case{"a.example", "0", "", "port must be"},
                 text_case{"a.example", "65536", "", "port must be"},
                 text_case{"a.example", "+1", "", "port must be"},
                 text_case{"a.example", "", "0", "periodSeconds"},
                 text_case{"a.example", "", "1.5", "periodSeconds"},
                 text_case{"a.example", "", "-60", "periodSeconds"},
                 text_case{"a.example", "", "4294967296", "periodSeconds"},
                 text_case{"a.example", "", "5m", "periodSeconds"}}) {
    INFO(c.host << " " << c.port << " " << c.period);
    core::failure why;
    CHECK_FALSE(core::parse_watch_text(c.host, c.port, c.period, false, why));
    CHECK(why.code == core::error_code::invalid_input);
    CHECK(why.message.find(c.says) != std::string::npos);
  }

  core::watch_bounds bounds{60, 86400, 10};
  CHECK(core::check_watch_period(60, bounds).ok());
  CHECK(core::check_watch_period(86400, bounds).ok());
  CHECK(core::check_watch_period(59, bounds).message == "periodSeconds must be from 60 to 86400 on this server");
  CHECK(core::check_watch_period(86401, bounds).code == core::error_code::invalid_input);

  CHECK(core::is_watch_id("abcdefghijklmn-_"));
  CHECK_FALSE(core::is_watch_id("abcdefghijklmn-"));
  CHECK_FALSE(core::is_watch_id("abcdefghijklmn+/"));

  core::watch_answer listed;
  listed.limit = 10;
  listed.watches.push_back({"abcdefghijklmn-_", "a.example", 19132, 300, false, 5, {}});
  CHECK(core::render_watch_list(listed)
        == R"({"ok":true,"watches":[{"id":"abcdefghijklmn-_","host":"a.example","port":19132,)"
           R"("periodSeconds":300,"public":false,"createdAt":5,"webhooks":[]}],"limit":10})");
}

TEST_CASE("watch actor: refuses a period out of bounds and a target the policy refuses "
          "without a lookup, with the code a check gives",
          "[watch]") {
  actors::watch_settings settings;
  settings.bounds = {30, 86400, 10};
  core::watch_spec spec;
  spec.host = "play.example.com";
  CHECK(actors::refuse_watch(spec, settings).ok()); // a name is judged at each check
  spec.period_seconds = 10;
  CHECK(actors::refuse_watch(spec, settings).code == core::error_code::invalid_input);
  spec.period_seconds = 300;
  for (auto host : {"127.0.0.1", "10.1.2.3", "::1", "192.0.2.7", "localhost", "a.localhost"}) {
    INFO(host);
    spec.host = host;
    auto refused = actors::refuse_watch(spec, settings);
    CHECK(refused.code == core::error_code::forbidden_target);
    CHECK(refused.message.find("refused") != std::string::npos);
  }
  spec.host = "8.8.8.8";
  CHECK(actors::refuse_watch(spec, settings).ok());
  // --allow-loopback admits loopback, as it does for checks.
  settings.policy = upstream::address_policy{{*base::parse_cidr("127.0.0.0/8"),
                                              *base::parse_cidr("::1/128")},
                                             {}};
  spec.host = "127.0.0.1";
  CHECK(actors::refuse_watch(spec, settings).ok());
  spec.host = "localhost";
  CHECK(actors::refuse_watch(spec, settings).ok());
}
