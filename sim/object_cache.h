// An on-disk cache of compiled kernel objects, so a rerun of a script skips optimisation and code
// generation. Entries are keyed by a hash of the unoptimised LLVM module, the host CPU and the
// build of the JIT pipeline, so a stale entry can never be picked up for changed code.
#pragma once

#include <llvm/ExecutionEngine/ObjectCache.h>
#include <llvm/Support/MemoryBuffer.h>

#include <memory>
#include <string>

namespace simt::sim {

class ObjectCache : public llvm::ObjectCache {
public:
  // The directory: SIMT_CACHE_DIR, else $XDG_CACHE_HOME/simt, else $HOME/.cache/simt.
  // SIMT_CACHE=0 turns the cache off.
  ObjectCache();

  bool enabled() const { return !directory_.empty(); }

  // The cached object for `key`, or null.
  std::unique_ptr<llvm::MemoryBuffer> load(const std::string &key) const;
  // Drops a cached object that turned out unusable.
  void forget(const std::string &key) const;

  // Called by the JIT's compiler: stores the object of a module whose identifier is its key.
  void notifyObjectCompiled(const llvm::Module *module, llvm::MemoryBufferRef object) override;
  // Loading goes through load() before a module is even optimised, so the compiler never asks.
  std::unique_ptr<llvm::MemoryBuffer> getObject(const llvm::Module *) override { return nullptr; }

private:
  std::string path_of(const std::string &key) const;

  std::string directory_;
};

} // namespace simt::sim
