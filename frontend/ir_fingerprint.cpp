// ir::fingerprint: every field of a typed IR module, written as bytes. A backend's code is a
// function of the module (and of the backend's own build), so equal fingerprints may share code:
// the simulator keys its code caches by it and skips lowering a kernel it has compiled before.
#include "frontend/ir.h"

#include <cstring>

namespace simt::ir {
namespace {

class Writer {
public:
  std::string bytes;

  void number(int64_t value) { raw(&value, sizeof value); }
  void real(double value) { raw(&value, sizeof value); } // its bits: -0.0 and NaNs stay apart
  void text(const std::string &value) {
    number(int64_t(value.size()));
    bytes += value;
  }
  void numbers(const std::vector<int64_t> &values) {
    number(int64_t(values.size()));
    for (int64_t value : values)
      number(value);
  }

  void type(const Type &t) {
    number(int64_t(t.kind));
    number(int64_t(t.scalar));
    number(t.ndim);
    number(t.layout);
    number(int64_t(t.space));
    number(t.readonly);
    number(int64_t(t.elems.size()));
    for (const Type &elem : t.elems)
      type(elem);
    number(t.record != nullptr);
    if (t.record != nullptr) {
      number(t.record->size);
      number(t.record->aligned);
      number(int64_t(t.record->chars));
      number(int64_t(t.record->fields.size()));
      for (const RecordField &field : t.record->fields) {
        text(field.name);
        number(int64_t(field.scalar));
        number(field.offset);
        numbers(field.shape);
        text(field.record ? field.record->str() : std::string()); // a nested record's layout
      }
    }
    number(t.nominal != nullptr);
    if (t.nominal != nullptr) {
      number(int64_t(t.nominal->kind));
      number(int64_t(t.nominal->identity));
      text(t.nominal->name);
      for (const std::string &field : t.nominal->fields)
        text(field);
    }
  }

  void loc(const Loc &where) {
    number(where.line);
    number(where.col);
  }

  void expr(const Expr &e) {
    number(int64_t(e.kind));
    type(e.type);
    loc(e.loc);
    number(int64_t(e.op));
    number(e.int_value);
    real(e.float_value);
    real(e.imag_value);
    number(e.index);
    number(int64_t(e.intrinsic));
    text(e.name);
    number(e.no_wrap);
    number(int64_t(e.args.size()));
    for (const ExprPtr &arg : e.args)
      expr(*arg);
  }

  void stmts(const std::vector<Stmt> &list) {
    number(int64_t(list.size()));
    for (const Stmt &s : list) {
      number(int64_t(s.kind));
      loc(s.loc);
      number(s.slot);
      number(int64_t(s.exprs.size()));
      for (const ExprPtr &e : s.exprs)
        expr(*e);
      stmts(s.body);
      stmts(s.orelse);
      text(s.exc);
      text(s.message);
      number(s.field);
    }
  }

  void props(const Properties &p) {
    for (bool flag : {p.uses_barrier, p.uses_grid_sync, p.uses_shared, p.uses_atomics, p.uses_print,
                      p.uses_warp, p.uses_breakpoint, p.may_spin})
      number(flag);
  }

  void function(const Function &f) {
    text(f.name);
    text(f.python_name);
    text(f.file);
    number(f.first_line);
    number(int64_t(f.slots.size()));
    for (const Slot &slot : f.slots) {
      text(slot.name);
      type(slot.type);
      number(slot.first_line);
      number(slot.last_line);
    }
    number(f.num_params);
    type(f.return_type);
    stmts(f.body);
    number(int64_t(f.local_arrays.size()));
    for (const LocalArrayDecl &array : f.local_arrays) {
      text(array.name);
      text(array.elements.str());
      numbers(array.shape);
      number(array.alignment);
    }
    number(f.recursive);
    number(f.is_kernel);
    props(f.props);
  }

private:
  void raw(const void *data, size_t size) { bytes.append(static_cast<const char *>(data), size); }
};

} // namespace

std::string fingerprint(const Module &module) {
  Writer out;
  out.number(int64_t(module.functions.size()));
  for (const Function &f : module.functions)
    out.function(f);
  out.number(int64_t(module.externs.size()));
  for (const ExternFunction &extern_function : module.externs) {
    out.text(extern_function.name);
    out.type(extern_function.return_type);
    out.number(int64_t(extern_function.params.size()));
    for (const Type &param : extern_function.params)
      out.type(param);
  }
  out.number(int64_t(module.shared_arrays.size()));
  for (const SharedArrayDecl &array : module.shared_arrays) {
    out.text(array.name);
    out.text(array.elements.str());
    out.numbers(array.shape);
    out.number(array.offset);
    out.number(array.dynamic);
    out.number(array.alignment);
  }
  out.number(int64_t(module.const_arrays.size()));
  for (const ConstArrayDecl &array : module.const_arrays) {
    out.number(int64_t(array.dtype));
    out.numbers(array.shape);
    out.text(std::string(array.data.begin(), array.data.end()));
  }
  out.number(module.static_shared_bytes);
  out.props(module.props);
  out.text(module.options.key());
  return std::move(out.bytes);
}

} // namespace simt::ir
