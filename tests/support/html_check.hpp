// Test support: reads an HTML page with a parser we did not write (Python's html.parser), so a
// test of our own HTML output does not trust our own escaping or our own idea of its structure.
#pragma once

#include <string>

#include <boost/json/object.hpp>

namespace netherscope::test {

/// Parses html with html.parser in Debian's python3 and describes it, text and attribute
/// values already unescaped by the parser:
///
/// - title: the text of the first <title> ("" without one);
/// - meta: {key: content} of each <meta>, the key its property= or else its name= attribute
///   (og:title, twitter:card, description, robots); meta_repeated: the keys seen twice or more;
/// - class_counts: {class: number of elements carrying it};
/// - text_by_class: {class: [text content of each element carrying it, in document order,
///   with runs of HTML whitespace collapsed to one space and trimmed]};
/// - elements_by_class: {class: [{tag, classes: [every class of that element]}, in document
///   order]}, to tell which element carries a class and what it carries beside it;
/// - links: [href of each <a>]; imgs: [src of each <img>] ("" where the attribute is absent);
/// - forms: [{action, method, inputs: {name: value}}], the attributes as written ("" when
///   absent), inputs from the <input> and <button> elements with a name inside the form;
/// - stylesheets: [href of each <link> whose rel holds "stylesheet"];
/// - scripts: the number of <script> elements; style_elements: of <style> elements;
/// - style_attrs: the number of elements with a style= attribute; event_attrs: the number of
///   attributes whose name starts with "on";
/// - unbalanced: [one sentence for each end tag that does not close the innermost open element,
///   and for each element other than a void one left open at the end]; a non-void element
///   written self-closing ("<div/>") stays open, as HTML reads it, except inside <svg> and
///   <math>;
///
/// or {error} when python3 fails (the page is not UTF-8, say).
boost::json::object parse_html(const std::string& html);

} // namespace netherscope::test
