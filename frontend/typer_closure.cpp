// Numba's make_function -> JIT function: a nested def used as a value (passed to a device
// function) or too big to inline becomes a device function of its own. Its free variables
// must be compile-time constants of the enclosing function (locals bound once to a literal,
// compile-time parameters, other nested defs), as Numba requires; its source is the def's
// lines of the enclosing function's source, so errors point at the real file.
#include "frontend/typer.h"

#include <algorithm>
#include <functional>
#include <set>

namespace simt {

namespace {

// Names as the enclosing function's scope gives them, then its globals.
class ClosureResolver : public Resolver {
public:
  ClosureResolver(std::shared_ptr<Resolver> outer, std::map<std::string, GlobalValue> captured)
      : outer_(std::move(outer)), captured_(std::move(captured)) {}
  GlobalValue resolve(const std::string &name) override {
    if (auto found = captured_.find(name); found != captured_.end())
      return found->second;
    return outer_ ? outer_->resolve(name) : GlobalValue{};
  }
  GlobalValue overload(const std::string &name, const std::vector<std::string> &args) override {
    return outer_ ? outer_->overload(name, args) : GlobalValue{};
  }

private:
  std::shared_ptr<Resolver> outer_;
  std::map<std::string, GlobalValue> captured_;
};

void names_in(const ast::Expr &e, std::set<std::string> &names);

void names_in(const std::vector<ast::StmtPtr> &body, std::set<std::string> &names) {
  for (const ast::StmtPtr &s : body) {
    for (const ast::ExprPtr &t : s->targets)
      names_in(*t, names);
    for (const ast::Expr *x :
         {s->target.get(), s->value.get(), s->test.get(), s->iter.get(), s->msg.get()})
      if (x)
        names_in(*x, names);
    if (s->function)
      names_in(s->function->body, names);
    names_in(s->body, names);
    names_in(s->orelse, names);
  }
}

// Every name an expression or body reads or binds (a superset of its free variables).
void names_in(const ast::Expr &e, std::set<std::string> &names) {
  if (e.kind == ast::ExprKind::Name)
    names.insert(e.id);
  for (const ast::ExprPtr &elt : e.elts)
    if (elt)
      names_in(*elt, names);
  for (const ast::Keyword &k : e.keywords)
    names_in(*k.value, names);
  if (e.function)
    names_in(e.function->body, names);
}

// A literal number or bool, possibly negated: its constant.
std::optional<GlobalValue> literal_constant(const ast::Expr &e) {
  GlobalValue g;
  switch (e.kind) {
  case ast::ExprKind::Int:
    if (e.int_overflow || e.int_uint64)
      return std::nullopt;
    g.kind = GlobalValue::Kind::Int;
    g.scalar = Scalar::I64;
    g.int_value = e.int_value;
    return g;
  case ast::ExprKind::Float:
    if (e.imaginary)
      return std::nullopt;
    g.kind = GlobalValue::Kind::Float;
    g.scalar = Scalar::F64;
    g.float_value = e.float_value;
    return g;
  case ast::ExprKind::Bool:
    g.kind = GlobalValue::Kind::Bool;
    g.scalar = Scalar::Bool;
    g.int_value = e.int_value;
    return g;
  case ast::ExprKind::UnaryOp:
    if (e.op == ast::Operator::Neg && e.elts.size() == 1)
      if (std::optional<GlobalValue> inner = literal_constant(*e.elts[0]);
          inner && inner->kind != GlobalValue::Kind::Bool) {
        inner->int_value = -inner->int_value;
        inner->float_value = -inner->float_value;
        return inner;
      }
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

} // namespace

GlobalValue FunctionTyper::captured_value(const std::string &name, int depth) {
  GlobalValue g;
  if (auto inner = inner_functions_.find(name); inner != inner_functions_.end()) {
    g.kind = GlobalValue::Kind::Function;
    g.function = closure_source(*inner->second, depth + 1);
    return g;
  }
  if (auto bound = statics_.find(name); bound != statics_.end())
    return bound->second.value;
  const bool parameter = std::any_of(def_.params.begin(), def_.params.end(),
                                     [&](const ast::Param &p) { return p.name == name; });
  if (!parameter && binds_once(name))
    if (std::optional<GlobalValue> constant = literal_constant(*binding(name).value))
      return *constant;
  g.member = "Cannot capture the non-constant value associated with variable '" + name +
             "' in a function that may escape (a nested function passed as a value or "
             "compiled on its own takes only constants of its enclosing function)";
  return g;
}

std::shared_ptr<FunctionSource> FunctionTyper::closure_source(const ast::FunctionDef &def,
                                                              int depth) {
  if (depth >= 32)
    error(def.loc, "simt: nested functions capturing each other 32 deep are not supported");
  if (def.name == "<lambda>")
    error(def.loc, "simt: a lambda is only supported called where it is defined, not passed "
                   "as a value (define it with def)");
  // the def's lines: the one of `def` and those after it indented more (or blank)
  const size_t first = def.loc.line - source_.first_line;
  if (first >= lines_.size())
    error(def.loc, "simt: the source of nested function '" + def.name + "' is not available");
  auto indent = [](const std::string &line) { return line.find_first_not_of(" \t"); };
  const size_t def_indent = indent(lines_[first]);
  std::string text = lines_[first] + "\n";
  for (size_t i = first + 1; i < lines_.size(); ++i) {
    const size_t at = indent(lines_[i]);
    if (at != std::string::npos && lines_[i][at] != '#' && at <= def_indent)
      break;
    text += lines_[i] + "\n";
  }
  std::set<std::string> used;
  names_in(def.body, used);
  for (const ast::Param &p : def.params)
    if (p.default_value)
      names_in(*p.default_value, used);
  std::map<std::string, GlobalValue> captured;
  for (const std::string &name : used)
    if (name != def.name && (scope_.locals.count(name) || scope_.types.count(name) ||
                             inner_functions_.count(name) || statics_.count(name)))
      captured[name] = captured_value(name, depth);
  auto source = std::make_shared<FunctionSource>();
  source->name = def.name;
  source->source = std::move(text);
  source->file = source_.file;
  source->first_line = def.loc.line;
  source->resolver = std::make_shared<ClosureResolver>(source_.resolver, std::move(captured));
  // one function per enclosing specialisation (its captured constants may differ)
  source->closure_key = unique_name_ + ":" + std::to_string(def.loc.line) + ":" +
                        std::to_string(def.loc.col) + ":" + def.name;
  return source;
}

Value FunctionTyper::function_value(const Value &inner) {
  Value v;
  v.kind = Value::Kind::Function;
  v.function = closure_source(*inner.inner, 0);
  return v;
}

} // namespace simt
