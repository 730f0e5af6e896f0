"""Global options before or after the command; one name per flag in `python -m quest` and app.py."""

from __future__ import annotations

import re

import pytest

import app
from quest.cli import build_parser, settings_from_args

BARE_MODEL_FLAG = re.compile(r"(?<![\w-])--model\b")  # --model, not --llm-model


def parse(*argv: str):
    return build_parser().parse_args(list(argv))


def test_global_options_before_the_command():
    args = parse("--kb", "kbdir", "--data-dir", "d", "--embedding-model", "none", "-v", "search", "why")
    assert (args.kb_dir, args.data_dir, args.embedding_model, args.verbose) == ("kbdir", "d", "none", 1)


def test_global_options_after_the_command():
    args = parse("search", "why", "--kb", "kbdir", "--data-dir", "d", "--embedding-model", "none", "-vv")
    assert (args.kb_dir, args.data_dir, args.embedding_model, args.verbose) == ("kbdir", "d", "none", 2)


def test_an_option_before_the_command_survives_a_command_that_does_not_repeat_it():
    args = parse("--kb", "before", "search", "why", "--data-dir", "after")
    assert (args.kb_dir, args.data_dir, args.embedding_model, args.verbose) == ("before", "after", None, 0)


def test_after_the_command_wins_over_before():
    assert parse("--kb", "before", "index", "--kb", "after").kb_dir == "after"


def test_subcommands_of_a_command_take_them_too():
    args = parse("kb", "check", "--data-dir", "d", "--embedding-model", "none")
    assert (args.kb_command, args.data_dir, args.embedding_model) == ("check", "d", "none")
    assert parse("feedback", "export", "--csv", "-", "--kb", "k").kb_dir == "k"


def test_the_settings_follow_the_flags():
    settings = settings_from_args(parse("ask", "why", "--embedding-model", "none", "--kb", "kbdir"))
    assert (str(settings.kb_dir), settings.embedding_model) == ("kbdir", "none")


def test_llm_model_in_ask_and_in_the_app_is_the_ollama_model():
    assert parse("ask", "why", "--llm-model", "llama3:8b").ollama_model == "llama3:8b"
    assert app.parse_args(["--llm-model", "llama3:8b"]).ollama_model == "llama3:8b"
    assert app.parse_args(["--embedding-model", "none"]).embedding_model == "none"


def test_old_spellings_still_work_and_say_what_to_use(capsys):
    assert parse("--model", "none", "search", "why").embedding_model == "none"
    assert parse("ask", "why", "--llm", "llama3:8b").ollama_model == "llama3:8b"
    assert app.parse_args(["--model", "llama3:8b"]).ollama_model == "llama3:8b"
    assert capsys.readouterr().err.splitlines() == [
        "warning: --model is deprecated; use --embedding-model",
        "warning: --llm is deprecated; use --llm-model",
        "warning: --model is deprecated; use --llm-model",
    ]


def test_old_spellings_are_hidden_from_help(capsys):
    with pytest.raises(SystemExit):
        app.parse_args(["--help"])
    app_help = capsys.readouterr().out
    assert "--llm-model MODEL" in app_help and not BARE_MODEL_FLAG.search(app_help)
    ask_help = build_parser()._subparsers._group_actions[0].choices["ask"].format_help()
    assert "--llm-model MODEL" in ask_help and "--llm " not in ask_help
    main_help = build_parser().format_help()
    assert "--embedding-model MODEL" in main_help and not BARE_MODEL_FLAG.search(main_help)
