// Test support: a WebRTC stack we did not write behind a NetherNet signalling server
// (tools/webrtc_target: werift and libwebrtc through Node, aiortc through Debian's Python), as
// a child process on a free loopback port.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "support/http.hpp"
#include "support/process.hpp"

namespace netherscope::test {

class webrtc_answerer {
public:
  /// Starts the stack ("werift", "libwebrtc" or "aiortc") with the target's extra options.
  explicit webrtc_answerer(const std::string& stack, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv{NODE_BIN, WEBRTC_TARGET_DIR "/target.js", "--stack", stack,
                                  "--port", "0"};
    if (stack == "aiortc")
      argv = {PYTHON3_BIN, WEBRTC_TARGET_DIR "/aiortc_target.py", "--port", "0"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    proc_ = std::make_unique<child_process>(argv);
    auto line = proc_->wait_for_line(
      [](const std::string& l) { return l.find("\"event\":\"listening\"") != std::string::npos; },
      std::chrono::seconds{20});
    if (!line)
      throw std::runtime_error(stack + " answerer did not start (is tools/setup.sh done?)");
    port_ = port_from_line(*line);
  }

  unsigned port() const noexcept {
    return port_;
  }

  /// The answerer's counters, the last answer it sent, and what its channels saw.
  boost::json::object stats() const {
    auto reply = http_request(port_, "GET", "/_target/stats", {}, {}, std::chrono::seconds{10});
    auto value = reply.json();
    if (!value.is_object())
      throw std::runtime_error("answerer stats unreadable: " + reply.error + reply.body);
    return value.as_object();
  }

private:
  std::unique_ptr<child_process> proc_;
  unsigned port_ = 0;
};

} // namespace netherscope::test
