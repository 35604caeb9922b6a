// compile_kernel: the kernel, its device functions and the module-wide arrays.
#include "frontend/compile.h"
#include "analysis/properties.h"
#include "frontend/module_builder.h"
#include "frontend/typer.h"
#include "ir/walk.h"

#include <algorithm>

namespace simt {

std::string function_key(const FunctionSource &source) {
  if (source.identity)
    return std::to_string(source.identity);
  if (!source.closure_key.empty())
    return source.file + ":" + source.closure_key;
  return source.file + ":" + std::to_string(source.first_line) + ":" + source.name;
}

namespace {

// The memory spaces of the arrays in `t`, which its text leaves out: a device function called
// with a shared array and with a local one is two specialisations (their accesses differ).
std::string spaces_of(const Type &t) {
  if (t.kind == Type::Kind::Array)
    return std::to_string(int(t.space));
  std::string spaces;
  for (const Type &elem : t.elems)
    spaces += spaces_of(elem);
  return spaces;
}

} // namespace

ModuleBuilder::ModuleBuilder() { module_.functions.emplace_back(); } // the kernel's place

int ModuleBuilder::specialize(const std::shared_ptr<FunctionSource> &source,
                              const std::vector<Type> &arg_types, const StaticArgs &statics) {
  std::string key = function_key(*source) + "(";
  for (const Type &t : arg_types)
    key += t.str() + spaces_of(t) + ",";
  for (const auto &[param, arg] : statics)
    key += param + "=" + arg.key + ",";
  auto found = specializations_.find(key);
  if (found != specializations_.end()) {
    auto calling = std::find(typing_.begin(), typing_.end(), found->second);
    recursive_.insert(calling, typing_.end()); // a recursive call: the cycle it closes
    return found->second;
  }
  sources_.push_back(source);
  // The index is reserved before typing, so that recursive calls can name it.
  module_.functions.emplace_back();
  const int index = static_cast<int>(module_.functions.size()) - 1;
  specializations_[key] = index;
  std::string name = source->name + "$" + std::to_string(next_suffix_++);
  // On the heap: device functions calling each other nest their typings on the stack.
  auto typer = std::make_unique<FunctionTyper>(*this, *source, arg_types, false, name, statics);
  in_progress_[index] = typer.get();
  typing_.push_back(index);
  struct Done { // on every path, errors too
    ModuleBuilder &builder;
    ~Done() {
      builder.in_progress_.erase(builder.typing_.back());
      builder.typing_.pop_back();
    }
  } done{*this};
  ir::Function fn = typer->run();
  // Each thread's local arrays have one place per function (sim/local_frame.cpp): activations
  // of a recursive function would share it.
  fn.recursive = recursive_.count(index) != 0;
  if (fn.recursive && !fn.local_arrays.empty())
    typer->error_at_definition("simt: local arrays in recursive device functions are not "
                               "supported yet ('" +
                               source->name + "')");
  module_.functions[size_t(index)] = std::move(fn);
  return index;
}

std::optional<Type> ModuleBuilder::return_type(int index) const {
  auto typing = in_progress_.find(index);
  if (typing != in_progress_.end())
    return typing->second->return_type_so_far();
  return module_.functions.at(size_t(index)).return_type;
}

int ModuleBuilder::shared_array(const std::string &key, const ir::SharedArrayDecl &decl) {
  auto found = shared_keys_.find(key);
  if (found != shared_keys_.end()) {
    ir::SharedArrayDecl &known = module_.shared_arrays[found->second];
    const std::string name = known.name;
    known = decl; // a later typing round may see another shape
    known.name = name;
    return found->second;
  }
  module_.shared_arrays.push_back(decl);
  return shared_keys_[key] = static_cast<int>(module_.shared_arrays.size()) - 1;
}

void ModuleBuilder::name_shared_array(int index, const std::string &name) {
  std::string &known = module_.shared_arrays[size_t(index)].name;
  if (known.empty())
    known = name;
}

int ModuleBuilder::const_array(const std::string &key, ir::ConstArrayDecl decl) {
  auto found = const_keys_.find(key);
  if (found != const_keys_.end())
    return found->second;
  module_.const_arrays.push_back(std::move(decl));
  return const_keys_[key] = static_cast<int>(module_.const_arrays.size()) - 1;
}

int ModuleBuilder::extern_function(const ExternFunction &fn) {
  for (size_t i = 0; i < module_.externs.size(); ++i) {
    const ExternFunction &known = module_.externs[i];
    if (known.name == fn.name)
      return known.return_type == fn.return_type && known.params == fn.params ? int(i) : -1;
  }
  module_.externs.push_back(fn);
  return int(module_.externs.size()) - 1;
}

ir::Module ModuleBuilder::build(const FunctionSource &kernel, const std::vector<Type> &arg_types,
                                bool is_kernel) {
  module_.functions[0] = FunctionTyper(*this, kernel, arg_types, is_kernel, kernel.name).run();
  prune_and_layout();
  ir::derive_properties(module_);
  if (ir::verification_enabled())
    ir::verify(module_);
  return std::move(module_);
}

namespace {

// Old index -> new index for the kept entries (in their original order), -1 for dropped ones.
std::vector<int> renumbering(const std::vector<bool> &used) {
  std::vector<int> map(used.size(), -1);
  int next = 0;
  for (size_t i = 0; i < used.size(); ++i)
    if (used[i])
      map[i] = next++;
  return map;
}

template <typename T> std::vector<T> keep(std::vector<T> &items, const std::vector<int> &map) {
  std::vector<T> kept;
  for (size_t i = 0; i < items.size(); ++i)
    if (map[i] >= 0)
      kept.push_back(std::move(items[i]));
  return kept;
}

} // namespace

// Typing rounds may specialise device functions (and declare their arrays) for argument types
// that later rounds widen; only what the final kernel reaches stays.
void ModuleBuilder::prune_and_layout() {
  auto &fns = module_.functions;
  std::vector<bool> reached(fns.size(), false);
  std::vector<int> work = {0};
  reached[0] = true;
  while (!work.empty()) {
    int f = work.back();
    work.pop_back();
    ir::walk_exprs(fns[f].body, [&](ir::Expr &e) {
      if (e.kind == ir::ExprKind::Call && !reached[e.index]) {
        reached[e.index] = true;
        work.push_back(e.index);
      }
    });
  }
  std::vector<bool> shared_used(module_.shared_arrays.size(), false);
  std::vector<bool> const_used(module_.const_arrays.size(), false);
  for (size_t f = 0; f < fns.size(); ++f)
    if (reached[f])
      ir::walk_exprs(fns[f].body, [&](ir::Expr &e) {
        if (e.kind == ir::ExprKind::SharedArray)
          shared_used[e.index] = true;
        if (e.kind == ir::ExprKind::ConstArray)
          const_used[e.index] = true;
      });
  auto fn_map = renumbering(reached);
  auto shared_map = renumbering(shared_used);
  auto const_map = renumbering(const_used);
  for (size_t f = 0; f < fns.size(); ++f)
    if (reached[f])
      ir::walk_exprs(fns[f].body, [&](ir::Expr &e) {
        if (e.kind == ir::ExprKind::Call)
          e.index = fn_map[e.index];
        else if (e.kind == ir::ExprKind::SharedArray)
          e.index = shared_map[e.index];
        else if (e.kind == ir::ExprKind::ConstArray)
          e.index = const_map[e.index];
      });
  fns = keep(fns, fn_map);
  module_.shared_arrays = keep(module_.shared_arrays, shared_map);
  module_.const_arrays = keep(module_.const_arrays, const_map);

  // Static shared arrays each start 16-byte aligned; dynamic ones all alias the space after them.
  // Each array's size fits an int64 (the typer checks it); their sum saturates, so a total past
  // int64 is refused at launch like any total over the shared memory limit.
  auto aligned_end = [](int64_t offset, int64_t bytes) {
    int64_t end;
    if (__builtin_add_overflow(offset, bytes, &end) || end > INT64_MAX - 15)
      return INT64_MAX;
    return (end + 15) / 16 * 16;
  };
  int64_t offset = 0;
  for (ir::SharedArrayDecl &s : module_.shared_arrays) {
    if (s.dynamic)
      continue;
    // alignment=: offsets in the block's buffer, which is max_array_alignment-aligned.
    if (s.alignment > 16)
      offset = offset > INT64_MAX - s.alignment
                   ? INT64_MAX
                   : (offset + s.alignment - 1) / s.alignment * s.alignment;
    s.offset = offset;
    offset = aligned_end(offset, s.elements.bytes(s.shape));
  }
  module_.static_shared_bytes = offset;
  for (ir::SharedArrayDecl &s : module_.shared_arrays)
    if (s.dynamic)
      s.offset = offset;
}

ir::Module compile_kernel(const FunctionSource &kernel, const std::vector<Type> &arg_types,
                          const CompileOptions &options) {
  ir::Module module = ModuleBuilder().build(kernel, arg_types);
  module.options = options;
  return module;
}

ir::Module compile_device_function(const FunctionSource &function,
                                   const std::vector<Type> &arg_types,
                                   const CompileOptions &options) {
  ir::Module module = ModuleBuilder().build(function, arg_types, false);
  module.options = options;
  return module;
}

} // namespace simt
