// The OpenAPI document and the code name the same machine codes: identity error codes, candidate
// scopes and info error codes. A code added on one side only fails here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "app/service.hpp"
#include "base/address_scope.hpp"
#include "net/nethernet/identity_check.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace json = boost::json;

namespace {

const json::object& schema(const json::value& doc, const char* name) {
  return doc.at("components").at("schemas").at(name).as_object();
}

std::vector<std::string> strings(const json::value& array) {
  std::vector<std::string> out;
  for (const auto& v : array.as_array())
    out.emplace_back(v.as_string());
  return out;
}

} // namespace

TEST_CASE("offer schema: identity errorCode lists every identity_error", "[openapi]") {
  auto doc = json::parse(openapi_document);
  auto& error_code = schema(doc, "AnswerIdentity").at("properties").at("errorCode");
  auto documented = strings(error_code.at("oneOf").at(0).at("enum"));
  std::vector<std::string> named;
  // none is rendered as null, so it is not among the strings.
  for (auto code = static_cast<int>(net::nethernet::identity_error::absent);
       code <= static_cast<int>(net::nethernet::identity_error::fingerprint_signature); ++code)
    named.emplace_back(net::nethernet::to_string(static_cast<net::nethernet::identity_error>(code)));
  CHECK(documented == named);
}

TEST_CASE("offer schema: candidate scope lists every address_scope", "[openapi]") {
  auto doc = json::parse(openapi_document);
  auto documented = strings(schema(doc, "Candidate").at("properties").at("scope").at("enum"));
  std::vector<std::string> named;
  for (auto scope = static_cast<int>(base::address_scope::public_address);
       scope <= static_cast<int>(base::address_scope::hostname); ++scope)
    named.emplace_back(base::to_string(static_cast<base::address_scope>(scope)));
  CHECK(documented == named);
  // Deprecated for one release, and still required until it goes.
  CHECK(schema(doc, "Candidate").at("properties").at("publicAddress").at("deprecated") == true);
}

TEST_CASE("offer schema: new offer and info fields are required", "[openapi]") {
  auto doc = json::parse(openapi_document);
  auto offer = strings(schema(doc, "OfferResult").at("required"));
  for (auto field : {"identity", "warnings", "warningCodes", "exhausted"})
    CHECK(std::find(offer.begin(), offer.end(), field) != offer.end());
  auto info = strings(schema(doc, "StatusResult").at("required"));
  for (auto field : {"infoError", "infoErrorCode"})
    CHECK(std::find(info.begin(), info.end(), field) != info.end());
}
