// One client connection of our HTTP server: keep-alive, bounded pipelining, timeouts.
//
// Requests are read ahead while earlier ones are still with the actors, up to the pipeline
// limit; responses are written strictly in request order. Everything runs on the
// connection's strand, and replies from the actors are posted onto it.
#include <chrono>
#include <deque>
#include <memory>
#include <optional>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <boost/json/object.hpp>

#include "core/api_json.hpp"
#include "core/error_table.hpp"
#include "core/offer_outcome.hpp"
#include "base/log.hpp"
#include "net/http/access_log.hpp"
#include "net/http/client_request.hpp"
#include "net/http/framing.hpp"
#include "net/http/listener.hpp"
#include "net/http/router.hpp"
#include "net/http/watch_metrics.hpp"
#include "net/http/wire.hpp"

namespace netherscope::net::http {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using clock_type = std::chrono::steady_clock;

/// Counts a value up for as long as it lives.
class counted {
public:
  explicit counted(std::atomic<std::size_t>& counter) : counter_(&counter) {
    counter_->fetch_add(1, std::memory_order_relaxed);
  }
  counted(counted&& other) noexcept : counter_(other.counter_) {
    other.counter_ = nullptr;
  }
  counted(const counted&) = delete;
  counted& operator=(const counted&) = delete;
  counted& operator=(counted&&) = delete;
  ~counted() {
    if (counter_ != nullptr)
      counter_->fetch_sub(1, std::memory_order_relaxed);
  }

private:
  std::atomic<std::size_t>* counter_;
};

/// An outcome that says the call got no answer, with why.
core::api_outcome unanswered(std::string message) {
  core::api_outcome outcome;
  outcome.error = core::make_failure(core::error_code::unavailable, std::move(message));
  return outcome;
}

/// Makes sure a call is answered exactly once: if every copy of the callback is dropped
/// without being called (an actor died, a message was lost), the client still gets a 503
/// instead of a connection that waits forever; and a call still pending when shutdown's grace
/// period ends is answered 503 through the registry of pending calls.
core::reply_fn guarded(core::reply_fn fn, pending_calls& pending) {
  struct guard {
    core::reply_fn fn;
    pending_calls& pending;
    pending_calls::id id = 0;
    std::atomic<bool> done{false};
    guard(core::reply_fn f, pending_calls& p) : fn(std::move(f)), pending(p) {
      // nop
    }
    guard(const guard&) = delete;
    guard& operator=(const guard&) = delete;
    ~guard() {
      // Checked first so that an answered call, the common case, builds no message.
      if (!done.load())
        settle(unanswered("the request was lost inside the service; try again"), true);
    }
    /// Answers once; registered is false when the registry already forgot the call (it
    /// does so before abandoning it).
    void settle(core::api_outcome&& outcome, bool registered) {
      if (done.exchange(true))
        return;
      if (registered)
        pending.remove(id);
      fn(std::move(outcome));
    }
  };
  auto g = std::make_shared<guard>(std::move(fn), pending);
  // The id is written before the reply function exists, so only the abandon path, which
  // never reads it, can run concurrently with this assignment.
  g->id = pending.add([weak = std::weak_ptr<guard>(g)] {
    if (auto live = weak.lock())
      live->settle(unanswered("the service is shutting down and the call did not finish in "
                              "time; try again"),
                   false);
  });
  return [g](core::api_outcome&& outcome) { g->settle(std::move(outcome), true); };
}

/// Makes sure a streamed reply ends exactly once, as guarded does for the reply: lines
/// after the last are dropped; if every copy of the callback is dropped before the last line
/// (an actor died), or the call is still streaming when shutdown's grace period ends, the
/// stream ends with an error line, so the client is never left waiting for a body.
core::line_fn guarded_lines(core::line_fn fn, pending_calls& pending) {
  struct guard {
    core::line_fn fn;
    pending_calls& pending;
    pending_calls::id id = 0;
    std::atomic<bool> done{false};
    guard(core::line_fn f, pending_calls& p) : fn(std::move(f)), pending(p) {
      // nop
    }
    guard(const guard&) = delete;
    guard& operator=(const guard&) = delete;
    ~guard() {
      if (!done.load())
        end("the rest of this reply was lost inside the service; try again", true);
    }
    /// Hands one line on; the last one only once. A line that races with an abandoned
    /// stream's end is dropped by the session, which ignores lines after the last.
    void line(std::string&& text, bool last) {
      if (!last) {
        if (!done.load())
          fn(std::move(text), false);
        return;
      }
      if (done.exchange(true))
        return;
      pending.remove(id);
      fn(std::move(text), true);
    }
    /// Ends the stream with an error line; registered is false when the registry already
    /// forgot the call.
    void end(std::string message, bool registered) {
      if (done.exchange(true))
        return;
      if (registered)
        pending.remove(id);
      fn(core::render_error(core::make_failure(core::error_code::unavailable, std::move(message))),
         true);
    }
  };
  auto g = std::make_shared<guard>(std::move(fn), pending);
  g->id = pending.add([weak = std::weak_ptr<guard>(g)] {
    if (auto live = weak.lock())
      live->end("the service is shutting down and this reply did not finish in time; try "
                "again",
                false);
  });
  return [g](std::string&& line, bool last) { g->line(std::move(line), last); };
}

/// One request on its way to a response.
struct slot {
  std::uint64_t id = 0;
  /// Sent as X-Request-Id and written in the access log.
  std::string request_id;
  /// The error's machine code when the actors answered with one (for the access log).
  std::string_view code;
  clock_type::time_point started;
  beast::http::verb method = beast::http::verb::unknown;
  std::string_view route;
  std::string target_label;
  std::string client;
  std::optional<response> res;
  /// Held while the actors work on the call, so shutdown can wait for it.
  std::optional<counted> in_flight;
  // -- a streamed reply (POST /api/status): res is its head, its lines follow --
  bool streamed = false;
  /// The lines are framed as chunks (HTTP/1.1); otherwise the body ends with the connection.
  bool chunked = false;
  bool head_sent = false;
  /// Lines that came and are not yet written, each ended by a newline: those that wait
  /// while a write is under way leave together, as one chunk.
  std::string lines;
  /// The last line came.
  bool ended = false;
  /// The end of the body is written or being written.
  bool end_sent = false;
};

class session : public std::enable_shared_from_this<session> {
public:
  session(tcp::socket&& socket, server_context& ctx, reply_inbox& inbox, std::size_t context,
          const asio::ip::address& peer, connection_slots::ticket ticket)
    : stream_(std::move(socket)),
      idle_timer_(stream_.get_executor()),
      ctx_(ctx),
      inbox_(inbox),
      context_(context),
      connection_(ctx.connections),
      peer_(peer),
      ticket_(ticket) {
    boost::system::error_code ec;
    // Small responses must leave at once instead of waiting for Nagle's timer.
    stream_.socket().set_option(tcp::no_delay(true), ec);
  }

  ~session() {
    ctx_.slots().release(ticket_);
  }

  session(const session&) = delete;
  session& operator=(const session&) = delete;

  void run() {
    // Eviction is asked for by whichever thread admits a new connection; the session is only
    // ever touched on its own strand, so the request is posted there.
    ctx_.slots().attach(ticket_, [weak = weak_from_this(), executor = stream_.get_executor()] {
      asio::post(executor, [weak] {
        if (auto self = weak.lock())
          self->on_evicted();
      });
    });
    asio::dispatch(stream_.get_executor(),
                   beast::bind_front_handler(&session::do_read, shared_from_this()));
  }

private:
  // -- reading ----------------------------------------------------------------

  void do_read() {
    if (reading_ || closing_ || queue_.size() >= ctx_.settings().pipeline_limit)
      return;
    reading_ = true;
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(ctx_.settings().header_limit));
    parser_->body_limit(ctx_.settings().body_limit);
    // Reads carry no Beast timeout: Beast closes the socket when one fires, which would drop
    // responses still owed. The idle timer bounds a read only while nothing is owed.
    stream_.expires_never();
    arm_idle_timer();
    waiting_for_header_ = true;
    note_idle();
    // The header first, so that an oversized body is refused before it is read and an
    // "Expect: 100-continue" client learns it may send the body.
    beast::http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(&session::on_header, shared_from_this()));
  }

  // A request has arrived (or the read failed): the connection is no longer idle.
  void on_header(beast::error_code ec, std::size_t bytes) {
    waiting_for_header_ = false;
    note_idle();
    on_read_header(ec, bytes);
  }

  void on_read_header(beast::error_code ec, std::size_t) {
    if (ec)
      return on_read(ec, 0);
    auto& req = parser_->get();
    // Refused before any body byte is read: what follows could be read two ways, or (a
    // request line over its limit) would not be read whole by a proxy in front.
    auto refusal = overlong_request_line(req);
    if (auto problem = framing_problem(req))
      refusal = core::make_failure(core::error_code::invalid_input, "malformed HTTP request: " + *problem);
    if (refusal) {
      reading_ = false;
      return refuse_header(std::move(*refusal));
    }
    auto length = parser_->content_length();
    if (length && *length > ctx_.settings().body_limit)
      return on_read(beast::http::error::body_limit, 0);
    // The interim response may only go out when nothing else is being written and no
    // earlier response is owed, or it would interleave with or overtake them. Otherwise the
    // client sends the body anyway after its own short wait.
    if (beast::iequals(req[beast::http::field::expect], "100-continue") && !writing_ && queue_.empty()) {
      writing_ = true;
      continue_.emplace(beast::http::status::continue_, req.version());
      stream_.expires_after(ctx_.settings().write_timeout);
      return beast::http::async_write(stream_, *continue_,
                               beast::bind_front_handler(&session::on_continue_written,
                                                         shared_from_this()));
    }
    read_body();
  }

  void on_continue_written(beast::error_code ec, std::size_t) {
    writing_ = false;
    continue_.reset();
    if (ec)
      return on_read(ec, 0);
    stream_.expires_never();
    read_body();
  }

  void read_body() {
    beast::http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t) {
    reading_ = false;
    if (closed_)
      return;
    if (ec == beast::http::error::end_of_stream || ec == asio::error::connection_reset
        || ec == asio::error::eof) {
      // The client is done sending; answer what it already asked, then close.
      closing_ = true;
      return queue_.empty() ? close() : try_write();
    }
    if (ec == beast::error::timeout || ec == asio::error::operation_aborted)
      return close();
    if (ec == beast::http::error::body_limit) {
      closing_ = true;
      read_forwarded_for(parser_->get());
      auto rc = make_context();
      auto decision = route_oversized(parser_->get(), rc, ctx_.settings().body_limit);
      return dispatch(std::move(decision), parser_->get(), rc);
    }
    if (ec == beast::http::error::header_limit)
      return refuse_unread(http::oversized_header(parser_->get(), unparsed(),
                                            ctx_.settings().header_limit));
    if (ec) {
      auto error
        = core::make_failure(core::error_code::invalid_input, "malformed HTTP request: " + ec.message());
      // Past the request line, it is refused like a call of its route (Transfer-Encoding with
      // Content-Length is one that Beast finds itself).
      if (!parser_->get().target().empty())
        return refuse_header(std::move(error));
      return refuse_unread(std::move(error));
    }
    idle_timer_.cancel();
    handle(parser_->release());
    do_read();
  }

  // A malformed request leaves the stream in an unknown state: answer and close.
  void refuse_malformed(response res, beast::http::verb method = beast::http::verb::unknown) {
    closing_ = true;
    auto s = new_slot();
    s.method = method;
    s.route = "unknown";
    s.res = std::move(res);
    queue_.push_back(std::move(s));
    try_write();
  }

  // The bytes the parser left in the buffer: all of a header it stopped in before the end of
  // its request line.
  std::string_view unparsed() const {
    return {static_cast<const char*>(buffer_.data().data()), buffer_.data().size()};
  }

  // A request whose header was not read whole: its caller is not known, so it gets no quota
  // headers, but its method and target are, for CORS and HEAD.
  void refuse_unread(core::failure error) {
    auto start = request_start_of(parser_->get(), unparsed());
    refuse_malformed(render_unread_error(error, start.target),
                     beast::http::string_to_verb(start.method));
  }

  // A request refused before routing once its request line was read: under /api/ it is
  // answered like the route's other replies (CORS, and the quota of the caller as far as the
  // fields read so far name them), then the connection closes.
  void refuse_header(core::failure error) {
    closing_ = true;
    auto& req = parser_->get();
    read_forwarded_for(req);
    auto rc = make_context();
    dispatch(route_refused(req, rc, std::move(error)), req, rc);
  }

  /// A slot for the next request: its place in the order, its start, its id.
  slot new_slot() {
    slot s;
    s.id = next_id_++;
    s.request_id = ctx_.ids.next();
    s.started = clock_type::now();
    return s;
  }

  // -- idle time and eviction -------------------------------------------------

  // Tells the connection slots whether this connection is idle: waiting for a request with
  // nothing owed. The longest idle connection is closed first when every slot is taken.
  void note_idle() {
    bool idle = waiting_for_header_ && queue_.empty() && !writing_ && !closing_ && !closed_;
    if (idle == marked_idle_)
      return;
    marked_idle_ = idle;
    ctx_.slots().set_idle(ticket_, idle);
  }

  // Our slot went to a new connection while we were idle. If a request started to arrive
  // since, it is served first, with "Connection: close"; a request that was never begun
  // cannot be lost by closing now.
  void on_evicted() {
    if (closed_)
      return;
    if (waiting_for_header_ && queue_.empty() && !writing_ && buffer_.size() == 0)
      return close();
    closing_ = true;
  }

  // Idle time counts only while nothing is owed to the client: then a connection that sends
  // nothing for read_timeout is closed. While responses are owed, the client may be quiet.
  void arm_idle_timer() {
    if (!queue_.empty() || closed_)
      return;
    idle_timer_.expires_after(ctx_.settings().read_timeout);
    idle_timer_.async_wait(beast::bind_front_handler(&session::on_idle, shared_from_this()));
  }

  void on_idle(beast::error_code ec) {
    if (ec || closed_ || !queue_.empty() || writing_)
      return;
    close();
  }

  route_context make_context() const {
    route_context rc;
    rc.client = identify_client(peer_, forwarded_for_, ctx_.settings().trusted_proxies);
    rc.openapi_json = ctx_.openapi_json();
    rc.draining = ctx_.draining();
    rc.leaving = ctx_.leaving();
    rc.secure_cookies = ctx_.settings().secure_cookies;
    rc.public_origin = ctx_.settings().public_origin;
    return rc;
  }

  // Several X-Forwarded-For headers are one list (RFC 9110 §5.3).
  void read_forwarded_for(const request& req) {
    forwarded_for_.clear();
    auto [first, last] = req.equal_range("X-Forwarded-For");
    for (auto i = first; i != last; ++i) {
      if (!forwarded_for_.empty())
        forwarded_for_ += ',';
      forwarded_for_.append(i->value().data(), i->value().size());
    }
  }

  void handle(request&& req) {
    read_forwarded_for(req);
    auto rc = make_context();
    if (!req.keep_alive() || rc.draining || rc.leaving)
      closing_ = true;
    dispatch(route(req, rc), req, rc);
  }

  void dispatch(route_decision&& decision, const request& req, const route_context& rc) {
    if (decision.immediate)
      return push_answer(std::move(decision), req, rc.client);
    auto s = new_slot();
    s.method = req.method();
    s.route = decision.route;
    s.target_label = std::move(decision.target_label);
    s.client = rc.client.address.to_string();
    auto& call = *decision.call;
    // A scrape of /metrics is not counted in the in-flight calls it reports, so an idle
    // service shows 0.
    if (call.kind != core::call_kind::metrics)
      s.in_flight.emplace(ctx_.in_flight);
    call.reply = guarded([self = shared_from_this(), id = s.id, kind = call.kind,
                  version = req.version(), keep_alive = req.keep_alive()](core::api_outcome&& outcome) {
      // Runs on whichever thread finished the call (an actor's, or the quota actor's for a
      // cached offer): hop onto the connection's io thread first and render there, so the io
      // threads share the rendering and the quota actor's thread only hands verdicts on. The
      // inbox wakes the io thread once per batch of replies, not once per reply; its io_context
      // has that one thread, so the reply never runs beside the session's own handlers.
      auto work = std::make_shared<core::api_outcome>(std::move(outcome));
      self->inbox_.push([self, id, kind, version, keep_alive, work] {
        self->render_reply(id, kind, version, keep_alive, std::move(*work));
      });
    }, ctx_.pending);
    if (call.kind == core::call_kind::status_batch) {
      // The lines take the reply's way onto the io thread; one actor sends them in order,
      // and the inbox keeps the order it was given.
      call.lines = guarded_lines([self = shared_from_this(), id = s.id](std::string&& line,
                                                                      bool last) {
        self->inbox_.push([self, id, line = std::move(line), last]() mutable {
          self->on_line(id, std::move(line), last);
        });
      }, ctx_.pending);
    }
    queue_.push_back(std::move(s));
    ctx_.submit(std::move(call), context_);
  }

  void push_answer(route_decision&& decision, const request& req,
                   const client_identity& client = {}) {
    auto s = new_slot();
    s.method = req.method();
    s.route = decision.route;
    s.client = client.address.is_unspecified() ? peer_.to_string()
                                               : client.address.to_string();
    s.res = std::move(*decision.immediate);
    queue_.push_back(std::move(s));
    try_write();
  }

  void render_reply(std::uint64_t id, core::call_kind kind, unsigned version, bool keep_alive,
                    core::api_outcome&& outcome) {
    auto metrics = kind == core::call_kind::metrics && outcome.error.ok();
    auto code = outcome.error.ok() ? std::string_view{} : core::lookup(outcome.error.code).machine_code;
    metrics_snapshot m{&ctx_.requests, ctx_.connections.load(), ctx_.in_flight.load(),
                       outcome.probes, outcome.cache_entries, &core::process_telemetry()};
    auto watched = std::move(outcome.watched);
    auto streamed = is_stream_head(outcome, kind);
    core::finish_offer(outcome);
    auto res = render_api(std::move(outcome), kind, version, keep_alive,
                          ctx_.settings().secure_cookies, ctx_.settings().public_origin);
    if (metrics) {
      res.body() = render_metrics(m);
      if (watched)
        res.body() += render_watch_metrics(*watched);
      res.prepare_payload();
    }
    // A body that ends with the connection (HTTP/1.0) leaves no room for another response.
    if (streamed && !res.keep_alive())
      closing_ = true;
    on_reply(id, std::move(res), code, streamed);
  }

  void on_reply(std::uint64_t id, response&& res, std::string_view code, bool streamed = false) {
    if (auto* s = find_slot(id)) {
      s->res = std::move(res);
      s->code = code;
      s->streamed = streamed;
      s->chunked = streamed && s->res->chunked();
    }
    try_write();
  }

  // One line of a streamed reply. Lines that come before the head (the inbox keeps the order
  // the actors called in, but nothing is lost if it did not) wait with the slot; lines for a
  // reply that is not a stream, or after the last, are dropped.
  void on_line(std::uint64_t id, std::string&& line, bool last) {
    if (closed_)
      return;
    auto* s = find_slot(id);
    if (s == nullptr || s->ended || (s->res && !s->streamed))
      return;
    s->lines += line;
    s->lines += '\n';
    s->ended = last;
    try_write();
  }

  slot* find_slot(std::uint64_t id) {
    for (auto& s : queue_)
      if (s.id == id)
        return &s;
    return nullptr;
  }

  // -- writing ----------------------------------------------------------------

  void try_write() {
    if (writing_ || queue_.empty() || !queue_.front().res)
      return;
    auto& s = queue_.front();
    if (s.streamed)
      return write_stream(s);
    prepare_head(s);
    // One contiguous buffer instead of Beast's chain of field buffers (net/http/wire.hpp).
    write_wire(*s.res, wire_);
    start_write();
  }

  // The headers that depend on the connection, set when the response is about to leave.
  void prepare_head(slot& s) {
    auto& res = *s.res;
    // RFC 9110 §9.3.2: a HEAD answer is the header a GET would get, without its body. The
    // Content-Length that prepare_payload set stays, since it is what a GET would be told.
    if (s.method == beast::http::verb::head)
      res.body().clear();
    res.set("X-Request-Id", s.request_id);
    // Later requests on this connection will not be answered, so say so now. A response that
    // already closes is left as it is (an HTTP/1.0 stream's head says Connection: close).
    if ((closing_ || ctx_.draining()) && (queue_.size() == 1 || ctx_.draining()) && res.keep_alive())
      res.keep_alive(false);
  }

  // What a streamed reply owes now: its head once, the lines that wait as one chunk, the end
  // once the last line came. Nothing is written while it waits for lines. The last line
  // always brings bytes (at least its newline), so the end is always a write, and on_write
  // finishes the slot.
  void write_stream(slot& s) {
    wire_.clear();
    if (!s.head_sent) {
      prepare_head(s);
      write_wire(*s.res, wire_);
      s.head_sent = true;
    }
    if (!s.lines.empty()) {
      if (s.chunked)
        append_chunk(s.lines, wire_);
      else
        wire_ += s.lines;
      s.lines.clear();
    }
    if (s.ended && !s.end_sent) {
      if (s.chunked)
        append_last_chunk(wire_);
      s.end_sent = true;
    }
    if (!wire_.empty())
      start_write();
  }

  void start_write() {
    writing_ = true;
    // Sets only the write timer when a read is pending; a timer left in the past would
    // fail the write at once. Each write of a stream gets the whole timeout anew.
    stream_.expires_after(ctx_.settings().write_timeout);
    asio::async_write(stream_, asio::buffer(wire_),
                      beast::bind_front_handler(&session::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, std::size_t) {
    writing_ = false;
    if (closed_)
      return;
    auto& s = queue_.front();
    // A stream stays at the front until its end is written; lines that came during this
    // write go next.
    if (!ec && s.streamed && !s.end_sent)
      return try_write();
    ctx_.requests.count(s.route, s.res->result_int(), clock_type::now() - s.started);
    log_access(s);
    bool keep_alive = s.res->keep_alive();
    queue_.pop_front();
    if (ec)
      return close();
    if (!keep_alive) {
      closing_ = true;
      queue_.clear();
      return close();
    }
    if (closing_ && queue_.empty())
      return close();
    try_write();
    if (reading_)
      arm_idle_timer();
    else
      do_read();
    note_idle();
  }

  void log_access(const slot& s) {
    if (!ctx_.settings().access_log || !base::log::enabled(base::log::level::info))
      return;
    if (is_probe_route(s.route) && !ctx_.settings().access_log_probes)
      return;
    auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(clock_type::now()
                                                                          - s.started);
    boost::json::object fields;
    fields["method"] = beast::http::to_string(s.method);
    fields["route"] = s.route;
    fields["status"] = s.res->result_int();
    fields["duration_us"] = elapsed.count();
    fields["client"] = s.client;
    if (!s.target_label.empty())
      fields["target"] = s.target_label;
    fields["request_id"] = s.request_id;
    // The code the client saw: from the actors' answer, or read back from an error the
    // router or the session wrote (small JSON bodies, parsed only for error statuses).
    if (!s.code.empty())
      fields["code"] = s.code;
    else if (s.res->result_int() >= 400)
      if (auto code = error_code_of(s.res->body()); !code.empty())
        fields["code"] = code;
    base::log::write(base::log::level::info, "access", std::move(fields));
  }

  void close() {
    if (closed_)
      return;
    closed_ = true;
    note_idle();
    idle_timer_.cancel();
    // Nothing more is written here: the calls still with the actors stop counting as in
    // flight now, not when their replies come (a stream's last line may be seconds away),
    // and what comes back for them finds no slot and is dropped.
    queue_.clear();
    beast::error_code ignored;
    // A half-close tells the client we are done; errors mean it is already gone.
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  asio::steady_timer idle_timer_;
  beast::flat_buffer buffer_;
  server_context& ctx_;
  /// Where replies finished on other threads come back to this session's io thread.
  reply_inbox& inbox_;
  /// The io_context this session runs on, by its index among the listener's: its calls go
  /// to that context's call sink.
  std::size_t context_;
  counted connection_;
  asio::ip::address peer_;
  connection_slots::ticket ticket_;
  std::string forwarded_for_;
  std::optional<beast::http::request_parser<beast::http::string_body>> parser_;
  std::optional<beast::http::response<beast::http::empty_body>> continue_;
  std::deque<slot> queue_;
  std::uint64_t next_id_ = 0;
  bool reading_ = false;
  bool writing_ = false;
  /// The response being written, as its bytes (kept for its capacity between responses).
  std::string wire_;
  bool closing_ = false;
  bool closed_ = false;
  /// A header read is pending: no request has begun to be served since the last one.
  bool waiting_for_header_ = false;
  /// What the connection slots were last told.
  bool marked_idle_ = false;
};

} // namespace

void start_session(tcp::socket&& socket, server_context& ctx, reply_inbox& inbox,
                   std::size_t context, const asio::ip::address& peer,
                   connection_slots::ticket ticket) {
  std::make_shared<session>(std::move(socket), ctx, inbox, context, peer, ticket)->run();
}

void reject_connection(tcp::socket&& socket, std::string why) {
  // The 503 says why; without it the client would see a bare reset.
  struct rejection : std::enable_shared_from_this<rejection> {
    beast::tcp_stream stream;
    response res;
    rejection(tcp::socket&& s, std::string message)
      : stream(std::move(s)),
        res(render_plain_error(core::make_failure(core::error_code::unavailable, std::move(message)), 11,
                               false)) {
      // nop
    }
  };
  auto r = std::make_shared<rejection>(std::move(socket), std::move(why));
  r->stream.expires_after(std::chrono::seconds(5));
  beast::http::async_write(r->stream, r->res, [r](beast::error_code, std::size_t) {
    beast::error_code ignored;
    r->stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  });
}

} // namespace netherscope::net::http
