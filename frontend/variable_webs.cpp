#include "frontend/variable_webs.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <set>
#include <vector>

namespace simt {

namespace {

using DefSet = std::vector<int>;             // sorted definition ids
using State = std::map<std::string, DefSet>; // the definitions reaching a point, by name

void merge_into(State &into, const State &from) {
  for (const auto &[name, defs] : from) {
    DefSet &mine = into[name];
    DefSet both;
    std::set_union(mine.begin(), mine.end(), defs.begin(), defs.end(), std::back_inserter(both));
    mine = std::move(both);
  }
}

void merge_into(std::optional<State> &into, const std::optional<State> &from) {
  if (!from)
    return;
  if (!into)
    into = from;
  else
    merge_into(*into, *from);
}

// Every name an expression or statement mentions (for nested functions' bodies, read-only).
void mentioned(const ast::Expr *e, std::set<std::string> &out);
void mentioned(const ast::Stmt &s, std::set<std::string> &out) {
  for (const auto &t : s.targets)
    mentioned(t.get(), out);
  for (const ast::Expr *e :
       {s.target.get(), s.value.get(), s.test.get(), s.iter.get(), s.msg.get(), s.annotation.get()})
    mentioned(e, out);
  for (const auto &b : s.body)
    mentioned(*b, out);
  for (const auto &b : s.orelse)
    mentioned(*b, out);
  out.insert(s.names.begin(), s.names.end());
  if (s.function) {
    for (const ast::Param &p : s.function->params)
      mentioned(p.default_value.get(), out);
    for (const auto &b : s.function->body)
      mentioned(*b, out);
  }
}
void mentioned(const ast::Expr *e, std::set<std::string> &out) {
  if (!e)
    return;
  if (e->kind == ast::ExprKind::Name)
    out.insert(e->id);
  for (const auto &elt : e->elts)
    mentioned(elt.get(), out);
  for (const auto &k : e->keywords)
    mentioned(k.value.get(), out);
  if (e->function) {
    for (const ast::Param &p : e->function->params)
      mentioned(p.default_value.get(), out);
    for (const auto &b : e->function->body)
      mentioned(*b, out);
  }
}

// Reaching definitions over the structured body, then a union of the definitions that reach
// each use: the webs.
class Webs {
public:
  explicit Webs(ast::FunctionDef &def) : def_(def) {}

  void split(std::map<std::string, std::pair<int, int>> &lines) {
    State entry;
    for (const ast::Param &p : def_.params)
      entry[p.name] = {new_def(p.name, nullptr)};
    block(def_.body, entry);
    rename(lines);
  }

private:
  struct Def {
    std::string name;
    ast::Expr *node; // the target Name (null for a parameter)
  };
  struct Loop {
    std::optional<State> breaks, continues;
  };

  ast::FunctionDef &def_;
  std::vector<Def> defs_;
  std::vector<int> parent_; // union-find over defs_
  std::map<const ast::Expr *, int> def_of_node_;
  std::vector<std::pair<ast::Expr *, DefSet>> uses_;
  std::set<std::string> whole_; // names left as they are
  std::vector<Loop *> loops_;

  int new_def(const std::string &name, ast::Expr *node) {
    defs_.push_back({name, node});
    parent_.push_back(static_cast<int>(parent_.size()));
    return static_cast<int>(defs_.size()) - 1;
  }
  int def_at(ast::Expr *node) {
    auto found = def_of_node_.find(node);
    if (found != def_of_node_.end())
      return found->second;
    return def_of_node_[node] = new_def(node->id, node);
  }
  int find(int d) {
    while (parent_[size_t(d)] != d)
      d = parent_[size_t(d)] = parent_[size_t(parent_[size_t(d)])];
    return d;
  }
  void unite(int a, int b) { parent_[size_t(find(a))] = find(b); }

  void use(ast::Expr *node, const State &state) {
    auto reaching = state.find(node->id);
    if (reaching == state.end() || reaching->second.empty())
      return;
    for (int d : reaching->second)
      unite(d, reaching->second.front());
    uses_.emplace_back(node, reaching->second);
  }

  void uses_in(ast::Expr *e, const State &state) {
    if (!e)
      return;
    if (e->kind == ast::ExprKind::Name) {
      use(e, state);
      return;
    }
    if (e->kind == ast::ExprKind::Lambda) { // read when called: its names are left whole
      mentioned(e, whole_);
      return;
    }
    for (auto &elt : e->elts)
      uses_in(elt.get(), state);
    for (auto &k : e->keywords)
      uses_in(k.value.get(), state);
  }

  void define(ast::Expr *target, State &state) {
    switch (target->kind) {
    case ast::ExprKind::Name:
      state[target->id] = {def_at(target)};
      return;
    case ast::ExprKind::Tuple:
    case ast::ExprKind::List:
      for (auto &elt : target->elts)
        define(elt.get(), state);
      return;
    default: // a[i] = ..., r.x = ...: the object and the index are read
      uses_in(target, state);
      return;
    }
  }

  std::optional<State> block(std::vector<ast::StmtPtr> &body, std::optional<State> state) {
    for (auto &s : body) {
      if (!state)
        return state; // unreachable: after a return, raise, break or continue
      state = stmt(*s, std::move(*state));
    }
    return state;
  }

  std::optional<State> stmt(ast::Stmt &s, State state) {
    switch (s.kind) {
    case ast::StmtKind::Expr:
      uses_in(s.value.get(), state);
      return state;
    case ast::StmtKind::Assign:
      uses_in(s.value.get(), state);
      for (auto &t : s.targets)
        define(t.get(), state);
      return state;
    case ast::StmtKind::AnnAssign:
      if (s.value) {
        uses_in(s.value.get(), state);
        define(s.target.get(), state);
      }
      return state;
    case ast::StmtKind::AugAssign:
      uses_in(s.value.get(), state);
      if (s.target->kind == ast::ExprKind::Name) {
        // read and rebound in one node: the new definition stays with the ones it reads
        use(s.target.get(), state);
        const int d = def_at(s.target.get());
        for (int reaching : state[s.target->id])
          unite(d, reaching);
        state[s.target->id] = {d};
      } else {
        uses_in(s.target.get(), state);
      }
      return state;
    case ast::StmtKind::If: {
      uses_in(s.test.get(), state);
      std::optional<State> taken = block(s.body, state);
      merge_into(taken, block(s.orelse, std::move(state)));
      return taken;
    }
    case ast::StmtKind::While:
    case ast::StmtKind::For:
      return loop(s, std::move(state));
    case ast::StmtKind::Break:
      merge_into(loops_.back()->breaks, std::optional<State>(std::move(state)));
      return std::nullopt;
    case ast::StmtKind::Continue:
      merge_into(loops_.back()->continues, std::optional<State>(std::move(state)));
      return std::nullopt;
    case ast::StmtKind::Return:
    case ast::StmtKind::Raise:
      uses_in(s.value.get(), state);
      return std::nullopt;
    case ast::StmtKind::Assert:
      uses_in(s.test.get(), state);
      uses_in(s.msg.get(), state);
      return state;
    case ast::StmtKind::Pass:
      return state;
    default: // nested defs (read when called), global, nonlocal and what the typer refuses
      mentioned(s, whole_);
      return state;
    }
  }

  std::optional<State> loop(ast::Stmt &s, const State &in) {
    const bool is_for = s.kind == ast::StmtKind::For;
    if (is_for)
      uses_in(s.iter.get(), in);
    State head = in;
    std::optional<State> breaks;
    for (;;) { // to a fixed point: what the body defines reaches the next iteration
      Loop ctx;
      loops_.push_back(&ctx);
      State start = head;
      if (is_for)
        define(s.target.get(), start);
      else
        uses_in(s.test.get(), start);
      std::optional<State> end = block(s.body, std::move(start));
      loops_.pop_back();
      State next = in;
      if (end)
        merge_into(next, *end);
      if (ctx.continues)
        merge_into(next, *ctx.continues);
      if (next == head) {
        breaks = std::move(ctx.breaks);
        break;
      }
      head = std::move(next);
    }
    std::optional<State> after = block(s.orelse, head); // the loop ran out (no break)
    merge_into(after, breaks);
    return after;
  }

  void rename(std::map<std::string, std::pair<int, int>> &lines) {
    std::set<std::string> taken;
    mentioned_in_def(taken);
    std::map<int, std::string> web_name; // root -> name
    std::map<std::string, std::vector<int>> defs_by_name;
    for (size_t d = 0; d < defs_.size(); ++d)
      defs_by_name[defs_[d].name].push_back(static_cast<int>(d));
    for (const auto &[name, defs] : defs_by_name) {
      if (whole_.count(name))
        continue;
      int next = 2;
      bool named = false;
      for (int d : defs) { // in the order met: a parameter's web (met first) keeps the name
        const int root = find(d);
        if (web_name.count(root))
          continue;
        if (!named) {
          web_name[root] = name;
          named = true;
          continue;
        }
        std::string fresh;
        do
          fresh = name + "." + std::to_string(next++);
        while (taken.count(fresh));
        taken.insert(fresh);
        web_name[root] = fresh;
      }
    }
    auto note = [&](const std::string &name, int line) {
      auto [at, fresh] = lines.try_emplace(name, line, line);
      if (!fresh) {
        at->second.first = std::min(at->second.first, line);
        at->second.second = std::max(at->second.second, line);
      }
    };
    auto renamed = [&](ast::Expr *node, int d) {
      auto name = web_name.find(find(d));
      if (name == web_name.end() || name->second == node->id)
        return;
      node->id = name->second;
      note(name->second, node->loc.line);
    };
    for (size_t d = 0; d < defs_.size(); ++d)
      if (defs_[d].node)
        renamed(defs_[d].node, static_cast<int>(d));
    for (auto &[node, defs] : uses_)
      renamed(node, defs.front());
  }

  void mentioned_in_def(std::set<std::string> &out) const {
    for (const ast::Param &p : def_.params)
      out.insert(p.name);
    for (const auto &s : def_.body)
      mentioned(*s, out);
  }
};

} // namespace

void split_variable_webs(ast::FunctionDef &def, std::map<std::string, std::pair<int, int>> &lines) {
  Webs(def).split(lines);
}

} // namespace simt
