"""cuda.reduce with lambdas: the lambda becomes a generated `def` device function and the reduce
kernel's generated name is a valid identifier."""
import numpy as np

from simt import cuda
from simt.compiler.sourcegen import generated_name, lambda_as_function

sum_reduce = cuda.Reduce(lambda a, b: a + b)


def test_reduce_with_a_lambda():
    data = np.arange(1000, dtype=np.float64)
    assert sum_reduce(data) == data.sum()
    assert cuda.reduce(lambda a, b: max(a, b))(data, init=0) == 999.0


def test_reduce_with_a_lambda_in_a_bracketed_multiline_call():
    scale = 2
    reducer = cuda.reduce(
        lambda x, y: x + y * scale - y
    )
    assert reducer(np.ones(10, dtype=np.int64)) == 10


def test_lambda_as_function_keeps_globals_and_captured_values():
    offset = 5
    function = lambda_as_function(lambda a, b: a - b + offset + len("xy"))  # noqa: E731
    assert function.__name__.startswith("lambda_")
    assert function(10, 3) == 14


def test_two_lambdas_with_the_same_parameters_on_a_line_are_told_apart_by_their_columns():
    pair = (lambda a, b: a + b, lambda a, b: a * b)
    assert lambda_as_function(pair[0])(2, 3) == 5
    assert lambda_as_function(pair[1])(2, 3) == 6


def test_generated_names_are_identifiers():
    assert generated_name("<lambda>") == "_lambda_"
    assert generated_name("add") == "add"
