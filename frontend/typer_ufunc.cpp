// NumPy ufuncs called in kernels and device functions (numba/cuda/typing/npydecl.py's
// Numpy_rules_ufunc, numba/cuda/np/npyimpl.py, numba/cuda/ufuncs.py): np.sin(x) of scalars gives
// a scalar; np.sin(x, out) of scalars or arrays writes each element of the out array (inputs
// broadcast onto its shape) and returns it. The loop (frontend/ufuncs.h) is chosen from the
// operands' dtypes, as Numba does; a generated device function loops over the out array and calls
// the ufunc on the elements.
#include "frontend/complex_prelude.h"
#include "frontend/ir_build.h"
#include "frontend/typer.h"
#include "frontend/typer_calls.h"
#include "frontend/ufuncs.h"
#include "ir/intrinsics.h"

#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numbers>

namespace simt {

namespace {

class UfuncLoopResolver : public Resolver {
public:
  GlobalValue resolve(const std::string &name) override {
    GlobalValue g;
    if (name == "np") {
      g.kind = GlobalValue::Kind::Module;
      g.module_name = "numpy";
    }
    return g;
  }
};

std::string dtype_name(Scalar s) { return s == Scalar::Bool ? "bool_" : Type::scalar_of(s).str(); }

// The Python source of the loop writing np.<ufunc>(args) into `out` (the last parameter), for
// inputs of `ndims` dimensions (0: a scalar, -1: a 0-d array) cast to `casts` where not "".
std::string loop_source(const std::string &ufunc, const std::vector<int> &ndims,
                        const std::vector<std::string> &casts, int out_ndim) {
  std::string params, checks, element;
  auto axis_index = [](int axis) { return "i" + std::to_string(axis); };
  for (size_t k = 0; k < ndims.size(); ++k) {
    std::string x = "x" + std::to_string(k);
    params += x + ", ";
    std::string item = x;
    if (ndims[k] != 0) {
      std::string index;
      for (int j = 0; j < ndims[k]; ++j) {
        int axis = j + out_ndim - ndims[k];
        std::string extent = x + ".shape[" + std::to_string(j) + "]";
        checks += "    if " + extent + " != 1 and " + extent + " != out.shape[" +
                  std::to_string(axis) + "]:\n        raise ValueError(\"operands could not be " +
                  "broadcast together with the output\")\n";
        index += axis_index(axis) + " if " + extent + " != 1 else 0, ";
      }
      item += ndims[k] < 0 ? "[()]" : "[" + index + "]";
    }
    if (!casts[k].empty())
      item = "np." + casts[k] + "(" + item + ")";
    element += (k ? ", " : "") + item;
  }
  std::string text = "def ufunc_" + ufunc + "_loop(" + params + "out):\n" + checks;
  std::string indent = "    ", out_index;
  for (int axis = 0; axis < out_ndim; ++axis) {
    text += indent + "for " + axis_index(axis) + " in range(out.shape[" + std::to_string(axis) +
            "]):\n";
    indent += "    ";
    out_index += axis_index(axis) + ", ";
  }
  text += indent + "out[" + (out_ndim ? out_index : "()") + "] = np." + ufunc + "(" + element +
          ")\n    return out\n";
  return text;
}

std::shared_ptr<FunctionSource> loop_function(const std::string &text) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<FunctionSource>> functions;
  static const auto resolver = std::make_shared<UfuncLoopResolver>();
  std::lock_guard<std::mutex> lock(mutex);
  auto &fn = functions[text];
  if (!fn) {
    fn = std::make_shared<FunctionSource>();
    fn->source = text;
    fn->name = text.substr(4, text.find('(') - 4);
    fn->file = "<simt ufunc loop>";
    fn->resolver = resolver;
  }
  return fn;
}

} // namespace

CallFamily FunctionTyper::ufunc_calls() {
  return {"numpy ufuncs",
          {{"numpy.",
            [](FunctionTyper &t, const std::string &name, const ast::Expr &e) {
              return t.call_ufunc(*find_ufunc(name), e);
            },
            [](const std::string &name) { return find_ufunc(name) != nullptr; }}}};
}

Value FunctionTyper::call_ufunc(const Ufunc &u, const ast::Expr &e) {
  const std::string full = "np." + u.name;
  std::vector<std::string> params;
  for (const char *name : {"x1", "x2"})
    if (params.size() < size_t(u.nin))
      params.emplace_back(name);
  params.push_back("out");
  auto given = call_args(e, full, params, u.nin);
  std::vector<ir::ExprPtr> args;
  std::vector<Scalar> dtypes;
  bool any_array = false;
  for (const ast::Expr *a : given) {
    if (!a)
      continue;
    args.push_back(rvalue(*a));
    const Type &t = args.back()->type;
    bool is_out = args.size() > size_t(u.nin);
    if (!t.is_scalar() && !(t.is_array() && !t.record))
      error(a->loc, "ufunc '" + u.name + "' does not accept " + t.str());
    if (is_out && !t.is_array())
      error(a->loc, "ufunc '" + u.name + "' called with an explicit output that is not an array");
    any_array |= t.is_array() && !is_out;
    dtypes.push_back(t.scalar);
  }
  std::optional<Scalar> out;
  if (args.size() > size_t(u.nin)) {
    out = dtypes.back();
    dtypes.pop_back();
    require_writable(*args.back(), e.loc);
  }
  std::optional<UfuncLoop> loop = select_ufunc_loop(u, dtypes, out);
  if (!loop) {
    std::string types;
    for (const ir::ExprPtr &a : args)
      types += (types.empty() ? "" : ", ") + a->type.str();
    error(e.loc, "can't resolve ufunc " + u.name + " for types (" + types + ")");
  }
  if (!out && any_array)
    error(e.loc, "simt: " + full +
                     " of an array without an out array allocates its result, "
                     "which kernels cannot; pass an out array: " +
                     full + "(..., out)");
  if (!out) {
    for (size_t i = 0; i < args.size(); ++i)
      args[i] = cast(std::move(args[i]), Type::scalar_of(loop->inputs[i]));
    return expr_value(ufunc_element(u, *loop, std::move(args), e.loc));
  }
  return expr_value(ufunc_loop_call(u, *loop, std::move(args), e.loc));
}

ir::ExprPtr FunctionTyper::ufunc_loop_call(const Ufunc &u, const UfuncLoop &loop,
                                           std::vector<ir::ExprPtr> args, ir::Loc loc) {
  int out_ndim = args.back()->type.ndim;
  std::vector<int> ndims;
  std::vector<std::string> casts;
  for (int i = 0; i < u.nin; ++i) {
    const Type &t = args[i]->type;
    int ndim = t.is_array() ? (t.ndim == 0 ? -1 : t.ndim) : 0;
    if (ndim > out_ndim)
      error(loc, "ufunc '" + u.name + "': an input of " + std::to_string(ndim) +
                     " dimensions does not broadcast onto an output of " +
                     std::to_string(out_ndim));
    ndims.push_back(ndim);
    casts.push_back(t.scalar == loop.inputs[i] ? "" : dtype_name(loop.inputs[i]));
  }
  std::vector<Type> types;
  for (const ir::ExprPtr &a : args)
    types.push_back(a->type);
  int index = module_.specialize(loop_function(loop_source(u.name, ndims, casts, out_ndim)), types);
  const ir::Function &callee = module_.module().functions[index];
  std::optional<Type> returns = module_.return_type(index);
  auto call = make_expr(ir::ExprKind::Call, returns ? *returns : callee.return_type, loc);
  call->index = index;
  call->args = std::move(args);
  return call;
}

} // namespace simt
