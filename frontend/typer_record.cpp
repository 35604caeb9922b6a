// Records (NumPy structured dtypes): fields of record array elements, read and written by name
// as Numba does (`a[i]['s0']`, `a[i].s0`, `rec = a[i]`, `a[i] = a[j]`).
#include "frontend/ir_build.h"
#include "frontend/typer.h"

namespace simt {

namespace {

std::string field_names(const Record &record) {
  std::string out;
  for (const RecordField &field : record.fields)
    out += (out.empty() ? "'" : ", '") + field.name + "'";
  return out;
}

} // namespace

int FunctionTyper::field_index(const Type &record, const std::string &name, ir::Loc loc) const {
  int index = record.record->field_index(name);
  if (index < 0)
    error(loc, "record " + record.str() + " has no field '" + name +
                   "' (fields: " + field_names(*record.record) + ")");
  return index;
}

int FunctionTyper::field_key(const Type &record, const ast::Expr &key) const {
  if (key.kind != ast::ExprKind::String)
    error(key.loc, "simt: record fields are selected by a constant string (rec['name']) or an "
                   "attribute (rec.name)");
  return field_index(record, key.text, key.loc);
}

ir::ExprPtr FunctionTyper::field_load(ir::ExprPtr record, int field, ir::Loc loc) const {
  const RecordField &f = record->type.record->fields[field];
  // A nested array field reads as a C-contiguous array view into the record.
  Type type = f.shape.empty() ? Type::scalar_of(f.scalar)
                              : Type::array_of(f.scalar, static_cast<int>(f.shape.size()), 'C');
  auto load = make_expr(ir::ExprKind::RecordField, type, loc);
  load->index = field;
  load->args.push_back(std::move(record));
  return load;
}

void FunctionTyper::field_store(ir::ExprPtr record, int field, ir::ExprPtr value, ir::Loc loc) {
  const RecordField &f = record->type.record->fields[field];
  if (!f.shape.empty())
    error(loc, "simt: assigning to the nested array field '" + f.name +
                   "' is not supported yet (assign to its elements)");
  if (!value->type.is_scalar())
    error(value->loc, "cannot store " + value->type.str() + " into the " + scalar_name(f.scalar) +
                          " field '" + f.name + "'");
  ir::Stmt s;
  s.kind = ir::StmtKind::FieldStore;
  s.loc = loc;
  s.field = field;
  Type type = Type::scalar_of(f.scalar);
  s.exprs.push_back(std::move(record));
  s.exprs.push_back(cast(std::move(value), type));
  emit(std::move(s));
}

void FunctionTyper::aug_assign_field(ir::ExprPtr record, int field, const ast::Stmt &s) {
  record = stable(std::move(record));
  ir::ExprPtr current = field_load(clone(*record), field, s.target->loc);
  ir::ExprPtr result = binary(s.op, std::move(current), rvalue(*s.value), s.loc);
  field_store(std::move(record), field, std::move(result), s.loc);
}

void FunctionTyper::record_store(ir::Stmt store, ir::ExprPtr value) {
  const Type &array = store.exprs[0]->type;
  if (value->type != array.element())
    error(value->loc, "cannot store " + value->type.str() + " into an element of " + array.str());
  store.exprs.push_back(std::move(value));
  emit(std::move(store));
}

} // namespace simt
