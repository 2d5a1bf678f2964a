// The join's pure parts (net/join): the Bedrock packets and NetherNet segments byte for byte
// as PROTOCOL.md "The join" lays them out, the DCEP messages every answerer accepted, what a
// join reads from an answer, ICE's two directions and nomination, and the job and report as
// they cross the worker's pipes (the report read back as hostile input).
#include <catch2/catch.hpp>

#include <cctype>
#include <string>
#include <vector>

#include "net/join/answer_terms.hpp"
#include "net/join/dcep.hpp"
#include "net/join/dtls.hpp"
#include "net/join/game.hpp"
#include "net/join/ice_agent.hpp"
#include "net/join/job.hpp"
#include "net/nethernet/identity.hpp"

namespace join = netherscope::net::join;
namespace stun = netherscope::net::nethernet::stun;

namespace {

std::string bytes(std::initializer_list<int> list) {
  std::string out;
  for (int b : list)
    out.push_back(static_cast<char>(b));
  return out;
}

stun::transport_address at(const char* ip, std::uint16_t port) {
  return {boost::asio::ip::make_address(ip), port};
}

} // namespace

TEST_CASE("join: RequestNetworkSettings and the answers to it, byte for byte", "[join]") {
  CHECK(join::whole_segment(join::request_network_settings(2193))
        == bytes({0x00, 0x06, 0xC1, 0x01, 0x00, 0x00, 0x08, 0x91}));
  auto settings = join::read_batch(
    bytes({0x0C, 0x8F, 0x01, 0x01, 0x00, 0xFF, 0xFF, 0x01, 0x07, 0x00, 0x00, 0x80, 0x3F}));
  REQUIRE(settings.error.empty());
  REQUIRE(settings.packets.size() == 1);
  auto& s = std::get<join::network_settings>(settings.packets[0]);
  CHECK(s.compression_threshold == 1);
  CHECK(s.compression_algorithm == 0xFFFF);
  CHECK(join::compression_name(s.compression_algorithm) == "none");
  CHECK(s.client_throttle);
  CHECK(s.throttle_threshold == 7);
  CHECK(s.throttle_scalar == 1.0f);
  auto status = join::read_batch(bytes({0x05, 0x02, 0x00, 0x00, 0x00, 0x02}));
  REQUIRE(status.error.empty());
  CHECK(std::get<join::play_status>(status.packets[0]).status == 2);
  // Disconnect: zigzag varint reason 35 (outdated client), shown message "old".
  auto gone = join::read_batch(bytes({0x07, 0x05, 0x46, 0x00, 0x03, 'o', 'l', 'd'}));
  REQUIRE(gone.error.empty());
  auto& d = std::get<join::disconnect>(gone.packets[0]);
  CHECK(d.reason == 35);
  CHECK(d.message == "old");
  // A leading "no compression" byte is read past; other packets keep their id.
  auto marked = join::read_batch(bytes({0xFF, 0x02, 0x09, 0x00}));
  REQUIRE(marked.error.empty());
  CHECK(std::get<join::other_packet>(marked.packets[0]).id == 9);
}

TEST_CASE("join: a batch that is not one says why", "[join]") {
  for (auto bad : {bytes({}), bytes({0x09, 0x02}), bytes({0x00}), bytes({0x02, 0x02, 0x00}),
                   bytes({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F})}) {
    auto r = join::read_batch(bad);
    CHECK_FALSE(r.error.empty());
  }
  std::string many;
  for (int i = 0; i < 65; ++i)
    many += bytes({0x01, 0x09});
  CHECK(join::read_batch(many).error == "more than 64 packets in one batch");
}

TEST_CASE("join: segments join when each count falls by one, and break otherwise", "[join]") {
  join::reassembler r;
  CHECK_FALSE(r.add(bytes({0x02, 'a'})).message);
  CHECK_FALSE(r.add(bytes({0x01, 'b'})).message);
  auto whole = r.add(bytes({0x00, 'c'}));
  REQUIRE(whole.message);
  CHECK(*whole.message == "abc");
  // A whole message after it starts afresh.
  CHECK(*r.add(bytes({0x00, 'd'})).message == "d");
  join::reassembler broken;
  broken.add(bytes({0x03, 'a'}));
  CHECK(broken.add(bytes({0x00, 'b'})).error == "a segment count that did not fall by one");
  CHECK_FALSE(join::reassembler{}.add({}).error.empty());
}

TEST_CASE("join: the two DCEP opens are the bytes every answerer accepted", "[join]") {
  CHECK(join::open_message(join::channel::reliable)
        == bytes({0x03, 0x00, 0, 0, 0, 0, 0, 0, 0x00, 0x13, 0x00, 0x00}) + "ReliableDataChannel");
  CHECK(join::open_message(join::channel::unreliable)
        == bytes({0x03, 0x81, 0, 0, 0, 0, 0, 0, 0x00, 0x15, 0x00, 0x00})
             + "UnreliableDataChannel");
  CHECK(join::read_dcep(bytes({0x02})) == join::dcep_message::ack);
  CHECK(join::read_dcep(join::open_message(join::channel::reliable)) == join::dcep_message::open);
  CHECK(join::read_dcep({}) == join::dcep_message::unknown);
}

TEST_CASE("join: an answer's terms give the role, and an answer without them is refused",
          "[join]") {
  const std::string answer = "v=0\r\na=ice-ufrag:abcd\r\na=ice-pwd:secretsecretsecret\r\n"
                             "a=fingerprint:sha-256 AB:CD\r\na=setup:passive\r\n"
                             "a=sctp-port:5001\r\na=max-message-size:262144\r\n";
  auto t = join::read_answer_terms(answer);
  REQUIRE(t);
  CHECK(t->ice_ufrag == "abcd");
  CHECK(t->fingerprint == "AB:CD");
  CHECK(t->role == join::dtls_role::client);
  CHECK(t->sctp_port == 5001);
  CHECK(t->max_message_size == 262144);
  std::string why;
  CHECK_FALSE(join::read_answer_terms("v=0\r\na=ice-ufrag:x\r\na=ice-pwd:y\r\n", &why));
  CHECK(why == "the answer has no sha-256 fingerprint");
  auto actpass = answer;
  actpass.replace(actpass.find("passive"), 7, "actpass");
  CHECK_FALSE(join::read_answer_terms(actpass));
}

TEST_CASE("join: ICE answers the server's checks and nominates the first pair that answers",
          "[join]") {
  join::ice_credentials creds{"ours", "our-password-0123456789", "them", "their-password-0123456"};
  join::ice_agent agent{creds, 7, {{at("127.0.0.1", 1000), "candidate:a"},
                                   {at("127.0.0.1", 1001), "candidate:b"}}};
  auto now = std::chrono::steady_clock::now();
  auto first = agent.due(now);
  REQUIRE(first.size() == 2);
  auto check = stun::read(first[1].bytes);
  REQUIRE(check);
  CHECK(check->find(stun::attribute_type::username)->value == "them:ours");
  CHECK(check->find(stun::attribute_type::use_candidate) == nullptr);
  CHECK(stun::integrity_ok(*check, creds.remote_pwd));
  // Nothing again before the interval; a retransmission after it.
  CHECK(agent.due(now + std::chrono::milliseconds{10}).empty());
  CHECK(agent.due(now + join::ice_agent::interval).size() == 2);
  // The second candidate answers: it is nominated with USE-CANDIDATE, and only it.
  agent.on_stun(stun::binding_success(*check, at("127.0.0.1", 5), creds.remote_pwd),
                at("127.0.0.1", 1001), now);
  CHECK_FALSE(agent.selected());
  auto nominating = agent.due(now + 2 * join::ice_agent::interval);
  REQUIRE(nominating.size() == 1);
  CHECK(nominating[0].pair == 1);
  auto nomination = stun::read(nominating[0].bytes);
  REQUIRE(nomination);
  CHECK(nomination->find(stun::attribute_type::use_candidate) != nullptr);
  // An answer from another address, or with a wrong key, does not count.
  agent.on_stun(stun::binding_success(*nomination, at("127.0.0.1", 5), creds.remote_pwd),
                at("127.0.0.1", 1000), now);
  agent.on_stun(stun::binding_success(*nomination, at("127.0.0.1", 5), "wrong"),
                at("127.0.0.1", 1001), now);
  CHECK_FALSE(agent.selected());
  agent.on_stun(stun::binding_success(*nomination, at("127.0.0.1", 5), creds.remote_pwd),
                at("127.0.0.1", 1001), now);
  REQUIRE(agent.selected());
  CHECK(*agent.selected() == 1);
  CHECK(agent.pairs()[1].answered_us);

  // The server's own check is answered, keyed with our password, with its address mapped.
  stun::binding_check theirs{"ours:them", 1, 9, creds.local_pwd};
  stun::transaction_id id{};
  id[0] = 1;
  auto request = stun::binding_request(theirs, id);
  auto response = agent.on_stun(request, at("127.0.0.1", 1000), now);
  REQUIRE_FALSE(response.empty());
  auto answer = stun::read(response);
  REQUIRE(answer);
  CHECK(answer->id == id);
  CHECK(stun::integrity_ok(*answer, creds.local_pwd));
  CHECK(stun::xor_mapped_address(*answer)->port == 1000);
  CHECK(agent.pairs()[0].checked_us == 1);
  // Not from a candidate, another username, or a wrong key: no answer.
  CHECK(agent.on_stun(request, at("127.0.0.2", 1000), now).empty());
  stun::binding_check wrong_user{"ours:other", 1, 9, creds.local_pwd};
  CHECK(agent.on_stun(stun::binding_request(wrong_user, id), at("127.0.0.1", 1000), now).empty());
  stun::binding_check wrong_key{"ours:them", 1, 9, "not-our-password"};
  CHECK(agent.on_stun(stun::binding_request(wrong_key, id), at("127.0.0.1", 1000), now).empty());
}

TEST_CASE("join: the job and the report cross the pipes whole, and a hostile report is "
          "bounded",
          "[join]") {
  join::join_job job;
  job.ice = {"a", "b", "c", "d"};
  job.candidates = {{at("::1", 19140), "candidate:x"}};
  job.fingerprint = "AB";
  job.role = join::dtls_role::client;
  job.certificate_pem = "CERT";
  job.key_pem = "KEY";
  job.protocol = 2193;
  job.tie_breaker = 18446744073709551615ULL;
  auto back = join::job_from_json(join::job_to_json(job));
  REQUIRE(back);
  CHECK(back->candidates.at(0).where.address.to_string() == "::1");
  CHECK(back->role == join::dtls_role::client);
  CHECK(back->tie_breaker == job.tie_breaker);
  CHECK(back->timeout == job.timeout);
  std::string why;
  CHECK_FALSE(join::job_from_json("{\"localUfrag\":\"a\"}", &why));
  CHECK_FALSE(why.empty());

  join::join_report r;
  r.stage = join::join_stage::game;
  r.outcome = join::join_outcome::outdated_server;
  r.play_status = 2;
  r.tried.push_back({"candidate:x", "[::1]:19140", 3, true, 2, 0, false, 0.5});
  r.pair = 0;
  auto read = join::report_from_json(join::report_to_json(r));
  REQUIRE(read);
  CHECK(read->outcome == join::join_outcome::outdated_server);
  CHECK(read->play_status == 2);
  CHECK(read->tried.at(0).checked_us == 2);
  CHECK(read->pair == 0);
  // A report whose pair points past what was tried, with a huge string and a wrong stage.
  auto hostile = join::report_from_json(
    "{\"stage\":\"game\",\"outcome\":\"joined\",\"pair\":5,\"detail\":\"" + std::string(10000, 'x')
    + "\",\"tried\":[]}");
  REQUIRE(hostile);
  CHECK_FALSE(hostile->pair);
  CHECK(hostile->detail.size() == 4096);
  CHECK_FALSE(join::report_from_json("{\"stage\":\"lobby\",\"outcome\":\"joined\"}"));
  CHECK_FALSE(join::report_from_json("not json"));
}

TEST_CASE("join: a job from an answer keeps the UDP candidates the policy allows, eight at most",
          "[join]") {
  auto id = netherscope::net::nethernet::make_local_identity();
  REQUIRE(id);
  std::string answer = "v=0\r\na=ice-ufrag:abcd\r\na=ice-pwd:secretsecretsecret\r\n"
                       "a=fingerprint:sha-256 AB:CD\r\na=setup:active\r\n";
  answer += "a=candidate:1 1 udp 1 10.0.0.5 19140 typ host\r\n";
  answer += "a=candidate:2 1 tcp 1 203.0.113.9 19140 typ host tcptype passive\r\n";
  answer += "a=candidate:3 2 udp 1 203.0.113.9 19141 typ host\r\n";
  answer += "a=candidate:4 1 udp 1 abc.local 19140 typ host\r\n";
  for (int i = 0; i < 10; ++i)
    answer += "a=candidate:p" + std::to_string(i) + " 1 udp 1 203.0.113.9 "
              + std::to_string(20000 + i) + " typ host\r\n";
  join::job_inputs in;
  in.local_ufrag = "ours";
  in.local_pwd = "our-password-0123456789";
  in.identity = &*id;
  in.protocol = 2193;
  in.allowed = [](const boost::asio::ip::address& a) { return !a.is_v4() || a.to_v4().to_bytes()[0] != 10; };
  auto job = join::job_from_answer(answer, in);
  REQUIRE(job);
  REQUIRE(job->candidates.size() == join::max_pairs);
  CHECK(job->candidates.front().where.port == 20000);
  CHECK(job->candidates.front().raw == "candidate:p0 1 udp 1 203.0.113.9 20000 typ host");
  CHECK(job->role == join::dtls_role::server);
  CHECK(job->certificate_pem.rfind("-----BEGIN CERTIFICATE-----", 0) == 0);
  CHECK(job->key_pem.find("PRIVATE KEY") != std::string::npos);
  std::string why;
  in.identity = nullptr;
  CHECK_FALSE(join::job_from_answer(answer, in, &why));
  CHECK(why == "our DTLS certificate or key cannot be written");
}

namespace {

/// Hands each side's datagrams to the other until neither has more, a bounded number of times.
void pump(join::dtls_session& a, join::dtls_session& b) {
  for (int round = 0; round < 20; ++round) {
    bool moved = false;
    std::vector<std::string> ignored;
    for (auto& d : a.take_output()) {
      b.on_datagram(d, ignored);
      moved = true;
    }
    for (auto& d : b.take_output()) {
      a.on_datagram(d, ignored);
      moved = true;
    }
    if (!moved)
      return;
  }
}

struct pem_pair {
  std::string cert;
  std::string key;
  std::string fingerprint;
};

/// A fresh identity's certificate and key as PEM, through job_from_answer as the service
/// writes them.
pem_pair fresh_pems() {
  auto id = netherscope::net::nethernet::make_local_identity();
  REQUIRE(id);
  join::job_inputs in;
  in.local_ufrag = "u";
  in.local_pwd = "p";
  in.identity = &*id;
  auto job = join::job_from_answer(
    "v=0\r\na=ice-ufrag:a\r\na=ice-pwd:b\r\na=fingerprint:sha-256 AB\r\n", in);
  REQUIRE(job);
  return {job->certificate_pem, job->key_pem, id->fingerprint};
}

} // namespace

TEST_CASE("join: DTLS in both roles over memory, use_srtp agreed, and a certificate that is "
          "not the expected one ends the handshake with an alert",
          "[join]") {
  auto ours = fresh_pems();
  auto theirs = fresh_pems();
  SECTION("the fingerprints match") {
    auto server = join::dtls_session::make(ours.cert, ours.key, join::dtls_role::server,
                                           theirs.fingerprint);
    // A lower-case fingerprint is the same fingerprint.
    std::string lower = ours.fingerprint;
    for (auto& c : lower)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto client = join::dtls_session::make(theirs.cert, theirs.key, join::dtls_role::client, lower);
    REQUIRE(server);
    REQUIRE(client);
    client->start();
    pump(*client, *server);
    CHECK(server->state() == join::dtls_state::connected);
    CHECK(client->state() == join::dtls_state::connected);
    CHECK(server->details().fingerprint_verified);
    CHECK(client->details().fingerprint_verified);
    CHECK(server->details().srtp_profile.rfind("SRTP_", 0) == 0);
    // Application data crosses as one record.
    REQUIRE(client->send("hello"));
    std::vector<std::string> got;
    for (auto& d : client->take_output())
      server->on_datagram(d, got);
    REQUIRE(got.size() == 1);
    CHECK(got[0] == "hello");
  }
  SECTION("the client's certificate is not the one the server expects") {
    auto server = join::dtls_session::make(ours.cert, ours.key, join::dtls_role::server,
                                           fresh_pems().fingerprint);
    auto client = join::dtls_session::make(theirs.cert, theirs.key, join::dtls_role::client,
                                           ours.fingerprint);
    REQUIRE(server);
    REQUIRE(client);
    client->start();
    pump(*client, *server);
    CHECK(server->state() == join::dtls_state::fingerprint_mismatch);
    CHECK_FALSE(server->details().fingerprint_verified);
    // The client hears the server's alert, named, from its peer.
    CHECK(client->state() == join::dtls_state::failed);
    CHECK_FALSE(client->details().alert.empty());
    CHECK(client->details().alert_from_peer);
  }
  SECTION("sessions on the same certificate keep their own expected fingerprint") {
    // The second server shares the first's context (the same PEMs) but expects another peer.
    auto first = join::dtls_session::make(ours.cert, ours.key, join::dtls_role::server,
                                          theirs.fingerprint);
    auto second = join::dtls_session::make(ours.cert, ours.key, join::dtls_role::server,
                                           fresh_pems().fingerprint);
    auto client = join::dtls_session::make(theirs.cert, theirs.key, join::dtls_role::client,
                                           ours.fingerprint);
    REQUIRE(first);
    REQUIRE(second);
    REQUIRE(client);
    client->start();
    pump(*client, *second);
    CHECK(second->state() == join::dtls_state::fingerprint_mismatch);
    CHECK(client->state() == join::dtls_state::failed);
    CHECK(first->state() == join::dtls_state::handshaking);
    CHECK_FALSE(first->details().fingerprint_verified);
  }
  SECTION("a certificate and key that are not PEM are refused at once") {
    std::string why;
    CHECK_FALSE(join::dtls_session::make("x", "y", join::dtls_role::server, "AB", &why));
    CHECK(why == "the certificate or key is not usable");
  }
}
