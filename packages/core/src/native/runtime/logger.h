// RMM's debug logger: leveled messages to $RMM_DEBUG_LOG_FILE, else stderr. Process-wide.
#pragma once

#include <string>

#include "rmmjs/abi.h"

namespace rmmjs {

void SetLogLevel(rmmjs_log_level level);
rmmjs_log_level GetLogLevel();
void SetFlushLevel(rmmjs_log_level level);
rmmjs_log_level GetFlushLevel();
bool ShouldLog(rmmjs_log_level level);
void Log(rmmjs_log_level level, const std::string& message);
void FlushLog();

}  // namespace rmmjs
