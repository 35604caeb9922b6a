#include "frontend/param_versions.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace simt {

namespace {

bool mentions(const ast::Expr *e, const std::string &name) {
  if (!e)
    return false;
  if (e->kind == ast::ExprKind::Name && e->id == name)
    return true;
  for (const auto &elt : e->elts)
    if (mentions(elt.get(), name))
      return true;
  for (const auto &k : e->keywords)
    if (mentions(k.value.get(), name))
      return true;
  return false;
}

bool mentions(const ast::Stmt &s, const std::string &name) {
  for (const auto &t : s.targets)
    if (mentions(t.get(), name))
      return true;
  for (const ast::Expr *e :
       {s.target.get(), s.value.get(), s.test.get(), s.iter.get(), s.msg.get(), s.annotation.get()})
    if (mentions(e, name))
      return true;
  for (const auto &b : s.body)
    if (mentions(*b, name))
      return true;
  for (const auto &b : s.orelse)
    if (mentions(*b, name))
      return true;
  for (const auto &n : s.names)
    if (n == name)
      return true;
  return false;
}

void rename_reads(ast::Expr *e, const std::string &from, const std::string &to) {
  if (!e)
    return;
  if (e->kind == ast::ExprKind::Name && e->id == from)
    e->id = to;
  for (auto &elt : e->elts)
    rename_reads(elt.get(), from, to);
  for (auto &k : e->keywords)
    rename_reads(k.value.get(), from, to);
}

int occurrences(const ast::Expr *e, const std::string &name) {
  if (!e)
    return 0;
  int count = e->kind == ast::ExprKind::Name && e->id == name;
  for (const auto &elt : e->elts)
    count += occurrences(elt.get(), name);
  for (const auto &k : e->keywords)
    count += occurrences(k.value.get(), name);
  return count;
}

int occurrences(const std::vector<ast::StmtPtr> &body, const std::string &name);

int occurrences(const ast::Stmt &s, const std::string &name) {
  int count = 0;
  for (const auto &t : s.targets)
    count += occurrences(t.get(), name);
  for (const ast::Expr *e :
       {s.target.get(), s.value.get(), s.test.get(), s.iter.get(), s.msg.get(), s.annotation.get()})
    count += occurrences(e, name);
  for (const auto &n : s.names)
    count += n == name;
  return count + occurrences(s.body, name) + occurrences(s.orelse, name);
}

int occurrences(const std::vector<ast::StmtPtr> &body, const std::string &name) {
  int count = 0;
  for (const auto &s : body)
    count += occurrences(*s, name);
  return count;
}

void rename_all(ast::Stmt &s, const std::string &from, const std::string &to) {
  for (auto &t : s.targets)
    rename_reads(t.get(), from, to);
  for (ast::Expr *e :
       {s.target.get(), s.value.get(), s.test.get(), s.iter.get(), s.msg.get(), s.annotation.get()})
    rename_reads(e, from, to);
  for (auto &b : s.body)
    rename_all(*b, from, to);
  for (auto &b : s.orelse)
    rename_all(*b, from, to);
}

// The `for` statements in `body` (at any depth) whose target is the name alone.
void loops_binding(std::vector<ast::StmtPtr> &body, const std::string &name,
                   std::vector<ast::Stmt *> &loops) {
  for (auto &s : body) {
    if (s->kind == ast::StmtKind::For && s->target->kind == ast::ExprKind::Name &&
        s->target->id == name)
      loops.push_back(s.get());
    loops_binding(s->body, name, loops);
    loops_binding(s->orelse, name, loops);
  }
}

// The line of the last statement in `s` (at any depth).
int last_line(const ast::Stmt &s) {
  int line = s.loc.line;
  for (const auto *body : {&s.body, &s.orelse})
    for (const auto &b : *body)
      line = std::max(line, last_line(*b));
  return line;
}

bool assigns_only(const ast::Stmt &s, const std::string &name) {
  return s.kind == ast::StmtKind::Assign && s.targets.size() == 1 &&
         s.targets[0]->kind == ast::ExprKind::Name && s.targets[0]->id == name;
}

} // namespace

bool split_loop_variable(ast::FunctionDef &def, const std::string &name,
                         std::map<std::string, std::pair<int, int>> &lines) {
  for (const ast::Param &param : def.params)
    if (param.name == name)
      return false;
  std::vector<ast::Stmt *> loops;
  loops_binding(def.body, name, loops);
  if (loops.size() < 2)
    return false;
  int inside = 0;
  for (ast::Stmt *loop : loops) {
    std::vector<ast::Stmt *> nested;
    loops_binding(loop->body, name, nested);
    if (!nested.empty()) // one loop's variable rebound inside another's body
      return false;
    inside += occurrences(loop->target.get(), name) + occurrences(loop->body, name);
  }
  if (inside != occurrences(def.body, name)) // read or written outside the loops
    return false;
  for (size_t k = 1; k < loops.size(); ++k) {
    const std::string version = name + kSlotVersion + std::to_string(k + 1);
    lines[version] = {loops[k]->loc.line, last_line(*loops[k])};
    rename_reads(loops[k]->target.get(), name, version);
    for (auto &b : loops[k]->body)
      rename_all(*b, name, version);
  }
  return true;
}

void split_redefined_parameters(ast::FunctionDef &def,
                                std::map<std::string, std::pair<int, int>> &lines) {
  for (ast::Param &param : def.params) {
    for (auto &s : def.body) {
      if (!mentions(*s, param.name))
        continue;
      if (assigns_only(*s, param.name)) {
        // the local from the statement after the assignment on (before it: the parameter)
        lines[param.name] = {last_line(*s) + 1, std::numeric_limits<int>::max()};
        rename_reads(s->value.get(), param.name, "$" + param.name);
        param.name = "$" + param.name;
      }
      break;
    }
  }
}

} // namespace simt
