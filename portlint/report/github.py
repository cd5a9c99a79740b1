"""GitHub Actions workflow commands: each problem becomes an annotation on the pull request.

`::error file=PATH,line=L,col=C,endLine=L2,endColumn=C2,title=CODE::message`, escaped
as GitHub's toolkit (@actions/core `toCommandValue`/`escapeData`/`escapeProperty`)
escapes: without it a `%`, a newline, or a `:`/`,` inside a property value would cut
the command short or be read as another property.
"""
from __future__ import annotations

from portlint.model.problems import Problem
from portlint.report import Context, printable


def render(problems: list[Problem], context: Context) -> str:
    return "".join(_command(problem, context) + "\n" for problem in problems)


def _command(problem: Problem, context: Context) -> str:
    properties = []
    if problem.path:
        properties += [
            ("file", printable(context.display(problem.path))),
            ("line", str(problem.line)),
            ("col", str(problem.column)),
            ("endLine", str(problem.end_line or problem.line)),
            ("endColumn", str(problem.end_column or problem.column)),
        ]
    properties.append(("title", problem.code))
    shown = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    return f"::error {shown}::{escape_data(printable(context.message(problem)))}"


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")
