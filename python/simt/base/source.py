"""The source text of jit functions, captured when @cuda.jit is applied.

The frontend compiles a kernel from its source text at its first launch. Reading the file then
would compile whatever the file holds by that time: a module edited after import (a live
notebook) would run the new text in the kernel while Python runs the old. So a Dispatcher
captures the lines of its function's file when it is made (a stat and a reference to linecache's
list: cheap), and the text compiled later comes from those lines. Before it is compiled, the
function's text is checked against the function's code object (each instruction's names,
literals and operators must be spelt where the code object says its source is), which catches a
file that had already changed when it was captured: a clear CompileError rather than a kernel
mixing two versions."""
import ast
import dis
import errno
import inspect
import linecache
import os
import re
import sys
import types as pytypes

from simt.errors import CompileError

from . import commandline_source, exec_source

__all__ = ["CapturedSource", "function_source", "source_line"]

# The lines of each file as last captured: fault messages quote the text the kernel ran.
_CAPTURED_LINES = {}

# Lines that may begin a function's definition (inspect.findsource's pattern).
_DEFINITION = re.compile(r"^(\s*def\s)|(\s*async\s+def\s)|(.*(?<!\w)lambda(:|\s))|^(\s*@)")

def _compile_error(message, code):
    return CompileError(message, code.co_filename, code.co_firstlineno)


class CapturedSource:
    """A function's source file as it was when the function was jitted; `get()` gives the
    function's text from it as the frontend compiles it."""

    __slots__ = ("py_func", "lines", "_source")

    def __init__(self, py_func):
        self.py_func = py_func
        self._source = None
        code = py_func.__code__
        # Text that exec() ran is not a file's: kept apart from _CAPTURED_LINES, whose files'
        # lines fault messages quote.
        self.lines = exec_source.lines_for(code)
        if self.lines is not None:
            return
        self.lines = commandline_source.command_lines(py_func)
        if self.lines is None:
            # linecache's lines, read now if it has none; no stat here (it costs more than the
            # rest of @cuda.jit): lines it kept from before an edit fail the check in get(),
            # which then reads the file again.
            self.lines = linecache.getlines(code.co_filename, py_func.__globals__)
        if self.lines:
            _CAPTURED_LINES[code.co_filename] = self.lines

    def get(self):
        """(name, source, file, first_line) of the function; CompileError if the captured file
        has no source for it or holds another version of it."""
        if self._source is None:
            self._source = self._function_source()
        return self._source

    def _function_source(self):
        py_func, code = self.py_func, self.py_func.__code__
        last = _last_line(code)
        same = _same_code(self.lines, code, last)
        if not same:
            linecache.checkcache(code.co_filename)
            lines = linecache.getlines(code.co_filename, py_func.__globals__)
            if lines and _same_code(lines, code, last):
                self.lines = _CAPTURED_LINES[code.co_filename] = lines
                same = True
        if not self.lines:
            _refuse_if_out_of_files(py_func)
            raise _compile_error("simt: cannot read the source of %r (could not get source code);"
                                 " kernels must be defined in a source file"
                                 % py_func.__name__, code)
        if not same:
            raise _compile_error(
                "simt: the source of %s in %s no longer matches the code Python runs: the file"
                " changed after the function was defined. Reload the module (importlib.reload)"
                " or restart Python to run the new text" % (py_func.__qualname__,
                                                            code.co_filename), code)
        if code.co_name == "<lambda>":
            text, first_line = _lambda_source(self.lines, code)
            return "<lambda>", text, code.co_filename, first_line
        text, first_line = self._definition(last)
        return py_func.__name__, text, code.co_filename, first_line

    def _definition(self, last):
        """The text of the `def` block (with its decorators) at the function's first line, found
        as inspect.getsourcelines finds it; its end from `last`, the last line its code comes from,
        where that tells (tokenizing the block, as inspect does, costs more than a compile from
        the disk cache)."""
        code = self.py_func.__code__
        index = code.co_firstlineno - 1
        while index > 0 and not _DEFINITION.match(self.lines[index]):
            index -= 1
        end = _block_end(self.lines, index, last)
        block = self.lines[index:end] if end else inspect.getblock(self.lines[index:])
        return "".join(block), index + 1


def _refuse_if_out_of_files(py_func):
    """OSError naming the cause where the process has no file descriptor left: linecache (and
    the command line's reader) take a file they cannot open for one without source."""
    try:
        os.close(os.open(os.devnull, os.O_RDONLY))
    except OSError as error:
        if error.errno in (errno.EMFILE, errno.ENFILE):
            raise OSError(error.errno, "simt: cannot read the source of %r: too many open files "
                                       "(the limit is `ulimit -n`): close files or raise the "
                                       "limit" % py_func.__name__) from None
        raise


def _last_line(code):
    """The last line any instruction of `code` (or of the functions inside it) comes from."""
    last = max((end for _, end, _, _ in code.co_positions() if end is not None), default=0)
    return max([last] + [_last_line(const) for const in code.co_consts
                         if isinstance(const, pytypes.CodeType)])


def _block_end(lines, start, last):
    """The index after the last line of the block whose header is lines[start], given the last
    line its code comes from: the lines after that one belong to the block while they are blank,
    comments or indented deeper than the header (a trailing `else: pass` compiles to nothing).
    None when that cannot be told without tokenizing: the last line is not in the body (a
    one-line def, a body of a docstring alone) or a string literal may go on after it."""
    if not start < last <= len(lines):
        return None
    indent = _indent(lines[start])
    if _indent(lines[last - 1]) <= indent:
        return None
    end = last
    while end < len(lines):
        text = lines[end].strip()
        if text and not text.startswith("#"):
            if _indent(lines[end]) <= indent:
                break
            if "'''" in text or '"""' in text:
                return None
        end += 1
    return end


def _indent(line):
    return len(line) - len(line.lstrip())


def function_source(py_func):
    """(name, source, file, first_line) of a jit function (a Dispatcher's captured source, or
    the file as it is now for other functions), as the frontend compiles it."""
    captured = getattr(py_func, "_captured_source", None)
    if captured is None:
        captured = CapturedSource(getattr(py_func, "py_func", py_func))
    return captured.get()


def source_line(file, line):
    """Line `line` of `file` as last captured (the text kernels compiled), else as linecache has
    it."""
    lines = _CAPTURED_LINES.get(file)
    if lines is not None and 0 < line <= len(lines):
        return lines[line - 1]
    return linecache.getline(file, line)


# -- checking the text against the code object -------------------------------------------------

# Instructions whose argument is a name the source spells at the instruction's position.
_NAMING = frozenset(("LOAD_GLOBAL", "LOAD_NAME", "LOAD_FAST", "STORE_FAST", "DELETE_FAST",
                     "LOAD_DEREF", "STORE_DEREF", "LOAD_ATTR", "STORE_ATTR", "LOAD_METHOD",
                     "STORE_GLOBAL", "STORE_NAME"))
_OPERATORS = frozenset(("BINARY_OP", "COMPARE_OP"))
_NAME, _CONST, _OPERATOR = range(3)  # what an instruction's argument is, for _spells


def _dis_instructions(code):
    """(positions, kind, value) of each instruction of `code`: kind _NAME, _CONST or _OPERATOR
    for those whose argument the source spells, else None."""
    for instruction in dis.get_instructions(code):
        if instruction.opname in _NAMING:
            yield instruction.positions, _NAME, instruction.argval
        elif instruction.opname == "LOAD_CONST":
            yield instruction.positions, _CONST, instruction.argval
        elif instruction.opname in _OPERATORS:
            yield instruction.positions, _OPERATOR, instruction.argrepr
        else:
            yield instruction.positions, None, None


def _fast_instructions(code):
    """What _dis_instructions gives, decoded from CPython 3.11's bytecode directly: dis builds
    an Instruction with its printed argument for every instruction, which made this check cost
    more than a compile from the disk cache."""
    raw, positions = code.co_code, code.co_positions()  # one position per code unit
    names, consts, local_name = code.co_names, code.co_consts, code._varname_from_oparg
    extended = 0
    offset = 0
    while offset < len(raw):
        op, arg = raw[offset], raw[offset + 1] | extended
        position = next(positions)
        for _ in range(_CACHE_ENTRIES[op]):
            next(positions)
        offset += 2 + 2 * _CACHE_ENTRIES[op]
        extended = arg << 8 if op == _EXTENDED_ARG else 0
        kind = _KINDS[op]
        if kind is None:
            yield position, None, None
        elif kind == "global":
            yield position, _NAME, names[arg >> 1]
        elif kind == "name":
            yield position, _NAME, names[arg]
        elif kind == "local":
            yield position, _NAME, local_name(arg)
        elif kind == "const":
            yield position, _CONST, consts[arg]
        elif kind == "binary":
            yield position, _OPERATOR, _BINARY_OPERATORS[arg][1]
        else:
            yield position, _OPERATOR, dis.cmp_op[arg]


def _kinds_311():
    """Each opcode's kind of argument, as _fast_instructions decodes it."""
    kinds = [None] * 256
    for name in _NAMING:
        op = dis.opmap[name]
        kinds[op] = ("global" if name == "LOAD_GLOBAL" else
                     "local" if op in dis.haslocal or op in dis.hasfree else "name")
    kinds[dis.opmap["LOAD_CONST"]] = "const"
    kinds[dis.opmap["BINARY_OP"]] = "binary"
    kinds[dis.opmap["COMPARE_OP"]] = "compare"
    return kinds


if sys.version_info[:2] == (3, 11):
    _instructions = _fast_instructions
    _KINDS = _kinds_311()
    _CACHE_ENTRIES = dis._inline_cache_entries
    _BINARY_OPERATORS = dis._nb_ops
    _EXTENDED_ARG = dis.EXTENDED_ARG
else:  # another bytecode: dis knows it
    _instructions = _dis_instructions


def _segment(lines, position):
    """The source text at an instruction's position (columns count UTF-8 bytes; `lines` maps
    line numbers to encoded lines), or None where the lines do not reach it."""
    line, end_line, col, end_col = position
    first, last = lines.get(line), lines.get(end_line)
    if first is None or last is None or end_line < line or len(last) < end_col or \
            len(first) < col:
        return None
    if line == end_line:
        return first[col:end_col].decode("utf-8", "replace")
    text = [first[col:]] + [lines[n] for n in range(line + 1, end_line)] + [last[:end_col]]
    return b"".join(text).decode("utf-8", "replace")


def _spells(segment, kind, value):
    """Whether a segment of source is what an instruction was compiled from: the names it
    loads and stores, its literal constants and operators."""
    if kind == _NAME:
        if segment == value:
            return True
        if not isinstance(value, str) or not value.isidentifier() or value.startswith("__"):
            return True  # made by the compiler (.0, __class__), not spelt in the text
        if "__" in value[1:] and value.startswith("_"):  # a private name, mangled in a class
            value = value[value.index("__", 1):]
        return _spelt_as_word(value, segment)
    if kind == _CONST:
        try:
            literal = ast.literal_eval(segment.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return True  # not a literal alone: a folded expression or compiler-made
        # `x in [3, 4]`, `for v in {1, 2}`: CPython folds the display to a constant tuple or
        # frozenset
        if type(literal) is list and type(value) is tuple:
            literal = tuple(literal)
        elif type(literal) is set and type(value) is frozenset:
            literal = frozenset(literal)
        return type(literal) is type(value) and literal == value
    if kind == _OPERATOR:
        return value in segment
    return True


def _spelt_as_word(name, segment):
    """Whether `name` occurs in `segment` as a whole word (not inside a longer identifier)."""
    start = segment.find(name)
    while start >= 0:
        end = start + len(name)
        if (start == 0 or not _is_word_char(segment[start - 1])) and \
                (end == len(segment) or not _is_word_char(segment[end])):
            return True
        start = segment.find(name, start + 1)
    return False


def _is_word_char(char):
    return char.isalnum() or char == "_"


def _same_code(lines, code, last):
    """Whether `lines` still hold the text `code` was compiled from: its first line begins its
    definition, and every name, literal and operator of its instructions (and of the functions
    inside it; `last`: _last_line(code)) is spelt at the line and columns the code object
    records."""
    first = code.co_firstlineno
    if not (0 < first <= len(lines) and _DEFINITION.match(lines[first - 1]) is not None):
        return False
    last = min(len(lines), max(first, last))
    return _spelt({n: lines[n - 1].encode("utf-8") for n in range(first, last + 1)}, code)


def _spelt(lines, code):
    # pytest rewrites assert statements (its names have '@'): what it adds is positioned at the
    # statement and spelt nowhere.
    rewritten = any(name.startswith("@") for name in code.co_names + code.co_varnames)
    # Instructions of one expression share its position (every comparison of a chain has the
    # whole chain's): each position is cut out and decoded once, each check made once, so that
    # a chain of n terms costs time linear in n, not quadratic.
    segments, checked = {}, set()
    for position, kind, value in _instructions(code):
        if position is None or None in position:
            continue
        try:
            if (position, kind, value) in checked:
                continue
        except TypeError:  # an unhashable constant: checked each time
            pass
        if position not in segments:
            segments[position] = _segment(lines, position)
        segment = segments[position]
        if segment is None:
            return False
        if not (rewritten and segment.startswith("assert")) and \
                not _spells(segment, kind, value):
            return False
        try:
            checked.add((position, kind, value))
        except TypeError:
            pass
    return all(_spelt(lines, const) for const in code.co_consts
               if isinstance(const, pytypes.CodeType))


# -- lambdas ------------------------------------------------------------------------------------

def _lambda_nodes(lines):
    """The lambda expressions of a source file, parsed once per file version."""
    key = (len(lines), hash(tuple(lines)))
    nodes = _LAMBDA_NODES.get(key)
    if nodes is None:
        try:
            tree = ast.parse("".join(lines))
        except (SyntaxError, ValueError):
            return []
        nodes = [node for node in ast.walk(tree) if isinstance(node, ast.Lambda)]
        _LAMBDA_NODES[key] = nodes
    return nodes


_LAMBDA_NODES = {}


def _lambda_source(lines, code):
    """A lambda's source: the lambda expression alone, at its line and column, which the
    frontend compiles as `def <lambda>(params): return body`."""
    nodes = _lambda_nodes(lines)
    params = list(code.co_varnames[:code.co_argcount])
    candidates = [node for node in nodes if node.lineno == code.co_firstlineno and
                  [arg.arg for arg in node.args.posonlyargs + node.args.args] == params]
    if len(candidates) > 1:  # several lambdas with these parameters on one line: by columns
        columns = {pos[:3:2] for pos in code.co_positions() if pos[0] is not None}
        candidates = [node for node in candidates if (node.body.lineno, node.body.col_offset)
                      in columns] or candidates[:1]
    if not candidates:
        raise _compile_error("simt: cannot find the source of the lambda in %s:%d; lambdas must"
                             " be defined in a source file"
                             % (code.co_filename, code.co_firstlineno), code)
    node = candidates[0]
    text = ast.get_source_segment("".join(lines), node)
    if "\n" in text and node.col_offset > 0:  # continuation lines need the brackets around it
        text = " " * (node.col_offset - 1) + "(" + text + ")"
    else:
        text = " " * node.col_offset + text
    return text + "\n", node.lineno
