#include "pybind/cache_binding.h"

#include "sim/object_cache.h"

namespace py = pybind11;

namespace simt::bindings {

void bind_link_cache(py::module_ &m) {
  // A cache is opened per call: SIMT_CACHE_DIR may change between calls (tests do), and the
  // checks of the directory and its secret are a few system calls beside a compile.
  m.def(
      "link_cache_load",
      [](const std::string &key) -> py::object {
        std::unique_ptr<llvm::MemoryBuffer> library;
        {
          py::gil_scoped_release release;
          library = sim::ObjectCache(sim::kLinkLibraries).load(key);
        }
        if (!library)
          return py::none();
        return py::bytes(library->getBufferStart(), library->getBufferSize());
      },
      py::arg("key"),
      "The shared library cached for `key` (letters, digits, '_' and '-') as bytes, verified "
      "(owner, mode, file type, keyed checksum), or None.");
  m.def(
      "link_cache_store",
      [](const std::string &key, const py::bytes &library) {
        const std::string contents = library;
        py::gil_scoped_release release;
        sim::ObjectCache(sim::kLinkLibraries)
            .store(key, llvm::MemoryBufferRef(contents, "link library"));
      },
      py::arg("key"), py::arg("library"),
      "Caches the shared library `library` (bytes) for `key`, signed; nothing when the cache is "
      "off or cannot be used safely.");
}

} // namespace simt::bindings
