// Statements -> ir::Stmt.
#include "frontend/ir_build.h"
#include "frontend/typer.h"
#include "ir/compile_interrupt.h"

#include <algorithm>

namespace simt {

namespace {

bool is_string(const ast::Expr *e) { return e && e->kind == ast::ExprKind::String; }

// The If of an elif: the one statement of an orelse that is an If.
const ast::Stmt *elif_in(const std::vector<ast::StmtPtr> &orelse) {
  return orelse.size() == 1 && orelse[0]->kind == ast::StmtKind::If ? orelse[0].get() : nullptr;
}

// Evaluating it later gives the same value: constants and thread/block ids only.
bool is_constant_tree(const ir::Expr &e) {
  if (e.kind != ir::ExprKind::Const && e.kind != ir::ExprKind::Special &&
      e.kind != ir::ExprKind::Binary && e.kind != ir::ExprKind::Cast)
    return false;
  for (const auto &a : e.args)
    if (!is_constant_tree(*a))
      return false;
  return true;
}

const char *unsupported_statement(ast::StmtKind kind) {
  switch (kind) {
  case ast::StmtKind::FunctionDef:
    return "nested functions";
  case ast::StmtKind::Global:
    return "global statements";
  case ast::StmtKind::Nonlocal:
    return "nonlocal statements";
  case ast::StmtKind::Del:
    return "del statements";
  case ast::StmtKind::With:
    return "with statements";
  case ast::StmtKind::Try:
    return "try statements";
  case ast::StmtKind::Import:
    return "import statements in kernels";
  case ast::StmtKind::ClassDef:
    return "class definitions";
  default:
    return nullptr;
  }
}

} // namespace

void FunctionTyper::emit(ir::Stmt s) { round_.out->push_back(std::move(s)); }

std::vector<ir::Stmt> FunctionTyper::block(const std::vector<ast::StmtPtr> &body) {
  std::vector<ir::Stmt> out;
  std::vector<ir::Stmt> *saved = round_.out;
  round_.out = &out;
  for (const auto &s : body) {
    size_t mark = out.size();
    try {
      stmt(*s);
    } catch (const Deferred &) {
      out.resize(mark); // retried next round, when the local's type is known
    }
    if (std::exchange(rest_unreachable_, false))
      break;
  }
  round_.out = saved;
  return out;
}

void FunctionTyper::stmt(const ast::Stmt &s) {
  poll_compile_interrupt();
  Nesting nesting(module_.nesting_depth());
  deeper(nesting, s.loc);
  if (s.kind == ast::StmtKind::FunctionDef && inner_functions_.count(s.names.at(0)))
    return; // inlined where it is called
  if (s.kind == ast::StmtKind::Assign && s.targets.size() == 1 &&
      s.targets[0]->kind == ast::ExprKind::Name && s.value->kind == ast::ExprKind::Lambda &&
      inner_functions_.count(s.targets[0]->id))
    return; // f = lambda ...: likewise
  if (const char *what = unsupported_statement(s.kind))
    error(s.loc, std::string("simt: ") + what + " are not supported yet");
  switch (s.kind) {
  case ast::StmtKind::Expr: {
    if (is_string(s.value.get()))
      return; // docstring
    Value v = value(*s.value);
    if (v.kind == Value::Kind::Expr && v.expr->kind != ir::ExprKind::String) {
      ir::Stmt e = make_stmt(ir::StmtKind::Eval, s.loc);
      e.exprs.push_back(std::move(v.expr));
      emit(std::move(e));
    }
    return;
  }
  case ast::StmtKind::Assign: {
    Value v = value(*s.value);
    if (s.targets.size() == 1) {
      assign(*s.targets[0], std::move(v), s.loc);
      return;
    }
    if (v.kind != Value::Kind::Expr)
      error(s.value->loc, "simt: only values can be assigned to variables");
    ir::ExprPtr shared = stable(std::move(v.expr));
    for (const auto &t : s.targets) {
      Value copy;
      copy.kind = Value::Kind::Expr;
      copy.expr = clone(*shared);
      assign(*t, std::move(copy), s.loc);
    }
    return;
  }
  case ast::StmtKind::AnnAssign:
    if (s.value)
      assign(*s.target, value(*s.value), s.loc);
    return;
  case ast::StmtKind::AugAssign:
    aug_assign(s);
    return;
  case ast::StmtKind::If:
    if_stmt(s);
    return;
  case ast::StmtKind::While:
    while_stmt(s);
    return;
  case ast::StmtKind::For:
    for_stmt(s);
    return;
  case ast::StmtKind::Break:
  case ast::StmtKind::Continue:
    if (round_.loop_depth == 0)
      error(s.loc, std::string("'") + (s.kind == ast::StmtKind::Break ? "break" : "continue") +
                       "' outside a loop");
    emit(make_stmt(s.kind == ast::StmtKind::Break ? ir::StmtKind::Break : ir::StmtKind::Continue,
                   s.loc));
    return;
  case ast::StmtKind::Pass:
    return;
  case ast::StmtKind::Return:
    return_stmt(s);
    return;
  case ast::StmtKind::Raise:
    raise_stmt(s);
    return;
  case ast::StmtKind::Assert:
    assert_stmt(s);
    return;
  default:
    error(s.loc, "simt: this statement is not supported yet");
  }
}

void FunctionTyper::assign(const ast::Expr &target, Value v, ir::Loc loc) {
  const bool returns_nothing =
      v.kind == Value::Kind::Expr && v.expr->type.is_none() && v.expr->kind != ir::ExprKind::String;
  const bool compile_time = v.kind != Value::Kind::Expr && v.kind != Value::Kind::InnerFunction;
  if ((returns_nothing || compile_time) && target.kind == ast::ExprKind::Name &&
      binds_once(target.id)) {
    // `r = fill(a)` of a function returning nothing, `r = None` (Numba's none-typed variables),
    // `dtype = a.dtype`, `f = math.sqrt`: the name means the value
    if (returns_nothing) {
      ir::Stmt eval = make_stmt(ir::StmtKind::Eval, loc);
      eval.exprs.push_back(std::move(v.expr));
      emit(std::move(eval));
      v = Value{};
    }
    value_names_[target.id] = static_cast<const CompileTimeValue &>(v);
    return;
  }
  if (v.kind != Value::Kind::Expr) {
    if (target.kind != ast::ExprKind::Name || v.kind == Value::Kind::InnerFunction)
      rvalue_of(std::move(v), loc); // stored, or a function: the value's own error
    const char *what = v.kind == Value::Kind::None ? "None" : "a module, function or type";
    error(loc, std::string("simt: assigning ") + what + " to a variable is not supported yet");
  }
  if (v.expr->kind == ir::ExprKind::String && target.kind == ast::ExprKind::Name &&
      string_constants_.count(target.id))
    return; // a name for the constant (collect_string_constants)
  if (v.expr->kind == ir::ExprKind::String && target.kind == ast::ExprKind::Name)
    error(v.expr->loc, "simt: strings are only supported as print arguments, messages and "
                       "stores into character arrays");
  if (target.kind != ast::ExprKind::Name && v.expr->type.is_optional()) // stored: its value
    v.expr = optional_value(std::move(v.expr), loc);
  switch (target.kind) {
  case ast::ExprKind::Name:
    assign_name(target.id, std::move(v.expr), loc);
    return;
  case ast::ExprKind::Subscript:
    assign_subscript(target, std::move(v.expr), loc);
    return;
  case ast::ExprKind::Attribute: {
    ir::ExprPtr record = rvalue(*target.elts[0]);
    if (!record->type.is_record())
      error(target.loc,
            "simt: assigning to attributes of " + record->type.str() + " is not supported");
    int field = field_index(record->type, target.id, target.loc);
    field_store(std::move(record), field, std::move(v.expr), loc);
    return;
  }
  case ast::ExprKind::Tuple:
  case ast::ExprKind::List:
    unpack(target, std::move(v.expr), loc);
    return;
  default:
    error(target.loc, "simt: assigning to this kind of target is not supported yet");
  }
}

void FunctionTyper::assign_name(const std::string &name, ir::ExprPtr value, ir::Loc loc) {
  if (!value->type.is_scalar() && !value->type.is_array() && !value->type.is_tuple() &&
      !value->type.is_thread_block() && !value->type.is_grid_group() && !value->type.is_record() &&
      !value->type.is_vector())
    error(value->loc, "simt: assigning " + value->type.str() +
                          " to a variable is not supported "
                          "yet");
  if (value->kind == ir::ExprKind::SharedArray)
    module_.name_shared_array(value->index, name);
  else if (value->kind == ir::ExprKind::LocalArray &&
           fn_.local_arrays[size_t(value->index)].name.empty())
    fn_.local_arrays[size_t(value->index)].name = name;
  auto known = scope_.types.find(name);
  if (known == scope_.types.end()) {
    scope_.types[name] = value->type;
    round_.changed = true;
  } else {
    Type unified;
    if (!unify(known->second, value->type, unified)) {
      conflicting_local_ = name; // run() may type it as several variables (SSA versions)
      error(loc, "cannot assign " + value->type.str() + " to '" + name + "', which holds " +
                     known->second.str());
    }
    if (unified != known->second) {
      known->second = unified;
      round_.changed = true;
    }
  }
  ir::Stmt s = make_stmt(ir::StmtKind::Assign, loc);
  s.slot = slot_for(name, loc);
  s.exprs.push_back(cast(std::move(value), fn_.slots[s.slot].type));
  emit(std::move(s));
}

void FunctionTyper::assign_subscript(const ast::Expr &target, ir::ExprPtr value, ir::Loc loc) {
  ir::ExprPtr array = rvalue(*target.elts[0]);
  if (array->type.is_record()) {
    int field = field_key(array->type, *target.elts[1]);
    field_store(std::move(array), field, std::move(value), loc);
    return;
  }
  if (array->type.is_tuple())
    error(target.loc, "tuples are immutable: cannot assign to an element of " + array->type.str());
  if (!array->type.is_array())
    error(target.elts[0]->loc, "cannot index " + array->type.str());
  require_writable(*array, target.loc);
  ir::ExprPtr element = array_subscript(std::move(array), *target.elts[1], target.loc);
  if (element->kind == ir::ExprKind::ArrayView) {
    store_into_view(std::move(element), std::move(value), loc);
    return;
  }
  array = std::move(element->args[0]);
  std::vector<ir::ExprPtr> indices;
  for (size_t i = 1; i < element->args.size(); ++i)
    indices.push_back(std::move(element->args[i]));
  if (array->type.is_record_array()) {
    ir::Stmt s = make_stmt(ir::StmtKind::Store, loc);
    s.exprs.push_back(std::move(array));
    for (auto &i : indices)
      s.exprs.push_back(std::move(i));
    record_store(std::move(s), std::move(value));
    return;
  }
  if (value->kind == ir::ExprKind::String)
    error(value->loc, "simt: strings are stored only into arrays of strings ([char x N], "
                      "[unichr x N]), not into " +
                          array->type.str());
  if (!value->type.is_scalar())
    error(value->loc,
          "cannot store " + value->type.str() + " into an element of " + array->type.str());
  ir::Stmt s = make_stmt(ir::StmtKind::Store, loc);
  Type dtype = array->type.element();
  s.exprs.push_back(std::move(array));
  for (auto &i : indices)
    s.exprs.push_back(std::move(i));
  s.exprs.push_back(cast(std::move(value), dtype));
  emit(std::move(s));
}

void FunctionTyper::unpack(const ast::Expr &target, ir::ExprPtr value, ir::Loc loc) {
  if (!value->type.is_tuple())
    error(value->loc, "cannot unpack " + value->type.str());
  size_t n = value->type.elems.size();
  if (n != target.elts.size())
    error(loc, "cannot unpack " + std::to_string(n) + " values into " +
                   std::to_string(target.elts.size()) + " targets");
  std::vector<ir::ExprPtr> parts;
  if (value->kind == ir::ExprKind::TupleMake) {
    // every value is evaluated before any target is assigned (a, b = b, a)
    for (auto &e : value->args)
      parts.push_back(is_constant_tree(*e) ? std::move(e) : stable(std::move(e)));
    for (auto &p : parts)
      if (p->kind == ir::ExprKind::Local) {
        int slot = new_temp(p->type);
        ir::Stmt s = make_stmt(ir::StmtKind::Assign, loc);
        s.slot = slot;
        ir::Loc ploc = p->loc;
        s.exprs.push_back(std::move(p));
        emit(std::move(s));
        p = local(slot, ploc);
      }
  } else {
    ir::ExprPtr tuple =
        value->kind == ir::ExprKind::Local ? std::move(value) : stable(std::move(value));
    for (size_t i = 0; i < n; ++i) {
      auto get = std::make_unique<ir::Expr>();
      get->kind = ir::ExprKind::TupleGet;
      get->type = tuple->type.elems[i];
      get->loc = tuple->loc;
      get->index = static_cast<int>(i);
      get->args.push_back(clone(*tuple));
      parts.push_back(std::move(get));
    }
  }
  for (size_t i = 0; i < n; ++i) {
    Value v;
    v.kind = Value::Kind::Expr;
    v.expr = std::move(parts[i]);
    assign(*target.elts[i], std::move(v), loc);
  }
}

void FunctionTyper::aug_assign(const ast::Stmt &s) {
  const ast::Expr &target = *s.target;
  if (target.kind == ast::ExprKind::Name) {
    ir::ExprPtr current = rvalue(target);
    ir::ExprPtr result = binary(s.op, std::move(current), rvalue(*s.value), s.loc);
    assign_name(target.id, std::move(result), s.loc);
    return;
  }
  if (target.kind == ast::ExprKind::Attribute) {
    ir::ExprPtr record = rvalue(*target.elts[0]);
    if (!record->type.is_record())
      error(target.loc,
            "simt: assigning to attributes of " + record->type.str() + " is not supported");
    int field = field_index(record->type, target.id, target.loc);
    aug_assign_field(std::move(record), field, s);
    return;
  }
  if (target.kind != ast::ExprKind::Subscript)
    error(target.loc, "simt: augmented assignment to this kind of target is not supported yet");
  ir::ExprPtr array = stable(rvalue(*target.elts[0]));
  if (array->type.is_record()) {
    int field = field_key(array->type, *target.elts[1]);
    aug_assign_field(std::move(array), field, s);
    return;
  }
  if (array->type.is_record_array())
    error(target.loc, "simt: augmented assignment to a whole record is not supported");
  if (!array->type.is_array())
    error(target.elts[0]->loc, "cannot index " + array->type.str());
  require_writable(*array, target.loc);
  reject_view_aug_assign(*target.elts[1], target.loc);
  auto indices = array_indices(*array, *target.elts[1], target.loc);
  for (auto &i : indices)
    i = stable(std::move(i));
  auto load = std::make_unique<ir::Expr>();
  load->kind = ir::ExprKind::ArrayLoad;
  load->type = array->type.element();
  load->loc = target.loc;
  load->args.push_back(clone(*array));
  for (auto &i : indices)
    load->args.push_back(clone(*i));
  ir::ExprPtr result = binary(s.op, std::move(load), rvalue(*s.value), s.loc);
  ir::Stmt store = make_stmt(ir::StmtKind::Store, s.loc);
  Type dtype = array->type.element();
  store.exprs.push_back(std::move(array));
  for (auto &i : indices)
    store.exprs.push_back(std::move(i));
  store.exprs.push_back(cast(std::move(result), dtype));
  emit(std::move(store));
}

void FunctionTyper::if_stmt(const ast::Stmt &s) {
  // The elifs of an if are typed in a loop, each an If in the orelse of the one before (as the
  // syntax tree nests them), so that a chain of any length takes no stack (see nesting.h).
  std::vector<ir::Stmt> *const enclosing = round_.out;
  std::vector<ir::Stmt> *into = enclosing; // where the current link's statements go
  std::optional<bool> rest_unreachable;    // the first constant test in `enclosing` decides it
  bool waits = false;                      // a test waits for a type: typed again next round
  for (const ast::Stmt *link = &s; link;) {
    ir::ExprPtr test;
    round_.out = into; // what the test needs runs after the tests before it
    try {
      test = condition(*link->test);
    } catch (const Deferred &) {
      waits = true;
    }
    round_.out = enclosing;
    const ast::Stmt *next = elif_in(link->orelse);
    if (const std::optional<bool> truth = test ? constant_truth(*test) : std::nullopt) {
      // A constant condition (a global flag, a literal argument, `a.ndim == 2`, `len(t) == 3`):
      // only the branch it takes is typed and compiled, as Numba's dead branch pruning does.
      const std::vector<ast::StmtPtr> &branch = *truth ? link->body : link->orelse;
      // `if bias is None: return x` ends the block: what follows is not typed either
      if (into == enclosing && !rest_unreachable)
        rest_unreachable = !may_complete(branch);
      if (!*truth && next) {
        link = next;
        continue;
      }
      for (ir::Stmt &taken : block(branch))
        into->push_back(std::move(taken));
      break;
    }
    ir::Stmt out = make_stmt(ir::StmtKind::If, link->loc);
    out.body = block(link->body);
    if (!next)
      out.orelse = block(link->orelse);
    if (test)
      out.exprs.push_back(std::move(test));
    into->push_back(std::move(out));
    into = &into->back().orelse; // nothing else goes into `into` (no reallocation)
    link = next;
  }
  rest_unreachable_ = rest_unreachable.value_or(false);
  if (waits)
    throw Deferred{};
}

void FunctionTyper::while_stmt(const ast::Stmt &s) {
  std::vector<ir::Stmt> pre; // statements the test needs, run before each test
  std::vector<ir::Stmt> *saved = round_.out;
  round_.out = &pre;
  ir::ExprPtr test;
  try {
    test = condition(*s.test);
  } catch (const Deferred &) {
  }
  round_.out = saved;
  ++round_.loop_depth;
  std::vector<ir::Stmt> body = block(s.body);
  --round_.loop_depth;
  std::vector<ir::Stmt> orelse = block(s.orelse);
  if (!test)
    throw Deferred{};
  ir::Stmt loop = make_stmt(ir::StmtKind::While, s.loc);
  if (pre.empty()) {
    loop.exprs.push_back(std::move(test));
    loop.body = std::move(body);
    loop.orelse = std::move(orelse);
  } else {
    // while True: pre; if not test: break; body -- the else clause runs after that break only
    int ended = orelse.empty() ? -1 : new_temp(Type::scalar_of(Scalar::Bool));
    if (ended >= 0) {
      ir::Stmt init = make_stmt(ir::StmtKind::Assign, s.loc);
      init.slot = ended;
      init.exprs.push_back(scalar_const(Scalar::Bool, 0, 0, s.loc));
      emit(std::move(init));
    }
    loop.exprs.push_back(scalar_const(Scalar::Bool, 1, 0, s.loc));
    loop.body = std::move(pre);
    ir::Stmt exit = make_stmt(ir::StmtKind::If, s.loc);
    auto negated = std::make_unique<ir::Expr>();
    negated->kind = ir::ExprKind::Unary;
    negated->op = ir::Op::Not;
    negated->type = Type::scalar_of(Scalar::Bool);
    negated->loc = test->loc;
    negated->args.push_back(std::move(test));
    exit.exprs.push_back(std::move(negated));
    if (ended >= 0) {
      ir::Stmt set = make_stmt(ir::StmtKind::Assign, s.loc);
      set.slot = ended;
      set.exprs.push_back(scalar_const(Scalar::Bool, 1, 0, s.loc));
      exit.body.push_back(std::move(set));
    }
    exit.body.push_back(make_stmt(ir::StmtKind::Break, s.loc));
    loop.body.push_back(std::move(exit));
    for (auto &b : body)
      loop.body.push_back(std::move(b));
    if (ended >= 0) {
      emit(std::move(loop));
      loop = make_stmt(ir::StmtKind::If, s.loc);
      loop.exprs.push_back(local(ended, s.loc));
      loop.body = std::move(orelse);
    }
  }
  emit(std::move(loop));
}

void FunctionTyper::for_stmt(const ast::Stmt &s) {
  const ast::Expr &iter = *s.iter;
  bool is_range = false;
  if (iter.kind == ast::ExprKind::Call) {
    Value fn = value(*iter.elts[0]);
    // numba.prange is range in CUDA code, as Numba types and lowers it
    is_range =
        fn.kind == Value::Kind::Path && (fn.path == "builtins.range" || fn.path == "numba.prange");
    if (fn.kind == Value::Kind::Path && fn.path == "numba.literal_unroll") {
      unrolled_for(s);
      return;
    }
  }
  if (!is_range || s.target->kind != ast::ExprKind::Name) {
    for_each(s);
    return;
  }
  if (!iter.keywords.empty())
    error(iter.loc, "range() takes no keyword arguments");
  size_t nargs = iter.elts.size() - 1;
  if (nargs < 1 || nargs > 3)
    error(iter.loc, "range expects 1 to 3 arguments, got " + std::to_string(nargs));
  std::vector<ir::ExprPtr> bounds;
  bool deferred = false;
  try {
    for (size_t i = 1; i <= nargs; ++i) {
      ir::ExprPtr b = rvalue(*iter.elts[i]);
      if (!b->type.is_scalar() || !(is_integer(b->type.scalar) || b->type.scalar == Scalar::Bool))
        error(b->loc, "range() arguments must be integers, not " + b->type.str());
      bounds.push_back(cast(std::move(b), Type::scalar_of(Scalar::I64)));
    }
  } catch (const Deferred &) {
    deferred = true;
  }
  if (nargs == 1)
    bounds.insert(bounds.begin(), scalar_const(Scalar::I64, 0, 0, iter.loc));
  if (nargs < 3)
    bounds.push_back(scalar_const(Scalar::I64, 1, 0, iter.loc));

  const std::string &name = s.target->id;
  Type i64 = Type::scalar_of(Scalar::I64);
  auto known = scope_.types.find(name);
  if (known == scope_.types.end()) {
    scope_.types[name] = i64;
    round_.changed = true;
  } else {
    Type unified;
    if (!unify(known->second, i64, unified)) {
      conflicting_local_ = name;
      error(s.target->loc, "cannot use '" + name + "', which holds " + known->second.str() +
                               ", as a range() loop variable");
    }
    if (unified != known->second) {
      known->second = unified;
      round_.changed = true;
    }
  }
  ir::Stmt loop = make_stmt(ir::StmtKind::ForRange, s.loc);
  loop.slot = slot_for(name, s.target->loc);
  if (fn_.slots[loop.slot].type != i64 && !round_.changed) {
    conflicting_local_ = name; // another loop binds it to floats: typed apart on a retry
    error(s.target->loc, "simt: a range() loop variable that also holds " +
                             fn_.slots[loop.slot].type.str() + " values is not supported yet");
  }
  ++round_.loop_depth;
  loop.body = block(s.body);
  --round_.loop_depth;
  loop.orelse = block(s.orelse);
  if (deferred)
    throw Deferred{};
  loop.exprs = std::move(bounds);
  emit(std::move(loop));
}

namespace {

// Whether `body` breaks or continues the loop it is the body of (not an inner loop).
bool leaves_loop(const std::vector<ast::StmtPtr> &body) {
  return std::any_of(body.begin(), body.end(), [](const ast::StmtPtr &s) {
    if (s->kind == ast::StmtKind::Break || s->kind == ast::StmtKind::Continue)
      return true;
    if (s->kind == ast::StmtKind::For || s->kind == ast::StmtKind::While)
      return leaves_loop(s->orelse);
    return leaves_loop(s->body) || leaves_loop(s->orelse);
  });
}

} // namespace

void FunctionTyper::unrolled_for(const ast::Stmt &s) {
  // Numba's literal_unroll: the body once per element of a tuple whose elements may differ in
  // type, the loop variable each element in turn (its own temporary each time).
  const ast::Expr &iter = *s.iter;
  if (iter.elts.size() != 2 || !iter.keywords.empty())
    error(iter.loc, "literal_unroll() takes one argument");
  if (s.target->kind != ast::ExprKind::Name)
    error(s.target->loc, "simt: a literal_unroll loop binds one name");
  if (leaves_loop(s.body))
    error(s.loc, "simt: break and continue in a literal_unroll loop are not supported yet");
  ir::ExprPtr tuple = rvalue(*iter.elts[1]);
  if (!tuple->type.is_tuple())
    error(iter.elts[1]->loc, "simt: literal_unroll of " + tuple->type.str() +
                                 " is not supported (a tuple's elements)");
  tuple = stable(std::move(tuple));
  const std::string &name = s.target->id;
  const std::map<std::string, int> saved = inline_scope_;
  for (size_t k = 0; k < tuple->type.elems.size(); ++k) {
    inline_scope_[name] =
        temp_holding(tuple_item(clone(*tuple), static_cast<int>(k), s.target->loc));
    for (ir::Stmt &body : block(s.body))
      emit(std::move(body));
  }
  inline_scope_ = saved;
  for (ir::Stmt &after : block(s.orelse))
    emit(std::move(after));
}

void FunctionTyper::return_stmt(const ast::Stmt &s) {
  ir::Stmt out = make_stmt(ir::StmtKind::Return, s.loc);
  Value v;
  if (s.value)
    v = value(*s.value);
  if (v.kind == Value::Kind::None) {
    round_.returns_none = true;
    if (scope_.return_type && scope_.return_type->is_optional())
      out.exprs.push_back(optional_none(*scope_.return_type, s.loc));
    emit(std::move(out));
    return;
  }
  if (is_kernel_)
    error(s.loc, "a kernel cannot return a value");
  if (v.kind != Value::Kind::Expr || v.expr->kind == ir::ExprKind::String)
    error(s.value->loc, "simt: returning this value is not supported yet");
  if (!scope_.return_type) {
    scope_.return_type = v.expr->type;
    round_.changed = true;
  } else {
    Type unified;
    if (!unify(*scope_.return_type, v.expr->type, unified))
      error(s.loc, "cannot return " + v.expr->type.str() + " from a function that returns " +
                       scope_.return_type->str());
    if (unified != *scope_.return_type) {
      scope_.return_type = unified;
      round_.changed = true;
    }
  }
  out.exprs.push_back(cast(std::move(v.expr), *scope_.return_type));
  emit(std::move(out));
}

std::optional<std::string> FunctionTyper::constant_string(const ast::Expr &e) {
  if (e.kind == ast::ExprKind::String)
    return e.text;
  if (e.kind != ast::ExprKind::Name && e.kind != ast::ExprKind::Attribute)
    return std::nullopt;
  // a global or closure variable holding a str (MSG, config.MESSAGE), as Numba's constants
  Value v = value(e);
  if (v.kind == Value::Kind::Expr && v.expr->kind == ir::ExprKind::String)
    return v.expr->name;
  return std::nullopt;
}

void FunctionTyper::raise_stmt(const ast::Stmt &s) {
  if (!s.value)
    error(s.loc, "simt: a bare raise is not supported yet");
  const ast::Expr *exc = s.value.get();
  std::optional<std::string> message;
  if (exc->kind == ast::ExprKind::Call) {
    if (exc->elts.size() == 2)
      message = constant_string(*exc->elts[1]);
    if (exc->elts.size() > 2 || !exc->keywords.empty() || (exc->elts.size() == 2 && !message))
      error(exc->loc, "simt: exception arguments other than one constant string (a literal, or "
                      "a global or closure variable) are not supported yet");
    exc = exc->elts[0].get();
  }
  Value v = value(*exc);
  if (v.kind != Value::Kind::Exception)
    error(exc->loc, "exceptions must derive from BaseException");
  ir::Stmt out = make_stmt(ir::StmtKind::Raise, s.loc);
  out.exc = v.exception;
  if (message)
    out.message = *message;
  emit(std::move(out));
}

void FunctionTyper::assert_stmt(const ast::Stmt &s) {
  std::optional<std::string> message = s.msg ? constant_string(*s.msg) : std::nullopt;
  if (s.msg && !message)
    error(s.msg->loc, "simt: assert messages other than a constant string (a literal, or a "
                      "global or closure variable) are not supported yet");
  ir::Stmt out = make_stmt(ir::StmtKind::Assert, s.loc);
  out.exprs.push_back(condition(*s.test));
  if (message)
    out.message = *message;
  emit(std::move(out));
}

} // namespace simt
