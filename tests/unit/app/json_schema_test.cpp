// The schema checker the OpenAPI end-to-end test relies on: it must find what is wrong.
#include <catch2/catch.hpp>

#include <boost/json.hpp>

#include "app/service.hpp"
#include "support/json_schema.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace json = boost::json;

namespace {

std::size_t problems(const char* schema_name, const char* body) {
  auto doc = json::parse(netherscope::app::openapi_document);
  json::value schema = {{"$ref", std::string{"#/components/schemas/"} + schema_name}};
  return schema_violations(doc, schema, json::parse(body)).size();
}

} // namespace

TEST_CASE("json schema: documented shapes pass, wrong ones are caught", "[openapi]") {
  CHECK(problems("Error", R"({"ok":false,"code":"not_found","error":"no route /x"})") == 0);
  // A code outside the enum, a wrong type, a missing required member, an undescribed member.
  CHECK(problems("Error", R"({"ok":false,"code":"no_such_code","error":"x"})") > 0);
  CHECK(problems("Error", R"({"ok":false,"code":"not_found","error":7})") > 0);
  CHECK(problems("Error", R"({"ok":false,"error":"x"})") > 0);
  CHECK(problems("Error", R"({"ok":false,"code":"not_found","error":"x","extra":1})") > 0);
  CHECK(problems("Usage", R"({"used":1,"limit":2,"remaining":1})") == 0);
  CHECK(problems("OfferRequest", R"({"host":"a.example","port":0})") > 0);
  CHECK(problems("OfferRequest", R"({"host":"a.example","port":65536})") > 0);
  CHECK(problems("OfferRequest", R"({"host":"a.example"})") == 0);
  auto long_host = R"({"host":")" + std::string(254, 'a') + R"("})";
  CHECK(problems("OfferRequest", long_host.c_str()) > 0);
}
