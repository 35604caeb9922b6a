// Builds one ir::Module: the kernel, its device functions specialised per argument types, and the
// module-wide shared and constant arrays.
#pragma once

#include "frontend/resolver.h"
#include "ir/ir.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace simt {

class FunctionTyper;

class ModuleBuilder {
public:
  ModuleBuilder();

  // The index in module().functions of `source` typed for `arg_types`, compiling it on first use.
  // A call made while that specialisation is being typed (recursion) gets the index reserved for
  // it. `statics`: the parameters bound to compile-time values instead (StaticArgs), which
  // `arg_types` leaves out.
  int specialize(const std::shared_ptr<FunctionSource> &source, const std::vector<Type> &arg_types,
                 const StaticArgs &statics = {});
  // The return type of functions[index]: for one still being typed, what its typer has found so
  // far (nullopt before any of its returns is typed: a recursive call waits a round for it).
  std::optional<Type> return_type(int index) const;
  // A shared array declared at `key` (function + source position): one per declaration site.
  int shared_array(const std::string &key, const ir::SharedArrayDecl &decl);
  // The shared array `index` is assigned to the variable `name` (its first name is kept).
  void name_shared_array(int index, const std::string &name);
  // A constant array frozen from a global, one per (function identity, name).
  int const_array(const std::string &key, ir::ConstArrayDecl decl);
  // The index in Module::externs of the external device function `fn`, one per name; -1 when
  // the name is declared with another signature too.
  int extern_function(const ExternFunction &fn);

  // Compiles the kernel (or, unless `is_kernel`, a device function) as functions[0], drops what
  // its final typing no longer reaches, and lays out shared memory.
  ir::Module build(const FunctionSource &kernel, const std::vector<Type> &arg_types,
                   bool is_kernel = true);

  const ir::Module &module() const { return module_; }
  // The levels of nesting the typers of this module have entered, a device function's on top of
  // its caller's (see frontend/nesting.h).
  int &nesting_depth() { return nesting_depth_; }

private:
  void prune_and_layout();

  ir::Module module_;
  std::map<std::string, int> specializations_;
  std::map<std::string, int> shared_keys_;
  std::map<std::string, int> const_keys_;
  // The typers of the specialisations being typed, by index, and their indices in the order
  // their typing began (a call stack); those a recursive call reaches again.
  std::map<int, const FunctionTyper *> in_progress_;
  std::vector<int> typing_;
  std::set<int> recursive_;
  std::vector<std::shared_ptr<FunctionSource>> sources_; // keeps callee sources alive
  int next_suffix_ = 1;
  int nesting_depth_ = 0;
};

std::string function_key(const FunctionSource &source);

} // namespace simt
