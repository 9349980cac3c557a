"""`make model` (bot.launch train): Rasa's output kept in a log, its warnings off the
terminal, a line saying where; run here with a stand-in for `rasa train` that prints
what Rasa 3.6 prints (its dependencies' deprecation warnings, then its own lines)."""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

from bot import launch

WARNINGS = 25


def fake_rasa(tmp_path: Path, exit_code: int) -> list[str]:
    """A command that prints 25 Python warnings (each with its source line) among its
    own output and exits with exit_code."""
    script = tmp_path / "fake_rasa.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import sys, warnings
            warnings.simplefilter("always")
            for n in range({WARNINGS}):
                warnings.warn(f"call {{n}} is deprecated", DeprecationWarning if n % 2 else UserWarning)
            warnings.warn_explicit("Deprecated.\\nImplementing PEP 420 is preferred.", DeprecationWarning, __file__, 2)
            print("Training NLU model...")
            if {exit_code}:
                print("rasa.shared.exceptions.YamlSyntaxException: bad indentation in domain.yml", file=sys.stderr)
            else:
                print("Your Rasa model is trained and saved at 'models/fabric-advisor.tar.gz'.")
            sys.exit({exit_code})
            """
        ),
        encoding="utf-8",
    )
    return [sys.executable, str(script)]


def test_training_keeps_the_warnings_in_the_log_and_says_where(tmp_path, capsys):
    log = tmp_path / "logs" / "rasa-train.log"
    assert launch.train(fake_rasa(tmp_path, 0), log=log) == 0
    shown = capsys.readouterr()
    assert "Warning" not in shown.out + shown.err
    assert str(log) in shown.out and f"{WARNINGS + 1} warning(s)" in shown.out
    assert "chat model trained in" in shown.out
    kept = log.read_text(encoding="utf-8")
    assert len(re.findall(r"(Deprecation|User)Warning: call \d+ is deprecated", kept)) == WARNINGS
    assert "Your Rasa model is trained" in kept


def test_failed_training_shows_rasas_error_without_the_warnings(tmp_path, capsys):
    log = tmp_path / "rasa-train.log"
    assert launch.train(fake_rasa(tmp_path, 3), log=log) == 3
    shown = capsys.readouterr()
    assert "YamlSyntaxException: bad indentation in domain.yml" in shown.err
    assert "Warning" not in shown.out + shown.err and "warnings.warn" not in shown.err
    assert "PEP 420" not in shown.err  # a warning's second line goes with it
    assert "exit code 3" in shown.err and str(log) in shown.err
