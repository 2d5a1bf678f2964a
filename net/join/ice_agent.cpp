#include "net/join/ice_agent.hpp"

namespace netherscope::net::join {

namespace stun = nethernet::stun;

bool same_address(const stun::transport_address& a, const stun::transport_address& b) {
  if (a.port != b.port)
    return false;
  auto plain = [](const boost::asio::ip::address& x) {
    if (x.is_v6() && x.to_v6().is_v4_mapped())
      return boost::asio::ip::address{boost::asio::ip::make_address_v4(
        boost::asio::ip::v4_mapped, x.to_v6())};
    return x;
  };
  return plain(a.address) == plain(b.address);
}

ice_agent::ice_agent(ice_credentials credentials, std::uint64_t tie_breaker,
                     std::vector<remote_candidate> remotes)
  : credentials_(std::move(credentials)), tie_breaker_(tie_breaker),
    remotes_(std::move(remotes)), pairs_(remotes_.size()), first_sent_(remotes_.size()),
    next_send_(remotes_.size()) {
  stun::binding_check check;
  check.username = credentials_.remote_ufrag + ":" + credentials_.local_ufrag;
  check.priority = stun::peer_reflexive_priority;
  check.tie_breaker = tie_breaker_;
  check.key = credentials_.remote_pwd;
  for (std::size_t i = 0; i < remotes_.size(); ++i) {
    transactions_.push_back(stun::random_transaction());
    requests_.push_back(stun::binding_request(check, transactions_.back()));
  }
}

void ice_agent::nominate(std::size_t pair) {
  nominee_ = pair;
  nomination_id_ = stun::random_transaction();
  stun::binding_check check;
  check.username = credentials_.remote_ufrag + ":" + credentials_.local_ufrag;
  check.priority = stun::peer_reflexive_priority;
  check.tie_breaker = tie_breaker_;
  check.key = credentials_.remote_pwd;
  check.use_candidate = true;
  nomination_request_ = stun::binding_request(check, nomination_id_);
}

std::vector<outgoing> ice_agent::due(clock::time_point now) {
  std::vector<outgoing> out;
  if (nominee_) {
    if (!selected_ && !nomination_request_.empty()
        && (!nomination_first_ || now >= nomination_next_)) {
      if (!nomination_first_)
        nomination_first_ = now;
      nomination_next_ = now + interval;
      ++nomination_sent_;
      ++pairs_[*nominee_].checks_sent;
      out.push_back({*nominee_, nomination_request_});
    }
    return out;
  }
  for (std::size_t i = 0; i < remotes_.size(); ++i) {
    auto& p = pairs_[i];
    if (p.answered_us || p.error_answer || requests_[i].empty())
      continue;
    if (first_sent_[i] && now < next_send_[i])
      continue;
    if (!first_sent_[i])
      first_sent_[i] = now;
    next_send_[i] = now + interval;
    ++p.checks_sent;
    out.push_back({i, requests_[i]});
  }
  return out;
}

std::optional<ice_agent::clock::time_point> ice_agent::next_due() const {
  if (nominee_) {
    if (selected_ || nomination_request_.empty())
      return std::nullopt;
    return nomination_first_ ? nomination_next_ : clock::time_point{};
  }
  std::optional<clock::time_point> next;
  for (std::size_t i = 0; i < remotes_.size(); ++i) {
    const auto& p = pairs_[i];
    if (p.answered_us || p.error_answer || requests_[i].empty())
      continue;
    auto at = first_sent_[i] ? next_send_[i] : clock::time_point{};
    if (!next || at < *next)
      next = at;
  }
  return next;
}

std::optional<std::size_t> ice_agent::pair_of(const stun::transport_address& from) const {
  for (std::size_t i = 0; i < remotes_.size(); ++i)
    if (same_address(remotes_[i].where, from))
      return i;
  return std::nullopt;
}

std::string ice_agent::on_stun(std::string_view datagram, const stun::transport_address& from,
                               clock::time_point now) {
  auto pair = pair_of(from);
  if (!pair)
    return {};
  auto m = stun::read(datagram);
  if (!m)
    return {};
  auto& p = pairs_[*pair];
  if (m->type == static_cast<std::uint16_t>(stun::message_type::binding_request)) {
    // The server's check: USERNAME "<our ufrag>:<its ufrag>", keyed with our ice-pwd.
    auto user = m->find(stun::attribute_type::username);
    auto expected = credentials_.local_ufrag + ":" + credentials_.remote_ufrag;
    if (user == nullptr || user->value != expected)
      return {};
    if (!stun::integrity_ok(*m, credentials_.local_pwd))
      return {};
    if (m->find(stun::attribute_type::fingerprint) != nullptr && !stun::fingerprint_ok(*m))
      return {};
    ++p.checked_us;
    return stun::binding_success(*m, from, credentials_.local_pwd);
  }
  if (nominee_ && *nominee_ == *pair && !selected_
      && stun::judge_response(datagram, nomination_id_, credentials_.remote_pwd)
           == stun::check_answer::success) {
    selected_ = *pair;
    return {};
  }
  switch (stun::judge_response(datagram, transactions_[*pair], credentials_.remote_pwd)) {
    case stun::check_answer::success:
      if (!p.answered_us) {
        p.answered_us = true;
        if (first_sent_[*pair]) {
          std::chrono::duration<double, std::milli> rtt = now - *first_sent_[*pair];
          p.rtt_ms = rtt.count();
        }
        if (!nominee_)
          nominate(*pair);
      }
      break;
    case stun::check_answer::error:
      p.error_answer = true;
      break;
    case stun::check_answer::bad_integrity:
      ++p.bad_integrity;
      break;
    case stun::check_answer::unrelated:
      break;
  }
  return {};
}

} // namespace netherscope::net::join
