// docs/WATCHES.md's receiver example is run as written, in Debian's python3, against
// signatures the service makes: what the document tells receivers to do must accept a real
// delivery and refuse a changed, a stale and a badly signed one.
#include <catch2/catch.hpp>

#include <ctime>
#include <fstream>
#include <sstream>

#include "core/webhook_signature.hpp"
#include "support/process.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using netherscope::test::child_process;
using netherscope::test::temp_dir;

namespace {

/// The first ```python block of the document.
std::string python_example() {
  std::ifstream in{std::string{DOCS_DIR} + "/WATCHES.md"};
  std::stringstream text;
  text << in.rdbuf();
  auto doc = text.str();
  auto start = doc.find("```python\n");
  if (start == std::string::npos)
    return {};
  start += 10;
  auto end = doc.find("```", start);
  return doc.substr(start, end - start);
}

/// Runs the example's verify(secret, header, body) and returns what it printed.
std::string verify_with_example(const std::string& example, const std::string& secret,
                                const std::string& header, const std::string& body) {
  temp_dir dir;
  auto script = dir.path() + "/receiver.py";
  auto body_path = dir.path() + "/body";
  {
    std::ofstream out{script};
    out << example << "\nimport sys\n"
        << "body = open(sys.argv[3], 'rb').read()\n"
        << "print('result=' + str(verify(sys.argv[1], sys.argv[2], body)), flush=True)\n";
    std::ofstream b{body_path, std::ios::binary};
    b << body;
  }
  child_process python{{PYTHON3_BIN, script, secret, header, body_path}};
  auto line = python.wait_for_line([](const std::string& l) { return l.rfind("result=", 0) == 0; },
                                   std::chrono::seconds(20));
  python.wait(std::chrono::seconds(10));
  return line.value_or("no result");
}

} // namespace

TEST_CASE("watches doc: the receiver example verifies real signatures and refuses the rest",
          "[webhook]") {
  auto example = python_example();
  REQUIRE(example.find("def verify(") != std::string::npos);
  std::string secret = "whsec_docexample";
  std::string body = R"({"event":"test","host":"play.example.com","port":19132})";
  auto now = static_cast<std::int64_t>(std::time(nullptr));
  auto header = signature_value(secret, now, body);
  CHECK(verify_with_example(example, secret, header, body) == "result=True");
  CHECK(verify_with_example(example, secret, header, body + " ") == "result=False");
  CHECK(verify_with_example(example, "whsec_other", header, body) == "result=False");
  CHECK(verify_with_example(example, secret, signature_value(secret, now - 301, body), body)
        == "result=False");
}
