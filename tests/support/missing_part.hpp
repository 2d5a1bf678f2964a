// What a case does when a part it needs is not installed here (redis-server, promtool).
#pragma once

#include <string>

namespace netherscope::test {

/// Says that the part `why` names is missing. Outside CI a warning, and the caller returns
/// without checking; under CI=1 (as .ci/run sets) the case fails, since CI installs every part
/// and a case that skips there would pass without having run.
void missing_part(const std::string& why);

} // namespace netherscope::test
