"""Strict schemas for every file an operator hands Quest, checked by one mechanism.

Each file is read by `quest.safe_yaml.load_yaml` (no anchors or aliases, capped size and
depth) and then validated by a pydantic model that forbids unknown keys and coerces
nothing surprising: `problems: 239, 1` is a string, not a list, and is an error, as is a
misspelled key (`problem:`), an empty file or a time without a zone. Every error names the
file, the line (from the YAML node marks) and the key.

The allowed keys of each file are the fields of its model; the lists below say them once
(`FRONT_MATTER_KEYS`, `PROBLEM_KEYS`, `LOCK_KEYS`, `WINDOW_KEYS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import yaml
from pydantic import (
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)

from quest.kb.documents import KINDS, LANGS, is_source_name, normalize_problem_id
from quest.kb.signatures import parse_signatures
from quest.safe_yaml import UnsafeYAML, load_yaml

Loc = tuple[str | int, ...]
M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class SchemaProblem:
    """One thing wrong with a file: where (line, key path) and what."""

    line: int | None
    key: str  # dotted path, e.g. "windows[0].start"; "" for the whole file
    message: str

    def __str__(self) -> str:
        parts = [f"line {self.line}"] if self.line else []
        parts += [self.key] if self.key else []
        return ": ".join([*parts, self.message])


class SchemaError(ValueError):
    """A file that does not fit its schema. `problems` lists every finding, first one first."""

    def __init__(self, path: Path | str, problems: Sequence[SchemaProblem]) -> None:
        self.path = str(path)
        self.problems = tuple(problems)
        first = self.problems[0] if self.problems else SchemaProblem(None, "", "invalid")
        self.line = first.line
        self.key = first.key
        self.reason = first.message if not first.key else f"{first.key}: {first.message}"
        more = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
        super().__init__(f"{self.path}: {first}{more}")


# --------------------------------------------------------------------------- field types


def _problem_id(value: Any) -> str:
    """An id is a number or a short word ('239', 'P1000', 'A+B'), never a list written as text."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"a problem id must be a number or a word, not {type(value).__name__}")
    pid = normalize_problem_id(value)
    if not pid:
        raise ValueError("a problem id cannot be empty")
    if any(ch in pid for ch in ",; \t\n") or len(pid) > 64:
        raise ValueError(f"{pid!r} is not one problem id (write a list: [239, 1])")
    return pid


def _time_with_zone(value: Any) -> Any:
    """Only a timestamp or its text: a bare number or a date alone is not a moment."""
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        raise ValueError("a date alone is not a moment; write a time with its zone, e.g. 2026-12-01T09:00:00+08:00")
    if isinstance(value, str):
        return value.strip()
    raise ValueError("expected a time with its zone, e.g. 2026-12-01T09:00:00+08:00")


def _word_list(value: Any) -> Any:
    """Lists of words may also be written 'a, b' (the knowledge base always accepted that)."""
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return value


def _problem_set(value: Any) -> list[str] | str:
    """A list of ids, or 'all'. Text such as '239, 1' is refused: the lock must not guess."""
    if isinstance(value, str) and value.strip().lower() == "all":
        return "all"
    if not isinstance(value, list):
        shown = f"the text {value!r}" if isinstance(value, str) else _type_word(value)
        raise ValueError(f"expected a list of problem ids such as [239, 1], or 'all'; got {shown}")
    ids = []
    for i, item in enumerate(value):
        try:
            ids.append(_problem_id(item))
        except ValueError as exc:
            raise ValueError(f"item {i + 1}: {exc}") from None
    return ids


def _raw_problem_id(value: Any) -> str:
    """An id as the judge wrote it ('P1', '排序1'): checked like any id, kept exactly (importers' catalogues)."""
    _problem_id(value)
    return str(value).strip()


ProblemId = Annotated[Any, BeforeValidator(_problem_id)]
RawProblemId = Annotated[Any, BeforeValidator(_raw_problem_id)]
Moment = Annotated[AwareDatetime, BeforeValidator(_time_with_zone)]
Words = Annotated[list[StrictStr], BeforeValidator(_word_list)]
ProblemSet = Annotated[Any, BeforeValidator(_problem_set)]
Signatures = Annotated[Any, BeforeValidator(parse_signatures)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


# --------------------------------------------------------------------------- contest lock


class LockWindowModel(Strict):
    name: StrictStr = ""
    start: Moment = Field(strict=False)
    end: Moment = Field(strict=False)
    problems: ProblemSet = "all"

    @model_validator(mode="after")
    def _ends_after_start(self) -> LockWindowModel:
        if self.end <= self.start:
            raise ValueError("'end' must be after 'start'")
        return self


class LockFileModel(Strict):
    problems: ProblemSet = Field(default_factory=list)
    windows: list[LockWindowModel] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _says_something(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and not data:
            raise ValueError("the lock file names neither 'problems' nor 'windows'")
        return data


# --------------------------------------------------------------------------- problems.yaml

Limit = StrictInt | StrictFloat | StrictStr


class ProblemModel(Strict):
    # Kept as written: the catalogue normalizes starter ids ('#239' -> '239') and keeps an
    # imported judge's own ('P1') under its source (see quest.kb.markdown.load_catalogue).
    id: RawProblemId
    title_zh: StrictStr = ""
    title_en: StrictStr = ""
    # Other titles students know the problem by (a judge's earlier name for it): matched like the titles.
    aka: list[Annotated[StrictStr, Field(min_length=1, max_length=200)]] = Field(default_factory=list, max_length=20)
    # The judge's own names for the problem's entry point ("maxSlidingWindow", a design problem's class "LRUCache"):
    # a student's code that defines one names the problem (quest.resolution.fallbacks.by_code_function).
    functions: list[Annotated[StrictStr, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{3,63}$")]] = Field(
        default_factory=list, max_length=10)
    difficulty: StrictStr = ""
    tags: Words = Field(default_factory=list)
    limits: dict[StrictStr, Limit] = Field(default_factory=dict)
    # Where an imported problem came from (importers write these).
    source: StrictStr | None = None
    url: StrictStr | None = None
    remote_oj: StrictStr | None = None

    @field_validator("title_zh", "title_en", "difficulty", mode="before")
    @classmethod
    def _numbers_as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


# --------------------------------------------------------------------------- front matter


class ExampleModel(Strict):
    input: StrictStr
    output: StrictStr


class FrontMatterModel(Strict):
    id: Annotated[StrictStr, BeforeValidator(lambda v: str(v) if isinstance(v, int) and not isinstance(v, bool)
                                             else v)] = Field(min_length=1)
    kind: Literal[KINDS]  # type: ignore[valid-type]
    title: StrictStr = Field(min_length=1)
    lang: Literal[LANGS] = "en"  # type: ignore[valid-type]
    problem_id: ProblemId | None = None
    tags: Words = Field(default_factory=list)
    verdicts: Words = Field(default_factory=list)
    languages: Words = Field(default_factory=list)
    examples: list[ExampleModel] = Field(default_factory=list)
    # An error pattern's bug as code constructs per language (and verdict): quest.kb.signatures.
    signatures: Signatures = ()
    # Where an imported document came from (importers write these).
    source: StrictStr | None = None
    url: StrictStr | None = None
    remote_oj: StrictStr | None = None

    @field_validator("id", "title", mode="after")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("cannot be blank")
        return value.strip()


def _keys(model: type[BaseModel]) -> tuple[str, ...]:
    return tuple(model.model_fields)


FRONT_MATTER_KEYS = _keys(FrontMatterModel)
PROBLEM_KEYS = _keys(ProblemModel)
LOCK_KEYS = _keys(LockFileModel)
WINDOW_KEYS = _keys(LockWindowModel)


# --------------------------------------------------------------------------- the mechanism


def key_lines(text: str) -> dict[Loc, int]:
    """Every key path in a YAML text -> its 1-based line, from the composed node tree.

    Only called on text `load_yaml` has accepted, so composing it is safe and cheap.
    """
    lines: dict[Loc, int] = {}
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return lines

    def walk(node: yaml.Node, loc: Loc) -> None:
        lines.setdefault(loc, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                child = (*loc, str(key.value))
                lines[child] = key.start_mark.line + 1
                walk(value, child)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, (*loc, i))

    if root is not None:
        walk(root, ())
    return lines


def _dotted(loc: Loc) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _line_for(loc: Loc, lines: Mapping[Loc, int]) -> int | None:
    for end in range(len(loc), -1, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return None


def _message(error: Mapping[str, Any]) -> str:
    if error["type"] == "extra_forbidden":
        return "unknown key (a typo?)"
    if error["type"] == "missing":
        return "required key is missing"
    if error["type"] == "timezone_aware":
        return "needs a time zone, e.g. 2026-12-01T09:00:00+08:00 or ...Z"
    msg = str(error["msg"])
    return msg.removeprefix("Value error, ")


def _problems_from(exc: ValidationError, lines: Mapping[Loc, int], line_offset: int,
                   loc_prefix: Loc = ()) -> list[SchemaProblem]:
    found = []
    for error in exc.errors(include_url=False):
        # Union members and validator names appear in `loc`; keep only the real path.
        loc = tuple(p for p in error["loc"] if isinstance(p, int) or not _is_type_name(p))
        full = (*loc_prefix, *loc)
        line = _line_for(full, lines)
        found.append(SchemaProblem(line + line_offset if line else None, _dotted(full), _message(error)))
    # One finding per key: a union reports each alternative; the first says enough.
    unique: dict[str, SchemaProblem] = {}
    for problem in found:
        unique.setdefault(problem.key, problem)
    return list(unique.values())


def _is_type_name(part: str) -> bool:
    """pydantic puts union members ('list[str]', "literal['en']", 'function-before[...]') in `loc`."""
    return "[" in part or "(" in part or part in {"str", "int", "float", "bool", "none"}


def validate_value(model: type[M], value: Any, path: Path | str, *, text: str = "", line_offset: int = 0,
                   loc_prefix: Loc = ()) -> M:
    """`value` as `model`, or a SchemaError naming the file, the line and the key.

    `text` is the YAML the value came from (for line numbers); `line_offset` is added to
    them (front matter starts on the file's second line); `loc_prefix` is where `value`
    sits inside `text` (a catalogue's `problems` list).
    """
    lines = key_lines(text) if text else {}
    where = (_line_for(loc_prefix, lines) or 1) + line_offset
    if value is None:
        raise SchemaError(path, [SchemaProblem(where, _dotted(loc_prefix), "the file is empty" if not loc_prefix
                                               else "expected a mapping of keys, found nothing")])
    if not isinstance(value, Mapping):
        raise SchemaError(path, [SchemaProblem(where, _dotted(loc_prefix),
                                               f"expected a mapping of keys, not {_type_word(value)}")])
    try:
        return model.model_validate(dict(value))
    except ValidationError as exc:
        raise SchemaError(path, _problems_from(exc, lines, line_offset, loc_prefix)) from None


def _type_word(value: Any) -> str:
    return {list: "a list", str: "text", int: "a number", float: "a number", bool: "true/false"}.get(
        type(value), type(value).__name__)


def load_yaml_file(path: Path | str, *, text: str | None = None) -> tuple[Any, str]:
    """(value, text) of a YAML file through the one safe reader; SchemaError when unreadable."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8") if text is None else text
    except FileNotFoundError:
        raise SchemaError(path, [SchemaProblem(None, "", "file not found")]) from None
    except UnicodeDecodeError as exc:
        raise SchemaError(path, [SchemaProblem(1, "", f"not UTF-8 text ({exc.reason})")]) from None
    except OSError as exc:
        raise SchemaError(path, [SchemaProblem(None, "", f"cannot read: {exc.strerror or exc}")]) from None
    text = text.lstrip("\ufeff")
    return parse_yaml_text(text, path), text


def parse_yaml_text(text: str, path: Path | str, *, line_offset: int = 0) -> Any:
    try:
        return load_yaml(text).value
    except UnsafeYAML as exc:
        line = exc.line + line_offset if exc.line else None
        raise SchemaError(path, [SchemaProblem(line, "", exc.reason)]) from None


def load_lock_file(path: Path | str) -> LockFileModel:
    value, text = load_yaml_file(path)
    return validate_value(LockFileModel, value, path, text=text)


#: The top-level keys of a problems.yaml written as a mapping (importers add `source` and `format`).
CATALOGUE_KEYS = ("problems", "source", "format")


@dataclass(frozen=True)
class CatalogueFile:
    problems: list[ProblemModel]
    source: str = ""  # an import's source name: its ids are the judge's own, qualified by it
    format: str = ""  # the export format it was imported from (fps, hydro, qduoj)


def load_catalogue_file(path: Path | str) -> list[ProblemModel]:
    """A problems.yaml's problems (see `read_catalogue_file`)."""
    return read_catalogue_file(path).problems


def read_catalogue_file(path: Path | str) -> CatalogueFile:
    """A problems.yaml: a list of problems, or a mapping with a `problems` list (and `source`, `format`)."""
    value, text = load_yaml_file(path)
    prefix: Loc = ()
    header: dict[str, str] = {}
    if isinstance(value, Mapping):
        lines = key_lines(text)
        extra = [str(k) for k in value if k not in CATALOGUE_KEYS]
        if extra or "problems" not in value:
            key = extra[0] if extra else ""
            raise SchemaError(path, [SchemaProblem(lines.get((key,), 1), key, "unknown key (a typo?)" if extra
                                                   else "expected a list of problems or a 'problems' key")])
        for key in ("source", "format"):
            field_value = value.get(key, "")
            if not isinstance(field_value, str) or (key == "source" and field_value and not is_source_name(
                    field_value)):
                raise SchemaError(path, [SchemaProblem(lines.get((key,), 1), key,
                                                       "expected a source name (a-z, 0-9, -, _)" if key == "source"
                                                       else "expected text")])
            header[key] = field_value
        value, prefix = value["problems"], ("problems",)
    if value is None:
        raise SchemaError(path, [SchemaProblem(1, "", "the file is empty")])
    if not isinstance(value, list):
        raise SchemaError(path, [SchemaProblem(1, _dotted(prefix), f"expected a list of problems, not "
                                                                   f"{_type_word(value)}")])
    problems, found = [], []
    for i, entry in enumerate(value):
        try:
            problems.append(validate_value(ProblemModel, entry, path, text=text, loc_prefix=(*prefix, i)))
        except SchemaError as exc:
            found.extend(exc.problems)
    if found:
        raise SchemaError(path, found)
    return CatalogueFile(problems, **header)


def validate_front_matter(meta_text: str, path: Path | str, *, line_offset: int = 1) -> FrontMatterModel:
    """The front matter of a knowledge file (the text between the `---` lines)."""
    value = parse_yaml_text(meta_text, path, line_offset=line_offset)
    return validate_value(FrontMatterModel, value, path, text=meta_text, line_offset=line_offset)
