"""SARIF 2.1.0, for code scanning (GitHub's upload-sarif and other SARIF viewers).

One `reportingDescriptor` per rule (its documentation as the descriptions and
help), one result per problem with a full region, URIs relative to the
repository (`uriBaseId` SRCROOT), and `partialFingerprints` that do not contain
the line number: a viewer matches a result across commits when unrelated lines
above it move, and sees it as new when the offending line changes.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

from portlint import __version__
from portlint.model.problems import Problem, Rule
from portlint.report import Context, repository_root

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT = "portlint/v1"
# Positions inside messages ("at docs/x.md:127") move with unrelated edits too.
_POSITION = re.compile(r":\d+(?::\d+)?\b")


def render(problems: list[Problem], context: Context) -> str:
    root = context.root.resolve()
    repository = repository_root(root)
    prefix = _prefix(root, repository)
    index = {rule.code: number for number, rule in enumerate(context.rules)}
    seen: Counter[str] = Counter()
    results = [_result(p, context, prefix, index, seen) for p in problems]
    run = {
        "tool": {"driver": {
            "name": "portlint",
            "version": __version__,
            "semanticVersion": __version__,
            "rules": [_rule(rule) for rule in context.rules],
        }},
        "originalUriBaseIds": {"SRCROOT": {"uri": repository.as_uri().rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",  # portlint's columns count characters
        "results": results,
    }
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _rule(rule: Rule) -> dict[str, Any]:
    doc = rule.doc.strip()
    first, _, body = doc.partition("\n")
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": first.strip()},
        "fullDescription": {"text": body.strip() or first.strip()},
        "help": {"text": f"{doc}\n\nMore: `portlint rule {rule.code}`."},
        "defaultConfiguration": {"level": "error"},
    }


def _result(
    problem: Problem, context: Context, prefix: str, index: dict[str, int], seen: Counter[str],
) -> dict[str, Any]:
    result: dict[str, Any] = {"ruleId": problem.code}
    if problem.code in index:  # a rule the context lists (its descriptor is in the driver)
        result["ruleIndex"] = index[problem.code]
    result.update({"level": "error", "message": {"text": problem.message}})
    if not problem.path:
        return result
    location = {"artifactLocation": {"uri": quote(prefix + problem.path), "uriBaseId": "SRCROOT"}}
    result["locations"] = [{"physicalLocation": {**location, "region": _region(problem)}}]
    key = _fingerprint_key(problem, context)
    seen[key] += 1  # identical lines in one file stay distinct results
    result["partialFingerprints"] = {FINGERPRINT: hashlib.sha256(f"{key}\0{seen[key]}".encode()).hexdigest()}
    if context.applicable(problem):
        assert problem.fix is not None
        result["fixes"] = [{
            "description": {"text": f"{'safe' if problem.fix.safe else 'unsafe'} fix for {problem.code}"},
            "artifactChanges": [{**location, "replacements": [
                {
                    "deletedRegion": {"byteOffset": edit.start, "byteLength": edit.end - edit.start},
                    "insertedContent": {"text": edit.text.decode("utf-8", "replace")},
                }
                for edit in problem.fix.edits
            ]}],
        }]
    return result


def _region(problem: Problem) -> dict[str, int]:
    end_line = problem.end_line or problem.line
    end_column = problem.end_column or problem.column
    if (end_line, end_column) <= (problem.line, problem.column):
        end_line, end_column = problem.line, problem.column + 1  # a point: one character wide
    return {
        "startLine": max(problem.line, 1),
        "startColumn": max(problem.column, 1),
        "endLine": max(end_line, 1),
        "endColumn": max(end_column, 1),
    }


def _fingerprint_key(problem: Problem, context: Context) -> str:
    """Code, path, the offending line's text and the message, never the line number."""
    line = context.source_line(problem.path, problem.line).strip()
    return "\0".join((problem.code, problem.path, line, _POSITION.sub("", problem.message)))


def _prefix(root: Path, repository: Path) -> str:
    relative = root.relative_to(repository).as_posix()
    return "" if relative == "." else relative + "/"
