#include "frontend/typer.h"

#include "frontend/ir_build.h"
#include "frontend/param_versions.h"
#include "frontend/variable_webs.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <tuple>
#include <utility>

namespace simt {

namespace {

// Whether a bfloat16 value truncated toward zero fits the integer type `to` (NaN does not).
bool bfloat16_fits(double value, Scalar to) {
  const double top = std::ldexp(1.0, is_signed(to) ? bit_width(to) - 1 : bit_width(to));
  const double bottom = is_signed(to) ? -top : 0.0;
  return std::trunc(value) >= bottom && std::trunc(value) < top;
}

// An integer constant as a double that rounds to the bfloat16 the integer rounds to: exact below
// 2**53; above, its top 24 bits with the last set when any bit below them is (rounding to odd),
// which then rounds to bfloat16's 8 bits as the integer itself would.
double integer_as_bfloat16(int64_t bits, bool is_signed) {
  const bool negative = is_signed && bits < 0;
  uint64_t magnitude = negative ? uint64_t(0) - uint64_t(bits) : uint64_t(bits);
  if (magnitude >> 53) {
    int shift = 64 - __builtin_clzll(magnitude) - 24;
    uint64_t kept = (magnitude >> shift) | ((magnitude & ((uint64_t{1} << shift) - 1)) != 0);
    double value = std::ldexp(static_cast<double>(kept), shift);
    return negative ? -value : value;
  }
  return negative ? -static_cast<double>(magnitude) : static_cast<double>(magnitude);
}

} // namespace

bool may_complete(const std::vector<ast::StmtPtr> &body) {
  if (body.empty())
    return true;
  const ast::Stmt &last = *body.back();
  switch (last.kind) {
  case ast::StmtKind::Return:
  case ast::StmtKind::Raise:
    return false;
  case ast::StmtKind::If:
    return last.orelse.empty() || may_complete(last.body) || may_complete(last.orelse);
  default:
    return true;
  }
}

FunctionTyper::FunctionTyper(ModuleBuilder &module, const FunctionSource &source,
                             const std::vector<Type> &arg_types, bool is_kernel,
                             std::string unique_name, StaticArgs statics)
    : module_(module), source_(source), arg_types_(arg_types), statics_(std::move(statics)),
      is_kernel_(is_kernel), unique_name_(std::move(unique_name)) {
  std::istringstream lines(source.source);
  for (std::string line; std::getline(lines, line);)
    lines_.push_back(line);
  def_ = parse_function(source.source, source.file, source.first_line);
  if (!def_.vararg.empty()) { // *args: a parameter holding a tuple (device_call_args packs it)
    ast::Param rest;
    rest.name = def_.vararg;
    rest.loc = def_.loc;
    def_.params.push_back(std::move(rest));
  }
  prune_constant_branches();
  split_redefined_parameters(def_, version_lines_);
  split_variable_webs(def_, version_lines_);
}

ir::Function FunctionTyper::run() {
  try {
    return type_function();
  } catch (const CompileError &) {
    // A variable bound afresh by several loops to types that do not unify: Numba types each
    // binding on its own (SSA); so does a retry with the loops' variables renamed apart.
    const std::string name = std::exchange(conflicting_local_, "");
    if (name.empty() || !split_loop_variable(def_, name, version_lines_))
      throw;
  }
  scope_ = Scope{};
  return run();
}

ir::Function FunctionTyper::type_function() {
  if (def_.has_varargs)
    error(def_.loc, "simt: *args and **kwargs are not supported yet");
  if (def_.params.size() != arg_types_.size() + statics_.size())
    error(def_.loc, "function '" + def_.name + "' takes " + std::to_string(def_.params.size()) +
                        " argument" + (def_.params.size() == 1 ? "" : "s") + ", got " +
                        std::to_string(arg_types_.size() + statics_.size()));
  // Parameters bound to compile-time values are names like globals, not locals.
  std::erase_if(def_.params, [&](const ast::Param &p) { return statics_.count(p.name) != 0; });
  if (def_.params.size() != arg_types_.size())
    error(def_.loc, "simt: compile-time arguments of '" + def_.name + "' name no parameter");
  for (size_t i = 0; i < def_.params.size(); ++i) {
    scope_.locals.insert(def_.params[i].name);
    scope_.types[def_.params[i].name] = arg_types_[i];
  }
  bindings_ = collect_bindings(def_.body);
  collect_locals(def_.body);
  collect_string_constants();
  collect_inner_functions(def_.body);
  // A round is redone only when it widened a local's (or the return) type. Types only widen, each
  // a few times at most, so valid code settles within this bound, however long a chain of
  // assignments feeding back through a loop (one round per step) may be.
  const size_t max_rounds = 64 + 16 * scope_.locals.size();
  for (size_t round = 0;; ++round) {
    start_round();
    fn_.body = std::move(round_.prologue);
    for (ir::Stmt &s : block(def_.body))
      fn_.body.push_back(std::move(s));
    const bool falls_off = may_complete(def_.body);
    // a function returning an optional returns None at its end
    if (scope_.return_type && scope_.return_type->is_optional() && falls_off) {
      ir::Stmt none = make_stmt(ir::StmtKind::Return, def_.loc);
      none.exprs.push_back(optional_none(*scope_.return_type, def_.loc));
      fn_.body.push_back(std::move(none));
    }
    if (!round_.changed && !round_.deferred && !is_kernel_ && scope_.return_type &&
        scope_.return_type->is_scalar() && (round_.returns_none || falls_off)) {
      // A value on some paths and None on others (returned, or by falling off the end): Numba's
      // OptionalType, typed again so that every return makes one.
      scope_.return_type = Type::optional_of(*scope_.return_type);
      continue;
    }
    if (!round_.changed && !round_.deferred)
      break;
    if (!round_.changed)
      error(round_.deferred_loc, round_.deferred_error);
    if (round == max_rounds)
      error(def_.loc, "simt: the types of the locals of '" + def_.name + "' do not settle");
  }
  fn_.return_type = is_kernel_ ? Type::none() : scope_.return_type.value_or(Type::none());
  if (round_.returns_none && !fn_.return_type.is_none() && !fn_.return_type.is_optional())
    error(def_.loc, "simt: returning a value on some paths and None on others is not supported "
                    "yet");
  return std::move(fn_);
}

void FunctionTyper::defer(const std::string &error, ir::Loc loc) {
  if (!round_.deferred) {
    round_.deferred_error = error;
    round_.deferred_loc = loc;
  }
  round_.deferred = true;
  throw Deferred{};
}

namespace {

bool returns_value(const std::vector<ast::StmtPtr> &body) {
  return std::any_of(body.begin(), body.end(), [](const ast::StmtPtr &s) {
    return (s->kind == ast::StmtKind::Return && s->value &&
            s->value->kind != ast::ExprKind::None) ||
           returns_value(s->body) || returns_value(s->orelse);
  });
}

} // namespace

std::optional<Type> FunctionTyper::return_type_so_far() const {
  if (scope_.return_type || !returns_value(def_.body))
    return scope_.return_type.value_or(Type::none());
  return std::nullopt;
}

void FunctionTyper::start_round() {
  fn_ = ir::Function{};
  fn_.name = unique_name_;
  fn_.python_name = def_.name;
  fn_.file = source_.file;
  fn_.first_line = def_.loc.line;
  fn_.is_kernel = is_kernel_;
  round_ = Round{};
  // Parameters are the first slots. One that is later assigned another type gets a local of
  // the unified type, initialised from the parameter (renamed "$name").
  std::vector<std::pair<std::string, Type>> retyped;
  for (size_t i = 0; i < def_.params.size(); ++i) {
    const std::string &name = def_.params[i].name;
    const Type &unified = scope_.types[name];
    if (unified == arg_types_[i]) {
      round_.slots[name] = static_cast<int>(fn_.slots.size());
      fn_.slots.push_back({name, arg_types_[i]});
    } else {
      fn_.slots.push_back({"$" + name, arg_types_[i]});
      retyped.emplace_back(name, unified);
    }
  }
  fn_.num_params = static_cast<int>(fn_.slots.size());
  for (auto &[name, type] : retyped) {
    int param = 0;
    while (fn_.slots[param].name != "$" + name)
      ++param;
    ir::Stmt s;
    s.kind = ir::StmtKind::Assign;
    s.loc = def_.loc;
    s.slot = slot_for(name, def_.loc);
    s.exprs.push_back(cast(local(param, def_.loc), type));
    round_.prologue.push_back(std::move(s));
  }
}

void FunctionTyper::collect_locals(const std::vector<ast::StmtPtr> &body) {
  for (const auto &s : body) {
    for (const auto &t : s->targets)
      collect_target(*t);
    if (s->target && (s->kind == ast::StmtKind::AugAssign || s->kind == ast::StmtKind::AnnAssign ||
                      s->kind == ast::StmtKind::For))
      collect_target(*s->target);
    collect_locals(s->body);
    collect_locals(s->orelse);
  }
}

void FunctionTyper::collect_target(const ast::Expr &target) {
  if (target.kind == ast::ExprKind::Name)
    scope_.locals.insert(target.id);
  else if (target.kind == ast::ExprKind::Tuple || target.kind == ast::ExprKind::List)
    for (const auto &e : target.elts)
      collect_target(*e);
}

void FunctionTyper::error(ir::Loc loc, const std::string &message) const {
  int index = loc.line - source_.first_line;
  std::string line =
      index >= 0 && index < static_cast<int>(lines_.size()) ? lines_[index] : std::string();
  throw CompileError(source_.file, loc.line, loc.col, message, line);
}

void FunctionTyper::require_writable(const ir::Expr &target, ir::Loc loc) const {
  if (target.type.space == MemSpace::Const)
    error(loc, "cannot store to a read-only constant array");
  if (!target.type.readonly)
    return;
  // Name the variable the array came from (a view's or element's base), as the user wrote it.
  const ir::Expr *base = &target;
  while (base->kind != ir::ExprKind::Local && !base->args.empty())
    base = base->args[0].get();
  std::string name;
  if (base->kind == ir::ExprKind::Local && fn_.slots[base->index].name[0] != '$')
    name = "'" + fn_.slots[base->index].name + "', ";
  error(loc, "cannot modify " + name + "a " + target.type.str() +
                 " (Numba types arrays whose flags.writeable is False as read-only)");
}

ir::ExprPtr FunctionTyper::cast(ir::ExprPtr e, const Type &to) {
  if (e->type == to)
    return e;
  if (e->type.is_time() || to.is_time())
    return time_cast(std::move(e), to);
  if ((e->type.is_storage() || to.is_storage()) && !round_.changed)
    error(e->loc, "cannot convert " + e->type.str() + " to " + to.str());
  if (e->type.nominal || to.nominal) {
    // Enum members convert to other types only as IntEnum integers; a type and its classed
    // version (an enum member's value, a namedtuple's tuple) share their representation.
    if (e->type.nominal && !e->type.is_nominal(NominalClass::Kind::IntEnum) &&
        !(e->type.plain() == to) && !round_.changed)
      error(e->loc, "cannot convert " + e->type.str() + " to " + to.str());
    if (to.nominal && !(e->type.plain() == to.plain()) && !round_.changed)
      error(e->loc, "cannot convert " + e->type.str() + " to " + to.str());
    if (e->type.plain() == to.plain()) {
      e->type = to;
      return e;
    }
    if (!to.nominal)
      e->type = e->type.plain();
    else
      return e; // a round that will be redone
    return cast(std::move(e), to);
  }
  if (to.is_optional() && !e->type.is_optional()) { // a value: an optional that is not None
    auto some = make_expr(ir::ExprKind::TupleMake, to, e->loc);
    some->args.push_back(scalar_const(Scalar::Bool, 1, 0, e->loc));
    some->args.push_back(cast(std::move(e), to.elems[1]));
    return some;
  }
  bool convertible =
      (e->type.is_scalar() && to.is_scalar()) ||
      (e->type.is_array() && to.is_array() && same_dtype(e->type, to) && e->type.ndim == to.ndim &&
       (to.layout == 'A' || to.layout == e->type.layout) && (to.readonly || !e->type.readonly));
  if (e->type.is_tuple() && to.is_tuple() && e->type.elems.size() == to.elems.size() &&
      e->kind == ir::ExprKind::TupleMake) {
    for (size_t i = 0; i < e->args.size(); ++i)
      e->args[i] = cast(std::move(e->args[i]), to.elems[i]);
    e->type = to;
    return e;
  }
  if (!convertible) {
    if (round_.changed)
      return e; // a round that will be redone: types are still settling
    error(e->loc, "cannot convert " + e->type.str() + " to " + to.str());
  }
  if (e->type.is_scalar() && to.is_scalar() && is_complex(e->type.scalar) &&
      !is_complex(to.scalar) && to.scalar != Scalar::Bool) {
    if (round_.changed)
      return e;
    error(e->loc, "cannot convert " + e->type.str() + " to " + to.str());
  }
  if (e->kind == ir::ExprKind::Const && to.is_scalar() &&
      (is_complex(e->type.scalar) || is_complex(to.scalar)))
    return fold_complex_cast(std::move(e), to.scalar);
  // a bfloat16 constant beyond an integer type's range (or NaN) converts at run time, saturating
  // as the GPU's conversion does
  const bool bf16_out_of_range = e->kind == ir::ExprKind::Const && to.is_scalar() &&
                                 e->type.scalar == Scalar::BF16 && is_integer(to.scalar) &&
                                 !bfloat16_fits(e->float_value, to.scalar);
  if (e->kind == ir::ExprKind::Const && to.is_scalar() && !bf16_out_of_range) {
    // fold constant conversions so shapes and literals stay constants
    Scalar from = e->type.scalar;
    if (is_real(from) && !is_real(to.scalar)) // float16 rounds to nearest, as cvt.rni does
      e->int_value = static_cast<int64_t>(from == Scalar::F16 ? std::nearbyint(e->float_value)
                                                              : e->float_value);
    else if (!is_real(from) && to.scalar == Scalar::BF16)
      e->float_value = integer_as_bfloat16(e->int_value, is_signed(from) || from == Scalar::Bool);
    else if (!is_real(from) && is_real(to.scalar))
      e->float_value = is_signed(from) || from == Scalar::Bool
                           ? static_cast<double>(e->int_value)
                           : static_cast<double>(static_cast<uint64_t>(e->int_value));
    if (to.scalar == Scalar::Bool)
      e->int_value = is_real(from) ? e->float_value != 0 : e->int_value != 0;
    else if (to.scalar == Scalar::F32)
      e->float_value = static_cast<float>(e->float_value);
    else if (to.scalar == Scalar::F16)
      e->float_value = round_to_float16(e->float_value);
    else if (to.scalar == Scalar::BF16)
      e->float_value = round_to_bfloat16(e->float_value);
    else if (!is_real(to.scalar) && bit_width(to.scalar) < 64) {
      int bits = bit_width(to.scalar);
      uint64_t mask = (uint64_t{1} << bits) - 1;
      uint64_t v = static_cast<uint64_t>(e->int_value) & mask;
      if (is_signed(to.scalar) && (v >> (bits - 1)))
        v |= ~mask;
      e->int_value = static_cast<int64_t>(v);
    }
    e->type = to;
    return e;
  }
  auto c = std::make_unique<ir::Expr>();
  c->kind = ir::ExprKind::Cast;
  c->type = to;
  c->loc = e->loc;
  c->args.push_back(std::move(e));
  return c;
}

ir::ExprPtr FunctionTyper::to_bool(ir::ExprPtr e) {
  if (e->type.is_tuple())
    return scalar_const(Scalar::Bool, !e->type.elems.empty(), 0, e->loc);
  if (e->type.is_none())
    return scalar_const(Scalar::Bool, 0, 0, e->loc);
  if (e->type.is_thread_block() || e->type.is_grid_group() || e->type.is_vector() ||
      (e->type.is_storage() && !ir::fp8_type_of(e->type)))
    error(e->loc, "simt: the truth value of a " + e->type.str() + " is not supported");
  if (e->type.is_storage()) // an FP8 value's operator bool
    return explicit_conversion(std::move(e), Scalar::Bool);
  if (!e->type.is_scalar())
    error(e->loc, "the truth value of an array is ambiguous");
  return cast(std::move(e), Type::scalar_of(Scalar::Bool));
}

ir::ExprPtr FunctionTyper::scalar_const(Scalar s, int64_t i, double f, ir::Loc loc) const {
  auto e = std::make_unique<ir::Expr>();
  e->kind = ir::ExprKind::Const;
  e->type = Type::scalar_of(s);
  e->loc = loc;
  e->int_value = i;
  e->float_value = f;
  return e;
}

ir::ExprPtr FunctionTyper::local(int slot, ir::Loc loc) const {
  auto e = std::make_unique<ir::Expr>();
  e->kind = ir::ExprKind::Local;
  e->type = fn_.slots[slot].type;
  e->loc = loc;
  e->index = slot;
  return e;
}

ir::ExprPtr FunctionTyper::clone(const ir::Expr &e) const { return ir::clone(e); }

namespace {

// Whether evaluating `e` twice is as good as once: no effects, nothing a statement in between
// could change, and cheap.
bool is_stable(const ir::Expr &e) {
  switch (e.kind) {
  case ir::ExprKind::Const:
  case ir::ExprKind::Local:
  case ir::ExprKind::Special:
  case ir::ExprKind::SharedArray:
  case ir::ExprKind::LocalArray:
  case ir::ExprKind::ConstArray:
    return true;
  case ir::ExprKind::ArrayShape:
  case ir::ExprKind::ArrayStride:
  case ir::ExprKind::ArraySize:
  case ir::ExprKind::TupleGet:
  case ir::ExprKind::TupleMake:
    for (const auto &a : e.args)
      if (!is_stable(*a))
        return false;
    return true;
  default:
    return false;
  }
}

} // namespace

ir::ExprPtr FunctionTyper::stable(ir::ExprPtr e) {
  if (is_stable(*e))
    return e;
  const ir::Loc loc = e->loc;
  return local(temp_holding(std::move(e)), loc);
}

int FunctionTyper::temp_holding(ir::ExprPtr e) {
  const int slot = new_temp(e->type);
  const ir::Loc loc = e->loc;
  emit(make_assign(slot, std::move(e), loc));
  return slot;
}

int FunctionTyper::slot_for(const std::string &name, ir::Loc loc) {
  auto it = round_.slots.find(name);
  if (it != round_.slots.end())
    return it->second;
  auto type = scope_.types.find(name);
  if (type == scope_.types.end())
    defer("local variable '" + name + "' is used before assignment", loc);
  int slot = static_cast<int>(fn_.slots.size());
  fn_.slots.push_back({name, type->second});
  if (auto lines = version_lines_.find(name); lines != version_lines_.end())
    std::tie(fn_.slots.back().first_line, fn_.slots.back().last_line) = lines->second;
  round_.slots[name] = slot;
  return slot;
}

int FunctionTyper::new_temp(const Type &type) {
  int slot = static_cast<int>(fn_.slots.size());
  std::string name = "$"; // appended, not "$" + ...: GCC 12 warns wrongly (-Wrestrict)
  name += std::to_string(++round_.temps);
  fn_.slots.push_back({name, type});
  return slot;
}

} // namespace simt
