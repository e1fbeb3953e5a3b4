"""Every setting has help text and appears in docs/configuration.md (datasette-style docs test)."""

from pathlib import Path

from ltm_desktop.settings import load_settings, save_settings, setting_help

DOC = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


def test_every_setting_is_documented():
    text = DOC.read_text(encoding="utf-8")
    missing = [name for name in setting_help() if f"`{name}`" not in text or f"LTM_{name.upper()}" not in text]
    assert missing == []
    assert all(len(h) > 20 for h in setting_help().values())


def test_environment_overrides_file_overrides_default(tmp_path):
    home = tmp_path / "home"
    s = load_settings({"LTM_HOME": str(home)})
    assert s.http_port == 8322 and s.home == home
    s = save_settings(s, {"http_port": 9001, "ocr_languages": "eng+spa"})
    assert load_settings({"LTM_HOME": str(home)}).http_port == 9001
    assert load_settings({"LTM_HOME": str(home), "LTM_HTTP_PORT": "9100"}).http_port == 9100
    assert load_settings({"LTM_HOME": str(home)}).ocr_languages == "eng+spa"
