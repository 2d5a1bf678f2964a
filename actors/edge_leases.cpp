#include "actors/edge_leases.hpp"

#include "core/telemetry.hpp"

namespace netherscope::actors {


edge_leases::lookup edge_leases::answer(const std::string& id, clock_type::time_point now,
                                        std::int64_t now_unix) {
  lookup out;
  auto it = leases_.find(id);
  if (it == leases_.end())
    return out;
  auto& l = it->second;
  if (now >= l.expires || now_unix >= l.verdict.reset || l.left == 0) {
    out.ended = rest_of(id, l);
    leases_.erase(it);
    return out;
  }
  --l.left;
  ++l.made;
  core::process_telemetry().count_reserved_call();
  auto verdict = l.verdict;
  verdict.remaining = l.made >= verdict.limit ? 0 : verdict.limit - l.made;
  out.verdict = std::move(verdict);
  if (l.left == 0)
    leases_.erase(it);
  return out;
}

std::optional<edge_return> edge_leases::add(edge_grant grant) {
  auto rest = recall(grant.id);
  if (grant.calls > 0)
    leases_.emplace(std::move(grant.id),
                    lease{grant.calls, grant.made, std::move(grant.verdict),
                          std::move(grant.counter), grant.expires});
  return rest;
}

std::optional<edge_return> edge_leases::recall(const std::string& id) {
  auto it = leases_.find(id);
  if (it == leases_.end())
    return std::nullopt;
  auto rest = rest_of(id, it->second);
  leases_.erase(it);
  return rest;
}

std::vector<edge_return> edge_leases::take_all() {
  std::vector<edge_return> out;
  for (auto& [id, l] : leases_)
    if (auto rest = rest_of(id, l))
      out.push_back(std::move(*rest));
  leases_.clear();
  return out;
}

std::optional<edge_return> edge_leases::rest_of(const std::string& id, const lease& l) {
  if (l.left == 0)
    return std::nullopt;
  return edge_return{id, l.left, l.verdict.reset, l.counter};
}

} // namespace netherscope::actors
