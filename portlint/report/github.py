"""GitHub Actions workflow commands: each problem becomes an annotation on the pull request.

`::error file=PATH,line=L,col=C,endLine=L2,endColumn=C2,title=CODE::message`, escaped
as GitHub's toolkit (@actions/core `toCommandValue`/`escapeData`/`escapeProperty`)
escapes: without it a `%`, a newline, or a `:`/`,` inside a property value would cut
the command short or be read as another property.

GitHub places an annotation by its path from the repository's root, wherever the step
ran: a workflow that sets `working-directory: services/api` still needs
`file=services/api/configs/a.yaml`. So paths here (the problem's, and those its message
names) are relative to the git work tree holding the root (else the root), never to the
working directory.
"""
from __future__ import annotations

from dataclasses import replace

from portlint.model.problems import Problem
from portlint.report import Context, printable, repository_root


def render(problems: list[Problem], context: Context) -> str:
    root = context.root.resolve()
    context = replace(context, root=root, cwd=repository_root(root), _files={}, _lines={}, _paths={})
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
