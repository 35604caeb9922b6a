// An on-disk cache of compiled kernel objects, so a rerun of a script skips optimisation and code
// generation. Entries are keyed by a hash of the unoptimised LLVM module, the host CPU and the
// build of the JIT pipeline, so a stale entry can never be picked up for changed code. A kernel
// has one entry: the best tier of its code compiled so far (sim/jit.h).
//
// Loading an entry runs its code, so the cache trusts only what this user wrote: the directory
// must be the user's own and writable by nobody else, and every entry carries an HMAC-SHA256 of
// its key and object under a secret kept in the directory (readable by the user alone). Anything
// else found there (a link, a FIFO, a truncated or altered file) is ignored and recompiled.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/MemoryBuffer.h>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>

namespace simt::sim {

using Sha256Digest = std::array<uint8_t, 32>;

// HMAC-SHA256 (RFC 2104) of the concatenated `parts` under `secret`.
Sha256Digest hmac_sha256(llvm::ArrayRef<uint8_t> secret,
                         std::initializer_list<llvm::StringRef> parts);

class ObjectCache {
public:
  // The directory: SIMT_CACHE_DIR, else $XDG_CACHE_HOME/simt, else $HOME/.cache/simt.
  // SIMT_CACHE=0 turns the cache off. A directory that cannot be used safely turns it off too,
  // with one warning on stderr. SIMT_CACHE_DEBUG=1 reports every lookup and store on stderr.
  ObjectCache();
  ~ObjectCache();
  ObjectCache(const ObjectCache &) = delete;
  ObjectCache &operator=(const ObjectCache &) = delete;

  bool enabled() const { return directory_ >= 0; }

  // The verified cached object for `key`, or null.
  std::unique_ptr<llvm::MemoryBuffer> load(const std::string &key) const;
  // Reports (in debug mode) an entry that verified but could not be linked; the recompile
  // replaces it.
  void reject(const std::string &key, const std::string &why) const;

  // Stores `object` as the entry for `key`, replacing any there (a better tier's code replaces
  // a worse one's: sim/jit.h).
  void store(const std::string &key, llvm::MemoryBufferRef object);

private:
  Sha256Digest tag(const std::string &key, llvm::StringRef object) const;
  void note(const std::string &what) const;

  int directory_ = -1; // an open descriptor: entries are reached relative to it, never by path
  Sha256Digest secret_{};
  bool debug_ = false;
};

} // namespace simt::sim
