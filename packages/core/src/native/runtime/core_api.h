// Core's API table: what every addon receives (rmmjs/abi.h).
#pragma once

#include "rmmjs/abi.h"

namespace rmmjs {
const rmmjs_core_api* CoreApiTable();
}
