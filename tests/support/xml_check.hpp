// Test support: reads an XML document with a parser we did not write (Python's
// xml.dom.minidom), so a test of our own XML output does not trust our own escaping.
#pragma once

#include <string>

#include <boost/json/object.hpp>

namespace netherscope::test {

/// Parses svg with xml.dom.minidom in Debian's python3 and describes it: {root, xmlns, width,
/// height, aria, title: [text], texts: [text of each <text>], lengths: [textLength of each],
/// elements: [every element name below the root]}, text already unescaped by the parser; or
/// {error} when the document is not well-formed XML.
boost::json::object parse_svg(const std::string& svg);

} // namespace netherscope::test
