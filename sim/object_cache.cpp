#include "sim/object_cache.h"

#include "config/settings.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/BinaryFormat/Magic.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <set>
#include <stdexcept>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace simt::sim {

namespace {

constexpr size_t kMaxObjectBytes = size_t{64} << 20; // far above any kernel's object
constexpr size_t kTagBytes = std::tuple_size_v<Sha256Digest>;
constexpr const char *kSecretName = "hmac.key";

// Why the cache directory cannot be used; caught once, in the constructor.
struct Refused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class UniqueFd {
public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  UniqueFd(UniqueFd &&other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd &operator=(UniqueFd &&other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~UniqueFd() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

private:
  int fd_;
};

std::string env(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

std::string cache_directory() {
  if (config::text(config::Setting::SIMT_CACHE) == "0")
    return "";
  if (std::string directory = config::text(config::Setting::SIMT_CACHE_DIR); !directory.empty())
    return directory;
  if (!env("XDG_CACHE_HOME").empty())
    return env("XDG_CACHE_HOME") + "/simt";
  if (!env("HOME").empty())
    return env("HOME") + "/.cache/simt";
  return "";
}

std::string system_error(const std::string &what) { return what + ": " + std::strerror(errno); }

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// Only the user may be able to change what the cache loads.
void check_private_directory(int fd, const std::string &name) {
  struct stat info;
  if (::fstat(fd, &info) != 0)
    throw Refused(system_error(name));
  if (info.st_uid != ::geteuid())
    throw Refused(name + " is owned by another user");
  if (info.st_mode & (S_IWGRP | S_IWOTH))
    throw Refused(name + " is writable by other users (mode " + octal_mode(info.st_mode) + ")");
}

// Opens the folder `name` in `parent`, creating it with mode 0700 (private whatever the umask:
// mkdir's mode is only ever narrowed by it) where it is missing. `created` says whether it was.
UniqueFd open_or_create_folder(int parent, const std::string &name, const std::string &shown,
                               bool &created) {
  const int flags = O_DIRECTORY | O_RDONLY | O_CLOEXEC;
  UniqueFd next(::openat(parent, name.c_str(), flags));
  created = next.get() < 0 && errno == ENOENT;
  if (created) {
    if (::mkdirat(parent, name.c_str(), 0700) != 0 && errno != EEXIST)
      throw Refused(system_error("cannot create " + shown));
    next = UniqueFd(::openat(parent, name.c_str(), flags | O_NOFOLLOW));
  }
  if (next.get() < 0)
    throw Refused(system_error(shown));
  return next;
}

// Opens `path`, creating missing directories with mode 0700. Every directory created here and
// the cache directory itself must be private; existing parents (such as /tmp) may be shared, as
// everything later happens relative to the returned descriptor.
UniqueFd open_cache_directory(const std::string &path) {
  UniqueFd directory(::open(path.front() == '/' ? "/" : ".", O_DIRECTORY | O_RDONLY | O_CLOEXEC));
  if (directory.get() < 0)
    throw Refused(system_error(path));
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(path).split(parts, '/', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  std::string reached = path.front() == '/' ? "/" : "";
  for (llvm::StringRef name : parts) {
    const std::string part = name.str();
    reached += (reached.empty() || reached.back() == '/' ? "" : "/") + part;
    bool created = false;
    UniqueFd next = open_or_create_folder(directory.get(), part, reached, created);
    if (created)
      check_private_directory(next.get(), reached);
    directory = std::move(next);
  }
  check_private_directory(directory.get(), path);
  return directory;
}

// A cache's own folder in the cache directory (never a link), private as the directory is.
UniqueFd open_kind_folder(UniqueFd root, const CacheKind &kind, const std::string &path) {
  if (*kind.folder == '\0')
    return root;
  const std::string shown = path + "/" + kind.folder;
  bool created = false;
  UniqueFd folder = open_or_create_folder(root.get(), kind.folder, shown, created);
  struct stat info;
  if (::fstatat(root.get(), kind.folder, &info, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(info.st_mode))
    throw Refused(shown + " is not a directory");
  check_private_directory(folder.get(), shown);
  return folder;
}

// Keys name files: only letters, digits, '_' and '-' (no '/', no "..").
bool valid_key(const std::string &key) {
  return !key.empty() && key.size() <= 128 && std::all_of(key.begin(), key.end(), [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '-';
  });
}

bool read_all(int fd, char *data, size_t size) {
  while (size > 0) {
    ssize_t got = ::read(fd, data, size);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    data += got;
    size -= static_cast<size_t>(got);
  }
  return true;
}

bool write_all(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t put = ::write(fd, data, size);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0)
      return false;
    data += put;
    size -= static_cast<size_t>(put);
  }
  return true;
}

// A new file of mode 0600 beside `name`, under a random name nobody can have planted a link at.
std::pair<UniqueFd, std::string> create_temporary(int directory, const std::string &name) {
  uint64_t nonce = 0;
  if (::getrandom(&nonce, sizeof nonce, 0) != sizeof nonce)
    return {UniqueFd(), ""};
  std::string temporary = name + ".tmp" + llvm::utohexstr(nonce, /*LowerCase=*/true);
  return {UniqueFd(::openat(directory, temporary.c_str(),
                            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)),
          temporary};
}

// Writes `parts` to a temporary file and moves it to `name`: other processes never see half a
// file. With `replace` false an existing `name` wins (link() does not overwrite).
bool publish(int directory, const std::string &name, std::initializer_list<llvm::StringRef> parts,
             bool replace) {
  auto [file, temporary] = create_temporary(directory, name);
  if (file.get() < 0)
    return false;
  bool written = true;
  for (llvm::StringRef part : parts)
    written = written && write_all(file.get(), part.data(), part.size());
  written = ::close(file.release()) == 0 && written;
  const char *from = temporary.c_str();
  bool moved = false;
  if (written && replace)
    moved = ::renameat(directory, from, directory, name.c_str()) == 0;
  else if (written)
    moved = ::linkat(directory, from, directory, name.c_str(), 0) == 0 || errno == EEXIST;
  if (!replace || !moved)
    ::unlinkat(directory, from, 0);
  return moved;
}

Sha256Digest read_secret(int directory) {
  UniqueFd file(::openat(directory, kSecretName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (file.get() < 0)
    throw Refused(system_error(kSecretName));
  struct stat info;
  Sha256Digest secret;
  if (::fstat(file.get(), &info) != 0 || !S_ISREG(info.st_mode) || info.st_uid != ::geteuid() ||
      (info.st_mode & 077) != 0 || info.st_size != static_cast<off_t>(secret.size()) ||
      !read_all(file.get(), reinterpret_cast<char *>(secret.data()), secret.size()))
    throw Refused(std::string(kSecretName) +
                  " is not a 32-byte regular file of mode 0600 owned by the user");
  return secret;
}

// The user's secret for signing entries, created on first use (concurrent first uses agree).
Sha256Digest load_or_create_secret(int directory) {
  struct stat info;
  if (::fstatat(directory, kSecretName, &info, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT) {
    Sha256Digest fresh;
    if (::getrandom(fresh.data(), fresh.size(), 0) != static_cast<ssize_t>(fresh.size()))
      throw Refused(system_error("no random numbers for " + std::string(kSecretName)));
    llvm::StringRef bytes(reinterpret_cast<const char *>(fresh.data()), fresh.size());
    if (!publish(directory, kSecretName, {bytes}, /*replace=*/false))
      throw Refused(system_error("cannot create " + std::string(kSecretName)));
  }
  return read_secret(directory);
}

// Caches are opened more than once (link= libraries per compile): each warning is said once.
void warn_once(const std::string &warning) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> lock(mutex);
  if (said.insert(warning).second)
    llvm::errs() << warning;
}

} // namespace

Sha256Digest hmac_sha256(llvm::ArrayRef<uint8_t> secret,
                         std::initializer_list<llvm::StringRef> parts) {
  constexpr size_t kBlock = 64;
  std::array<uint8_t, kBlock> block{};
  if (secret.size() > kBlock) {
    Sha256Digest hashed = llvm::SHA256::hash(secret);
    std::copy(hashed.begin(), hashed.end(), block.begin());
  } else {
    std::copy(secret.begin(), secret.end(), block.begin());
  }
  auto padded = [&](uint8_t pad) {
    std::array<uint8_t, kBlock> out;
    for (size_t i = 0; i < kBlock; ++i)
      out[i] = block[i] ^ pad;
    return out;
  };
  llvm::SHA256 inner;
  inner.update(padded(0x36));
  for (llvm::StringRef part : parts)
    inner.update(part);
  llvm::SHA256 outer;
  outer.update(padded(0x5c));
  outer.update(inner.final());
  return outer.final();
}

ObjectCache::ObjectCache(const CacheKind &kind)
    : kind_(kind), debug_(config::text(config::Setting::SIMT_CACHE_DEBUG) == "1") {
  const std::string path = cache_directory();
  if (path.empty())
    return;
  try {
    UniqueFd root = open_cache_directory(path);
    secret_ = load_or_create_secret(root.get());
    directory_ = open_kind_folder(std::move(root), kind, path).release();
  } catch (const Refused &refused) {
    warn_once("simt: warning: not using the " + std::string(kind.description) + " in " + path +
              ": " + refused.what() + "; compiling without it\n");
  }
}

ObjectCache::~ObjectCache() {
  if (directory_ >= 0)
    ::close(directory_);
}

Sha256Digest ObjectCache::tag(const std::string &key, llvm::StringRef object) const {
  // The kind and key are signed too, so a valid entry cannot stand in for another's.
  const llvm::StringRef separator("\0", 1);
  return hmac_sha256(secret_, {kind_.suffix, separator, key, separator, object});
}

void ObjectCache::note(const std::string &what) const {
  if (debug_)
    llvm::errs() << "simt: " << kind_.description << ": " << what << "\n";
}

void ObjectCache::reject(const std::string &key, const std::string &why) const {
  note("rejected " + key + ": " + why);
}

std::unique_ptr<llvm::MemoryBuffer> ObjectCache::load(const std::string &key) const {
  if (!enabled() || !valid_key(key))
    return nullptr;
  const std::string name = key + kind_.suffix;
  // No links, and a FIFO or device opens without blocking so fstat can turn it away.
  UniqueFd file(::openat(directory_, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (file.get() < 0) {
    if (errno == ENOENT)
      note("miss " + key);
    else
      reject(key, system_error("cannot open"));
    return nullptr;
  }
  struct stat info;
  if (::fstat(file.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
    reject(key, "not a regular file");
    return nullptr;
  }
  if (info.st_uid != ::geteuid()) {
    reject(key, "owned by another user");
    return nullptr;
  }
  const auto size = static_cast<size_t>(info.st_size);
  if (size <= kTagBytes || size > kMaxObjectBytes + kTagBytes) {
    reject(key, "size " + std::to_string(size) + " out of range");
    return nullptr;
  }
  auto object = llvm::WritableMemoryBuffer::getNewUninitMemBuffer(size - kTagBytes, name);
  Sha256Digest stored;
  if (!object || !read_all(file.get(), object->getBufferStart(), object->getBufferSize()) ||
      !read_all(file.get(), reinterpret_cast<char *>(stored.data()), stored.size())) {
    reject(key, "truncated");
    return nullptr;
  }
  const llvm::StringRef contents(object->getBufferStart(), object->getBufferSize());
  if (llvm::identify_magic(contents) != kind_.magic) {
    reject(key,
           std::string("not an ELF ") +
               (kind_.magic == llvm::file_magic::elf_relocatable ? "object" : "shared library"));
    return nullptr;
  }
  const Sha256Digest expected = tag(key, contents);
  uint8_t difference = 0; // compared in constant time
  for (size_t i = 0; i < kTagBytes; ++i)
    difference |= stored[i] ^ expected[i];
  if (difference != 0) {
    reject(key, "checksum mismatch (damaged, or not written by this user's simt)");
    return nullptr;
  }
  note("hit " + key);
  return object;
}

void ObjectCache::store(const std::string &key, llvm::MemoryBufferRef object) {
  if (!enabled() || !valid_key(key) || object.getBufferSize() > kMaxObjectBytes)
    return; // an unwritable cache only costs the next run its compile time
  const Sha256Digest signature = tag(key, object.getBuffer());
  llvm::StringRef signature_bytes(reinterpret_cast<const char *>(signature.data()),
                                  signature.size());
  if (publish(directory_, key + kind_.suffix, {object.getBuffer(), signature_bytes},
              /*replace=*/true))
    note("stored " + key);
}

} // namespace simt::sim
