// Test code names the service's types without the namespaces of their rooms, so that a test
// reads as the behaviour it checks; each name is still declared once, in its room. A file
// that says `using namespace netherscope::test;` sees every room through this header.
#pragma once

namespace netherscope::base {}
namespace netherscope::core {}
namespace netherscope::net::nethernet {}
namespace netherscope::net::raknet {}
namespace netherscope::net::xbox {}
namespace netherscope::net::upstream {}
namespace netherscope::net::report {}
namespace netherscope::net::http {}
namespace netherscope::storage {}
namespace netherscope::actors {}
namespace netherscope::app {}

namespace netherscope::test {

using namespace netherscope::base;
using namespace netherscope::core;
using namespace netherscope::net::nethernet;
using namespace netherscope::net::raknet;
using namespace netherscope::net::xbox;
using namespace netherscope::net::upstream;
using namespace netherscope::net::report;
using namespace netherscope::net::http;
using namespace netherscope::storage;
using namespace netherscope::actors;
using namespace netherscope::app;

// A test may still name a room where two rooms share a name (core::view, base::view), or the
// test support (test::open_lmdb). The HTTP room is net::http: tests say http:: for Beast's.
namespace net = netherscope::net;
namespace base = netherscope::base;
namespace core = netherscope::core;
namespace nethernet = netherscope::net::nethernet;
namespace raknet = netherscope::net::raknet;
namespace xbox = netherscope::net::xbox;
namespace upstream = netherscope::net::upstream;
namespace report = netherscope::net::report;
namespace storage = netherscope::storage;
namespace actors = netherscope::actors;
namespace app = netherscope::app;
namespace test = netherscope::test;

} // namespace netherscope::test
