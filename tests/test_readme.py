"""The README's command lines name real commands and options: every `evalband COMMAND ... --option` written in
the README is listed by that command's --help (a renamed option fails here before a user finds it)."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from evalband.cli.main import COMMANDS, app

README = Path(__file__).resolve().parents[1] / "README.md"


def _command_lines():
    blocks = re.findall(r"```(?:bash|text)\n(.*?)```", README.read_text(encoding="utf8"), re.S)
    for block in blocks:
        for line in block.splitlines():
            m = re.match(r"^(?:\$ )?evalband ([a-z]+)\b(.*)$", line.split("  #")[0].strip())
            if m:
                # a command group's sub-command (subset choose) is part of the command whose --help is read
                sub = re.match(r"^ (choose|estimate|next)\b", m.group(2)) if m.group(1) == "subset" else None
                yield ((m.group(1), sub.group(1)) if sub else m.group(1),
                       set(re.findall(r"(?<!\S)(--[a-z][a-z0-9-]*)", m.group(2))))


def test_readme_commands_and_options_exist():
    lines = list(_command_lines())
    assert len(lines) >= 25  # the README's examples are read (not an empty match)
    runner = CliRunner()
    helps, bad = {}, []
    for command, options in lines:
        words = list(command) if isinstance(command, tuple) else [command]
        if words[0] not in COMMANDS:
            bad.append(f"unknown command {command!r}")
            continue
        if command not in helps:
            helps[command] = runner.invoke(app, [*words, "--help"], env={"COLUMNS": "250"}).stdout
        bad += [f"{command} {o}" for o in sorted(options) if not re.search(rf"(?<![\w-]){o}(?![\w-])", helps[command])]
    assert not bad, bad
    assert set(COMMANDS) <= {c[0] if isinstance(c, tuple) else c for c, _ in lines}  # every command has an example
