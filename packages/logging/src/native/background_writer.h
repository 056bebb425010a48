// One process-wide thread that writes the full chunks of CSV logs, so that allocating threads
// do not format rows or wait for the file. Started on first use; never stopped (at exit the
// logs are written out by the threads that exit, see csv_log.cc).
#pragma once

#include <memory>

namespace rmmjs {

class CsvLog;

// Asks the writer to write log's full chunks; false when there is no writer thread (it could not
// be started): the caller writes them itself.
bool WakeBackgroundWriter(std::shared_ptr<CsvLog> log);

}  // namespace rmmjs
