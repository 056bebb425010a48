// RMM's logging_resource_adaptor: writes every allocation and free of its upstream to a CSV file
// in RMM's format, so that RMM's replay tools read it:
//   Thread,Time,Action,Pointer,Size,Stream
//   2418135,14:03:27.123456,allocate,0x7f1c2e000000,1000,0
// (spdlog's "%t,%H:%M:%S.%f": the OS thread id and the local time; the pointer as printf's "%p",
// "(nil)" for a failure; the stream in hex without a prefix).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "csv_log.h"
#include "rmmjs/abi.h"
#include "rmmjs/resource.hpp"

namespace rmmjs {

class LoggingResourceAdaptor {
 public:
  static constexpr const char* kTypeName = "LoggingResourceAdaptor";

  LoggingResourceAdaptor(ResourceRef upstream, std::shared_ptr<CsvLog> log)
      : upstream_(std::move(upstream)), log_(std::move(log)) {}
  // The file is complete and closed when the adaptor goes (the background writer may hold the
  // log object a little longer).
  ~LoggingResourceAdaptor() { log_->Close(); }
  LoggingResourceAdaptor(const LoggingResourceAdaptor&) = delete;
  LoggingResourceAdaptor& operator=(const LoggingResourceAdaptor&) = delete;

  // A failure is logged as "allocate failure" and returned unchanged.
  rmmjs_status Allocate(size_t bytes, rmmjs_stream stream, void** out);
  // Logged before the upstream frees the memory.
  rmmjs_status Deallocate(void* ptr, size_t bytes, rmmjs_stream stream);
  rmmjs_resource* Upstream() const { return upstream_.get(); }

  rmmjs_status Flush() { return log_->Flush(); }
  const std::string& file_name() const { return log_->path(); }

 private:
  ResourceRef upstream_;
  std::shared_ptr<CsvLog> log_;
};

}  // namespace rmmjs
