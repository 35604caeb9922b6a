#include "sim/object_cache.h"

#include <llvm/IR/Module.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <unistd.h>

namespace simt::sim {

namespace {

std::string env(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

std::string cache_directory() {
  if (env("SIMT_CACHE") == "0")
    return "";
  if (!env("SIMT_CACHE_DIR").empty())
    return env("SIMT_CACHE_DIR");
  if (!env("XDG_CACHE_HOME").empty())
    return env("XDG_CACHE_HOME") + "/simt";
  if (!env("HOME").empty())
    return env("HOME") + "/.cache/simt";
  return "";
}

} // namespace

ObjectCache::ObjectCache() : directory_(cache_directory()) {}

std::string ObjectCache::path_of(const std::string &key) const {
  return directory_ + "/" + key + ".o";
}

std::unique_ptr<llvm::MemoryBuffer> ObjectCache::load(const std::string &key) const {
  if (!enabled())
    return nullptr;
  auto buffer = llvm::MemoryBuffer::getFile(path_of(key), /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  return buffer ? std::move(*buffer) : nullptr;
}

void ObjectCache::forget(const std::string &key) const {
  if (enabled())
    llvm::sys::fs::remove(path_of(key));
}

void ObjectCache::notifyObjectCompiled(const llvm::Module *module, llvm::MemoryBufferRef object) {
  if (!enabled() || llvm::sys::fs::create_directories(directory_))
    return; // an unwritable cache only costs the next run its compile time
  // Write beside the entry and rename: concurrent processes never see half an object.
  std::string path = path_of(module->getModuleIdentifier());
  std::string temporary = path + ".tmp" + std::to_string(::getpid());
  {
    std::error_code error;
    llvm::raw_fd_ostream out(temporary, error, llvm::sys::fs::OF_None);
    if (error)
      return;
    out.write(object.getBufferStart(), object.getBufferSize());
    out.close();
    if (out.has_error()) {
      out.clear_error();
      llvm::sys::fs::remove(temporary);
      return;
    }
  }
  if (llvm::sys::fs::rename(temporary, path))
    llvm::sys::fs::remove(temporary);
}

} // namespace simt::sim
