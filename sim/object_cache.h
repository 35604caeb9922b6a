// simt's on-disk caches of compiled code, one implementation for each kind (CacheKind):
// - kernel objects, so a rerun of a script skips optimisation and code generation. Entries are
//   keyed by a hash of the unoptimised LLVM module, the host CPU and the build of the JIT
//   pipeline, so a stale entry can never be picked up for changed code. A kernel has one entry:
//   the best tier of its code compiled so far (sim/jit.h);
// - the shared libraries of @cuda.jit(link=[...]) sources (python/simt/linking.py), keyed by
//   their preprocessed source and compiler.
//
// Loading an entry runs its code, so a cache trusts only what this user wrote: the directory
// (created 0700 whatever the umask) must be the user's own and writable by nobody else, and every
// entry carries an HMAC-SHA256 of its kind, key and contents under a secret kept in the directory
// (readable by the user alone). Anything else found there (a link, a FIFO, a file of another
// owner, a truncated, altered or garbage file) is ignored and recompiled; entries are written
// 0600 under a fresh name and renamed into place.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/BinaryFormat/Magic.h>
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

// What a cache holds: its folder below the cache directory ("" for the directory itself), its
// entries' file suffix, the kind of ELF file each must be, and what warnings call it.
struct CacheKind {
  const char *folder;
  const char *suffix;
  llvm::file_magic::Impl magic;
  const char *description;
};
inline constexpr CacheKind kKernelObjects{"", ".o", llvm::file_magic::elf_relocatable,
                                          "compile cache"};
inline constexpr CacheKind kLinkLibraries{"link", ".so", llvm::file_magic::elf_shared_object,
                                          "cache of link= libraries"};

class ObjectCache {
public:
  // The directory: SIMT_CACHE_DIR, else $XDG_CACHE_HOME/simt, else $HOME/.cache/simt.
  // SIMT_CACHE=0 turns the cache off. A directory that cannot be used safely turns it off too,
  // with one warning on stderr. SIMT_CACHE_DEBUG=1 reports every lookup and store on stderr.
  explicit ObjectCache(const CacheKind &kind = kKernelObjects);
  ~ObjectCache();
  ObjectCache(const ObjectCache &) = delete;
  ObjectCache &operator=(const ObjectCache &) = delete;

  bool enabled() const { return directory_ >= 0; }

  // The verified cached entry for `key`, or null.
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

  const CacheKind &kind_;
  int directory_ = -1; // an open descriptor: entries are reached relative to it, never by path
  Sha256Digest secret_{};
  bool debug_ = false;
};

} // namespace simt::sim
