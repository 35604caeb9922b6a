// Names Numba treats as compile-time constants where it needs one (array shapes): a local
// assigned exactly once from a constant (`N = 100` ... `cuda.shared.array(N, int32)`, or from an
// expression of such: `M = N + 2`), as Numba's get_definition / guard(find_const) follow a
// variable's single definition.
#include "frontend/typer.h"

#include <algorithm>
#include <functional>
#include <set>

namespace simt {

ast::ExprPtr copy_ast(const ast::Expr &e) {
  auto copy = std::make_unique<ast::Expr>();
  copy->kind = e.kind;
  copy->loc = e.loc;
  copy->id = e.id;
  copy->op = e.op;
  copy->ops = e.ops;
  copy->int_value = e.int_value;
  copy->int_overflow = e.int_overflow;
  copy->int_uint64 = e.int_uint64;
  copy->float_value = e.float_value;
  copy->imaginary = e.imaginary;
  copy->bytes = e.bytes;
  copy->text = e.text;
  copy->function = e.function;
  for (const ast::ExprPtr &elt : e.elts)
    copy->elts.push_back(elt ? copy_ast(*elt) : nullptr);
  for (const ast::Keyword &k : e.keywords)
    copy->keywords.push_back(ast::Keyword{k.name, copy_ast(*k.value), k.loc});
  return copy;
}

namespace {

// The names `target` binds (a name, or the names in a tuple or list of targets), each once.
void bound_names(const ast::Expr &target, std::set<std::string> &names) {
  if (target.kind == ast::ExprKind::Name)
    names.insert(target.id);
  if (target.kind == ast::ExprKind::Tuple || target.kind == ast::ExprKind::List)
    for (const auto &elt : target.elts)
      bound_names(*elt, names);
}

void collect_bindings(const std::vector<ast::StmtPtr> &body, Bindings &bindings) {
  for (const auto &s : body) {
    for (const auto &t : s->targets) {
      std::set<std::string> names;
      bound_names(*t, names);
      const bool plain = t->kind == ast::ExprKind::Name && s->kind == ast::StmtKind::Assign;
      for (const std::string &name : names) {
        Binding &b = bindings[name];
        ++b.count;
        b.value = plain ? s->value.get() : nullptr;
      }
    }
    if (s->target) {
      std::set<std::string> names;
      bound_names(*s->target, names);
      for (const std::string &name : names) {
        Binding &b = bindings[name];
        ++b.count;
        b.value = nullptr;
      }
    }
    collect_bindings(s->body, bindings);
    collect_bindings(s->orelse, bindings);
  }
}

// Whether evaluating `e` again is free of effects (literals, names, attributes, tuples of them).
bool is_plain(const ast::Expr &e) {
  switch (e.kind) {
  case ast::ExprKind::Int:
  case ast::ExprKind::Name:
    return true;
  case ast::ExprKind::Attribute:
  case ast::ExprKind::UnaryOp:
  case ast::ExprKind::BinOp:
  case ast::ExprKind::Tuple:
    for (const auto &elt : e.elts)
      if (!is_plain(*elt))
        return false;
    return true;
  default:
    return false;
  }
}

// Whether `name` appears in the arguments of an array declaration (`cuda.shared.array(n, ...)`,
// `cuda.local.array((n, m), ...)`) in `body`: where Numba needs the value as a literal.
bool in_array_declaration(const std::vector<ast::StmtPtr> &body, const std::string &name) {
  std::function<bool(const ast::Expr &, bool)> visit = [&](const ast::Expr &e, bool declaring) {
    if (declaring && e.kind == ast::ExprKind::Name && e.id == name)
      return true;
    const bool declaration = e.kind == ast::ExprKind::Call &&
                             e.elts[0]->kind == ast::ExprKind::Attribute &&
                             e.elts[0]->id == "array";
    for (size_t i = 0; i < e.elts.size(); ++i)
      if (e.elts[i] && visit(*e.elts[i], declaring || (declaration && i > 0)))
        return true;
    for (const ast::Keyword &k : e.keywords)
      if (visit(*k.value, declaring || declaration))
        return true;
    return false;
  };
  for (const auto &s : body) {
    for (const ast::Expr *e : {s->value.get(), s->target.get()})
      if (e && visit(*e, false))
        return true;
    for (const auto &t : s->targets)
      if (visit(*t, false))
        return true;
    if (in_array_declaration(s->body, name) || in_array_declaration(s->orelse, name))
      return true;
  }
  return false;
}

// A constant integer (or bool), or a tuple of constant integers.
bool is_constant_shape_value(const ir::Expr &e) {
  if (e.kind == ir::ExprKind::TupleMake)
    return !e.args.empty() && std::all_of(e.args.begin(), e.args.end(), [](const auto &x) {
      return x->kind == ir::ExprKind::Const && is_integer(x->type.scalar);
    });
  return e.kind == ir::ExprKind::Const && e.type.is_scalar() &&
         (is_integer(e.type.scalar) || e.type.scalar == Scalar::Bool);
}

GlobalValue constant_global(const ir::Expr &e) {
  GlobalValue g;
  if (e.kind == ir::ExprKind::TupleMake) {
    g.kind = GlobalValue::Kind::Tuple;
    for (const auto &x : e.args)
      g.elems.push_back(constant_global(*x));
    return g;
  }
  g.kind = e.type.scalar == Scalar::Bool ? GlobalValue::Kind::Bool : GlobalValue::Kind::Int;
  g.scalar = e.type.scalar;
  g.int_value = e.int_value;
  return g;
}

std::string constant_key(const GlobalValue &g) {
  if (g.kind == GlobalValue::Kind::Tuple) {
    std::string key = "(";
    for (const GlobalValue &elem : g.elems)
      key += constant_key(elem) + ",";
    return key + ")";
  }
  return scalar_name(g.scalar) + " " + std::to_string(g.int_value);
}

} // namespace

Bindings collect_bindings(const std::vector<ast::StmtPtr> &body) {
  Bindings bindings;
  collect_bindings(body, bindings);
  return bindings;
}

const Binding &FunctionTyper::binding(const std::string &name) const {
  static const Binding none;
  auto found = bindings_.find(name);
  return found == bindings_.end() ? none : found->second;
}

std::optional<StaticArg> FunctionTyper::static_argument(const Value &v, const ast::FunctionDef &def,
                                                        const std::string &param) const {
  if (collect_bindings(def.body).count(param)) // a parameter the function assigns stays a local
    return std::nullopt;
  StaticArg arg;
  GlobalValue &g = arg.value;
  switch (v.kind) {
  case Value::Kind::Dtype:
    g.kind = GlobalValue::Kind::Dtype;
    g.scalar = v.dtype;
    g.record = v.record;
    arg.key = "dtype " + (v.record ? v.record->str() : scalar_name(v.dtype));
    return arg;
  case Value::Kind::Function:
    g.kind = GlobalValue::Kind::Function;
    g.function = v.function;
    arg.key = "function " + function_key(*v.function);
    return arg;
  case Value::Kind::Extern:
    g.kind = GlobalValue::Kind::Extern;
    g.extern_function = v.extern_function;
    arg.key = "extern " + v.extern_function->name;
    return arg;
  case Value::Kind::Path: {
    // cuda.atomic.add, math.sin, a module: what a global of the callee naming it would be.
    const size_t dot = v.path.find('.');
    if (v.path.find(':') != std::string::npos) // a user's module: by its name in the caller
      return std::nullopt;
    if (v.path.starts_with("builtins.")) {
      g.kind = GlobalValue::Kind::Builtin;
      g.member = v.path.substr(dot + 1);
    } else if (dot == std::string::npos) {
      g.kind = GlobalValue::Kind::Module;
      g.module_name = v.path;
    } else {
      g.kind = GlobalValue::Kind::ModuleMember;
      g.module_name = v.path.substr(0, dot);
      g.member = v.path.substr(dot + 1);
    }
    arg.key = "path " + v.path;
    return arg;
  }
  case Value::Kind::None: // Numba's none type: `x is None` is a constant, as its pruning gives
    g.kind = GlobalValue::Kind::None;
    arg.key = "none";
    return arg;
  case Value::Kind::Expr:
    if (v.expr->kind == ir::ExprKind::String) { // Numba's literal strings: a field name, a message
      g.kind = GlobalValue::Kind::String;
      g.member = v.expr->name;
      arg.key = "str " + std::to_string(g.member.size()) + ":" + g.member;
      return arg;
    }
    // Numba's literal booleans (its branch pruning drops the branches they rule out), and its
    // literal integers where the callee declares an array with them.
    if (!is_constant_shape_value(*v.expr) ||
        (v.expr->type != Type::scalar_of(Scalar::Bool) && !in_array_declaration(def.body, param)))
      return std::nullopt;
    g = constant_global(*v.expr);
    arg.key = "const " + constant_key(g);
    return arg;
  default:
    return std::nullopt;
  }
}

void FunctionTyper::collect_inner_functions(const std::vector<ast::StmtPtr> &body) {
  // (name, function, whether a def) of every nested def and `name = lambda ...` in `body`
  std::vector<std::tuple<std::string, std::shared_ptr<const ast::FunctionDef>, bool>> found;
  std::function<void(const std::vector<ast::StmtPtr> &)> visit = [&](const auto &stmts) {
    for (const auto &s : stmts) {
      if (s->kind == ast::StmtKind::FunctionDef)
        found.emplace_back(s->names.at(0), s->function, true);
      else if (s->kind == ast::StmtKind::Assign && s->targets.size() == 1 &&
               s->targets[0]->kind == ast::ExprKind::Name &&
               s->value->kind == ast::ExprKind::Lambda)
        found.emplace_back(s->targets[0]->id, s->value->function, false);
      visit(s->body);
      visit(s->orelse);
    }
  };
  visit(body);
  for (const auto &[name, function, is_def] : found) {
    // one definition, never rebound: the name always means it (a def counts no binding here)
    const int count = binding(name).count;
    const auto same_name = [&](const auto &other) { return std::get<0>(other) == name; };
    if (count == (is_def ? 0 : 1) && std::count_if(found.begin(), found.end(), same_name) == 1 &&
        !scope_.types.count(name)) {
      inner_functions_[name] = function;
      scope_.locals.erase(name);
    }
  }
}

bool FunctionTyper::binds_once(const std::string &name) const {
  const Binding &b = binding(name);
  return b.count == 1 && b.value;
}

void FunctionTyper::collect_string_constants() {
  std::vector<std::string> names(scope_.locals.begin(), scope_.locals.end());
  for (const std::string &name : names) {
    if (scope_.types.count(name)) // a parameter
      continue;
    const Binding &b = binding(name);
    if (b.count == 1 && b.value && b.value->kind == ast::ExprKind::String && !b.value->bytes) {
      string_constants_[name] = b.value->text;
      scope_.locals.erase(name);
    }
  }
}

ast::ExprPtr FunctionTyper::constant_definition(const ast::Expr &e, int depth) {
  if (e.kind == ast::ExprKind::Name && scope_.locals.count(e.id) && depth < 16) {
    for (const ast::Param &param : def_.params)
      if (param.name == e.id)
        return copy_ast(e);
    const Binding &b = binding(e.id);
    if (b.count == 1 && b.value && is_plain(*b.value))
      return constant_definition(*b.value, depth + 1);
    return copy_ast(e);
  }
  auto copy = copy_ast(e);
  if (e.kind == ast::ExprKind::Tuple || e.kind == ast::ExprKind::UnaryOp ||
      e.kind == ast::ExprKind::BinOp)
    for (auto &elt : copy->elts)
      elt = constant_definition(*elt, depth + 1);
  return copy;
}

} // namespace simt
