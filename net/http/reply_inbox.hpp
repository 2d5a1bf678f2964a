// Replies finished on other threads, handed to an io thread in batches.
//
// The quota actor answers a whole batch of charges at once; posting each answer to its
// connection's io_context on its own wakes that io thread once per answer (an eventfd write, a
// context switch), which the profile put among the largest costs of a cached offer. The inbox
// posts one drain per batch instead: the first answer that finds it empty posts, the others
// only append under its mutex, and the drain runs them all on the io thread.
#pragma once

#include <functional>
#include <mutex>
#include <vector>

#include <boost/asio/execution_context.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

namespace netherscope::net::http {

/// One per io_context (an Asio service: boost::asio::use_service<reply_inbox>(ioc)).
class reply_inbox : public boost::asio::execution_context::service {
public:
  using key_type = reply_inbox;
  static inline boost::asio::execution_context::id id;

  explicit reply_inbox(boost::asio::io_context& ioc)
    : boost::asio::execution_context::service(ioc), ioc_(ioc) {
    // nop
  }

  /// Runs work on the io_context's thread soon; callable from any thread.
  void push(std::function<void()> work) {
    {
      std::lock_guard<std::mutex> guard{mutex_};
      waiting_.push_back(std::move(work));
      if (drain_posted_)
        return;
      drain_posted_ = true;
    }
    boost::asio::post(ioc_, [this] { drain(); });
  }

private:
  void drain() {
    // Only the io thread drains, so draining_ needs no lock; swapping keeps both vectors'
    // capacity, and a batch costs no allocation once they have grown.
    {
      std::lock_guard<std::mutex> guard{mutex_};
      draining_.swap(waiting_);
      drain_posted_ = false;
    }
    for (auto& work : draining_)
      work();
    draining_.clear();
  }

  void shutdown() override {
    // The io_context is going: what waits here holds sessions that must go with it.
    std::vector<std::function<void()>> dropped;
    std::lock_guard<std::mutex> guard{mutex_};
    dropped.swap(waiting_);
  }

  boost::asio::io_context& ioc_;
  std::mutex mutex_;
  std::vector<std::function<void()>> waiting_;
  std::vector<std::function<void()>> draining_;
  bool drain_posted_ = false;
};

} // namespace netherscope::net::http
