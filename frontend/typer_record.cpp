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

// The code points of UTF-8 `text` (the lexer wrote it, so it is well formed).
std::vector<uint32_t> code_points(const std::string &text) {
  std::vector<uint32_t> codes;
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const int extra = lead < 0x80 ? 0 : lead < 0xE0 ? 1 : lead < 0xF0 ? 2 : 3;
    uint32_t code = extra == 0 ? lead : lead & (0x3F >> extra);
    for (int k = 1; k <= extra && i + k < text.size(); ++k)
      code = code << 6 | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    codes.push_back(code);
    i += extra + 1;
  }
  return codes;
}

} // namespace

// A str or bytes constant into a character sequence, as NumPy stores one: truncated to its
// length, the rest zero.
void FunctionTyper::store_chars(ir::ExprPtr chars, const ir::Expr &text, ir::Loc loc) {
  const Record &layout = *chars->type.record;
  const bool bytes = layout.chars == Record::Chars::Bytes;
  if (text.int_value != int64_t(bytes))
    error(loc, std::string("cannot store a ") + (bytes ? "str" : "bytes") + " constant into " +
                   layout.str() + " (" + (bytes ? "bytes" : "str") + ")");
  require_writable(*chars, loc);
  std::vector<uint32_t> codes;
  if (bytes)
    codes.assign(text.name.begin(), text.name.end());
  else
    codes = code_points(text.name);
  for (uint32_t &c : codes)
    c = bytes ? c & 0xFF : c;
  const Scalar code = layout.fields[0].scalar;
  ir::ExprPtr view = stable(field_load(stable(std::move(chars)), 0, loc));
  for (int64_t k = 0; k < layout.char_count(); ++k) {
    ir::Stmt store = make_stmt(ir::StmtKind::Store, loc);
    store.exprs.push_back(clone(*view));
    store.exprs.push_back(scalar_const(Scalar::I64, k, 0, loc));
    const int64_t value = size_t(k) < codes.size() ? int64_t(codes[size_t(k)]) : 0;
    store.exprs.push_back(scalar_const(code, value, 0, loc));
    emit(std::move(store));
  }
}

int FunctionTyper::field_index(const Type &record, const std::string &name, ir::Loc loc) const {
  int index = record.record->field_index(name);
  if (index < 0)
    error(loc, "record " + record.str() + " has no field '" + name +
                   "' (fields: " + field_names(*record.record) + ")");
  return index;
}

int FunctionTyper::field_key(const Type &record, const ast::Expr &key) {
  bool negative = key.kind == ast::ExprKind::UnaryOp && key.op == ast::Operator::Neg &&
                  key.elts[0]->kind == ast::ExprKind::Int;
  std::optional<int64_t> global_index; // a global or closure int, as Numba's constants
  if (key.kind == ast::ExprKind::Name || key.kind == ast::ExprKind::Attribute) {
    if (std::optional<std::string> name = constant_string(key))
      return field_index(record, *name, key.loc);
    Value v = value(key);
    if (v.kind == Value::Kind::Expr)
      global_index = constant_int(*v.expr);
  }
  if (key.kind == ast::ExprKind::Int || negative || global_index) { // rec[0]: fields in order
    int64_t count = static_cast<int64_t>(record.record->fields.size());
    int64_t index = global_index ? *global_index
                    : negative   ? count - key.elts[0]->int_value
                                 : key.int_value;
    if (global_index && index < 0)
      index += count;
    if (index < 0 || index >= count)
      error(key.loc, "record index out of range: " + record.str() + " has " +
                         std::to_string(count) + " fields");
    return static_cast<int>(index);
  }
  if (key.kind != ast::ExprKind::String)
    error(key.loc, "simt: record fields are selected by a constant string (rec['name']), a "
                   "constant integer (rec[0]) or an attribute (rec.name)");
  return field_index(record, key.text, key.loc);
}

ir::ExprPtr FunctionTyper::field_load(ir::ExprPtr record, int field, ir::Loc loc) const {
  const RecordField &f = record->type.record->fields[field];
  // A nested array field reads as a C-contiguous array view into the record, a nested record
  // field as that record (a reference into the outer one, as Numba's).
  const int ndim = static_cast<int>(f.shape.size());
  Type type = f.record && ndim ? Type::record_array_of(f.record, ndim, 'C')
              : f.record       ? Type::record_of(f.record)
              : ndim == 0      ? Type::scalar_of(f.scalar)
                               : Type::array_of(f.scalar, ndim, 'C');
  const bool reference = f.record || !f.shape.empty();
  type.readonly = record->type.readonly && reference;
  if (reference)
    type.space = record->type.space;
  auto load = make_expr(ir::ExprKind::RecordField, type, loc);
  load->index = field;
  load->args.push_back(std::move(record));
  return load;
}

void FunctionTyper::field_store(ir::ExprPtr record, int field, ir::ExprPtr value, ir::Loc loc) {
  require_writable(*record, loc);
  const RecordField &f = record->type.record->fields[field];
  if (f.record && f.record->chars != Record::Chars::None && value->kind == ir::ExprKind::String)
    return store_chars(field_load(std::move(record), field, loc), *value, loc);
  if (f.record && !f.shape.empty())
    error(loc, "simt: assigning to the field '" + f.name +
                   "', an array of records, is not "
                   "supported yet; assign to its elements");
  if (f.record) { // a record of the same layout, copied in
    if (!value->type.is_record() || *value->type.record != *f.record)
      error(value->loc, "cannot store " + value->type.str() + " into the " + f.record->str() +
                            " field '" + f.name + "'");
    ir::Stmt s = make_stmt(ir::StmtKind::FieldStore, loc);
    s.field = field;
    s.exprs.push_back(std::move(record));
    s.exprs.push_back(std::move(value));
    return emit(std::move(s));
  }
  if (!f.shape.empty())
    return nested_field_copy(std::move(record), field, std::move(value), loc);
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

// rec.field = array for a nested array field: the array's elements copied in (a ValueError when
// its shape differs), as Numba copies into the record's bytes. Unrolled: fields are small.
void FunctionTyper::nested_field_copy(ir::ExprPtr record, int field, ir::ExprPtr value,
                                      ir::Loc loc) {
  const RecordField &f = record->type.record->fields[field];
  constexpr int64_t max_elements = 1024;
  int64_t count = 1;
  for (int64_t extent : f.shape)
    count *= extent;
  int ndim = static_cast<int>(f.shape.size());
  if (!value->type.is_array() || value->type.record || value->type.ndim != ndim)
    error(value->loc, "cannot store " + value->type.str() + " into the " + f.type_str() +
                          " field '" + f.name + "'");
  if (count > max_elements)
    error(loc, "simt: assigning to a nested array field of more than " +
                   std::to_string(max_elements) + " elements is not supported yet");
  value = stable(std::move(value)); // Python evaluates the value first
  ir::ExprPtr view = stable(field_load(std::move(record), field, loc));
  for (int axis = 0; axis < ndim; ++axis) {
    auto extent = make_expr(ir::ExprKind::ArrayShape, Type::scalar_of(Scalar::I64), loc);
    extent->index = axis;
    extent->args.push_back(clone(*value));
    auto differs = make_compare(ir::Op::Ne, std::move(extent),
                                scalar_const(Scalar::I64, f.shape[axis], 0, loc), loc);
    raise_if(std::move(differs), "ValueError",
             "cannot assign an array of a different shape to the field '" + f.name + "'", loc);
  }
  Type dtype = Type::scalar_of(f.scalar);
  std::vector<int64_t> index(ndim, 0);
  for (int64_t k = 0; k < count; ++k) {
    auto load = make_expr(ir::ExprKind::ArrayLoad, value->type.element(), loc);
    load->args.push_back(clone(*value));
    ir::Stmt store = make_stmt(ir::StmtKind::Store, loc);
    store.exprs.push_back(clone(*view));
    for (int64_t i : index) {
      load->args.push_back(scalar_const(Scalar::I64, i, 0, loc));
      store.exprs.push_back(scalar_const(Scalar::I64, i, 0, loc));
    }
    store.exprs.push_back(cast(std::move(load), dtype));
    emit(std::move(store));
    for (int axis = ndim - 1; axis >= 0 && ++index[axis] == f.shape[axis]; --axis)
      index[axis] = 0;
  }
}

void FunctionTyper::aug_assign_field(ir::ExprPtr record, int field, const ast::Stmt &s) {
  record = stable(std::move(record));
  ir::ExprPtr current = field_load(clone(*record), field, s.target->loc);
  ir::ExprPtr result = binary(s.op, std::move(current), rvalue(*s.value), s.loc);
  field_store(std::move(record), field, std::move(result), s.loc);
}

void FunctionTyper::record_store(ir::Stmt store, ir::ExprPtr value) {
  const Type &array = store.exprs[0]->type;
  if (array.record->chars != Record::Chars::None && value->kind == ir::ExprKind::String) {
    auto element = make_expr(ir::ExprKind::ArrayLoad, array.element(), store.loc);
    element->args = std::move(store.exprs);
    return store_chars(std::move(element), *value, store.loc);
  }
  if (!value->type.is_record() || *value->type.record != *array.record) // a copy of its bytes
    error(value->loc, "cannot store " + value->type.str() + " into an element of " + array.str());
  store.exprs.push_back(std::move(value));
  emit(std::move(store));
}

} // namespace simt
