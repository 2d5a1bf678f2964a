#include "support/html_check.hpp"

#include <fstream>

#include <boost/json/parse.hpp>

#include "support/process.hpp"

namespace netherscope::test {

namespace {

// Prints one JSON line, whatever happens, so the caller waits for a line, not for time.
constexpr const char* describe_html_py = R"py(
import json, re, sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
        "source", "track", "wbr", "keygen"}
FOREIGN = {"svg", "math"}
SPACE = re.compile(r"[ \t\n\r\f]+")

def collapse(parts):
    return SPACE.sub(" ", "".join(parts)).strip()

class Describe(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.title = None
        self.meta = {}
        self.meta_repeated = []
        self.class_counts = {}
        self.texts = {}
        self.elements = {}
        self.links = []
        self.imgs = []
        self.forms = []
        self.stylesheets = []
        self.scripts = 0
        self.style_elements = 0
        self.style_attrs = 0
        self.event_attrs = 0
        self.unbalanced = []

    def in_form(self):
        for entry in reversed(self.stack):
            if entry["form"] is not None:
                return entry["form"]
        return None

    def start(self, tag, attrs, self_closing):
        a = {}
        for name, value in attrs:
            if name.startswith("on"):
                self.event_attrs += 1
            if name not in a:
                a[name] = "" if value is None else value
        if "style" in a:
            self.style_attrs += 1
        classes = []
        for c in SPACE.split(a.get("class", "")):
            if c and c not in classes:
                classes.append(c)
        parts = [] if classes or (tag == "title" and self.title is None) else None
        for c in classes:
            self.class_counts[c] = self.class_counts.get(c, 0) + 1
            self.texts.setdefault(c, []).append(parts)
            self.elements.setdefault(c, []).append({"tag": tag, "classes": classes})
        if tag == "title" and self.title is None:
            self.title = parts
        if tag == "meta":
            key = a.get("property") or a.get("name")
            if key:
                if key in self.meta and key not in self.meta_repeated:
                    self.meta_repeated.append(key)
                self.meta.setdefault(key, a.get("content", ""))
        elif tag == "a":
            self.links.append(a.get("href", ""))
        elif tag == "img":
            self.imgs.append(a.get("src", ""))
        elif tag == "link":
            if "stylesheet" in SPACE.split(a.get("rel", "").lower()):
                self.stylesheets.append(a.get("href", ""))
        elif tag == "script":
            self.scripts += 1
        elif tag == "style":
            self.style_elements += 1
        elif tag in ("input", "button"):
            form = self.in_form()
            if form is not None and a.get("name"):
                form["inputs"][a["name"]] = a.get("value", "")
        form = None
        if tag == "form":
            form = {"action": a.get("action", ""), "method": a.get("method", ""), "inputs": {}}
            self.forms.append(form)
        foreign = tag in FOREIGN or any(e["tag"] in FOREIGN for e in self.stack)
        if tag in VOID or (self_closing and foreign):
            return
        line, _ = self.getpos()
        self.stack.append({"tag": tag, "parts": parts, "form": form, "line": line})

    def handle_starttag(self, tag, attrs):
        self.start(tag, attrs, False)

    def handle_startendtag(self, tag, attrs):
        self.start(tag, attrs, True)

    def handle_endtag(self, tag):
        if self.stack and self.stack[-1]["tag"] == tag:
            self.stack.pop()
            return
        line, _ = self.getpos()
        if self.stack:
            self.unbalanced.append("</%s> at line %d does not close <%s> (opened at line %d), "
                                   "the innermost open element"
                                   % (tag, line, self.stack[-1]["tag"], self.stack[-1]["line"]))
        else:
            self.unbalanced.append("</%s> at line %d closes nothing: no element is open"
                                   % (tag, line))
        if any(e["tag"] == tag for e in self.stack):
            while self.stack[-1]["tag"] != tag:
                self.stack.pop()
            self.stack.pop()

    def handle_data(self, data):
        for entry in self.stack:
            if entry["parts"] is not None:
                entry["parts"].append(data)

try:
    with open(sys.argv[1], encoding="utf-8") as f:
        source = f.read()
    parser = Describe()
    parser.feed(source)
    parser.close()
    for entry in parser.stack:
        parser.unbalanced.append("<%s> opened at line %d is never closed"
                                 % (entry["tag"], entry["line"]))
    print(json.dumps({
        "title": collapse(parser.title) if parser.title is not None else "",
        "meta": parser.meta,
        "meta_repeated": parser.meta_repeated,
        "class_counts": parser.class_counts,
        "text_by_class": {c: [collapse(p) for p in ps] for c, ps in parser.texts.items()},
        "elements_by_class": parser.elements,
        "links": parser.links,
        "imgs": parser.imgs,
        "forms": parser.forms,
        "stylesheets": parser.stylesheets,
        "scripts": parser.scripts,
        "style_elements": parser.style_elements,
        "style_attrs": parser.style_attrs,
        "event_attrs": parser.event_attrs,
        "unbalanced": parser.unbalanced,
    }), flush=True)
except Exception as e:
    print(json.dumps({"error": "%s: %s" % (type(e).__name__, e)}), flush=True)
)py";

} // namespace

boost::json::object parse_html(const std::string& html) {
  temp_dir dir;
  auto path = dir.path() + "/page.html";
  {
    std::ofstream out{path, std::ios::binary};
    out << html;
  }
  child_process python{{PYTHON3_BIN, "-c", describe_html_py, path}};
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
