#include "support/xml_check.hpp"

#include <fstream>

#include <boost/json/parse.hpp>

#include "support/process.hpp"

namespace netherscope::test {

namespace {

// Prints one JSON line, whatever happens, so the caller waits for a line, not for time.
constexpr const char* describe_svg = R"py(
import json, sys, xml.dom.minidom as minidom
try:
    doc = minidom.parse(sys.argv[1])
except Exception as e:
    print(json.dumps({"error": str(e)}), flush=True)
    sys.exit(0)
root = doc.documentElement
def text(node):
    return "".join(c.data for c in node.childNodes if c.nodeType == c.TEXT_NODE)
print(json.dumps({
    "root": root.tagName,
    "xmlns": root.getAttribute("xmlns"),
    "width": root.getAttribute("width"),
    "height": root.getAttribute("height"),
    "aria": root.getAttribute("aria-label"),
    "title": [text(t) for t in root.getElementsByTagName("title")],
    "texts": [text(t) for t in root.getElementsByTagName("text")],
    "lengths": [t.getAttribute("textLength") for t in root.getElementsByTagName("text")],
    "elements": sorted({e.tagName for e in root.getElementsByTagName("*")}),
}), flush=True)
)py";

} // namespace

boost::json::object parse_svg(const std::string& svg) {
  temp_dir dir;
  auto path = dir.path() + "/badge.svg";
  {
    std::ofstream out{path, std::ios::binary};
    out << svg;
  }
  child_process python{{PYTHON3_BIN, "-c", describe_svg, path}};
  auto line = python.wait_for_line([](const std::string& l) { return !l.empty() && l[0] == '{'; },
                                   std::chrono::seconds(20));
  python.wait(std::chrono::seconds(10));
  boost::json::object result;
  if (!line) {
    result["error"] = "python3 printed no description";
    return result;
  }
  boost::system::error_code ec;
  auto parsed = boost::json::parse(*line, ec);
  if (ec || !parsed.is_object()) {
    result["error"] = "python3 printed something that is not a JSON object";
    return result;
  }
  return parsed.as_object();
}

} // namespace netherscope::test
