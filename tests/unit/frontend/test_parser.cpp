#include "frontend/ast.h"
#include "frontend/ast_dump.h"
#include "frontend/compile.h"

#include <doctest/doctest.h>

using namespace simt;

namespace {

// The body statements of `def f():` around `statements` (each line indented by four spaces).
std::string body(const std::string &statements) {
  std::string source = "def f():\n";
  size_t start = 0;
  while (start < statements.size()) {
    size_t end = statements.find('\n', start);
    if (end == std::string::npos)
      end = statements.size();
    source += "    ";
    source.append(statements, start, end - start);
    source += '\n';
    start = end + 1;
  }
  ast::FunctionDef function = parse_function(source, "k.py", 1);
  std::string out;
  for (const ast::StmtPtr &stmt : function.body) {
    if (!out.empty())
      out += ' ';
    out += ast::dump(*stmt);
  }
  return out;
}

std::string expr(const std::string &text) {
  ast::FunctionDef function = parse_function("def f():\n    return " + text + "\n", "k.py", 1);
  return ast::dump(*function.body.at(0)->value);
}

// The error parse_function raises on `source`, as "message @line:col".
std::string parse_error(const std::string &source) {
  try {
    parse_function(source, "k.py", 1);
  } catch (const CompileError &error) {
    return error.message + " @" + std::to_string(error.line) + ":" + std::to_string(error.col);
  }
  return "no error";
}

struct Case {
  const char *source;
  const char *expected;
};

} // namespace

TEST_CASE("parser: expression precedence") {
  const Case cases[] = {
      {"-2**2", "(UnaryOp - (BinOp ** (Int 2) (Int 2)))"},
      {"2**-1", "(BinOp ** (Int 2) (UnaryOp - (Int 1)))"},
      {"2**3**2", "(BinOp ** (Int 2) (BinOp ** (Int 3) (Int 2)))"},
      {"-a.b", "(UnaryOp - (Attribute (Name a) b))"},
      {"~a + -b", "(BinOp + (UnaryOp ~ (Name a)) (UnaryOp - (Name b)))"},
      {"a + b * c", "(BinOp + (Name a) (BinOp * (Name b) (Name c)))"},
      {"(a + b) * c", "(BinOp * (BinOp + (Name a) (Name b)) (Name c))"},
      {"a - b - c", "(BinOp - (BinOp - (Name a) (Name b)) (Name c))"},
      {"a // b % c / d @ e",
       "(BinOp @ (BinOp / (BinOp % (BinOp // (Name a) (Name b)) (Name c)) (Name d)) (Name e))"},
      {"a << 1 + 2", "(BinOp << (Name a) (BinOp + (Int 1) (Int 2)))"},
      {"a >> b & c", "(BinOp & (BinOp >> (Name a) (Name b)) (Name c))"},
      {"a & b | c ^ d", "(BinOp | (BinOp & (Name a) (Name b)) (BinOp ^ (Name c) (Name d)))"},
      {"a | b < c", "(Compare (BinOp | (Name a) (Name b)) < (Name c))"},
      {"a < b <= c", "(Compare (Name a) < (Name b) <= (Name c))"},
      {"a == b != c > d >= e", "(Compare (Name a) == (Name b) != (Name c) > (Name d) >= (Name e))"},
      {"a is not b", "(Compare (Name a) is not (Name b))"},
      {"a is b", "(Compare (Name a) is (Name b))"},
      {"a not in b", "(Compare (Name a) not in (Name b))"},
      {"a in b", "(Compare (Name a) in (Name b))"},
      {"not a == b", "(UnaryOp not (Compare (Name a) == (Name b)))"},
      {"not not a", "(UnaryOp not (UnaryOp not (Name a)))"},
      {"a or b and c", "(BoolOp or (Name a) (BoolOp and (Name b) (Name c)))"},
      {"a or b or c", "(BoolOp or (Name a) (Name b) (Name c))"},
      {"a and not b", "(BoolOp and (Name a) (UnaryOp not (Name b)))"},
      {"x if c else y", "(IfExp (Name c) (Name x) (Name y))"},
      {"a if b else c if d else e", "(IfExp (Name b) (Name a) (IfExp (Name d) (Name c) (Name e)))"},
      {"x + 1 if a or b else -1",
       "(IfExp (BoolOp or (Name a) (Name b)) (BinOp + (Name x) (Int 1)) (UnaryOp - (Int 1)))"},
  };
  for (const Case &c : cases) {
    CAPTURE(std::string(c.source));
    CHECK(expr(c.source) == c.expected);
  }
}

TEST_CASE("parser: primaries and literals") {
  const Case cases[] = {
      {"f(a, b=1)", "(Call (Name f) (Name a) (b= (Int 1)))"},
      {"f()", "(Call (Name f))"},
      {"f(a, *t, *(b, c))", "(Call (Name f) (Name a) (Starred (Name t)) (Starred (Tuple (Name b) "
                            "(Name c))))"},
      {"f(a,)(c)", "(Call (Call (Name f) (Name a)) (Name c))"},
      {"a.b.c", "(Attribute (Attribute (Name a) b) c)"},
      {"cuda.grid(2)", "(Call (Attribute (Name cuda) grid) (Int 2))"},
      {"a[i, j]", "(Subscript (Name a) (Tuple (Name i) (Name j)))"},
      {"a[i,]", "(Subscript (Name a) (Tuple (Name i)))"},
      {"a[i][j]", "(Subscript (Subscript (Name a) (Name i)) (Name j))"},
      {"a[1:2, ::3]", "(Subscript (Name a) (Tuple (Slice (Int 1) (Int 2) _) (Slice _ _ (Int 3))))"},
      {"a[:]", "(Subscript (Name a) (Slice _ _ _))"},
      {"a[::-1]", "(Subscript (Name a) (Slice _ _ (UnaryOp - (Int 1))))"},
      {"a[i:]", "(Subscript (Name a) (Slice (Name i) _ _))"},
      {"a[:, 0]", "(Subscript (Name a) (Tuple (Slice _ _ _) (Int 0)))"},
      {"a[..., 0]", "(Subscript (Name a) (Tuple (Ellipsis) (Int 0)))"},
      {"an_array.shape[0]", "(Subscript (Attribute (Name an_array) shape) (Int 0))"},
      {"(a, b)", "(Tuple (Name a) (Name b))"},
      {"(a,)", "(Tuple (Name a))"},
      {"()", "(Tuple)"},
      {"((a))", "(Name a)"},
      {"a, b", "(Tuple (Name a) (Name b))"},
      {"a,", "(Tuple (Name a))"},
      {"[a, b]", "(List (Name a) (Name b))"},
      {"[]", "(List)"},
      {"True", "(Bool True)"},
      {"False", "(Bool False)"},
      {"None", "(None)"},
      {"inf", "(Name inf)"},
      {"1.5e3", "(Float 1500)"},
      {"0x10", "(Int 16)"},
      {"99999999999999999999", "(Int! 7766279631452241919)"},
      {"'a' \"b\" '''c'''", "(String \"abc\")"},
      {"(1,\n       2)", "(Tuple (Int 1) (Int 2))"},
      {"cuda.shared.array(shape=(TPB, TPB), dtype=float32)",
       "(Call (Attribute (Attribute (Name cuda) shared) array) (shape= (Tuple (Name TPB) "
       "(Name TPB))) (dtype= (Name float32)))"},
  };
  for (const Case &c : cases) {
    CAPTURE(std::string(c.source));
    CHECK(expr(c.source) == c.expected);
  }
}

TEST_CASE("parser: statements") {
  const Case cases[] = {
      {"x, y = cuda.grid(2)",
       "(Assign (Tuple (Name x) (Name y)) = (Call (Attribute (Name cuda) grid) (Int 2)))"},
      {"a = b = 0", "(Assign (Name a) (Name b) = (Int 0))"},
      {"(a, b) = c", "(Assign (Tuple (Name a) (Name b)) = (Name c))"},
      {"a, = c", "(Assign (Tuple (Name a)) = (Name c))"},
      {"[a, b] = c, d", "(Assign (List (Name a) (Name b)) = (Tuple (Name c) (Name d)))"},
      {"a[i].x = 1", "(Assign (Attribute (Subscript (Name a) (Name i)) x) = (Int 1))"},
      {"a, b = b, a", "(Assign (Tuple (Name a) (Name b)) = (Tuple (Name b) (Name a)))"},
      {"a[x, y] += 1", "(AugAssign (Subscript (Name a) (Tuple (Name x) (Name y))) += (Int 1))"},
      {"i //= 2", "(AugAssign (Name i) //= (Int 2))"},
      {"a -= 1\nb *= 1\nc /= 1\nd %= 1\ne **= 1\nf <<= 1\ng >>= 1\nh &= 1\nk |= 1\nm ^= 1\nn @= 1",
       "(AugAssign (Name a) -= (Int 1)) (AugAssign (Name b) *= (Int 1)) (AugAssign (Name c) /= "
       "(Int 1)) (AugAssign (Name d) %= (Int 1)) (AugAssign (Name e) **= (Int 1)) (AugAssign "
       "(Name f) <<= (Int 1)) (AugAssign (Name g) >>= (Int 1)) (AugAssign (Name h) &= (Int 1)) "
       "(AugAssign (Name k) |= (Int 1)) (AugAssign (Name m) ^= (Int 1)) (AugAssign (Name n) @= "
       "(Int 1))"},
      {"x: int32 = 0", "(AnnAssign (Name x) (Name int32) (Int 0))"},
      {"x: float32", "(AnnAssign (Name x) (Name float32) _)"},
      {"f(x)", "(Expr (Call (Name f) (Name x)))"},
      {"'''doc\nstring'''", "(Expr (String \"doc\\n    string\"))"},
      {"if a:\n    pass\nelif b:\n    x = 1\nelse:\n    pass",
       "(If (Name a) (body (Pass)) (else (If (Name b) (body (Assign (Name x) = (Int 1))) (else "
       "(Pass)))))"},
      {"if a:\n    pass\nelif b:\n    pass\nelif c:\n    pass",
       "(If (Name a) (body (Pass)) (else (If (Name b) (body (Pass)) (else (If (Name c) (body "
       "(Pass)))))))"},
      {"if x: return", "(If (Name x) (body (Return)))"},
      {"if x: a = 1; b = 2", "(If (Name x) (body (Assign (Name a) = (Int 1)) (Assign (Name b) = "
                             "(Int 2))))"},
      {"while i > 0:\n    i //= 2\nelse:\n    pass",
       "(While (Compare (Name i) > (Int 0)) (body (AugAssign (Name i) //= (Int 2))) (else "
       "(Pass)))"},
      {"for i in range(10):\n    break\nelse:\n    continue",
       "(For (Name i) (Call (Name range) (Int 10)) (body (Break)) (else (Continue)))"},
      {"for i, j in zip(a, b): pass",
       "(For (Tuple (Name i) (Name j)) (Call (Name zip) (Name a) (Name b)) (body (Pass)))"},
      {"for x in a, b: pass", "(For (Name x) (Tuple (Name a) (Name b)) (body (Pass)))"},
      {"return", "(Return)"},
      {"return a, b", "(Return (Tuple (Name a) (Name b)))"},
      {"raise", "(Raise)"},
      {"raise ValueError('x')", "(Raise (Call (Name ValueError) (String \"x\")))"},
      {"assert x", "(Assert (Name x))"},
      {"assert x > 0, 'msg'", "(Assert (Compare (Name x) > (Int 0)) (String \"msg\"))"},
      {"global a, b", "(Global a b)"},
      {"nonlocal c", "(Nonlocal c)"},
      {"del a[0], b", "(Del (Subscript (Name a) (Int 0)) (Name b))"},
      {"pass; x = 1; y;", "(Pass) (Assign (Name x) = (Int 1)) (Expr (Name y))"},
      {"def g(a):\n    return a", "(FunctionDef g (body (Return (Name a))))"},
      {"g = lambda x, y=1: x + y",
       "(Assign (Name g) = (Lambda (params x y) (body (Return (BinOp + (Name x) (Name y))))))"},
      {"x = (1 +\n     2)  # comment\n\n# comment\ny = \\\n    3",
       "(Assign (Name x) = (BinOp + (Int 1) (Int 2))) (Assign (Name y) = (Int 3))"},
  };
  for (const Case &c : cases) {
    CAPTURE(std::string(c.source));
    CHECK(body(c.source) == c.expected);
  }
}

TEST_CASE("parser: function definitions and decorators") {
  const Case cases[] = {
      {"def f(a, b=1):\n    pass\n",
       "(FunctionDef f (params a (b (Int 1))) (decorators) (body (Pass)))"},
      {"def f(a: int, *args, **kwargs) -> None:\n    pass\n",
       "(FunctionDef f (params a *args *) (decorators) (body (Pass)))"},
      {"def f(a, *rest):\n    pass\n",
       "(FunctionDef f (params a *rest) (decorators) (body (Pass)))"},
      {"@cuda.jit\ndef f():\n    pass\n",
       "(FunctionDef f (params) (decorators (Attribute (Name cuda) jit)) (body (Pass)))"},
      {"@cuda.jit(\"void(float32[:])\", debug=True)\ndef f(a): pass\n",
       "(FunctionDef f (params a) (decorators (Call (Attribute (Name cuda) jit) (String "
       "\"void(float32[:])\") (debug= (Bool True)))) (body (Pass)))"},
      {"@cuda.jit(\n    device=True,\n    inline=True,\n)\n@other\ndef f(\n    a,\n    b,\n):\n"
       "    return a\n",
       "(FunctionDef f (params a b) (decorators (Call (Attribute (Name cuda) jit) (device= (Bool "
       "True)) (inline= (Bool True))) (Name other)) (body (Return (Name a))))"},
      {"    @cuda.jit\n    def method(self, x):\n        '''Doc.'''\n        return x\n",
       "(FunctionDef method (params self x) (decorators (Attribute (Name cuda) jit)) (body (Expr "
       "(String \"Doc.\")) (Return (Name x))))"},
      {"\tdef f():\n\t\tif a:\n\t\t\tpass\n\t\treturn\n",
       "(FunctionDef f (params) (decorators) (body (If (Name a) (body (Pass))) (Return)))"},
      {"def f(): return 1\n", "(FunctionDef f (params) (decorators) (body (Return (Int 1))))"},
  };
  for (const Case &c : cases) {
    CAPTURE(std::string(c.source));
    CHECK(ast::dump(parse_function(c.source, "k.py", 1)) == c.expected);
  }
}

TEST_CASE("parser: kernels from the talks") {
  const char *increment = R"(@cuda.jit
def increment_a_2D_array(an_array):
    x, y = cuda.grid(2)
    if x < an_array.shape[0] and y < an_array.shape[1]:
        an_array[x, y] += 1
)";
  CHECK(ast::dump(parse_function(increment, "talk.py", 1)) ==
        "(FunctionDef increment_a_2D_array (params an_array) (decorators (Attribute (Name cuda) "
        "jit)) (body (Assign (Tuple (Name x) (Name y)) = (Call (Attribute (Name cuda) grid) (Int "
        "2))) (If (BoolOp and (Compare (Name x) < (Subscript (Attribute (Name an_array) shape) "
        "(Int 0))) (Compare (Name y) < (Subscript (Attribute (Name an_array) shape) (Int 1)))) "
        "(body (AugAssign (Subscript (Name an_array) (Tuple (Name x) (Name y))) += (Int 1))))))");

  const char *matmul = R"(@cuda.jit
def fast_matmul(A, B, C):
    # Define an array in the shared memory
    # The size and type of the arrays must be known at compile time
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)

    x, y = cuda.grid(2)

    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x    # blocks per grid

    if x >= C.shape[0] and y >= C.shape[1]:
        # Quit if (x, y) is outside of valid C boundary
        return

    # Each thread computes one element in the result matrix.
    # The dot product is chunked into dot products of TPB-long vectors.
    tmp = 0.
    for i in range(bpg):
        # Preload data into shared memory
        sA[tx, ty] = A[x, ty + i * TPB]
        sB[tx, ty] = B[tx + i * TPB, y]

        # Wait until all threads finish preloading
        cuda.syncthreads()

        # Computes partial product on the shared memory
        for j in range(TPB):
            tmp += sA[tx, j] * sB[j, ty]

        # Wait until all threads finish computing
        cuda.syncthreads()

    C[x, y] = tmp
)";
  ast::FunctionDef function = parse_function(matmul, "talk.py", 40);
  CHECK(function.name == "fast_matmul");
  REQUIRE(function.body.size() == 10);
  CHECK(ast::dump(*function.body[0]) ==
        "(Assign (Name sA) = (Call (Attribute (Attribute (Name cuda) shared) array) (shape= "
        "(Tuple (Name TPB) (Name TPB))) (dtype= (Name float32))))");
  CHECK(ast::dump(*function.body[6]) ==
        "(If (BoolOp and (Compare (Name x) >= (Subscript (Attribute (Name C) shape) (Int 0))) "
        "(Compare (Name y) >= (Subscript (Attribute (Name C) shape) (Int 1)))) (body (Return)))");
  CHECK(ast::dump(*function.body[7]) == "(Assign (Name tmp) = (Float 0))");
  const ast::Stmt &loop = *function.body[8];
  CHECK(ast::dump(loop) ==
        "(For (Name i) (Call (Name range) (Name bpg)) (body (Assign (Subscript (Name sA) (Tuple "
        "(Name tx) (Name ty))) = (Subscript (Name A) (Tuple (Name x) (BinOp + (Name ty) (BinOp * "
        "(Name i) (Name TPB)))))) (Assign (Subscript (Name sB) (Tuple (Name tx) (Name ty))) = "
        "(Subscript (Name B) (Tuple (BinOp + (Name tx) (BinOp * (Name i) (Name TPB))) (Name y)))) "
        "(Expr (Call (Attribute (Name cuda) syncthreads))) (For (Name j) (Call (Name range) (Name "
        "TPB)) (body (AugAssign (Name tmp) += (BinOp * (Subscript (Name sA) (Tuple (Name tx) "
        "(Name j))) (Subscript (Name sB) (Tuple (Name j) (Name ty))))))) (Expr (Call (Attribute "
        "(Name cuda) syncthreads)))))");
  CHECK(loop.loc.line == 60);
  CHECK(loop.loc.col == 5);
  CHECK(function.body[9]->loc.line == 75);

  const char *reduce = R"(@cuda.jit
def sum_reduce(a, partial):
    tid = cuda.threadIdx.x
    s = cuda.shared.array(256, float32)
    s[tid] = a[cuda.grid(1)]
    cuda.syncthreads()
    i = cuda.blockDim.x // 2
    while i != 0:
        if tid < i:
            s[tid] += s[tid + i]
        cuda.syncthreads()
        i //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = s[0]
)";
  ast::FunctionDef reduction = parse_function(reduce, "talk.py", 1);
  REQUIRE(reduction.body.size() == 7);
  CHECK(ast::dump(*reduction.body[5]) ==
        "(While (Compare (Name i) != (Int 0)) (body (If (Compare (Name tid) < (Name i)) (body "
        "(AugAssign (Subscript (Name s) (Name tid)) += (Subscript (Name s) (BinOp + (Name tid) "
        "(Name i)))))) (Expr (Call (Attribute (Name cuda) syncthreads))) (AugAssign (Name i) //= "
        "(Int 2))))");
}

TEST_CASE("parser: locations are real file lines and original columns") {
  const char *source = "    @cuda.jit\n"
                       "    def k(a, b):\n"
                       "        x = a[0] + b * 2\n"
                       "        if x:\n"
                       "            pass\n"
                       "        elif (x, 1):\n"
                       "            a[0] = f(x, y=3)\n";
  ast::FunctionDef function = parse_function(source, "k.py", 100);
  CHECK(function.decorators[0]->loc.line == 100);
  CHECK(function.decorators[0]->loc.col == 6);
  CHECK(function.loc.line == 101);
  CHECK(function.loc.col == 5);
  CHECK(function.params[1].loc.col == 14);
  const ast::Stmt &assign = *function.body[0];
  CHECK(assign.loc.line == 102);
  CHECK(assign.loc.col == 9);
  const ast::Expr &sum = *assign.value;
  CHECK(sum.loc.col == 13); // a binary operation starts at its left operand
  CHECK(sum.elts[0]->loc.col == 13);
  CHECK(sum.elts[1]->loc.col == 20);
  CHECK(sum.elts[1]->elts[1]->loc.col == 24);
  const ast::Stmt &branch = *function.body[1];
  CHECK(branch.loc.line == 103);
  const ast::Stmt &elif = *branch.orelse.at(0);
  CHECK(elif.loc.line == 105);
  CHECK(elif.loc.col == 9);
  CHECK(elif.test->loc.col == 14); // a parenthesized tuple starts at '('
  const ast::Expr &call = *elif.body[0]->value;
  CHECK(call.loc.line == 106);
  CHECK(call.loc.col == 20);
  CHECK(call.keywords[0].loc.col == 25);
  CHECK(call.keywords[0].value->loc.col == 27);
}

TEST_CASE("parser: errors") {
  const Case cases[] = {
      {"def f():\n    x = \n", "invalid syntax @2:8"},
      {"def f():\n    if x\n        pass\n", "expected ':' @2:9"},
      {"def f()\n    pass\n", "expected ':' @1:8"},
      {"def f():\n    x = 1\n        y = 2\n", "unexpected indent @3:9"},
      {"def f():\n        x = 1\n    y = 2\n",
       "unindent does not match any outer indentation level @3:5"},
      {"def f():\nreturn 1\n", "expected an indented block after function definition on line 1 "
                               "@2:1"},
      {"def f():\n    if x:\n    pass\n",
       "expected an indented block after 'if' statement on line 2 @3:5"},
      {"def f():\n    with a:\n        pass\n", "simt: 'with' statements are not supported @2:5"},
      {"def f():\n    try:\n        pass\n    except:\n        pass\n",
       "simt: 'try' statements are not supported @2:5"},
      {"def f():\n    import math\n", "simt: 'import' statements are not supported @2:5"},
      {"def f():\n    from math import sqrt\n", "simt: 'import' statements are not supported @2:5"},
      {"def f():\n    class A: pass\n", "simt: class definitions are not supported @2:5"},
      {"def f():\n    a = [x for x in b]\n",
       "simt: comprehensions and generator expressions are not supported @2:12"},
      {"def f():\n    a = sum(x for x in b)\n",
       "simt: comprehensions and generator expressions are not supported @2:15"},
      {"def f():\n    yield 1\n", "simt: 'yield' is not supported @2:5"},
      {"def f():\n    await g()\n", "simt: 'await' is not supported @2:5"},
      {"def f():\n    a, *b = c\n", "simt: star expressions are not supported @2:8"},
      {"def f():\n    g(**a)\n", "simt: '**' arguments in calls are not supported @2:7"},
      {"def f():\n    if (n := 1): pass\n",
       "simt: assignment expressions (:=) are not supported @2:11"},
      {"def f():\n    a = {}\n", "simt: dict and set literals are not supported @2:9"},
      {"def f():\n    f(x) = 1\n", "cannot assign to function call @2:5"},
      {"def f():\n    1 = x\n", "cannot assign to literal @2:5"},
      {"def f():\n    a, b + 1 = x\n", "cannot assign to expression @2:8"},
      {"def f():\n    for 1 in x: pass\n", "cannot assign to literal @2:9"},
      {"def f():\n    a, b += 1\n",
       "'tuple' is an illegal expression for augmented assignment @2:5"},
      {"def f():\n    a, b: int = 1\n", "only single target (not tuple) can be annotated @2:5"},
      {"def f():\n    g(a=1, b)\n", "positional argument follows keyword argument @2:12"},
      {"def f():\n    g(a=1, a=2)\n", "keyword argument repeated: a @2:12"},
      {"def f():\n    g(a.b=1)\n",
       "expression cannot contain assignment, perhaps you meant \"==\"? @2:7"},
      {"def f(a=1, b):\n    pass\n",
       "parameter without a default follows parameter with a default @1:12"},
      {"def f(a, a):\n    pass\n", "duplicate argument 'a' in function definition @1:10"},
      {"def f():\n    x = a if b\n", "expected 'else' after 'if' expression @2:15"},
      {"def f():\n    raise E from e\n", "simt: 'raise ... from' is not supported @2:13"},
      {"def f():\n    x = 1 2\n", "invalid syntax @2:11"},
      {"def f():\n    else = 1\n", "invalid syntax @2:5"},
      {"x = 1\n", "simt: expected a function definition @1:1"},
      {"", "simt: expected a function definition @1:1"},
      {"def f():\n    pass\ndef g():\n    pass\n",
       "simt: expected a single function definition @3:1"},
      {"@cuda.jit\nx = 1\n", "invalid syntax @2:1"},
      {"def f():\n    for i in range(3) pass\n", "expected ':' @2:23"},
      {"def f():\n    for i range(3): pass\n", "expected 'in' @2:11"},
  };
  for (const Case &c : cases) {
    CAPTURE(std::string(c.source));
    CHECK(parse_error(c.source) == c.expected);
  }
}

TEST_CASE("CompileError: message with the source line and a caret") {
  try {
    parse_function("    def k(a):\n        x = a +* 2\n", "kernels.py", 7);
    FAIL("expected a CompileError");
  } catch (const CompileError &error) {
    CHECK(error.file == "kernels.py");
    CHECK(error.line == 8);
    CHECK(error.col == 16);
    CHECK(error.source_line == "        x = a +* 2");
    CHECK(std::string(error.what()) == "kernels.py:8:16: error: invalid syntax\n"
                                       "    x = a +* 2\n"
                                       "           ^");
  }
  CHECK(std::string(CompileError("f.py", 3, 1, "boom", "x").what()) ==
        "f.py:3:1: error: boom\n    x\n    ^");
  CHECK(std::string(CompileError("f.py", 3, 4, "bad", "\tif x:").what()) ==
        "f.py:3:4: error: bad\n    if x:\n      ^");
  CHECK(std::string(CompileError("f.py", 3, 2, "indent", "    x").what()) ==
        "f.py:3:2: error: indent\n    x\n    ^");
  CHECK(std::string(CompileError("f.py", 0, 0, "no place", "").what()) == "f.py: error: no place");
}
