// A recursive-descent parser for the kernel subset of Python, following CPython's grammar and its
// error messages. Expression locations follow CPython's AST: a node starts at its first token
// (a binary operation at its left operand, a call at its callee, a parenthesized tuple at '(').
#include "frontend/ast.h"
#include "frontend/compile.h"
#include "frontend/lexer.h"
#include "frontend/nesting.h"

#include <algorithm>
#include <set>

namespace simt {

namespace {

using ast::Expr;
using ast::ExprKind;
using ast::ExprPtr;
using ast::inplace_operator_spelled;
using ast::Operator;
using ast::operator_spelled;
using ast::OperatorKind;
using ast::Stmt;
using ast::StmtKind;
using ast::StmtPtr;
using ir::Loc;

const std::set<std::string> kKeywords = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

ExprPtr make_expr(ExprKind kind, Loc loc) {
  auto expr = std::make_unique<Expr>();
  expr->kind = kind;
  expr->loc = loc;
  return expr;
}

StmtPtr make_stmt(StmtKind kind, Loc loc) {
  auto stmt = std::make_unique<Stmt>();
  stmt->kind = kind;
  stmt->loc = loc;
  return stmt;
}

class Parser {
public:
  Parser(const SourceText &source, std::vector<Token> tokens)
      : source_(source), tokens_(std::move(tokens)) {}

  ast::FunctionDef parse_file() {
    if (peek().kind == TokenKind::End)
      error(peek(), "simt: expected a function definition");
    bool is_lambda = is_keyword("lambda") || (is_op(Symbol::LeftParen) && is_keyword("lambda", 1));
    ast::FunctionDef function = is_lambda ? parse_lambda_def() : parse_decorated_def();
    while (is_lambda && peek().kind == TokenKind::Newline)
      next();
    if (peek().kind != TokenKind::End)
      error(peek(), "simt: expected a single function definition");
    return function;
  }

private:
  // ---- tokens

  const Token &peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token &next() {
    const Token &token = peek();
    if (pos_ < tokens_.size() - 1)
      ++pos_;
    return token;
  }
  bool is_op(Symbol symbol, size_t ahead = 0) const {
    const Token &token = peek(ahead);
    return token.kind == TokenKind::Op && token.symbol == symbol;
  }
  // The operator of `kind` the current token is, if it is one.
  std::optional<Operator> operator_at(OperatorKind kind) const {
    const Token &token = peek();
    return token.kind == TokenKind::Op ? operator_spelled(token.symbol, kind) : std::nullopt;
  }
  bool is_keyword(const char *keyword, size_t ahead = 0) const {
    const Token &token = peek(ahead);
    return token.kind == TokenKind::Name && token.text == keyword;
  }
  bool accept_op(Symbol symbol) {
    if (!is_op(symbol))
      return false;
    next();
    return true;
  }
  bool accept_keyword(const char *keyword) {
    if (!is_keyword(keyword))
      return false;
    next();
    return true;
  }
  const Token &expect_op(Symbol symbol) {
    if (!is_op(symbol))
      error(peek(), std::string("expected '") + spelling(symbol) + "'");
    return next();
  }
  void expect_newline() {
    if (peek().kind != TokenKind::Newline)
      error(peek(), "invalid syntax");
    next();
  }
  std::string expect_name() {
    const Token &token = peek();
    if (token.kind != TokenKind::Name || kKeywords.count(token.text))
      error(token, "invalid syntax");
    return next().text;
  }

  [[noreturn]] void error(const Token &token, const std::string &message) const {
    error(token.loc, message);
  }
  [[noreturn]] void error(Loc loc, const std::string &message) const {
    source_.error(loc, message);
  }

  // Every recursion of the parser goes one level deeper here, so it never recurses much deeper
  // than kMaxNesting.
  void deeper(Nesting &nesting, Loc loc) {
    nesting.enter([&] { error(loc, too_deeply_nested()); });
  }
  // Each operator of a left-associative chain (a + b + c nests as (a + b) + c) and each elif
  // nests the tree one level deeper, with no recursion: the tree is never much deeper than
  // kMaxNesting + kMaxChainDepth.
  void longer(Nesting &chain, Loc loc) {
    chain.enter([&] { error(loc, chain_too_long()); });
  }

  // ---- definitions

  ast::FunctionDef parse_decorated_def() {
    std::vector<ExprPtr> decorators;
    while (accept_op(Symbol::At)) {
      decorators.push_back(parse_test());
      expect_newline();
    }
    if (is_keyword("class"))
      error(peek(), "simt: class definitions are not supported");
    if (is_keyword("async"))
      error(peek(), "simt: 'async' functions are not supported");
    if (!is_keyword("def"))
      error(peek(), decorators.empty() ? "simt: expected a function definition" : "invalid syntax");
    ast::FunctionDef function = parse_def();
    function.decorators = std::move(decorators);
    return function;
  }

  ast::FunctionDef parse_def() {
    ast::FunctionDef function;
    function.loc = next().loc; // def
    function.name = expect_name();
    expect_op(Symbol::LeftParen);
    parse_params(function, Symbol::RightParen);
    expect_op(Symbol::RightParen);
    if (accept_op(Symbol::Arrow))
      parse_test(); // return annotations do not matter to the kernel
    function.body = parse_suite("function definition", function.loc);
    return function;
  }

  // A lambda expression (possibly parenthesized), as the function `def <lambda>(params): return
  // body` (the source of a lambda compiled as a device function).
  ast::FunctionDef parse_lambda_def() {
    bool parenthesized = accept_op(Symbol::LeftParen);
    ast::FunctionDef function;
    function.loc = next().loc; // lambda
    function.name = "<lambda>";
    parse_params(function, Symbol::Colon);
    expect_op(Symbol::Colon);
    StmtPtr body = make_stmt(StmtKind::Return, peek().loc);
    body->value = parse_test();
    function.body.push_back(std::move(body));
    if (parenthesized)
      expect_op(Symbol::RightParen);
    return function;
  }

  // Parameters up to `end` (')' for def, ':' for lambda, whose parameters take no annotations).
  void parse_params(ast::FunctionDef &function, Symbol end) {
    bool seen_default = false;
    bool annotated = end == Symbol::RightParen;
    while (!is_op(end)) {
      if (accept_op(Symbol::Slash)) {
        // the positional-only marker changes nothing for kernels called positionally
      } else if (is_op(Symbol::Star) || is_op(Symbol::DoubleStar)) {
        // *args, **kwargs and the keyword-only marker '*' all leave the positional signature
        const bool single = is_op(Symbol::Star);
        next();
        if (single && peek().kind == TokenKind::Name && function.vararg.empty() &&
            !function.has_varargs)
          function.vararg = peek().text;
        else
          function.has_varargs = true;
        if (peek().kind == TokenKind::Name) {
          expect_name();
          if (annotated && accept_op(Symbol::Colon))
            parse_test();
        }
      } else {
        ast::Param param;
        param.loc = peek().loc;
        param.name = expect_name();
        for (const ast::Param &other : function.params)
          if (other.name == param.name)
            error(param.loc, "duplicate argument '" + param.name + "' in function definition");
        if (annotated && accept_op(Symbol::Colon))
          parse_test(); // parameter annotations do not matter either
        if (accept_op(Symbol::Equal)) {
          param.default_value = parse_test();
          seen_default = true;
        } else if (seen_default && !function.has_varargs) {
          error(param.loc, "parameter without a default follows parameter with a default");
        }
        if (!function.vararg.empty())
          function.has_varargs = true; // keyword-only parameters
        function.params.push_back(std::move(param));
      }
      if (!accept_op(Symbol::Comma))
        break;
    }
  }

  // ---- statements

  // The body after a compound statement's header: the ':' and either an indented block or
  // simple statements on the same line.
  std::vector<StmtPtr> parse_suite(const std::string &what, Loc header) {
    Nesting nesting(depth_);
    deeper(nesting, peek().loc);
    expect_op(Symbol::Colon);
    std::vector<StmtPtr> body;
    if (peek().kind != TokenKind::Newline) {
      parse_simple_statements(body);
      return body;
    }
    next();
    if (peek().kind != TokenKind::Indent)
      error(peek(),
            "expected an indented block after " + what + " on line " + std::to_string(header.line));
    next();
    while (peek().kind != TokenKind::Dedent && peek().kind != TokenKind::End)
      parse_statement(body);
    next();
    return body;
  }

  void parse_statement(std::vector<StmtPtr> &out) {
    const Token &token = peek();
    if (token.kind == TokenKind::Indent)
      error(token, "unexpected indent");
    if (token.kind == TokenKind::Name) {
      const std::string &word = token.text;
      if (word == "if") {
        out.push_back(parse_if());
        return;
      }
      if (word == "while") {
        out.push_back(parse_while());
        return;
      }
      if (word == "for") {
        out.push_back(parse_for());
        return;
      }
      if (word == "def") {
        out.push_back(nested_def(parse_def()));
        return;
      }
      if (word == "with")
        error(token, "simt: 'with' statements are not supported");
      if (word == "try")
        error(token, "simt: 'try' statements are not supported");
      if (word == "class")
        error(token, "simt: class definitions are not supported");
      if (word == "async")
        error(token, "simt: 'async' statements are not supported");
    }
    if (is_op(Symbol::At)) {
      out.push_back(nested_def(parse_decorated_def()));
      return;
    }
    parse_simple_statements(out);
  }

  // A nested def: the typer inlines it where it is called (or reports it).
  static StmtPtr nested_def(ast::FunctionDef function) {
    StmtPtr stmt = make_stmt(StmtKind::FunctionDef, function.loc);
    stmt->names.push_back(function.name);
    stmt->function = std::make_shared<ast::FunctionDef>(std::move(function));
    return stmt;
  }

  // if ... elif ... else: each elif is an If nested as the only statement of the orelse before
  // it, as in CPython's tree, but parsed in a loop: a chain, not nesting.
  StmtPtr parse_if() {
    StmtPtr first;
    std::vector<StmtPtr> *link = nullptr; // where the next elif goes
    Nesting chain(chain_depth_, kMaxChainDepth);
    do {
      const Token &keyword = next(); // if / elif
      if (link)
        longer(chain, keyword.loc);
      StmtPtr stmt = make_stmt(StmtKind::If, keyword.loc);
      std::string what = "'" + keyword.text + "' statement";
      stmt->test = parse_test();
      stmt->body = parse_suite(what, keyword.loc);
      std::vector<StmtPtr> *orelse = &stmt->orelse;
      if (link)
        link->push_back(std::move(stmt));
      else
        first = std::move(stmt);
      link = orelse;
    } while (is_keyword("elif"));
    parse_else(*link);
    return first;
  }

  void parse_else(std::vector<StmtPtr> &orelse) {
    if (!is_keyword("else"))
      return;
    Loc loc = next().loc;
    orelse = parse_suite("'else' statement", loc);
  }

  StmtPtr parse_while() {
    StmtPtr stmt = make_stmt(StmtKind::While, next().loc);
    stmt->test = parse_test();
    stmt->body = parse_suite("'while' statement", stmt->loc);
    parse_else(stmt->orelse);
    return stmt;
  }

  StmtPtr parse_for() {
    StmtPtr stmt = make_stmt(StmtKind::For, next().loc);
    stmt->target = parse_expr_list();
    check_target(*stmt->target, "assign to");
    if (!accept_keyword("in"))
      error(peek(), "expected 'in'");
    stmt->iter = parse_test_list();
    stmt->body = parse_suite("'for' statement", stmt->loc);
    parse_else(stmt->orelse);
    return stmt;
  }

  void parse_simple_statements(std::vector<StmtPtr> &out) {
    while (true) {
      out.push_back(parse_simple_statement());
      if (!accept_op(Symbol::Semicolon))
        break;
      if (peek().kind == TokenKind::Newline)
        break;
    }
    expect_newline();
  }

  StmtPtr parse_simple_statement() {
    const Token &token = peek();
    Loc loc = token.loc;
    if (token.kind == TokenKind::Name) {
      const std::string &word = token.text;
      if (word == "pass" || word == "break" || word == "continue") {
        next();
        return make_stmt(word == "pass"    ? StmtKind::Pass
                         : word == "break" ? StmtKind::Break
                                           : StmtKind::Continue,
                         loc);
      }
      if (word == "return") {
        next();
        StmtPtr stmt = make_stmt(StmtKind::Return, loc);
        if (!at_statement_end())
          stmt->value = parse_test_list();
        return stmt;
      }
      if (word == "raise") {
        next();
        StmtPtr stmt = make_stmt(StmtKind::Raise, loc);
        if (!at_statement_end())
          stmt->value = parse_test();
        if (is_keyword("from"))
          error(peek(), "simt: 'raise ... from' is not supported");
        return stmt;
      }
      if (word == "assert") {
        next();
        StmtPtr stmt = make_stmt(StmtKind::Assert, loc);
        stmt->test = parse_test();
        if (accept_op(Symbol::Comma))
          stmt->msg = parse_test();
        return stmt;
      }
      if (word == "global" || word == "nonlocal") {
        next();
        StmtPtr stmt = make_stmt(word == "global" ? StmtKind::Global : StmtKind::Nonlocal, loc);
        do
          stmt->names.push_back(expect_name());
        while (accept_op(Symbol::Comma));
        return stmt;
      }
      if (word == "del") {
        next();
        StmtPtr stmt = make_stmt(StmtKind::Del, loc);
        do {
          stmt->targets.push_back(parse_expr());
          check_target(*stmt->targets.back(), "delete");
        } while (accept_op(Symbol::Comma) && !at_statement_end());
        return stmt;
      }
      if (word == "import" || word == "from")
        error(token, "simt: 'import' statements are not supported");
    }
    return parse_expression_statement();
  }

  bool at_statement_end() const {
    return peek().kind == TokenKind::Newline || is_op(Symbol::Semicolon);
  }

  StmtPtr parse_expression_statement() {
    Loc loc = peek().loc;
    ExprPtr first = parse_test_list();
    if (accept_op(Symbol::Colon)) {
      StmtPtr stmt = make_stmt(StmtKind::AnnAssign, loc);
      if (first->kind == ExprKind::Tuple || first->kind == ExprKind::List)
        error(first->loc, std::string("only single target (not ") +
                              (first->kind == ExprKind::Tuple ? "tuple" : "list") +
                              ") can be annotated");
      if (first->kind != ExprKind::Name && first->kind != ExprKind::Attribute &&
          first->kind != ExprKind::Subscript)
        error(first->loc, "illegal target for annotation");
      stmt->target = std::move(first);
      stmt->annotation = parse_test();
      if (accept_op(Symbol::Equal))
        stmt->value = parse_test_list();
      return stmt;
    }
    const std::optional<Operator> inplace =
        peek().kind == TokenKind::Op ? inplace_operator_spelled(peek().symbol) : std::nullopt;
    if (inplace) {
      next();
      StmtPtr stmt = make_stmt(StmtKind::AugAssign, loc);
      if (first->kind != ExprKind::Name && first->kind != ExprKind::Attribute &&
          first->kind != ExprKind::Subscript)
        error(first->loc,
              "'" + describe(*first) + "' is an illegal expression for augmented assignment");
      stmt->op = *inplace;
      stmt->target = std::move(first);
      stmt->value = parse_test_list();
      return stmt;
    }
    if (!is_op(Symbol::Equal)) {
      StmtPtr stmt = make_stmt(StmtKind::Expr, loc);
      stmt->value = std::move(first);
      return stmt;
    }
    StmtPtr stmt = make_stmt(StmtKind::Assign, loc);
    std::vector<ExprPtr> chain;
    chain.push_back(std::move(first));
    while (accept_op(Symbol::Equal))
      chain.push_back(parse_test_list());
    stmt->value = std::move(chain.back());
    chain.pop_back();
    for (ExprPtr &target : chain) {
      check_target(*target, "assign to");
      stmt->targets.push_back(std::move(target));
    }
    return stmt;
  }

  // What CPython calls an expression in "cannot assign to ..." messages.
  static std::string describe(const Expr &expr) {
    switch (expr.kind) {
    case ExprKind::Call:
      return "function call";
    case ExprKind::Int:
    case ExprKind::Float:
    case ExprKind::String:
      return "literal";
    case ExprKind::Bool:
      return expr.int_value ? "True" : "False";
    case ExprKind::None:
      return "None";
    case ExprKind::Compare:
      return "comparison";
    case ExprKind::IfExp:
      return "conditional expression";
    case ExprKind::Tuple:
      return "tuple";
    case ExprKind::List:
      return "list";
    default:
      return "expression";
    }
  }

  void check_target(const Expr &target, const char *verb) const {
    switch (target.kind) {
    case ExprKind::Name:
    case ExprKind::Subscript:
    case ExprKind::Attribute:
      return;
    case ExprKind::Tuple:
    case ExprKind::List:
      for (const ExprPtr &elt : target.elts)
        check_target(*elt, verb);
      return;
    default:
      error(target.loc, std::string("cannot ") + verb + " " + describe(target));
    }
  }

  // ---- expressions

  // Whether the current token can begin an expression (to end a trailing-comma tuple).
  bool starts_expression() const {
    const Token &token = peek();
    switch (token.kind) {
    case TokenKind::Int:
    case TokenKind::Float:
    case TokenKind::String:
      return true;
    case TokenKind::Name:
      return !kKeywords.count(token.text) || token.text == "not" || token.text == "None" ||
             token.text == "True" || token.text == "False" || token.text == "lambda" ||
             token.text == "await" || token.text == "yield";
    case TokenKind::Op:
      switch (token.symbol) {
      case Symbol::LeftParen:
      case Symbol::LeftBracket:
      case Symbol::LeftBrace:
      case Symbol::Minus:
      case Symbol::Plus:
      case Symbol::Tilde:
      case Symbol::Star:
      case Symbol::Ellipsis:
        return true;
      default:
        return false;
      }
    default:
      return false;
    }
  }

  // test (',' test)* [','], a Tuple when there is a comma.
  ExprPtr parse_test_list() { return parse_list_of(&Parser::parse_test); }
  // expr (',' expr)* [','] (for-loop targets, which stop at 'in').
  ExprPtr parse_expr_list() { return parse_list_of(&Parser::parse_expr); }

  ExprPtr parse_list_of(ExprPtr (Parser::*element)()) {
    Loc loc = peek().loc;
    ExprPtr first = (this->*element)();
    if (!is_op(Symbol::Comma))
      return first;
    ExprPtr tuple = make_expr(ExprKind::Tuple, loc);
    tuple->elts.push_back(std::move(first));
    while (accept_op(Symbol::Comma) && starts_expression())
      tuple->elts.push_back((this->*element)());
    return tuple;
  }

  ExprPtr parse_test() {
    Nesting nesting(depth_);
    deeper(nesting, peek().loc);
    const Token &token = peek();
    if (is_op(Symbol::Star))
      error(token, "simt: star expressions are not supported");
    if (token.kind == TokenKind::Name && token.text == "lambda") {
      ExprPtr lambda = make_expr(ExprKind::Lambda, token.loc);
      lambda->function = std::make_shared<ast::FunctionDef>(parse_lambda_def());
      return lambda;
    }
    if (token.kind == TokenKind::Name && token.text == "yield")
      error(token, "simt: 'yield' is not supported");
    Loc loc = token.loc;
    ExprPtr body = parse_or();
    if (accept_keyword("if")) {
      ExprPtr test = parse_or();
      if (!accept_keyword("else"))
        error(peek(), "expected 'else' after 'if' expression");
      ExprPtr orelse = parse_test();
      ExprPtr expr = make_expr(ExprKind::IfExp, loc);
      expr->elts.push_back(std::move(test));
      expr->elts.push_back(std::move(body));
      expr->elts.push_back(std::move(orelse));
      body = std::move(expr);
    }
    if (is_op(Symbol::ColonEqual))
      error(peek(), "simt: assignment expressions (:=) are not supported");
    return body;
  }

  ExprPtr parse_bool_op(Operator op, ExprPtr (Parser::*operand)()) {
    Loc loc = peek().loc;
    ExprPtr first = (this->*operand)();
    const char *keyword = spelling(op).c_str();
    if (!is_keyword(keyword))
      return first;
    ExprPtr expr = make_expr(ExprKind::BoolOp, loc);
    expr->op = op;
    expr->elts.push_back(std::move(first));
    while (accept_keyword(keyword))
      expr->elts.push_back((this->*operand)());
    return expr;
  }
  ExprPtr parse_or() { return parse_bool_op(Operator::Or, &Parser::parse_and); }
  ExprPtr parse_and() { return parse_bool_op(Operator::And, &Parser::parse_not); }

  ExprPtr parse_not() {
    if (!is_keyword("not"))
      return parse_comparison();
    Nesting nesting(depth_);
    deeper(nesting, peek().loc);
    ExprPtr expr = make_expr(ExprKind::UnaryOp, next().loc);
    expr->op = Operator::Not;
    expr->elts.push_back(parse_not());
    return expr;
  }

  // The comparison operator at the current token (none if none), consuming it.
  std::optional<Operator> accept_comparison_op() {
    if (const std::optional<Operator> op = operator_at(OperatorKind::Comparison)) {
      next();
      return op;
    }
    if (is_keyword("in")) {
      next();
      return Operator::In;
    }
    if (is_keyword("not") && is_keyword("in", 1)) {
      next();
      next();
      return Operator::NotIn;
    }
    if (is_keyword("is")) {
      next();
      return accept_keyword("not") ? Operator::IsNot : Operator::Is;
    }
    return std::nullopt;
  }

  ExprPtr parse_comparison() {
    Loc loc = peek().loc;
    ExprPtr first = parse_expr();
    std::optional<Operator> op = accept_comparison_op();
    if (!op)
      return first;
    ExprPtr expr = make_expr(ExprKind::Compare, loc);
    expr->elts.push_back(std::move(first));
    do {
      expr->ops.push_back(*op);
      expr->elts.push_back(parse_expr());
      op = accept_comparison_op();
    } while (op);
    return expr;
  }

  // Left-associative binary operators of binding `level` over `operand`.
  ExprPtr parse_binary(int level, ExprPtr (Parser::*operand)()) {
    Loc loc = peek().loc;
    ExprPtr left = (this->*operand)();
    Nesting chain(chain_depth_, kMaxChainDepth);
    while (true) {
      const Token &token = peek();
      const std::optional<Operator> op = operator_at(OperatorKind::Binary);
      if (!op || binding(*op) != level)
        return left;
      longer(chain, token.loc);
      next();
      ExprPtr expr = make_expr(ExprKind::BinOp, loc);
      expr->op = *op;
      expr->elts.push_back(std::move(left));
      expr->elts.push_back((this->*operand)());
      left = std::move(expr);
    }
  }
  ExprPtr parse_expr() { return parse_binary(binding(Operator::BitOr), &Parser::parse_xor); }
  ExprPtr parse_xor() { return parse_binary(binding(Operator::BitXor), &Parser::parse_bitand); }
  ExprPtr parse_bitand() { return parse_binary(binding(Operator::BitAnd), &Parser::parse_shift); }
  ExprPtr parse_shift() { return parse_binary(binding(Operator::LShift), &Parser::parse_arith); }
  ExprPtr parse_arith() { return parse_binary(binding(Operator::Add), &Parser::parse_term); }
  ExprPtr parse_term() { return parse_binary(binding(Operator::Mul), &Parser::parse_factor); }

  ExprPtr parse_factor() {
    Nesting nesting(depth_);
    deeper(nesting, peek().loc);
    const std::optional<Operator> unary = operator_at(OperatorKind::Unary);
    if (unary) {
      const Token &token = next();
      ExprPtr expr = make_expr(ExprKind::UnaryOp, token.loc);
      expr->op = *unary;
      expr->elts.push_back(parse_factor());
      return expr;
    }
    return parse_power();
  }

  // primary ['**' factor]: right-associative, and tighter than a unary operator on its left.
  ExprPtr parse_power() {
    Loc loc = peek().loc;
    ExprPtr base = parse_primary();
    if (!accept_op(Symbol::DoubleStar))
      return base;
    ExprPtr expr = make_expr(ExprKind::BinOp, loc);
    expr->op = Operator::Pow;
    expr->elts.push_back(std::move(base));
    expr->elts.push_back(parse_factor());
    return expr;
  }

  ExprPtr parse_primary() {
    if (is_keyword("await"))
      error(peek(), "simt: 'await' is not supported");
    Loc loc = peek().loc;
    ExprPtr expr = parse_atom();
    while (true) {
      if (accept_op(Symbol::Dot)) {
        ExprPtr attribute = make_expr(ExprKind::Attribute, loc);
        attribute->elts.push_back(std::move(expr));
        attribute->id = expect_name();
        expr = std::move(attribute);
      } else if (accept_op(Symbol::LeftParen)) {
        ExprPtr call = make_expr(ExprKind::Call, loc);
        call->elts.push_back(std::move(expr));
        parse_call_arguments(*call);
        expect_op(Symbol::RightParen);
        expr = std::move(call);
      } else if (accept_op(Symbol::LeftBracket)) {
        ExprPtr subscript = make_expr(ExprKind::Subscript, loc);
        subscript->elts.push_back(std::move(expr));
        subscript->elts.push_back(parse_subscripts());
        expect_op(Symbol::RightBracket);
        expr = std::move(subscript);
      } else {
        return expr;
      }
    }
  }

  void parse_call_arguments(Expr &call) {
    while (!is_op(Symbol::RightParen)) {
      if (is_op(Symbol::DoubleStar))
        error(peek(), "simt: '**' arguments in calls are not supported");
      if (is_op(Symbol::Star)) {
        ExprPtr starred = make_expr(ExprKind::Starred, next().loc);
        starred->elts.push_back(parse_test());
        call.elts.push_back(std::move(starred));
        if (!accept_op(Symbol::Comma))
          break;
        continue;
      }
      ExprPtr arg = parse_test();
      reject_comprehension();
      if (is_op(Symbol::Equal)) {
        if (arg->kind != ExprKind::Name)
          error(arg->loc, "expression cannot contain assignment, perhaps you meant \"==\"?");
        next();
        for (const ast::Keyword &other : call.keywords)
          if (other.name == arg->id)
            error(arg->loc, "keyword argument repeated: " + arg->id);
        ast::Keyword keyword;
        keyword.name = arg->id;
        keyword.loc = arg->loc;
        keyword.value = parse_test();
        call.keywords.push_back(std::move(keyword));
      } else {
        if (!call.keywords.empty())
          error(arg->loc, "positional argument follows keyword argument");
        call.elts.push_back(std::move(arg));
      }
      if (!accept_op(Symbol::Comma))
        break;
    }
  }

  void reject_comprehension() const {
    if (is_keyword("for") || is_keyword("async"))
      error(peek(), "simt: comprehensions and generator expressions are not supported");
  }

  // subscript (',' subscript)* [','], a Tuple when there is a comma.
  ExprPtr parse_subscripts() {
    Loc loc = peek().loc;
    ExprPtr first = parse_subscript();
    if (!is_op(Symbol::Comma))
      return first;
    ExprPtr tuple = make_expr(ExprKind::Tuple, loc);
    tuple->elts.push_back(std::move(first));
    while (accept_op(Symbol::Comma) && (starts_expression() || is_op(Symbol::Colon)))
      tuple->elts.push_back(parse_subscript());
    return tuple;
  }

  // test | [test] ':' [test] [':' [test]]
  ExprPtr parse_subscript() {
    Loc loc = peek().loc;
    ExprPtr lower;
    if (!is_op(Symbol::Colon)) {
      lower = parse_test();
      if (!is_op(Symbol::Colon))
        return lower;
    }
    next(); // ':'
    ExprPtr slice = make_expr(ExprKind::Slice, loc);
    auto optional_part = [&]() -> ExprPtr { return starts_expression() ? parse_test() : nullptr; };
    slice->elts.push_back(std::move(lower));
    slice->elts.push_back(optional_part());
    slice->elts.push_back(accept_op(Symbol::Colon) ? optional_part() : nullptr);
    return slice;
  }

  ExprPtr parse_atom() {
    const Token &token = peek();
    Loc loc = token.loc;
    switch (token.kind) {
    case TokenKind::Int: {
      ExprPtr expr = make_expr(ExprKind::Int, loc);
      expr->int_value = token.int_value;
      expr->int_overflow = token.int_overflow;
      expr->int_uint64 = token.int_uint64;
      expr->text = token.text;
      next();
      return expr;
    }
    case TokenKind::Float: {
      ExprPtr expr = make_expr(ExprKind::Float, loc);
      expr->float_value = token.float_value;
      expr->imaginary = token.imaginary;
      next();
      return expr;
    }
    case TokenKind::String:
      return parse_strings();
    case TokenKind::Name:
      return parse_name_atom();
    case TokenKind::Op:
      break;
    default:
      error(token, "invalid syntax");
    }
    if (token.symbol == Symbol::LeftParen)
      return parse_parenthesized();
    if (token.symbol == Symbol::LeftBracket) {
      next();
      ExprPtr list = make_expr(ExprKind::List, loc);
      while (!is_op(Symbol::RightBracket)) {
        list->elts.push_back(parse_test());
        reject_comprehension();
        if (!accept_op(Symbol::Comma))
          break;
      }
      expect_op(Symbol::RightBracket);
      return list;
    }
    if (token.symbol == Symbol::LeftBrace)
      error(token, "simt: dict and set literals are not supported");
    if (token.symbol == Symbol::Ellipsis)
      return make_expr(ExprKind::Ellipsis, next().loc);
    error(token, "invalid syntax");
  }

  ExprPtr parse_parenthesized() {
    Loc loc = next().loc; // '('
    if (accept_op(Symbol::RightParen))
      return make_expr(ExprKind::Tuple, loc);
    if (is_keyword("yield"))
      error(peek(), "simt: 'yield' is not supported");
    ExprPtr first = parse_test();
    reject_comprehension();
    if (accept_op(Symbol::RightParen))
      return first;
    if (!is_op(Symbol::Comma))
      error(peek(), "invalid syntax");
    ExprPtr tuple = make_expr(ExprKind::Tuple, loc);
    tuple->elts.push_back(std::move(first));
    while (accept_op(Symbol::Comma) && !is_op(Symbol::RightParen))
      tuple->elts.push_back(parse_test());
    expect_op(Symbol::RightParen);
    return tuple;
  }

  ExprPtr parse_name_atom() {
    const Token &token = next();
    if (token.text == "True" || token.text == "False") {
      ExprPtr expr = make_expr(ExprKind::Bool, token.loc);
      expr->int_value = token.text == "True";
      return expr;
    }
    if (token.text == "None")
      return make_expr(ExprKind::None, token.loc);
    if (kKeywords.count(token.text))
      error(token, "invalid syntax");
    ExprPtr expr = make_expr(ExprKind::Name, token.loc);
    expr->id = token.text;
    return expr;
  }

  // Adjacent string literals are one string.
  ExprPtr parse_strings() {
    const Token &first = next();
    ExprPtr expr = make_expr(ExprKind::String, first.loc);
    expr->text = first.text;
    expr->bytes = first.is_bytes;
    while (peek().kind == TokenKind::String) {
      const Token &token = next();
      if (token.is_bytes != first.is_bytes)
        error(token, "cannot mix bytes and nonbytes literals");
      expr->text += token.text;
    }
    return expr;
  }

  const SourceText &source_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;       // the levels of nesting entered (see deeper)
  int chain_depth_ = 0; // the levels of chains entered (see longer)
};

} // namespace

ast::FunctionDef parse_function(const std::string &source, const std::string &file,
                                int first_line) {
  SourceText text(source, file, first_line);
  return Parser(text, tokenize(text)).parse_file();
}

} // namespace simt
