#include "actors/server_page_flow.hpp"

#include <memory>
#include <utility>

#include <caf/all.hpp>

namespace netherscope::actors {

void prepare_server_page(front_actor::pointer self, const front_peers& peers,
                         const front_settings& settings, core::api_call& call) {
  auto reply = std::move(call.reply);
  call.reply = [self, history = peers.history, deadline = settings.store_deadline,
                where = call.where, checked = call.page_check,
                reply](core::api_outcome&& outcome) {
    outcome.page_of = where;
    outcome.checked = checked;
    if (!outcome.error.ok())
      return reply(std::move(outcome));
    history_query q;
    q.host = where.host;
    q.port = where.port;
    q.range = core::history_range::month;
    // Asked without a key or a session: the history actor shows only public history.
    auto held = std::make_shared<core::api_outcome>(std::move(outcome));
    self->request(history, deadline, history_atom::value, std::move(q))
      .then(
        [reply, held](history_answer& answer) {
          // A server without a public watch has no history to show, which is no error of
          // the page's.
          if (answer.error.ok())
            held->history = std::move(answer.view);
          reply(std::move(*held));
        },
        [reply, held](caf::error&) { reply(std::move(*held)); });
  };
}

} // namespace netherscope::actors
