// The call registry, as Numba's typing templates: a call of a resolved path ("cuda.atomic.add",
// "math.sin", "numpy.empty", "cuda.fp16.hadd", ...) finds its typing function in the routes its
// family registers from its own file (FunctionTyper::*_calls(), listed once in typer_calls.cpp).
//
// A route is an exact path, or a prefix ending in '.' or ':' that takes the paths under it; a
// prefix route may take only the names its family's table knows (`claims`). A path's route is its
// exact one, else the longest prefix that claims it: among prefixes of one length, those with a
// table before those taking every name, then in the order the families are listed.
#pragma once

#include "frontend/typer.h"

#include <map>
#include <string>
#include <vector>

namespace simt {

// Types the call `call` of a path: `name` is the path past the prefix for a prefix route, the
// whole path for an exact one.
using CallTyping = Value (*)(FunctionTyper &typer, const std::string &name, const ast::Expr &call);

struct CallRoute {
  std::string path; // "cuda.syncthreads", or a prefix: "cuda.atomic.", "module:"
  CallTyping type;
  // A prefix route's table: whether it types the name past the prefix (null: every name).
  bool (*claims)(const std::string &name) = nullptr;

  bool is_prefix() const { return path.back() == '.' || path.back() == ':'; }
};

struct CallFamily {
  std::string name; // "cuda atomics", "numpy ufuncs", ... (named when two register one path)
  std::vector<CallRoute> routes;
};

class CallRegistry {
public:
  // Throws std::logic_error when two routes register one exact path.
  explicit CallRegistry(std::vector<CallFamily> families);
  // The route of `path` and its family, or nulls; `name` becomes the name the route is given.
  struct Match {
    const CallFamily *family = nullptr;
    const CallRoute *route = nullptr;
  };
  Match find(const std::string &path, std::string &name) const;

private:
  std::vector<CallFamily> families_;
  std::map<std::string, Match, std::less<>> exact_;
  std::vector<Match> prefixes_; // longest first, then tables first, then in family order
};

// The registry of every family's calls, assembled on first use.
const CallRegistry &call_registry();

} // namespace simt
